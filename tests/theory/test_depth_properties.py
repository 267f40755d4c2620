"""Property tests of the depth claim (seed claims 1 and 2) on random BERT-like stacks, THEORY.md section 6.

Stacks (``sabounds.numerics.testbeds.random_stacks``): every layer's Lipschitz factor is exactly C, so ``alpha^(l) = C^(L-l)``;
QK_h, Vt_h exactly rank d_h = N/H, feed-forward rank N.  In the bounded regime the layers share their singular
values (``shared_spectra``) so that ``xi_l`` is nearly constant and ``sum_{l <= L} xi_l`` is proportional to L;
with independent spectra the prefix sums fluctuate and the fitted slope wanders by up to ~0.07 (measured).  For a fixed stack of 64 layers the proxies are
evaluated on its prefixes, L in {8, 11, 16, 23, 32, 45, 64}, and the growth of ``edelman / ours`` is fitted.

Derivation (by hand, from section 6):
- Premise: p = 0 is every matrix's first minimiser for L >= 8.  Sufficient: ``sigma_min * gamma * alpha * L >=
  sqrt(rank / N)`` (then S_p >= rank sigma_min^p makes contribution(p) >= contribution(0)); for these spectra it
  reduces to ``L >= 1.13 sqrt(H) (1 + 4q) kappa`` (Vt_h) and ``L >= 1.13 sqrt(H) kappa (1 + 4q) / (2q)`` (QK_h),
  i.e. L >= 7 for H <= 2, q <= 0.6, kappa = 1.25.  The test asserts the premise.
- Then ``ours_sum = L c0 + sqrt(L)`` with ``c0 = 2 H sqrt(d_h N) + 2N`` (alpha enters with power p/(p+2) = 0:
  claim 2), and ``ours_rss = sqrt(L) (sqrt(sum_layer rank N) + 1)``.
- Bounded regime, C = 1: ``edelman = (1 + sum_l xi_l)^{3/2} ~ (L xi)^{3/2}``; so edelman / ours grows like
  ``L^{1/2}`` (sum) and ``L^{1}`` (rss).  Corrections on [8, 64]: ``1/(L xi)`` with xi > 10, and
  ``1/(2 c0 sqrt L)``: each below 0.02 in the log-log slope.
- Exponential regime, C > 1: ``edelman ~ K C^{L-1}`` (the sum over l is geometric, dominated by the first
  layers, identical for all prefixes), so ``ln(edelman / ours)`` is linear in L with slope ``ln C - s`` (sum) and
  ``ln C - s/2`` (rss), s = the least-squares slope of ``ln L`` against L on the grid (0.0356).
Tolerance: each fitted slope within 0.05 of the derived value.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sabounds.numerics.expressions import published_compiled
from sabounds.numerics.proxies.depth_ratio import alphas, edelman, optimal, ours, summarise_stack
from sabounds.numerics.spectra import schatten_grid
from sabounds.numerics.testbeds.strategies import bert_like_stacks, finds_counterexample
from tests.support import published_reference as proxies

LS = np.array([8, 11, 16, 23, 32, 45, 64])
TOLERANCE = 0.05
S_LN_L = float(np.polyfit(LS, np.log(LS), 1)[0])
EXAMPLES = max(3, settings.default.max_examples // 6)

BOUNDED = bert_like_stacks(L=st.just(64), lipschitz=st.just(1.0), shared_spectra=st.just(True))
EXPONENTIAL = bert_like_stacks(L=st.just(64), lipschitz=st.sampled_from([2.0, 3.0]))


def derived_slopes(lipschitz: float) -> dict[str, float]:
    """The exponents derived in the module docstring: log-log for C = 1, semi-log (per layer) for C > 1."""
    if lipschitz == 1.0:
        return {"sum": 0.5, "rss": 1.0}
    return {"sum": math.log(lipschitz) - S_LN_L, "rss": math.log(lipschitz) - S_LN_L / 2}


def fitted_slopes(stack, ours_fn=ours, edelman_fn=edelman) -> dict[str, float]:
    layers = summarise_stack(stack)
    lipschitz = round(layers[0].lipschitz, 9)
    x = np.log(LS) if lipschitz == 1.0 else LS.astype(float)
    out = {}
    for aggregation in ("sum", "rss"):
        ratios = [edelman_fn(layers[:L]) / ours_fn(layers[:L], stack.N, aggregation) for L in LS]
        out[aggregation] = float(np.polyfit(x, np.log(ratios), 1)[0])
    return out


def check_depth_growth(stack, ours_fn=ours, edelman_fn=edelman) -> None:
    """The premise (p = 0 optimal for L >= 8) and both fitted slopes within TOLERANCE of the derivation."""
    layers = summarise_stack(stack)
    for L in LS:
        assert np.all(optimal(layers[:L], stack.N)[1] == 0), f"premise fails at L = {L}"
    expected = derived_slopes(round(layers[0].lipschitz, 9))
    fitted = fitted_slopes(stack, ours_fn, edelman_fn)
    for aggregation, slope in fitted.items():
        assert abs(slope - expected[aggregation]) <= TOLERANCE, (aggregation, slope, expected[aggregation])


@settings(max_examples=EXAMPLES)
@given(BOUNDED)
def test_edelman_over_ours_grows_like_sqrt_L_sum_and_like_L_rss_when_alpha_is_bounded(stack):
    check_depth_growth(stack)


@settings(max_examples=EXAMPLES)
@given(EXPONENTIAL)
def test_edelman_over_ours_grows_like_C_to_the_L_when_every_layer_has_lipschitz_factor_C(stack):
    check_depth_growth(stack)


def test_fitted_slopes_on_one_seeded_stack_per_regime():
    from sabounds.numerics.testbeds.random_stacks import bert_like_stack

    for lipschitz in (1.0, 3.0):
        stack = bert_like_stack(np.random.default_rng(0), 64, 16, 2, lipschitz, shared_spectra=True)
        check_depth_growth(stack)


def _log_edelman_exponent_1(log_rho, norm_21, _compiled=published_compiled.log_edelman):
    """Mutant of the shared compiled ``published_compiled.log_edelman``: outer exponent 1 instead of 3/2."""
    return _compiled(log_rho, norm_21) * (2 / 3)


def _ours_alpha_linear(layers, N, aggregation="sum"):
    """Mutant: alpha multiplies each contribution (power 1) instead of entering with power p/(p+2)."""
    L = len(layers)
    ps = proxies.p_grid(proxies.default_grid_m(L, N))
    values = [
        alpha * proxies.contributions(schatten_grid(sigma, ps), ps, gamma * L, N).min()
        for layer, alpha in zip(layers, alphas(layers))
        for sigma, gamma in layer.slots()
    ]
    total = sum(values) if aggregation == "sum" else math.sqrt(sum(v * v for v in values))
    return total + math.sqrt(L)


def test_mutation_edelman_with_exponent_1_instead_of_3_over_2_in_the_shared_module_fails_the_depth_growth(monkeypatch):
    monkeypatch.setattr(published_compiled, "log_edelman", _log_edelman_exponent_1)
    assert finds_counterexample(check_depth_growth, BOUNDED, max_examples=2)


def test_mutation_alpha_entering_linearly_fails_the_exponential_depth_growth():
    assert finds_counterexample(
        lambda s: check_depth_growth(s, ours_fn=_ours_alpha_linear), EXPONENTIAL, max_examples=2
    )
