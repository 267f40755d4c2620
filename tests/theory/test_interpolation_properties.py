"""Property tests of the interpolation between p = 0 (rank) and p = 2 (Frobenius), THEORY.md sections 1, 4 and 6.

Each property is a ``check_*`` function taking the formula under test as an argument; the ``@given`` test
runs it on the package's formula, and a mutation test runs the same check on a deliberately wrong formula
and asserts that hypothesis finds a counterexample.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from sabounds.numerics.expressions.evaluate import evaluate_float
from sabounds.numerics.spectra import RANK_TOL, numerical_rank, schatten_grid, singular_values
from sabounds.numerics.testbeds.random_matrices import spectrum
from sabounds.numerics.testbeds.strategies import (
    Spectrum,
    any_spectra,
    finds_counterexample,
    flat_spectra,
    low_rank_spectra,
    low_rank_tail_spectra,
    matrices,
)
from sabounds.theory import thm41
from tests.support.published_reference import contributions, default_grid_m, p_grid

SMALL_P = 10.0 ** -np.arange(3, 10)
SCALES = st.floats(0.01, 1000.0)
WIDTHS = st.integers(1, 256)


# Structured witnesses for the mutation tests, tried before any generated example (``finds_counterexample(examples=...)``).


def _flat(d: int, s: float) -> Spectrum:
    return Spectrum("flat", np.full(d, float(s)), d)


def _low_rank(*values: float) -> Spectrum:
    sigma = np.array(values, dtype=float)
    return Spectrum("low_rank", sigma, int(np.count_nonzero(sigma)))


def _low_rank_tail(d: int, k: int, tail_mass: float) -> Spectrum:
    sigma = spectrum("low_rank_tail", np.random.default_rng(0), d, rank=k, tail_mass=tail_mass)
    return Spectrum("low_rank_tail", sigma, d, tail_mass=tail_mass, head=k)


# --- S_p -> rank as p -> 0 -------------------------------------------------------------------------


def check_schatten_tends_to_rank(spec: Spectrum, schatten=schatten_grid) -> None:
    """``|S_p - rank| <= 2 p sum_{i <= rank} |ln sigma_i|`` for small p (``|e^x - 1| <= 2|x|`` for |x| <= 1)."""
    logs = np.abs(np.log(spec.sigma[: spec.rank]))
    for p_small in SMALL_P:
        if p_small * logs.max() > 1:
            continue
        err = abs(schatten(spec.sigma, np.array([p_small]))[0] - spec.rank)
        assert err <= 2 * p_small * logs.sum() + 1e-12 * spec.rank, (p_small, err)


@given(low_rank_spectra())
def test_schatten_quantity_tends_to_rank_as_p_to_0(spec):
    check_schatten_tends_to_rank(spec)


@given(matrices(low_rank_spectra()))
def test_schatten_quantity_of_a_computed_low_rank_matrix_tends_to_its_numerical_rank_above_the_tolerance(case):
    """On a computed SVD the zero singular values come out ~1e-16, so S_p -> D, not rank: the limit holds for the
    singular values above the rank tolerance, and the numerical rank is the exact rank."""
    sigma = singular_values(case.w)
    assert numerical_rank(sigma) == case.spectrum.rank
    kept = sigma[sigma > RANK_TOL * sigma.size * max(sigma[0], 1.0)]
    check_schatten_tends_to_rank(Spectrum("computed", kept, kept.size))


def test_mutation_schatten_with_floored_zeros_does_not_tend_to_rank():
    floored = lambda sigma, ps: schatten_grid(np.maximum(sigma, 1e-16), ps)  # what a computed SVD does
    assert finds_counterexample(
        lambda s: check_schatten_tends_to_rank(s, floored), low_rank_spectra(), examples=[_low_rank(1.0, 0.0)]
    )


# --- log S_p is convex in p --------------------------------------------------------------------------


def check_log_schatten_convex(spec: Spectrum, schatten=schatten_grid) -> None:
    """Second differences of ``log S_p`` on a uniform grid of (0, 2] are >= 0 (Hoelder), up to rounding."""
    ps = np.linspace(0.01, 2.0, 200)
    logs = np.log(schatten(spec.sigma, ps))
    second = logs[2:] - 2 * logs[1:-1] + logs[:-2]
    assert second.min() >= -1e-9 * max(1.0, np.abs(logs).max()), second.min()


@given(any_spectra())
def test_log_schatten_quantity_is_convex_in_p(spec):
    check_log_schatten_convex(spec)


def test_mutation_log_of_sum_of_sigma_to_sqrt_p_is_not_convex():
    wrong = lambda sigma, ps: np.array([np.sum(sigma ** math.sqrt(q)) for q in ps])
    assert finds_counterexample(
        lambda s: check_log_schatten_convex(s, wrong),
        flat_spectra(scale=st.floats(2.0, 100.0)),
        examples=[_flat(2, 2.0)],
    )


# --- Theorem 4.1 bound: endpoints and continuity -----------------------------------------------------


def theorem_41_bound(closed_form: sp.Expr):
    """``(sigma, ps, B, eps, N) -> closed_form`` with ``M = S_p(sigma)``, vectorised over ``ps``."""

    def bound(sigma, ps, B, eps, N):
        values = {thm41.p: ps, thm41.M: schatten_grid(sigma, ps), thm41.B: B, thm41.eps: eps, thm41.N: N}
        return evaluate_float(closed_form, values)

    return bound


BOUND = theorem_41_bound(thm41.closed_form)
BOUND_ARGS = st.tuples(st.floats(0.1, 10.0), st.floats(1e-3, 1.0), st.integers(1, 4096))


def check_bound_endpoints(spec: Spectrum, args, bound=BOUND) -> None:
    """p -> 0+: ``rank * N`` (relative error O(p)); p = 2: ``2 ||W||_F B N^{3/2} / eps`` (to 1e-12)."""
    B, eps, N = args
    near0 = bound(spec.sigma, np.array([1e-9]), B, eps, N)[0]
    assert abs(near0 / (spec.rank * N) - 1) < 1e-6 * (
        1 + abs(math.log(B / eps)) + math.log(N) + np.abs(np.log(spec.sigma[: spec.rank])).sum()
    )
    at2 = bound(spec.sigma, np.array([2.0]), B, eps, N)[0]
    frob = math.sqrt(float(np.sum(spec.sigma**2)))
    assert abs(at2 / (2 * frob * B * N**1.5 / eps) - 1) < 1e-12


@given(low_rank_spectra(), BOUND_ARGS)
def test_theorem_41_bound_is_rank_times_N_at_p_0_and_frobenius_at_p_2(spec, args):
    check_bound_endpoints(spec, args)


def test_mutation_covering_constant_with_2_instead_of_4_fails_the_endpoints():
    wrong_c = ((thm41.p + 2) ** (thm41.p + 2) / (2 * thm41.p**thm41.p)) ** (1 / (thm41.p + 2))
    wrong = theorem_41_bound(thm41.closed_form.subs(thm41.c_of_p, wrong_c))
    assert finds_counterexample(
        lambda x: check_bound_endpoints(*x, bound=wrong),
        st.tuples(low_rank_spectra(), BOUND_ARGS),
        examples=[(_low_rank(1.0, 0.0), (1.0, 1.0, 1))],
    )


def test_mutation_width_exponent_p_over_p_plus_2_fails_the_endpoints():
    wrong = theorem_41_bound(
        thm41.closed_form / thm41.N ** (2 * (thm41.p + 1) / (thm41.p + 2)) * thm41.N ** (2 * thm41.p / (thm41.p + 2))
    )
    assert finds_counterexample(
        lambda x: check_bound_endpoints(*x, bound=wrong),
        st.tuples(low_rank_spectra(), BOUND_ARGS),
        examples=[(_low_rank(1.0, 0.0), (1.0, 1.0, 4))],
    )


def check_continuous_in_p(spec: Spectrum, args, f) -> None:
    """On a grid of step h = 1/2000 over [1/2000, 2], successive values satisfy ``|log f(p + h) - log f(p)| <= K h``
    with ``K = 5 + 3 max|ln sigma_i| + ln D + 2 sum_a |ln a|`` (a the scalar arguments): a bound on |d log f / dp|
    from ``|d ln S_p / dp| <= max |ln sigma_i|`` and ``|(ln c)'| = 2 ln(2/p) / (p+2)^2 <= 5`` there.  No jumps."""
    ps = np.arange(1, 4001) / 2000
    logs = np.log(f(spec.sigma, ps, *args))
    nonzero = spec.sigma[spec.sigma > 0]
    K = 5 + 3 * np.abs(np.log(nonzero)).max() + math.log(spec.d) + 2 * sum(abs(math.log(a)) for a in args)
    jump = np.abs(np.diff(logs)).max()
    assert jump <= K / 2000 * (1 + 1e-9), (jump, K / 2000)


