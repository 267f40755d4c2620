"""``sabounds scaling`` across checkpoints of different width and depth: points equal single analyses, the
log-log fit is the least-squares plane through them, and the outputs are written as one directory."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sabounds.cli import main
from sabounds.numerics.proxies.model_analysis import analyze_model
from tests.support.bert_files import config, random_weights, write_model


def test_scaling_across_widths_and_depths(tmp_path, capsys):
    dirs = []
    for hidden, layers in ((16, 2), (32, 3), (48, 2)):
        d = tmp_path / f"n{hidden}"
        write_model(
            d,
            random_weights(seed=hidden, layers=layers, hidden=hidden, intermediate=4 * hidden),
            config(layers=layers, hidden=hidden, intermediate=4 * hidden),
        )
        dirs.append(d)
    out = tmp_path / "out"
    assert main(["scaling", *map(str, dirs), "--depths", "1,2", "--json", "--out", str(out)]) == 0
    record = json.loads(capsys.readouterr().out)
    points = record["points"]
    assert [(p["hidden"], p["layers"]) for p in points] == [(16, 1), (16, 2), (32, 1), (32, 2), (48, 1), (48, 2)]
    for p in points:
        assert p["edelman"] == pytest.approx(analyze_model(p["model"], layers=p["layers"]).edelman, rel=1e-12)
    design = np.column_stack([np.ones(6), np.log([p["layers"] for p in points]), np.log([p["hidden"] for p in points])])
    for fit in record["fits"]:
        coef = np.linalg.lstsq(design, np.log([p[fit["quantity"]] for p in points]), rcond=None)[0]
        assert [fit["intercept"], fit["slope_L"], fit["slope_N"]] == pytest.approx(list(coef), rel=1e-9)
    assert sorted(p.name for p in out.iterdir() if p.name != ".sabounds-output") == [
        "fits.csv",
        "growth.csv",
        "scaling.csv",
        "scaling.png",
    ]


def test_depth_beyond_a_checkpoint_is_refused(tmp_path, capsys):
    write_model(tmp_path / "m", random_weights(layers=2), config(layers=2))
    assert main(["scaling", str(tmp_path / "m"), "--depths", "1,3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config.json" in err and "num_hidden_layers" in err


def test_analysis_reports_progress_once_per_layer(tmp_path):
    write_model(tmp_path, random_weights(layers=3), config(layers=3))
    notes = []
    analyze_model(tmp_path, layers=2, progress=notes.append)
    assert notes == ["layer 0", "layer 1"]
