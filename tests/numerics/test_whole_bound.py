"""The whole bound (``sabounds.numerics.bound``): a hand-worked tiny model, n needed, break-even, precision."""

from __future__ import annotations

import itertools
import math
import sys

import mpmath
import numpy as np
import pytest

from sabounds.numerics.bound.analysis import analyze_bound
from sabounds.numerics.bound.compiled import compiled, constants_key
from sabounds.numerics.bound.slots import PUBLISHED, TIGHT, LayerInput, build_model, shell, shell_cost
from sabounds.numerics.bound.solve import bound_at, n_needed, proxy_break_even, whole_break_even
from sabounds.numerics.bound.whole import BoundInputs, ours_sum, tables
from sabounds.numerics.bound.whole import evaluate_model as evaluate
from sabounds.numerics.norms import norm_21
from sabounds.numerics.testbeds.random_stacks import bert_like_stack
from tests.support.published_reference import minimise

mp = mpmath.mp


def rank_one(top: float = 1.0) -> np.ndarray:
    return np.array([top, 0.0])


def tiny_model():
    """One layer, one head, N = 2, feed-forward width 2; every matrix rank 1 with sigma_1 = 1 and (2,1)-norm 1."""
    layer = LayerInput(
        qk=[rank_one()],
        vt=[rank_one()],
        m_in=rank_one(),
        m_out=rank_one(),
        qk_21=[1.0],
        vt_21=[1.0],
        m_in_21=1.0,
        m_out_21=1.0,
        intermediate=2,
    )
    return build_model([layer], 2)


# Hand formulas, typed from THEORY.md sections 4, 5, 5b and the module docstring of sabounds.theory.whole_bound.
def c_crude(p):
    return ((p + 2) ** (p + 2) / (4 * p**p)) ** (1 / (p + 2))


def c_sharp(p):
    return 2 / (2 - p) * ((2 - p) / p) ** (p / 2)


def integral(w, h, Delta):
    """int_0^Delta eps^{w-1} log(Delta/eps)^h d eps."""
    return Delta**w * mpmath.gamma(1 + h) / w ** (1 + h)