@given(any_spectra(), BOUND_ARGS)
def test_theorem_41_bound_is_continuous_in_p(spec, args):
    check_continuous_in_p(spec, args, BOUND)


def test_mutation_bound_with_covering_constant_at_the_rounded_index_is_discontinuous():
    stepped = thm41.c_of_p.subs(thm41.p, sp.floor(7 * thm41.p) / 7 + sp.Rational(1, 7))
    wrong = theorem_41_bound(thm41.closed_form.subs(thm41.c_of_p, stepped))
    assert finds_counterexample(
        lambda x: check_continuous_in_p(*x, wrong),
        st.tuples(any_spectra(), BOUND_ARGS),
        examples=[(_flat(2, 1.0), (1.0, 1.0, 1))],
    )


def check_bound_minimised_at_rank_endpoint(spec: Spectrum, args, bound=BOUND) -> None:
    """Exactly rank-k, ``sigma_k B / eps >= sqrt(k / N)``: ``(p+2) [log bound(p) - log(kN)] >= (p+2) ln c(p)
    + p [ln(N/k) + 2 ln(sigma_k B / eps)] >= 0`` (S_p >= k sigma_k^p, c >= 1), so the infimum over p is the
    rank endpoint ``k N`` (approached as p -> 0+)."""
    B, eps, N = args
    k = spec.rank
    if spec.sigma[k - 1] * B / eps < math.sqrt(k / N):
        return
    ps = np.concatenate([[1e-9], np.linspace(0.01, 2, 200)])
    values = bound(spec.sigma, ps, B, eps, N)
    assert values.min() >= values[0] * (1 - 1e-6), (ps[int(np.argmin(values))], values.min(), values[0])


