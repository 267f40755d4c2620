"""sabounds.numerics.spectra: S_p, the numerical rank of the published proxy, and the vectorised p grid."""

import numpy as np
import pytest

from sabounds.numerics.spectra import numerical_rank, schatten, schatten_grid, singular_values
from sabounds.numerics.testbeds.random_matrices import draw, spectrum, with_spectrum


def test_schatten_endpoints():
    rng = np.random.default_rng(0)
    w = draw("power_law", rng, 30, 20)
    s = singular_values(w)
    assert schatten(s, 2) == pytest.approx(np.linalg.norm(w, "fro") ** 2, rel=1e-12)
    assert schatten(s, 1) == pytest.approx(np.linalg.norm(w, "nuc"), rel=1e-12)
    assert schatten(s, 0) == 20


def test_numerical_rank_of_exactly_low_rank():
    rng = np.random.default_rng(1)
    w = draw("low_rank", rng, 40, 30, rank=7)
    assert numerical_rank(singular_values(w)) == 7


def test_numerical_rank_uses_the_published_threshold():
    sigma = np.array([5.0, 1e-8, 3e-9, 1e-12])
    # threshold 1e-10 * 4 * 5 = 2e-9
    assert numerical_rank(sigma) == 3


def test_grid_matches_pointwise():
    rng = np.random.default_rng(2)
    s = spectrum("low_rank_tail", rng, 25)
    ps = np.linspace(0, 2, 17)
    assert np.allclose(schatten_grid(s, ps), [schatten(s, q) for q in ps], rtol=1e-13)


@pytest.mark.parametrize("bad", [-0.1, 2.5, float("nan")])
def test_p_outside_range_is_rejected(bad):
    with pytest.raises(ValueError, match=r"\[0, 2\]"):
        schatten(np.ones(3), bad)
    with pytest.raises(ValueError):
        schatten_grid(np.ones(3), np.array([0.5, bad]))


def test_nan_matrix_is_rejected():
    w = np.ones((3, 3))
    w[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        singular_values(w)


def test_prescribed_spectrum_is_realised():
    rng = np.random.default_rng(3)
    sig = spectrum("power_law", rng, 12, beta=1.0)
    assert np.allclose(singular_values(with_spectrum(rng, sig, 20, 12)), sig, rtol=1e-12)


def test_schatten_norm_is_S_p_to_the_1_over_p():
    rng = np.random.default_rng(4)
    s = singular_values(draw("power_law", rng, 12, 9))
    from sabounds.numerics.spectra import schatten_norm

    assert schatten_norm(s, 2) == pytest.approx(np.linalg.norm(s), rel=1e-13)
    assert schatten_norm(s, 1) == pytest.approx(s.sum(), rel=1e-13)
    assert schatten_norm(s, 0.5) == pytest.approx(np.sum(np.sqrt(s)) ** 2, rel=1e-13)
    with pytest.raises(ValueError, match="p > 0"):
        schatten_norm(s, 0)