def hand(n, delta, gamma, T, B=1, c_par=5):
    """The tiny model's three bounds by hand: rho = (2 B^2, 1, 1, 1) (gamma_QK = 2 B^2 ||Vt|| ||M_out|| ||M_in|| on
    tokens of norm B, alpha = 1), Edelman's rho^E = (B^2, 1, 1, 1) (gamma^E, no factor 2), K = 4, m = ceil(1 + ln 2) = 2, grid {0, 1/2, 1, 3/2, 2},
    d_in = d_out = D = 2, rank 1, S_p = 1, all radii 1, so every slot's input norm bound is B.  For p > 0 the cover
    budget is split (head and tail at eps/2): the coefficient gains 2^t and the allocated log ell0 + log 2."""
    n, delta, gamma, T, B = (mpmath.mpf(x) for x in (n, delta, gamma, T, B))
    K, m, d, Delta = 4, 2, 2, gamma
    rho = [2 * B**2, 1, 1, 1]
    grid = [mpmath.mpf(j) / m for j in range(2 * m + 1)]
    ell_M = mpmath.log(2 * d * d * n * T)
    ell0 = [max(mpmath.log(c_par * 1 * B * K * r / Delta), 0) for r in rho]
    ell0s = [e0 + mpmath.log(2) for e0 in ell0]
    pre = 2 * 12 / (gamma * mpmath.sqrt(n))

    def rank_share(k, rank=1, logs=ell0):
        return mpmath.sqrt(rank * 2 * d) * (mpmath.sqrt(logs[k]) + mpmath.gamma(1.5)) * Delta

    def share(p, k):  # sum aggregation; p > 0 adds the integer rounding of r*, a rank-1 share
        if p == 0:
            return rank_share(k)
        return share_without_rounding(p, k) + rank_share(k, logs=ell0s)

    def share_without_rounding(p, k):
        t, e = 2 * p / (p + 2), 2 / (p + 2)
        C = 2**t * c_crude(p) * (2 * d) ** e * (ell_M * d * d * B**2) ** (p / (p + 2))
        crude = mpmath.sqrt(C * (K * rho[k]) ** t) * (
            ell0s[k] ** (e / 2) * integral(1 - t / 2, 0, Delta) + integral(1 - t / 2, e / 2, Delta)
        )
        if p == 2:
            return crude
        C2 = 2**p * c_sharp(p) * (2 * d) ** (1 - p / 2) * (ell_M * d * B**2) ** (p / 2)
        e2 = 1 - p / 2
        sharp = mpmath.sqrt(C2 * (K * rho[k]) ** p) * (
            ell0s[k] ** (e2 / 2) * integral(1 - p / 2, 0, Delta) + integral(1 - p / 2, e2 / 2, Delta)
        )
        return min(crude, sharp)

    def cs(p, k):  # int_0^Delta of slot k's cover
        if p == 0:
            return 2 * d * (ell0[k] * Delta + Delta)
        return cs_without_rounding(p, k) + 2 * d * (ell0s[k] * Delta + Delta)

    def cs_without_rounding(p, k):
        if p == 2:
            return mpmath.inf
        t, e = 2 * p / (p + 2), 2 / (p + 2)
        C = 2**t * c_crude(p) * (2 * d) ** e * (ell_M * d * d * B**2) ** (p / (p + 2))
        crude = C * (K * rho[k]) ** t * (ell0s[k] ** e * integral(1 - t, 0, Delta) + integral(1 - t, e, Delta))
        if p >= 1:
            return crude
        C2 = 2**p * c_sharp(p) * (2 * d) ** (1 - p / 2) * (ell_M * d * B**2) ** (p / 2)
        e2 = 1 - p / 2
        return min(
            crude, C2 * (K * rho[k]) ** p * (ell0s[k] ** e2 * integral(1 - p, 0, Delta) + integral(1 - p, e2, Delta))
        )

    # every price is ln 2: rank choice ln D = ln 2, S_p = 1 in shell z = 0 (i = 1), spectral radii 1 (i = 1)
    cost = K * mpmath.log(2 * m + 1) + K * mpmath.log(2) + K * mpmath.log(2)
    post = 3 * mpmath.sqrt(cost / (2 * n))
    conf = 3 * mpmath.sqrt(mpmath.log(2 / delta) / (2 * n))
    ours_sum = (
        min(pre * sum(share(p, k) for k, p in enumerate(ps)) for ps in itertools.product(grid, repeat=K)) + post + conf
    )
    rss_cs = min(
        mpmath.sqrt(Delta * sum(cs(p, k) for k, p in enumerate(ps))) for ps in itertools.product(grid, repeat=K)
    )
    rss_equal = []
    for p in grid:
        t, e = 2 * p / (p + 2), 2 / (p + 2)
        C = 2**t * c_crude(p) * (2 * d) ** e * (ell_M * d * d * B**2) ** (p / (p + 2)) if p > 0 else 2 * d
        logs = ell0s if p > 0 else ell0
        main = sum(C * (K * r) ** t * logs[k] ** e for k, r in enumerate(rho))
        rem = sum(C * (K * r) ** t for r in rho)
        value = mpmath.sqrt(main) * integral(1 - t / 2, 0, Delta) + mpmath.sqrt(rem) * integral(1 - t / 2, e / 2, Delta)
        if p > 0:
            value += (
                mpmath.sqrt(sum(2 * d * e0 for e0 in ell0s)) * Delta
                + mpmath.sqrt(K * 2 * d) * mpmath.gamma(1.5) * Delta
            )
        rss_equal.append(value)
    ours_rss = pre * min(rss_cs, min(rss_equal)) + post + conf
    W_E = sum(r ** (mpmath.mpf(2) / 3) for r in [B**2, 1, 1, 1]) ** 1.5
    ell_E = mpmath.log(2 * 4 * n * T)
    edelman = (
        2 / gamma * (4 * Delta / n + 12 * W_E * B * mpmath.sqrt(ell_E / n) * mpmath.log(n))
        + 3 * mpmath.sqrt(8 * mpmath.log(2) / (2 * n))
        + conf
    )
    return ours_sum, ours_rss, edelman


@pytest.mark.parametrize(
    "n, delta, gamma, T, B",
    [(10**6, 0.05, 1, 16, 1), (10**4, 0.1, 0.25, 3, 1), (10**12, 0.01, 4, 512, 1), (10**6, 0.05, 1, 16, 3)],
)
def test_hand_worked_tiny_model_to_1e_12(n, delta, gamma, T, B):
    """One layer, one head, rank-1 matrices: all three bounds equal the hand formulas (global minimum over the
    5^4 p-vectors, taken by brute force) to 1e-12 relative; B = 3 puts B^2 in QK's gamma (unit tokens would not)."""
    model = tiny_model()
    with mpmath.workdps(30):
        got = evaluate(model, PUBLISHED, BoundInputs(n=n, delta=delta, margin=gamma, tokens=T, input_norm=B))
        want = hand(n, delta, gamma, T, B)
        for b, w in zip((got.ours_sum, got.ours_rss, got.edelman), want):
            assert abs(b.total / w - 1) < mpmath.mpf(10) ** -12, (b.name, b.total, w)
            assert abs(mpmath.fsum(t.value for t in b.terms) - b.total) == 0