@given(low_rank_spectra(), BOUND_ARGS)
def test_theorem_41_bound_is_minimised_at_p_0_for_low_rank_when_sigma_k_B_over_eps_at_least_sqrt_k_over_N(spec, args):
    check_bound_minimised_at_rank_endpoint(spec, args)


def test_mutation_bound_with_epsilon_over_B_moves_the_minimiser_inside():
    wrong = theorem_41_bound(thm41.closed_form.subs(thm41.B, 1 / thm41.B))
    assert finds_counterexample(
        lambda x: check_bound_minimised_at_rank_endpoint(*x, bound=wrong),
        st.tuples(low_rank_spectra(), BOUND_ARGS),
        examples=[(_low_rank(1.0, 0.0), (10.0, 1.0, 1))],
    )


def contribution(sigma, ps, scale, N):
    """The shared section-6 proxy ``tests.support.published_reference.contributions`` of one spectrum."""
    return contributions(schatten_grid(sigma, ps), ps, scale, N)


def published_grid(L: int, N: int) -> np.ndarray:
    """``P_m`` with ``m = ceil(L + ln N)``, from ``tests.support.published_reference``."""
    return p_grid(default_grid_m(L, N))


def _contribution(sigma, ps, scale, N):
    return contribution(sigma, ps, scale, N)


@given(any_spectra(), st.tuples(SCALES, WIDTHS))
def test_proxy_contribution_is_continuous_in_p(spec, args):
    check_continuous_in_p(spec, args, _contribution)


def test_mutation_contribution_with_the_index_rounded_to_the_grid_is_discontinuous():
    def rounded(sigma, ps, scale, N):  # S_p taken at p rounded down to a grid of step 1/7: jumps at k/7
        return contribution(sigma, np.floor(ps * 7 + 1e-7) / 7, scale, N)

    assert finds_counterexample(
        lambda x: check_continuous_in_p(*x, rounded),
        st.tuples(any_spectra(), st.tuples(SCALES, WIDTHS)),
        examples=[(_flat(2, 10.0), (1.0, 1))],
    )


