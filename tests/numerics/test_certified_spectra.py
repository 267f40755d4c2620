"""Certified spectra: the Gram route agrees with LAPACK to 1e-9 relative wherever its certificate says so (random,
structured and real matrices), refuses ill-conditioned ones (where the Gram route is in fact wrong), and the S_p
upper bound is never below the exact S_p.  Precision: relative 1e-9 against float64 LAPACK (gesdd)."""

import zlib

import numpy as np
import pytest

from sabounds.numerics import certified_spectra as cs
from sabounds.numerics.certified_spectra import (
    GRAM,
    LAPACK,
    certified_singular_values,
    schatten_upper_bound,
    water_filled_schatten,
)
from sabounds.numerics.spectra import schatten_grid
from sabounds.numerics.testbeds.random_matrices import draw, spectrum, with_spectrum


def _lapack(w):
    return np.linalg.svd(np.asarray(w, dtype=np.float64), compute_uv=False)


def _max_relative_error(values, reference):
    return float(np.max(np.abs(values - reference) / reference))


def _random_cases():
    rng = np.random.default_rng(2026)
    cases = [
        rng.standard_normal((n, m)) * s
        for n, m in ((40, 160), (160, 40), (64, 200), (1, 30), (200, 800))
        for s in (1.0, 0.02, 1e-150, 1e150)
    ]
    cases += [with_spectrum(rng, np.linspace(1.0, 0.5, 50), 50, 120), np.eye(30), np.ones((1, 1))]
    return cases


@pytest.mark.parametrize("w", _random_cases())
def test_certified_gram_values_agree_with_lapack(w):
    result = certified_singular_values(w)
    assert result.method == GRAM, "well-conditioned matrices should take the Gram route"
    assert result.relative_error_bound <= 1e-9
    assert _max_relative_error(result.values, _lapack(w)) <= 1e-9


def test_certificate_holds_on_the_real_checkpoint():
    from sabounds.numerics.checkpoints.reader import Checkpoint, CheckpointError, default_model_dir

    try:
        checkpoint = Checkpoint(default_model_dir())
    except CheckpointError as exc:
        pytest.skip(f"bundled checkpoint not installed: {exc}")
    methods = []
    for index in range(checkpoint.shape.layers):
        layer = checkpoint.layer(index)
        for w in (layer.m_in, layer.m_out, layer.qk(0), layer.vt(0)):
            result = certified_singular_values(w)
            methods.append(result.method)
            if result.method == GRAM:
                assert _max_relative_error(result.values, _lapack(w)) <= 1e-9
            else:
                assert np.array_equal(result.values, _lapack(w))
    assert methods.count(GRAM) >= 2 * checkpoint.shape.layers  # every feed-forward matrix of MiniLM certifies
    assert methods.count(LAPACK) >= 1  # the rank-d_h attention products do not


def _ill_conditioned():
    rng = np.random.default_rng(7)
    out = []
    for condition in (1e3, 1e5, 1e8, 1e12):
        out.append(with_spectrum(rng, np.logspace(0, -np.log10(condition), 60), 60, 150))
    out.append(draw("low_rank", rng, 50, 90, rank=10))  # exact zeros
    out.append(with_spectrum(rng, np.r_[np.ones(39), 1e-7], 40, 100))  # one tiny value
    return out


@pytest.mark.parametrize("w", _ill_conditioned())
def test_certificate_refuses_ill_conditioned_matrices(w):
    result = certified_singular_values(w)
    assert result.method == LAPACK and result.relative_error_bound == np.inf
    assert np.array_equal(result.values, _lapack(w))


def test_refusal_is_needed_the_gram_route_is_wrong_there():
    """The uncertified Gram values of an ill-conditioned matrix are off by far more than 1e-9: a certificate that
    claimed them (the mutant: no Weyl radius, only the rounding of the square root) would be false."""
    w = _ill_conditioned()[1]
    lam = np.linalg.eigvalsh(cs.gram_matrix(w))[::-1]
    assert np.all(lam > 0)
    assert _max_relative_error(np.sqrt(lam), _lapack(w)) > 1e-8
    honest = cs.relative_error_bounds(lam, cs.gram_error_bound(lam, float(np.sum(w * w)), *w.shape))
    mutant = cs.relative_error_bounds(lam, 0.0)
    assert np.max(honest) > 1e-9
    assert np.max(mutant) < 1e-9


def test_error_bound_dominates_the_observed_error():
    """Per singular value, the proven relative error is at least the one observed against LAPACK (to LAPACK's own
    rounding, 1e-12 relative here), across spectra whose decay approaches the refusal threshold."""
    rng = np.random.default_rng(11)
    for floor in (0.5, 0.2, 0.1, 0.05):
        w = with_spectrum(rng, np.linspace(1.0, floor, 80), 80, 300)
        lam = np.linalg.eigvalsh(cs.gram_matrix(w))[::-1]
        bounds = cs.relative_error_bounds(lam, cs.gram_error_bound(lam, float(np.sum(w * w)), 80, 300))
        observed = np.abs(np.sqrt(lam) - _lapack(w)) / _lapack(w)
        assert np.all(observed <= bounds + 1e-12)