def test_hand_formula_detects_a_changed_constant():
    """The hand check is sensitive: the package with c_par = 4 no longer matches the hand value for c_par = 5."""
    model = tiny_model()
    got = evaluate(
        model, PUBLISHED, BoundInputs(n=10**6, delta=0.05, margin=1, tokens=16, constants=constants_key({"c_par": 4}))
    )
    want = hand(10**6, 0.05, 1, 16)
    assert abs(got.ours_sum.total / want[0] - 1) > 1e-4
    assert abs(got.ours_sum.total / hand(10**6, 0.05, 1, 16, c_par=4)[0] - 1) < 1e-12


def test_dudley_constant_scales_the_dudley_terms_exactly():
    model = tiny_model()
    base = evaluate(model, PUBLISHED, BoundInputs(n=10**6, delta=0.05, margin=1, tokens=16))
    half = evaluate(
        model, PUBLISHED, BoundInputs(n=10**6, delta=0.05, margin=1, tokens=16, constants=constants_key({"c_D": 6}))
    )
    for a, b in zip(base.ours_sum.terms, half.ours_sum.terms):
        ratio = b.value / a.value if a.value else 1
        assert abs(ratio - (0.5 if a.key.startswith("dudley") else 1)) < mpmath.mpf(10) ** -25


def test_shells_and_their_prices():
    assert [shell(x) for x in (1.0, 1.5, 2.0, 2.1, 0.5, 0.3, 0.0)] == [0, 1, 1, 2, -1, -1, 0]
    assert sum(math.exp(-shell_cost(z)) for z in range(-2000, 2000)) == pytest.approx(1, abs=1e-3)


def test_shell_radius_bounds_values_one_ulp_above_a_power_of_two():
    # ceil(log2(16 (1 + 2^-52))) is 4 (log2 rounds to 4.0), so the radius 2^4 was below the value it bounds
    for k in range(-60, 61):
        for v in (2.0**k, math.nextafter(2.0**k, math.inf), math.nextafter(2.0**k, 0.0)):
            z = shell(v)
            assert 2.0 ** (z - 1) < v <= 2.0**z, (k, v, z)


def _layer_input(layer, N, scale=1.0):
    sv = lambda a: np.linalg.svd(scale * a, compute_uv=False)
    return LayerInput(
        qk=[sv(a) for a in layer.qk],
        vt=[sv(a) for a in layer.vt],
        m_in=sv(layer.m_in),
        m_out=sv(layer.m_out),
        qk_21=[float(norm_21(scale * a)) for a in layer.qk],
        vt_21=[float(norm_21(scale * a)) for a in layer.vt],
        m_in_21=float(norm_21(scale * layer.m_in)),
        m_out_21=float(norm_21(scale * layer.m_out)),
        intermediate=4 * N,
    )


def random_model(seed: int, scale: float = 1.0):
    stack = bert_like_stack(np.random.default_rng(seed), 2, 16, 2)
    return build_model([_layer_input(layer, 16, scale) for layer in stack.layers], 16)


