"""Figures are looked at as a reader would: each has its colour bar where colour encodes layer or p_opt, labelled
axes (mathtext where a symbol is meant), a label on every line, and comes as PNG, PDF and SVG on request."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

from bert_files import config, random_weights, write_model
from sabounds import plots
from sabounds.cli import main
from sabounds.numerics.proxies.growth import fit_depth_growth
from sabounds.numerics.proxies.model_analysis import analyze_model
from sabounds.numerics.proxies.scaling import ScalingPoint, with_fits


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    d = tmp_path_factory.mktemp("model")
    write_model(d, random_weights(seed=3, layers=3), config(layers=3))
    return analyze_model(d)


def _colourbars(fig) -> list:
    return [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]


def _assert_labelled(fig):
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            assert ax.get_ylabel() or ax.get_xlabel(), "colour bar without a label"
            continue
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title(), ax


@pytest.mark.parametrize("make", [plots.singular_value_decay_figure, plots.contribution_figure, plots.p_opt_figure])
def test_analysis_figures_have_a_labelled_colour_bar(analysis, make):
    fig = make(analysis)
    bars = _colourbars(fig)
    assert len(bars) == 1 and "$" in bars[0].get_ylabel()
    _assert_labelled(fig)
    matplotlib.pyplot.close(fig)


def test_p_opt_heat_map_is_layer_by_head(analysis):
    grids = plots.p_opt_grid(analysis)
    shape = analysis.shape
    assert grids["QK"].shape == grids["V_tilde"].shape == (shape.layers, shape.heads)
    assert grids["feed-forward"].shape == (shape.layers, 2)
    for m in analysis.matrices:
        if m.type == "QK":
            assert grids["QK"][m.layer, m.head] == m.p_opt
    assert not any(np.isnan(g).any() for g in grids.values())
    fig = plots.p_opt_figure(analysis)
    images = [im for ax in fig.axes for im in ax.get_images()]
    assert len(images) == 3 and all(im.get_clim() == (0, 2) for im in images)
    matplotlib.pyplot.close(fig)


def _points(models=("ckptA", "ckptB"), depths=(1, 2, 3, 4), hidden=(64,)):
    return [ScalingPoint(m, L, n, n // 16, ours=10.0 * L * (i + 1), edelman=50.0 * 7.0 ** L)
            for i, m in enumerate(models) for n in hidden for L in depths]


def test_scaling_figure_labels_every_line_per_checkpoint():
    fig = plots.scaling_figure_object(with_fits(_points()))
    lines = [line for ax in fig.axes for line in ax.get_lines()]
    assert len(lines) == 4  # 2 proxies x 2 checkpoints
    labels = [line.get_label() for line in lines]
    assert all(label and not label.startswith("_") for label in labels)
    assert len(set(labels)) == 4 and all(("ckptA" in lab) != ("ckptB" in lab) for lab in labels)
    assert any("per layer" in lab for lab in labels if "edelman" in lab)
    _assert_labelled(fig)
    matplotlib.pyplot.close(fig)


def test_scaling_figure_against_width_labels_each_depth():
    fig = plots.scaling_figure_object(with_fits(_points(models=("ckptA",), depths=(1, 2), hidden=(32, 64, 128))))
    assert len(fig.axes) == 2
    width_lines = fig.axes[1].get_lines()
    assert width_lines and all(not line.get_label().startswith("_") for line in width_lines)
    matplotlib.pyplot.close(fig)


def test_growth_factor_recovers_an_exponential_and_a_power():
    depths = [1, 2, 3, 4, 5, 6]
    exp_fit = fit_depth_growth("edelman", "m", depths, [3.0 * 40.0 ** L for L in depths])
    assert exp_fit.kind == "exponential" and exp_fit.factor == pytest.approx(40.0, rel=1e-12)
    power_fit = fit_depth_growth("ours", "m", depths, [5.0 * L ** 1.5 for L in depths])
    assert power_fit.kind == "power" and power_fit.power == pytest.approx(1.5, rel=1e-12)
    assert "per layer" in exp_fit.describe() and "L^1.50" in power_fit.describe()
    assert fit_depth_growth("ours", "m", [1, 2], [1.0, 2.0]).kind == "undetermined"
    with pytest.raises(ValueError):
        fit_depth_growth("ours", "m", [1, 2], [1.0, math.inf])


def test_every_figure_in_every_format(tmp_path, capsys):
    model = tmp_path / "model"
    write_model(model, random_weights(seed=1, layers=2), config(layers=2))
    out = tmp_path / "out"
    assert main(["analyze", str(model), "--out", str(out), "--plots", "--figure-format", "png,pdf,svg",
                 "--dpi", "72"]) == 0
    for stem in ("singular_value_decay", "contribution_vs_p", "p_opt_per_layer"):
        assert (out / f"{stem}.pdf").read_bytes().startswith(b"%PDF")
        assert b"<svg" in (out / f"{stem}.svg").read_bytes()[:2000]
        assert (out / f"{stem}.png").read_bytes().startswith(b"\x89PNG")
    scaling_out = tmp_path / "scaling"
    assert main(["scaling", str(model), "--depths", "1,2", "--out", str(scaling_out), "--figure-format", "svg,pdf"]) == 0
    assert {p.name for p in scaling_out.iterdir()} >= {"scaling.svg", "scaling.pdf", "growth.csv"}


@pytest.mark.parametrize("args", [["--figure-format", "jpg"], ["--figure-format", ","], ["--dpi", "0"], ["--dpi", "5000"]])
def test_bad_figure_options_are_one_line_errors(args, tmp_path, capsys):
    model = tmp_path / "model"
    write_model(model, random_weights(seed=1, layers=2), config(layers=2))
    try:
        rc = main(["analyze", str(model), "--out", str(tmp_path / "o"), "--plots", *args])
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2 and capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "o").exists()


def test_the_inspection_catches_a_figure_without_colour_bar_or_labels():
    """The checks above fail on a mutant: an unlabelled line plot coloured by layer with no colour bar."""
    fig, ax = matplotlib.pyplot.subplots()
    ax.plot([1, 2], [3, 4], color=matplotlib.pyplot.cm.viridis(0.5))
    assert _colourbars(fig) == []
    assert ax.get_lines()[0].get_label().startswith("_")
    with pytest.raises(AssertionError):
        _assert_labelled(fig)
    matplotlib.pyplot.close(fig)