# --- The proxy's contribution: endpoints and the minimiser -----------------------------------------


def check_contribution_endpoints(spec: Spectrum, scale: float, N: int, f=contribution) -> None:
    """``contribution(0) = sqrt(rank N)`` and ``contribution(2) = sqrt(||W||_F scale) N^{3/4}``."""
    c0, c2 = f(spec.sigma, np.array([0.0, 2.0]), scale, N)
    assert abs(c0 / math.sqrt(spec.rank * N) - 1) < 1e-12
    assert abs(c2 / (math.sqrt(math.sqrt(np.sum(spec.sigma**2)) * scale) * N**0.75) - 1) < 1e-12


@given(any_spectra(), SCALES, WIDTHS)
def test_proxy_contribution_is_sqrt_rank_N_at_p_0_and_sqrt_frobenius_scale_at_p_2(spec, scale, N):
    check_contribution_endpoints(spec, scale, N)


def test_mutation_contribution_with_scale_exponent_p_over_2_fails_the_endpoints():
    def wrong(sigma, ps, scale, N):
        return contribution(sigma, ps, 1.0, N) * scale ** (ps / 2)

    assert finds_counterexample(
        lambda x: check_contribution_endpoints(*x, f=wrong),
        st.tuples(any_spectra(), SCALES, WIDTHS),
        examples=[(_flat(2, 1.0), 4.0, 1)],
    )


def check_flat_minimiser_is_the_predicted_endpoint(spec: Spectrum, scale: float, N: int, f=contribution) -> None:
    """Flat spectrum s (D values): ``log contribution = (a + p b)/(p + 2)``, a = ln(D N), b = ln(s scale N), monotone in
    p with sign ``2b - a = ln((s scale)^2 N / D)``: the minimiser is p = 0 if ``(s scale)^2 N >= D``, else p = 2."""
    s = float(spec.sigma[0])
    key = math.log((s * scale) ** 2 * N / spec.d)
    if abs(key) < 1e-9:
        return
    ps = np.linspace(0, 2, 401)
    best = ps[int(np.argmin(f(spec.sigma, ps, scale, N)))]
    assert best == (0.0 if key > 0 else 2.0), (best, key)


@given(flat_spectra(), SCALES, WIDTHS)
def test_flat_spectrum_minimiser_is_p_0_iff_sigma_times_scale_at_least_sqrt_D_over_N_else_p_2(spec, scale, N):
    check_flat_minimiser_is_the_predicted_endpoint(spec, scale, N)


def test_mutation_width_exponent_p_over_p_plus_2_moves_the_flat_threshold():
    def wrong(sigma, ps, scale, N):
        return contribution(sigma, ps, scale, N) / N ** (1 / (ps + 2))

    # (s scale)^2 N < D <= (s scale)^2 N^2: the true minimiser is p = 2, the mutant's is p = 0.
    assert finds_counterexample(
        lambda x: check_flat_minimiser_is_the_predicted_endpoint(*x, f=wrong),
        st.tuples(flat_spectra(), SCALES, WIDTHS),
        examples=[(_flat(3, 1.0), 1.0, 2)],
    )


def check_low_rank_picks_p_0(spec: Spectrum, scale: float, N: int, f=contribution) -> None:
    """Exactly rank-k, N >= k, ``sigma_k * scale >= sqrt(k / N)``: since ``S_p >= k sigma_k^p``,
    ``(p+2) [log c(p) - log c(0)] >= (p/2) [ln(N/k) + 2 ln(sigma_k scale)] >= 0``, so the first minimiser over P_m is 0."""
    k = spec.rank
    if N < k or spec.sigma[k - 1] * scale < math.sqrt(k / N):
        return
    values = f(spec.sigma, published_grid(8, N), scale, N)
    assert int(np.argmin(values)) == 0, values[:3]


@given(low_rank_spectra(), SCALES, WIDTHS)
def test_exactly_low_rank_matrices_pick_p_0_when_sigma_k_times_scale_at_least_sqrt_k_over_N(spec, scale, N):
    check_low_rank_picks_p_0(spec, scale, N)