@pytest.mark.parametrize("which", ["ours_sum", "ours_rss", "edelman"])
def test_n_needed_solves_bound_equal_target(which):
    """The n printed as 'below the target from n = ...' is the bracket's end below the target (it was the root, where
    the bound equals 1 and is vacuous)."""
    model = random_model(0)
    setting = BoundInputs(n=10**6, delta=0.05, margin=1.0)
    with mpmath.workdps(30):
        r = n_needed(model, PUBLISHED, setting, which, target=1)
        at_n = bound_at(model, PUBLISHED, setting.at_n(r.n), which).total
        assert 1 - mpmath.mpf(10) ** -20 < at_n < 1, "n needed is where the bound is below the target, within 1e-20"
        assert (
            bound_at(model, PUBLISHED, setting.at_n(r.lo), which).total
            > 1
            > bound_at(model, PUBLISHED, setting.at_n(r.hi), which).total
        )
        assert r.lo <= r.n == r.hi


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_proxy_break_even_moves_p_opt_off_zero(seed):
    """Shrinking kappa = gamma alpha L by f (1 + 1e-9) moves the published proxy's p_opt off 0; by f (1 - 1e-9) it
    stays at 0.  Random stacks where p_opt is interior for some matrices (f < 1) and 0 for others (f > 1)."""
    model = random_model(seed)
    be = proxy_break_even(model)
    from sabounds.numerics.bound.slots import rhos

    kappa = np.array([float(r) * model.layers for r in rhos(model, PUBLISHED, rounded=False)])
    s_p = np.array([s.schatten for s in model.slots])
    _, best, _ = minimise(s_p, model.ps, kappa, model.hidden)
    assert (model.ps[best] > 0).any() and (model.ps[best] == 0).any()
    for k, f in enumerate(be.per_slot):
        shrink = np.ones(model.K)
        for factor, moved in ((float(f) * (1 + 1e-9), True), (float(f) * (1 - 1e-9), False)):
            shrink[k] = factor
            _, best, _ = minimise(s_p, model.ps, kappa / shrink, model.hidden)
            assert (model.ps[best[k]] > 0) == moved, (k, f, factor)
    assert be.model_factor == min(be.per_slot)


def test_whole_break_even_moves_p_opt_off_zero():
    """The whole bound (sum aggregation, the bound's own choice of p): shrinking rho_k by f (1 + 1e-6) moves slot k
    off p = 0, by f (1 - 1e-6) it stays; shrinking every rho by the model's factor (1 +- 1e-6) moves some slot / none."""
    model = random_model(0)
    setting = BoundInputs(n=10**6, delta=0.05, margin=1.0)
    comp = compiled(setting.constants)
    be = whole_break_even(model, PUBLISHED, setting)
    assert all(f is not None and f > 1 for f in be.per_slot)
    for k in range(model.K):
        for factor, moved in (
            (be.per_slot[k] * (1 + mpmath.mpf("1e-6")), True),
            (be.per_slot[k] * (1 - mpmath.mpf("1e-6")), False),
        ):
            shrink = [1] * model.K
            shrink[k] = factor
            b = ours_sum(comp, model, setting, tables(model, PUBLISHED, setting, comp, shrink))
            assert (b.p_opt[k] > 0) == moved, (k, factor)
    for factor, moved in (
        (be.model_factor * (1 + mpmath.mpf("1e-6")), True),
        (be.model_factor * (1 - mpmath.mpf("1e-6")), False),
    ):
        b = ours_sum(comp, model, setting, tables(model, PUBLISHED, setting, comp, [factor] * model.K))
        assert bool((b.p_opt > 0).any()) == moved
    # both factors are bisection results (45 halvings of a log bracket, and the model's bracket starts 1e-12 above the
    # smallest slot's): where the smallest slot sets the model's factor they agree to about 1e-12 relative
    assert be.model_factor <= min(be.per_slot) * (1 + mpmath.mpf("1e-11"))


def test_choice_is_a_coordinate_minimum_and_interior_where_it_pays():
    """Scaled down, the random stack has slots at interior p; no single-slot change of p lowers the float objective."""
    from sabounds.numerics.bound.whole import _logsumexp, objective_for

    model = random_model(0, scale=0.3)
    setting = BoundInputs(n=10**6, delta=0.05, margin=1.0)
    comp = compiled(setting.constants)
    t = tables(model, PUBLISHED, setting, comp)
    b = ours_sum(comp, model, setting, t)
    assert ((b.p_opt > 0) & (b.p_opt < 2)).any()
    choice = np.round(b.p_opt * model.grid_m).astype(int)
    obj = objective_for(comp, setting, "sum")
    rows = np.arange(model.K)
    value = lambda c: float(obj(_logsumexp(t.log_sum[rows, c]), t.base_cost + t.cost[rows, c].sum()))
    best = value(choice)
    for k in range(model.K):
        for j in range(len(model.ps)):
            other = choice.copy()
            other[k] = j
            assert value(other) >= best - 1e-12 * abs(best)


def test_doubling_precision_changes_no_printed_verdict_digit():
    from sabounds.render.bound_text import bound_text_lines as report_lines

    model = random_model(1)
    lines = []
    for dps in (30, 60):
        a = analyze_bound(model, BoundInputs(n=10**6, delta=0.05, margin=1.0, dps=dps))
        text = report_lines(a)
        lines.append([x for x in text if "total" in x or "vacuous" in x or "break" in x.lower() or "model " in x])
    assert lines[0] == lines[1]