def _exact_schatten(w, ps):
    s = _lapack(w)
    out = schatten_grid(s, ps)
    out[ps == 0] = s.size
    return out


PS = np.linspace(0.0, 2.0, 21)


@pytest.mark.parametrize("family", ["low_rank", "power_law", "flat", "low_rank_tail"])
@pytest.mark.parametrize("k", [1, 5, 30])
def test_schatten_upper_bound_is_an_upper_bound(family, k):
    rng = np.random.default_rng(zlib.crc32(f"{family}-{k}".encode()))
    for _ in range(3):
        w = draw(family, rng, 60, 140) * rng.uniform(0.01, 100)
        bound = schatten_upper_bound(w, k, PS, seed=int(rng.integers(1 << 30)))
        assert np.all(bound.values >= _exact_schatten(w, PS) * (1 - 1e-12))
        assert bound.label.startswith("upper bound")


def test_schatten_upper_bound_is_tight_where_hoelder_is():
    """A flat spectrum is Hoelder's equality case; with k = D the bound is the exact S_p (p > 0) to 1e-8."""
    rng = np.random.default_rng(3)
    flat = with_spectrum(rng, np.full(40, 2.5), 40, 100)
    assert schatten_upper_bound(flat, 3, PS).values[1:] == pytest.approx(_exact_schatten(flat, PS)[1:], rel=1e-8)
    w = draw("power_law", rng, 40, 100)
    full = schatten_upper_bound(w, 40, PS, iterations=4).values[1:]
    assert full == pytest.approx(_exact_schatten(w, PS)[1:], rel=1e-8)


def test_water_filling_matches_hoelder_formula():
    """With exact top values above the fill level, the bound is sum_{i<=k} s_i^p + (D-k)^{1-p/2} R^{p/2}."""
    top = np.array([3.0, 2.0, 1.5])
    dim, fro2 = 10, 9 + 4 + 2.25 + 7 * 0.5
    ps = np.array([0.5, 1.0, 1.5])
    expected = [np.sum(top**p) + (dim - 3) ** (1 - p / 2) * (fro2 - 15.25) ** (p / 2) for p in ps]
    assert water_filled_schatten(top, fro2, dim, ps) == pytest.approx(expected, rel=1e-14)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="NaN or Inf"):
        certified_singular_values(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="k must lie"):
        schatten_upper_bound(np.ones((3, 4)), 0, PS)
    with pytest.raises(ValueError, match=r"\[0, 2\]"):
        schatten_upper_bound(np.ones((3, 4)), 1, [3.0])
    assert certified_singular_values(np.zeros((3, 5))).values.tolist() == [0.0, 0.0, 0.0]
    assert spectrum("flat", np.random.default_rng(0), 2).size == 2


def test_gram_by_dsyrk_equals_the_matmul_route(monkeypatch):
    """The dsyrk route (upper triangle, mirrored) and numpy's matmul route form the same blocked sums."""
    pytest.importorskip("scipy")
    w = np.random.default_rng(4).standard_normal((40, 600))
    with_syrk = cs.gram_matrix(w, factor=0.5)
    monkeypatch.setattr(cs, "_dsyrk", lambda: None)
    plain = cs.gram_matrix(w, factor=0.5)
    assert np.array_equal(with_syrk, with_syrk.T)
    np.testing.assert_allclose(with_syrk, plain, rtol=1e-13, atol=1e-13 * float(np.max(np.abs(plain))))


def test_every_p_opt_unchanged_against_lapack(tmp_path):
    """analyze's certified route (Gram by dsyrk) against LAPACK alone: the same p_opt for every matrix, totals to
    1e-9 relative (the benchmark checks the same on the BERT-base shape)."""
    from sabounds.numerics.proxies.certified_measure import measure_layer_spectra
    from sabounds.numerics.proxies.model_analysis import analyze_spectra, open_checkpoint
    from tests.support.family_files import write_family

    write_family(tmp_path, "bert", seed=5)
    source = open_checkpoint(tmp_path)
    runs = {
        m: analyze_spectra([measure_layer_spectra(source, i, m)[0] for i in range(source.shape.layers)], source.shape)
        for m in ("certified", "exact")
    }
    assert [m.p_opt for m in runs["certified"].matrices] == [m.p_opt for m in runs["exact"].matrices]
    assert runs["certified"].ours == pytest.approx(runs["exact"].ours, rel=1e-9)
    assert float(runs["certified"].edelman) == pytest.approx(float(runs["exact"].edelman), rel=1e-9)