def test_mutation_scale_entering_with_negative_exponent_does_not_pick_p_0():
    def wrong(sigma, ps, scale, N):
        return contribution(sigma, ps, 1.0, N) * scale ** (-ps / (ps + 2))

    assert finds_counterexample(
        lambda x: check_low_rank_picks_p_0(*x, f=wrong),
        st.tuples(low_rank_spectra(), SCALES, WIDTHS),
        examples=[(_low_rank(1.0, 0.0), 10.0, 1)],
    )


def check_tail_to_zero(spec: Spectrum, scale: float, f=contribution) -> None:
    """Rank-k head plus a tail of mass tau: shrinking tau (same tail shape) (i) never raises ``min_{p > 0}``
    of the contribution (each p > 0 term is increasing in tau), and (ii) once every tail value is below the rank
    tolerance the first minimiser is p = 0 with value sqrt(k N) whenever ``sigma_k scale >= sqrt(k/N)``."""
    k = spec.head
    head, tail = spec.sigma[:k], spec.sigma[k:]
    N = max(spec.d, 4 * k)
    ps = np.linspace(0, 2, 201)[1:]
    previous = math.inf
    for shrink in (1.0, 1e-2, 1e-4, 1e-8, 1e-16):
        inner = f(np.concatenate([head, tail * shrink]), ps, scale, N).min()
        assert inner <= previous * (1 + 1e-12), (shrink, inner, previous)
        previous = inner
    if head[-1] * scale >= math.sqrt(k / N):
        tiny = np.concatenate([head, tail * 1e-12 * RANK_TOL / max(tail.max(), 1e-300)])
        grid = published_grid(8, N)
        values = f(tiny, grid, scale, N)
        assert int(np.argmin(values)) == 0 and abs(values[0] / math.sqrt(k * N) - 1) < 1e-12


@given(low_rank_tail_spectra(), SCALES)
def test_as_tail_mass_tends_to_0_the_minimum_decreases_and_p_0_wins_below_the_rank_tolerance(spec, scale):
    check_tail_to_zero(spec, scale)


def test_mutation_contribution_with_rank_at_p_0_replaced_by_dimension_keeps_p_positive():
    def wrong(sigma, ps, scale, N):
        out = contribution(sigma, ps, scale, N)
        return np.where(ps == 0, math.sqrt(sigma.size * N), out)

    assert finds_counterexample(
        lambda x: check_tail_to_zero(*x, f=wrong),
        st.tuples(low_rank_tail_spectra(), SCALES),
        examples=[(_low_rank_tail(4, 1, 1e-8), 1.0)],
    )


# --- The grid infimum is never above either endpoint -----------------------------------------------


def check_grid_infimum_below_endpoints(spec: Spectrum, scale: float, L: int, N: int, grid=published_grid) -> None:
    """``min_{p in P_m} contribution(p) <= min(contribution(0), contribution(2))`` (seed claim 4)."""
    values = contribution(spec.sigma, grid(L, N), scale, N)
    ends = contribution(spec.sigma, np.array([0.0, 2.0]), scale, N)
    assert values.min() <= ends.min() * (1 + 1e-12)


@given(any_spectra(), SCALES, st.integers(1, 64), WIDTHS)
def test_grid_infimum_is_never_above_either_endpoint(spec, scale, L, N):
    check_grid_infimum_below_endpoints(spec, scale, L, N)


def test_mutation_grid_without_its_endpoints_can_lose_to_an_endpoint():
    def interior(L, N):
        return published_grid(L, N)[1:-1]

    assert finds_counterexample(
        lambda x: check_grid_infimum_below_endpoints(*x, grid=interior),
        st.tuples(flat_spectra(), SCALES, st.integers(1, 64), WIDTHS),
        examples=[(_flat(2, 1.0), 1.0, 1, 1)],
    )


@given(low_rank_tail_spectra())
def test_low_rank_tail_strategy_has_the_tail_mass_it_promises(spec):
    k = spec.head
    assert abs(np.sum(spec.sigma[k:] ** 2) - spec.tail_mass) <= 1e-12 * max(spec.tail_mass, 1e-300) + 1e-300
