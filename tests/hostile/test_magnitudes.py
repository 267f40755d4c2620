"""Weights from 1e-300 to the float64 maximum, in every stored dtype (tests/support/hostile.py MAGNITUDE_CASES):
``analyze --json`` and ``analyze --out`` succeed with no ``inf``, ``nan`` or ``Infinity`` anywhere and no numpy
warning, or refuse in one line naming the tensors; values beyond float64 come as decimal strings with log10."""

import json
import math
import warnings

import numpy as np
import pytest

from sabounds.cli import main
from sabounds.numerics.log_real import LogReal, dumps, from_ln
from tests.support.hostile import MAGNITUDE_CASES, bad_numbers, snapshot, tiny_model


@pytest.mark.parametrize("case", MAGNITUDE_CASES, ids=[c.id for c in MAGNITUDE_CASES])
def test_magnitudes_never_print_inf_or_nan(case, tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the test's own float16 and float32 casts of huge values
        model = tiny_model(tmp_path / "model", scale=case.scale, dtype=case.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any numpy RuntimeWarning reaching the user fails the case
        rc = main(["analyze", str(model), "--json"])
        out, err = capsys.readouterr()
        if rc == 2:
            assert err.count("\n") == 1 and ("tensor" in err or "layer" in err), err
            print("refused", case.id, err)
            return
        assert rc == 0, err
        assert bad_numbers(out) == [], out[:2000]
        data = json.loads(out)
        assert math.isfinite(data["totals"]["ours"]) and data["totals"]["ours"] > 0
        before = snapshot(tmp_path)
        assert main(["analyze", str(model), "--out", str(tmp_path / "csv")]) == 0
        text = capsys.readouterr().out
    assert bad_numbers(text) == [], text
    for path in (tmp_path / "csv").glob("*.csv"):
        assert bad_numbers(path.read_text()) == [], path.name
    assert set(before) <= set(snapshot(tmp_path))


def test_the_largest_weights_are_refused_naming_the_layer(tmp_path, capsys):
    model = tiny_model(tmp_path / "model", scale=1.7e308, dtype="F64")
    assert main(["analyze", str(model), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "layer 0" in err and "float64" in err


def test_lphi_at_the_float64_limit_runs_without_warnings(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["analyze", "--json", "--lphi", "1e308"]) == 0
    out = capsys.readouterr().out
    assert bad_numbers(out) == []
    assert json.loads(out)["totals"]["edelman"]["log10"] > 308


def test_log_space_edelman_agrees_with_the_float_formula_where_both_exist():
    """The log-space proxies equal the published float ones to 1e-12 relative on ordinary weights (200 random
    stacks), and scale exactly: multiplying every M_out by c multiplies no p = 0 term and is seen in edelman."""
    from tests.support.published_reference import LayerNorms, alphas, edelman, log_alphas, log_edelman

    rng = np.random.default_rng(1)
    for _ in range(200):
        layers = [
            LayerNorms(
                *[
                    rng.uniform(0.1, 3, 2),
                    rng.uniform(0.1, 3, 2),
                    *rng.uniform(0.1, 3, 2),
                    rng.uniform(0.1, 9, 2),
                    rng.uniform(0.1, 9, 2),
                    *rng.uniform(0.1, 9, 2),
                ]
            )
            for _ in range(int(rng.integers(1, 6)))
        ]
        a = alphas(layers)
        assert np.allclose(np.exp(log_alphas(layers)), a, rtol=1e-12)
        assert math.isclose(math.exp(log_edelman(layers, np.log(a))), edelman(layers, a), rel_tol=1e-12)


def test_log_real_prints_decimal_strings_and_log10():
    x = from_ln(1000 * math.log(10) + math.log(2.5))
    assert isinstance(x, LogReal)
    assert x.decimal().startswith("2.5") and x.decimal().endswith("e+1000")
    assert json.loads(dumps({"v": x}))["v"]["log10"] == pytest.approx(1000.39794, abs=1e-5)
    assert f"{x:.3g}" == "2.5e+1000" and f"{x / 1e300:.2e}".endswith("e+700")
    assert from_ln(math.log(5.0)) == pytest.approx(5.0) and from_ln(-math.inf) == 0.0
    assert x > 1e308 and 1e308 < x and not x < 1.0
    with pytest.raises(OverflowError):
        float(x)
    with pytest.raises(ValueError):
        dumps({"v": math.inf})