def test_tighter_constants_never_raise_the_bound():
    model = random_model(2)
    setting = BoundInputs(n=10**6, delta=0.05, margin=1.0)
    pub, tight = evaluate(model, PUBLISHED, setting), evaluate(model, TIGHT, setting)
    for name in ("ours_sum", "ours_rss", "edelman"):
        assert getattr(tight, name).total <= getattr(pub, name).total


def test_n_needed_is_never_when_the_empirical_risk_reaches_the_target():
    model = tiny_model()
    r = n_needed(model, PUBLISHED, BoundInputs(n=10**6, delta=0.05, margin=1.0, empirical=0.5), "ours_sum", target=0.4)
    assert r.n is None and "never" in r.note


@pytest.mark.parametrize("case", ["zero_matrix", "interior_p"])
def test_float_choice_and_mpmath_value_agree(case):
    """The float64 logs that choose p equal the mpmath values reported, slot by slot, to 1e-12 (a zero matrix, rank 0
    and S_p = 0, is bounded in the rank-1 class in both)."""
    layer = LayerInput(
        qk=[rank_one()],
        vt=[np.zeros(2)],
        m_in=rank_one(),
        m_out=rank_one(),
        qk_21=[1.0],
        vt_21=[0.0],
        m_in_21=1.0,
        m_out_21=1.0,
        intermediate=2,
    )
    model = build_model([layer], 2) if case == "zero_matrix" else random_model(0, scale=0.3)
    setting = BoundInputs(n=10**6, delta=0.05, margin=1.0)
    comp = compiled(setting.constants)
    t = tables(model, PUBLISHED, setting, comp)
    b = ours_sum(comp, model, setting, t)
    rows = np.arange(model.K)
    choice = np.round(b.p_opt * model.grid_m).astype(int)
    from sabounds.numerics.bound.whole import _mp_slot

    assert case == "zero_matrix" or ((b.p_opt > 0) & (b.p_opt < 2)).any()
    for i in rows:
        value = _mp_slot(comp, model, setting, t, i, choice[i], b.forms[i])
        assert abs(float(mpmath.log(value)) - t.log_sum[i, choice[i]]) < 1e-12


def test_sample_sizes_beyond_float64_are_evaluated_without_overflow():
    """n = 1e400: the float64 logs that choose p see only ln n; every printed value is a finite mpmath number."""
    model = random_model(0)
    wb = evaluate(model, PUBLISHED, BoundInputs(n=mpmath.mpf("1e400"), delta=0.05, margin=1.0))
    for b in (wb.ours_sum, wb.ours_rss, wb.edelman):
        assert mpmath.isfinite(b.total) and 0 < b.total < mpmath.mpf("1e-150")
    assert set(wb.ours_sum.p_opt) <= set(model.ps)


@pytest.mark.parametrize("which", ["ours_sum", "ours_rss", "edelman"])
def test_n_needed_does_not_depend_on_the_starting_n(which):
    """From a start far above the answer the downward bracket is clamped at n = 8 instead of giving up early
    (once 'already below the target at n = 4.36e+12' from --n 1e40)."""
    model = random_model(0)
    with mpmath.workdps(30):
        answers = [
            n_needed(model, PUBLISHED, BoundInputs(n=n0, delta=0.05, margin=1.0), which, target=1).n
            for n0 in (10**6, 10**20, 10**40, mpmath.mpf("1e400"))
        ]
    assert all(a is not None for a in answers)
    assert max(answers) / min(answers) - 1 < mpmath.mpf(10) ** -15


def test_a_bound_below_the_target_everywhere_says_so_at_n_8():
    model = random_model(0)
    with mpmath.workdps(30):
        r = n_needed(model, PUBLISHED, BoundInputs(n=10**6, delta=0.05, margin=1.0), "ours_rss", target=10**12)
    assert r.n is None and "n = 8" in r.note


def test_input_norms_propagate_through_the_layer():
    """Issue 19: without normalisation a slot's input can exceed B: M_in sees sum_h ||Vt_h|| B, M_out ||M_in|| times
    that (the dyadic radii: ||Vt|| = 2, ||M_in|| = 2 give 1, 1, 2, 4 for QK, V_tilde, M_in, M_out at B = 1)."""
    from sabounds.numerics.bound.slots import input_norms

    layer = LayerInput(
        qk=[rank_one()],
        vt=[rank_one(2.0)],
        m_in=rank_one(1.5),
        m_out=rank_one(),
        qk_21=[1.0],
        vt_21=[1.0],
        m_in_21=1.0,
        m_out_21=1.0,
        intermediate=2,
    )
    model = build_model([layer, layer], 2)
    assert [float(b) for b in input_norms(model, 1)] == [1, 1, 2, 4, 4, 4, 8, 16]


