"""The p = 0 certificate (Cholesky tests on the Gram matrix) against the exact route (LAPACK singular values)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sabounds.numerics.p_zero_certificate import p_zero_evidence, p_zero_proven
from sabounds.numerics.spectra import log_schatten_grid, numerical_rank
from tests.support.published_reference import minimise_log, p_grid

PS = p_grid(12)


def _matrix(seed, n=48, m=160, decay=0.0, scale=0.02):
    rng = np.random.default_rng(seed)
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((m, n)))
    sigma = scale * np.exp(-decay * np.arange(n)) * (1 + rng.random(n))
    return (u * sigma) @ v.T


def _exact_p_opt(w, log_scale, hidden):
    sigma = np.linalg.svd(w, compute_uv=False)
    _, best, minima = minimise_log(log_schatten_grid(sigma, PS)[None, :], PS, np.array([log_scale]), hidden)
    return float(PS[best[0]]), float(minima[0]), sigma


@pytest.mark.parametrize("seed", range(6))
def test_sigma_one_bracket_is_tight_and_holds(seed):
    w = _matrix(seed, decay=0.05 * seed)
    ev = p_zero_evidence(w)
    sigma = np.linalg.svd(w, compute_uv=False)
    assert ev.sigma1_lower <= sigma[0] <= ev.sigma1_upper
    assert (ev.sigma1_upper - ev.sigma1_lower) / sigma[0] < 1e-7
    assert ev.full_rank == (numerical_rank(sigma) == len(sigma))
    assert ev.sigma_min_lower <= sigma[-1]
    assert ev.frobenius == pytest.approx(float(np.linalg.norm(w)), rel=1e-12)


@pytest.mark.parametrize("log_scale", [0.0, 5.0, 20.0, 200.0, 700.0])
@pytest.mark.parametrize("seed", range(4))
def test_proven_p_zero_agrees_with_the_exact_route(seed, log_scale):
    """Whenever the certificate proves p = 0, LAPACK's spectra give p_opt = 0 and the same sqrt(D N) term; at a
    scale where p > 0 pays, it proves nothing."""
    w = _matrix(seed, decay=0.02 * seed)
    hidden = 64
    p_opt, minimum, sigma = _exact_p_opt(w, log_scale, hidden)
    ev = p_zero_evidence(w)
    proven = p_zero_proven(ev, PS, log_scale, hidden)
    if proven:
        assert p_opt == 0.0 and minimum == pytest.approx(math.sqrt(len(sigma) * hidden), rel=1e-15)
    if log_scale >= 200.0:
        assert proven  # astronomically large scales: the certificate must succeed
    if p_opt > 0:
        assert not proven


def test_rank_deficient_matrix_is_not_proven_full():
    w = _matrix(1)
    w[-1] = w[0]  # rank D - 1
    ev = p_zero_evidence(w)
    assert not ev.full_rank and not p_zero_proven(ev, PS, 700.0, 64)


def test_a_lower_scale_can_only_lose_the_certificate():
    ev = p_zero_evidence(_matrix(2))
    proven = [p_zero_proven(ev, PS, s, 64) for s in np.linspace(-5, 50, 56)]
    first = proven.index(True)
    assert all(proven[first:]) and not any(proven[:first])