def test_edelman_uses_gamma_e_without_the_attention_factor():
    """Edelman's QK term uses gamma^E = ||Vt|| ||M_out|| ||M_in|| (docs/definitions.md), not ours' (c/2) factor."""
    from sabounds.numerics.bound.slots import rhos

    model = tiny_model()
    assert [float(r) for r in rhos(model, PUBLISHED)] == [2, 1, 1, 1]
    assert [float(r) for r in rhos(model, PUBLISHED, edelman=True)] == [1, 1, 1, 1]


def test_first_crossing_stops_looking_past_float64():
    """A gap that never changes sign: the bracket search stops once x passes ln(float max) (no factor is reported
    beyond it), about 11 evaluations, not the 64 doubling steps allowed."""
    from sabounds.numerics.bound.solve import _first_crossings

    calls = []

    def gaps(gap):
        return lambda where, x: np.array([calls.append(float(v)) or gap(float(v)) for v in x])

    assert _first_crossings(gaps(lambda x: 1.0), 1) == [None]
    assert len(calls) <= 12 and calls[-1] < 2 * math.log(sys.float_info.max)
    calls.clear()
    assert _first_crossings(gaps(lambda x: 1.0 if x < 700 else -1.0), 1)[0] is not None  # below the cut: found


def test_post_ln_token_norms_are_capped_by_the_layer_norms_and_enter_every_attention_factor():
    """Issue 29: B_l = min(propagated, the LayerNorm's dyadic radius) per slot; rho follows the theory's expressions
    ||Vt|| (1 + c B_l^2 ||QK||) and (c/2) B_l^2 ||Vt|| (whole_bound.token_attention_factor, token_gamma_qk), so the
    unit-token factors (B_l = 1) give a different rho."""
    import sympy as sp

    from sabounds.numerics.bound.slots import input_norms, rhos
    from sabounds.theory import whole_bound as wb
    from sabounds.theory.architecture import s_QK, s_V

    layer = LayerInput(
        qk=[rank_one(2.0)],
        vt=[rank_one(2.0)],
        m_in=rank_one(2.0),
        m_out=rank_one(2.0),
        qk_21=[1.0],
        vt_21=[1.0],
        m_in_21=1.0,
        m_out_21=1.0,
        intermediate=2,
    )
    model = build_model([layer, layer], 2, token_radii=[(3.0, 5.0), (100.0, 100.0)])
    # layer 0: QK, V_tilde 1; M_in min(2, shell 4) = 2; M_out 4; next input min(8, shell(5) = 8) = 8
    # layer 1: QK, V_tilde 8; M_in min(16, 128) = 16; M_out 32
    assert [float(b) for b in input_norms(model, 1)] == [1, 1, 2, 4, 8, 8, 16, 32]
    assert model.norm_cost() == sum(shell_cost(shell(r)) for r in (3.0, 5.0, 100.0, 100.0))
    capped = build_model([layer, layer], 2, token_radii=[(1.0, 1.0), (1.0, 1.0)])
    assert [float(b) for b in input_norms(capped, 1)][4:] == [1, 1, 1, 2]
    factor = sp.lambdify((s_V, s_QK, wb.c_att, wb.B_tok), wb.token_attention_factor)
    gamma_qk = sp.lambdify((s_V, wb.c_att, wb.B_tok), wb.token_gamma_qk)
    lip1 = 1.13 * 2 * 2 * factor(2, 2, 4, 8)  # L_phi ||M_in|| ||M_out|| A_h at B_1 = 8
    want = [gamma_qk(2, 4, 1) * 4 * lip1, 4 * lip1, 2 * lip1, lip1, gamma_qk(2, 4, 8) * 4, 4, 2, 1]
    got = [float(r) for r in rhos(model, PUBLISHED, input_norm=1)]
    assert np.allclose(got, want, rtol=1e-12)
    unit = [float(r) for r in rhos(model, PUBLISHED)]
    assert unit[4] == gamma_qk(2, 4, 1) * 4 and unit[0] < got[0] / 10
    with mpmath.workdps(30):
        got = evaluate(model, PUBLISHED, BoundInputs(n=10**6, delta=0.05, margin=1))
    assert got.ours_sum.cost_parts["norm_shells"] == model.norm_cost() > 0  # the radii's shells are priced
