"""Theorem 3.1 (reconstructed structure): the transformer bound from the per-slot covering of Theorem 4.1.

Slot k (one matrix) has ``log N_k(eps) = A eps^{-q}``, ``q = 2p/(p+2)`` (from ``sabounds.theory.thm41``); its
error reaches the output multiplied by ``rho_k = gamma_k alpha^(l)``, so ``eps_k = eps/(K rho_k)`` and
``log N(eps) <= sum_k A_k (K rho_k)^q eps^{-q}``.  Dudley's integral then gives

    sum aggregation:  R_n <= 12/sqrt(n) (p+2)/2 Delta^{2/(p+2)} sum_k sqrt(A_k (K rho_k)^q),
    rss aggregation:  R_n <= 12/sqrt(n) (p+2)/2 Delta^{2/(p+2)} sqrt(sum_k A_k (K rho_k)^q)   (all p_k = p),

plus the post hoc cost of choosing p on the grid ``P_m`` and peeling over realised radii.  A second
route (a single scale) and the published proxy's summand are derived too.  docs/definitions.md.
"""

from __future__ import annotations

from functools import cache, lru_cache

import sympy as sp

from sabounds.theory.checks import Identity, Inequality, Interval, Limit, Minimum, Premise
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.symbols import Delta, K, L, rho
from sabounds.theory.thm41 import (
    K_M,
    P_RANGE,
    B,
    D,
    M,
    N,
    T,
    a,
    a_general,
    b,
    b_general,
    b_general_sharp,
    c_of_p,
    c_sharp,
    closed_form,
    d_in,
    d_out,
    ell_M,
    ell_par,
    eps,
    minimum,
    minimum_sharp_general,
    n,
    p,
    s,
)

kappa, u = sp.symbols("kappa u", positive=True)
ell_delta = sp.Symbol("ell_delta", positive=True)
"""``ell_delta = ln(1/delta) > 0``, the confidence term (delta < 1)."""
m_grid = sp.Symbol("m", positive=True, integer=True)
j_peel = sp.Symbol("j", positive=True, integer=True)
x1, x2, x3 = sp.symbols("x_1:4", positive=True)
rho_k, eps_k = sp.IndexedBase("rho", positive=True), sp.IndexedBase("epsilon", positive=True)
k_slot = sp.Symbol("k", integer=True, positive=True)

q = 2 * p / (p + 2)
"""Covering exponent of one slot: ``log N_k(eps) ~ eps^{-q}``, ``q < 2`` so Dudley's integral converges."""

slot_coefficient = (
    c_of_p * a_general ** (2 / (p + 2)) * (K_M * ell_M * d_out * D * B**2) ** (p / (p + 2)) * M ** (2 / (p + 2))
)
"""``A`` with ``log N_k(eps) <= A eps^{-q}``: Theorem 4.1's minimum with its logs and constants kept, regular at p = 0."""

c_par = sp.Symbol("c_par", positive=True)
"""The constant ``c`` of the parametric log factor ``ell_par = log(c s B / eps)`` (Theorem 4.1, step 4)."""


def parametric_log(scale: sp.Expr) -> sp.Expr:
    """``log(c s B / scale)``: Theorem 4.1's parametric log factor at the covering scale ``scale``."""
    return sp.log(c_par * s * B / scale)


maurey_log = sp.log(2 * d_in * d_out * n * T)
"""``ell_M = log(2 d_in d_out n T)``: the only place the token length T enters."""


def _dudley(exponent: sp.Expr) -> sp.Expr:
    """``12/sqrt(n) int_0^Delta eps^{-exponent/2} d eps``, integrated by sympy (derived, not typed; exponent < 2)."""
    return 12 / sp.sqrt(n) * sp.simplify(sp.integrate(eps ** (-exponent / 2), (eps, 0, Delta), conds="none"))


allocation_factor = (K * rho) ** q
"""``eps_k = eps/(K rho_k)`` turns ``A eps_k^{-q}`` into ``A (K rho_k)^q eps^{-q}`` (step 'allocated_scale')."""


# The sharp route (docs/definitions.md): Theorem 4.1 with the sharp tail sigma_{r+1}^{2-p} S_p.
slot_coefficient_sharp = c_sharp * a_general ** (1 - p / 2) * (K_M * ell_M * d_out * B**2) ** (p / 2) * M
"""``A'`` with ``log N_k(eps) <= A' eps^{-p}`` (sharp tail, 0 < p < 2): covering exponent p instead of q."""
maurey_coefficient = K_M * ell_M * d_out * B**2 * M
"""The sharp route at p = 2 (its limit p -> 2-): Maurey's ``K_M ell_M d_out S_2 B^2 eps^{-2}``."""
allocation_factor_sharp = (K * rho) ** p
dudley_cut = 4 * Delta / n + 12 / sp.sqrt(n) * sp.log(n)
"""At p = 2 the entropy integral diverges at 0: cut at ``Delta/n``, ``R_n <= 4 Delta/n + 12/sqrt(n) sqrt(A) ln n``
(written as ``dudley_cut`` with the ``sqrt(A)`` factor applied to its second term by ``dudley_cut_value``)."""


def dudley_cut_value(root: sp.Expr) -> sp.Expr:
    """``4 Delta/n + 12/sqrt(n) sqrt(A) ln n`` for ``root = sqrt(A)``: Dudley's integral cut at ``Delta/n``."""
    return 4 * Delta / n + 12 / sp.sqrt(n) * sp.log(n) * root


proxy_summand = sp.powdenest(sp.sqrt(closed_form / c_of_p).subs({eps: 1 / (L * rho), B: 1}), force=True).replace(
    lambda e: e.is_Pow, lambda e: sp.Pow(e.base, sp.factor(e.exp))
)
"""Section 6: ``S_p^{1/(p+2)} (gamma alpha L)^{p/(p+2)} N^{(p+1)/(p+2)}`` with ``M = S_p``, ``rho = gamma alpha``: built
from ``thm41.closed_form`` (``sqrt(closed_form / c(p))`` at ``eps = 1/(L rho)``, ``B = 1``; step 'proxy_summand' checks
the ``force=True`` simplification)."""

grid_size = 2 * m_grid + 1
grid_m = sp.ceiling(L + sp.log(N))
"""``m = ceil(L + ln N)``, the grid ``P_m = {0, 1/m, ..., 2}`` of the post hoc choice of p."""
peeling_bound = 2 * sp.log(j_peel + 1)
"""``ln(j(j+1)) <= 2 ln(j+1)``: the cost of dyadic shell j (step 'peeling_cost')."""


def post_hoc(slots: sp.Expr, m: sp.Expr, j_max: sp.Expr) -> sp.Expr:
    """``sqrt((K ln(2m+1) + 2K ln(j+1) + ln(1/delta)) / n)``: union over ``P_m^K`` and over dyadic radii ``<= 2^j``.

    Built from ``grid_size`` and ``peeling_bound``, the objects the steps 'grid_size' and 'peeling_cost' check."""
    return sp.sqrt(
        (slots * sp.log(grid_size.subs(m_grid, m)) + slots * peeling_bound.subs(j_peel, j_max) + ell_delta) / n
    )


single_scale_objective = eps + sp.sqrt(a * (kappa / eps) ** p / n)
single_scale_eps = (p / 2 * sp.sqrt(a * kappa**p / n)) ** (2 / (p + 2))
single_scale_constant = (1 + 2 / p) * (p / 2) ** (2 / (p + 2))
single_scale_value = single_scale_constant * (a * kappa**p / n) ** (1 / (p + 2))
"""``inf_eps {eps + sqrt(a (kappa/eps)^p / n)} = (1 + 2/p)(p/2)^{2/(p+2)} (a kappa^p / n)^{1/(p+2)}``."""

_POS = Interval(sp.Rational(1, 10), 10, log=True)
_P_OPEN = Interval(sp.Rational(1, 20), sp.Rational(39, 20))
_SLOT = {
    p: P_RANGE,
    d_in: Interval(2, 4096, log=True),
    d_out: Interval(2, 4096, log=True),
    D: Interval(2, 4096, log=True),
    M: Interval(1, 1000, log=True),
    B: _POS,
    eps: Interval(sp.Rational(1, 1000), 1, log=True),
    K_M: _POS,
    ell_M: _POS,
    ell_par: _POS,
}


_u = sp.Symbol("u", positive=True)


def _steps() -> tuple[Step, ...]:
    A = sp.Symbol("A", positive=True)
    dudley_constant, dudley_constant_sharp = _dudley_constants().values()
    return (
        Step(
            "slot_covering",
            sp.Eq(minimum.subs({a: a_general, b: b_general}), slot_coefficient * eps ** (-q)),
            "Theorem 4.1's minimum (1 + p/2) a r* with a = (d_in + d_out) ell_par, b = K_M ell_M d_out D M^{2/p} B^2/eps^2 is A eps^{-q}",
            Identity(_SLOT),
        ),
        Step(
            "q_below_2",
            sp.StrictLessThan(q, 2, evaluate=False),
            "q = 2p/(p+2) < 2 for every p >= 0: the entropy integrand eps^{-q/2} is integrable at 0",
            Inequality(),
        ),
        Step(
            "composition",
            sp.Le(
                sp.Symbol("||f_W(X) - f_W'(X)||"),
                sp.Sum(sp.Indexed(rho_k, k_slot) * sp.Indexed(eps_k, k_slot), (k_slot, 1, K)),
            ),
            "an error eps_k in slot k alone reaches the output multiplied by rho_k = gamma_k alpha^(l(k)); errors add over slots",
            Premise("composition lemma (Lipschitz propagation through the layers, triangle inequality over slots)"),
        ),
        Step(
            "allocation",
            sp.Eq(sp.Sum(sp.Indexed(rho_k, k_slot) * eps / (K * sp.Indexed(rho_k, k_slot)), (k_slot, 1, K)), eps),
            "eps_k = eps/(K rho_k): the slot errors, multiplied by their own rho_k, sum to eps at the output",
            Identity(),
        ),
        Step(
            "allocated_scale",
            sp.Eq(
                slot_coefficient * (eps / (K * rho)) ** (-q),
                slot_coefficient * allocation_factor * eps ** (-q),
                evaluate=False,
            ),
            "log N_k(eps/(K rho_k)) = A_k (K rho_k)^q eps^{-q}: the factor rho_k enters with power q/2 = p/(p+2) after the square root",
            Identity({**_SLOT, K: Interval(1, 1000, log=True), rho: _POS}),
        ),
        Step(
            "rescaled_log_factor",
            sp.Eq(parametric_log(eps / (K * rho)), parametric_log(Delta / (K * rho)) + sp.log(Delta / eps)),
            "after allocation ell_par_k = log(c s B K rho_k / eps) = log(c s B K rho_k / Delta) + log(Delta/eps): "
            "the slot's log factor grows with log K + log rho_k; the remainder log(Delta/eps) is free of K and rho_k",
            Identity(
                {
                    c_par: _POS,
                    s: _POS,
                    B: _POS,
                    K: Interval(1, 1000, log=True),
                    rho: _POS,
                    Delta: _POS,
                    eps: Interval(sp.Rational(1, 1000), 1, log=True),
                }
            ),
        ),
        Step(
            "log_remainder_integral",
            sp.Eq(Delta * sp.Integral(sp.sqrt(_u) * sp.exp(-_u), (_u, 0, sp.oo)), sp.sqrt(sp.pi) / 2 * Delta),
            "at p = 0, sqrt(a + b) <= sqrt(a) + sqrt(b) splits the entropy integral: the remainder "
            "int_0^Delta sqrt(log(Delta/eps)) d eps (substitute eps = Delta e^{-u}) contributes "
            "Gamma(3/2) Delta per slot, free of K and rho_k, so the regime tables keep ell_par_k = log(c s B K rho_k / Delta)",
            Identity({Delta: _POS}),
        ),
        Step(
            "dudley_integral",
            sp.Eq(
                12 / sp.sqrt(n) * sp.Integral(sp.sqrt(A) * eps ** (-q / 2), (eps, 0, Delta)),
                sp.sqrt(A) * dudley_constant,
            ),
            "int_0^Delta eps^{-p/(p+2)} = (p+2)/2 Delta^{2/(p+2)}; sum aggregation applies it per slot, rss (equal p) to A = sum_k A_k",
            Identity({A: _POS, Delta: _POS, p: P_RANGE, n: Interval(1, 10**6, log=True)}),
        ),
        Step(
            "dudley_constant_value",
            sp.Eq(dudley_constant, 12 / sp.sqrt(n) * (p + 2) / 2 * Delta ** (2 / (p + 2)), evaluate=False),
            "the crude route's Dudley constant is 12/sqrt(n) (p+2)/2 Delta^{2/(p+2)} = 12/sqrt(n) Delta^{1-q/2}/(1-q/2)",
            Identity({Delta: _POS, p: P_RANGE, n: Interval(1, 10**6, log=True)}),
        ),
        Step(
            "slot_covering_sharp",
            sp.Eq(minimum_sharp_general.subs({a: a_general, b: b_general_sharp}), slot_coefficient_sharp * eps ** (-p)),
            "sharp route: Theorem 4.1's minimum c2(p) a^{1-p/2} b^{p/2} with a = (d_in + d_out) ell_par, "
            "b = K_M ell_M d_out M^{2/p} B^2/eps^2 is A' eps^{-p}: covering exponent p",
            Identity({**_SLOT, p: _P_OPEN}),
        ),
        Step(
            "sharp_maurey_endpoint",
            sp.Eq(sp.Limit(slot_coefficient_sharp, p, 2, "-"), maurey_coefficient),
            "p -> 2-: A' tends to Maurey's K_M ell_M d_out B^2 S_2 (the tables use this value at p = 2)",
            Limit({k_: v for k_, v in _SLOT.items() if k_ not in (p, D)}),
        ),
        Step(
            "allocated_scale_sharp",
            sp.Eq(
                slot_coefficient_sharp * (eps / (K * rho)) ** (-p),
                slot_coefficient_sharp * allocation_factor_sharp * eps ** (-p),
                evaluate=False,
            ),
            "sharp route: log N_k(eps/(K rho_k)) = A'_k (K rho_k)^p eps^{-p}; rho_k enters with power p/2 after the square root",
            Identity({**_SLOT, p: _P_OPEN, K: Interval(1, 1000, log=True), rho: _POS}),
        ),
        Step(
            "dudley_integral_sharp",
            sp.Eq(
                12 / sp.sqrt(n) * sp.Integral(sp.sqrt(A) * eps ** (-p / 2), (eps, 0, Delta)),
                sp.sqrt(A) * dudley_constant_sharp,
            ),
            "sharp route: int_0^Delta eps^{-p/2} = Delta^{1-p/2}/(1 - p/2), finite for p < 2 (the regime tables' constant)",
            Identity({A: _POS, Delta: _POS, p: _P_OPEN, n: Interval(1, 10**6, log=True)}),
        ),
        Step(
            "dudley_constant_sharp_value",
            sp.Eq(dudley_constant_sharp, 12 / sp.sqrt(n) * Delta ** (1 - p / 2) / (1 - p / 2)),
            "the sharp route's Dudley constant is 12/sqrt(n) Delta^{1-p/2}/(1 - p/2): it blows up as p -> 2",
            Identity({Delta: _POS, p: _P_OPEN, n: Interval(1, 10**6, log=True)}),
        ),
        Step(
            "dudley_cut_at_2",
            sp.Eq(
                4 * Delta / n + 12 / sp.sqrt(n) * sp.Integral(sp.sqrt(A) / eps, (eps, Delta / n, Delta)),
                dudley_cut_value(sp.sqrt(A)),
            ),
            "at p = 2 (Maurey, eps^{-2}) cut Dudley's integral at Delta/n: 4 Delta/n + 12/sqrt(n) sqrt(A) ln n",
            Identity({A: _POS, Delta: _POS, n: Interval(2, 10**6, log=True)}),
        ),
        Step(
            "sum_aggregation",
            sp.Le(sp.sqrt(x1 + x2 + x3), sp.sqrt(x1) + sp.sqrt(x2) + sp.sqrt(x3)),
            "sqrt(sum_k f_k) <= sum_k sqrt(f_k) (triangle inequality): the rss form is never larger at equal p",
            Inequality({x1: _POS, x2: _POS, x3: _POS}),
        ),
        Step(
            "rss_cauchy_schwarz",
            sp.Le(sp.Symbol("int_0^Delta sqrt(f)"), sp.sqrt(Delta * sp.Symbol("int_0^Delta f"))),
            "Cauchy-Schwarz on [0, Delta], for unequal p_k",
            Premise("Cauchy-Schwarz inequality"),
        ),
        Step(
            "rss_unequal_integral",
            sp.Eq(sp.Integral(A * eps ** (u - 1), (eps, 0, Delta)), A * Delta**u / u),
            "with u = 1 - q_k > 0: int_0^Delta A_k eps^{-q_k} = A_k Delta^{1-q_k} / (1 - q_k)",
            Identity({A: _POS, Delta: _POS, u: _POS}),
        ),
        Step(
            "one_minus_q",
            sp.Eq(1 - q, (2 - p) / (p + 2), evaluate=False),
            "1 - q_k = (2 - p_k)/(p_k + 2), positive iff p_k < 2",
            Identity(),
        ),
        Step(
            "rss_unequal_blowup",
            sp.Eq(sp.Limit((p + 2) / (2 - p), p, 2, "-"), sp.oo),
            "the Cauchy-Schwarz constant 1/(1 - q_k) blows up as p_k -> 2",
            Limit(),
        ),
        Step(
            "rss_exact_beats_cauchy_schwarz",
            sp.Le((p + 2) / 2, sp.sqrt((p + 2) / (2 - p))),
            "at equal p the exact rss constant (p+2)/2 is at most the Cauchy-Schwarz one: (p+2)(2-p) = 4 - p^2 <= 4",
            Inequality({p: _P_OPEN}),
        ),
        Step(
            "single_scale_stationary",
            sp.Eq(sp.Derivative(single_scale_objective, eps).subs(eps, single_scale_eps), 0),
            "second route: d/d eps {eps + sqrt(a (kappa/eps)^p / n)} vanishes at eps* = (p/2 sqrt(a kappa^p / n))^{2/(p+2)}",
            Identity({p: _P_OPEN, a: _POS, kappa: _POS, n: Interval(1, 10**6, log=True)}),
        ),
        Step(
            "single_scale_value",
            sp.Eq(single_scale_value, single_scale_objective),
            "inf over eps equals (1 + 2/p)(p/2)^{2/(p+2)} (a kappa^p / n)^{1/(p+2)} (direct numeric minimisation)",
            Minimum(
                var=eps,
                var_range=Interval(sp.Rational(1, 10**12), 10**6),
                domain={p: _P_OPEN, a: _POS, kappa: _POS, n: Interval(1, 10**6, log=True)},
            ),
        ),
        Step(
            "single_scale_constant_at_0",
            sp.Eq(sp.Limit(single_scale_constant, p, 0, "+"), 1),
            "the single-scale constant (1 + 2/p)(p/2)^{2/(p+2)} tends to 1 as p -> 0+",
            Limit(),
        ),
        Step(
            "routes_agree_in_width_depth",
            sp.Eq(
                single_scale_value.subs({a: M * N ** (p + 1), kappa: rho * L}),
                single_scale_constant * proxy_summand * n ** (-1 / (p + 2)),
            ),
            "with a = S_p N^{p+1} and kappa = gamma alpha L the single-scale value is the proxy summand times "
            "(1 + 2/p)(p/2)^{2/(p+2)} n^{-1/(p+2)}: same L, N exponents",
            Identity(
                {
                    p: _P_OPEN,
                    M: Interval(1, 1000, log=True),
                    rho: _POS,
                    n: Interval(1, 10**6, log=True),
                    N: Interval(2, 4096, log=True),
                    L: Interval(1, 64),
                }
            ),
        ),
        Step(
            "routes_differ_in_n",
            sp.GreaterThan(-1 / (p + 2), -sp.Rational(1, 2), evaluate=False),
            "the single-scale rate n^{-1/(p+2)} is never faster than Dudley's n^{-1/2}; they agree only at p = 0",
            Inequality(),
        ),
        Step(
            "grid_size",
            sp.Eq(sp.Sum(1, (sp.Symbol("i", integer=True), 0, 2 * m_grid)), grid_size),
            "P_m = {0, 1/m, ..., 2} has 2m + 1 points; a union bound over P_m^K costs K ln(2m + 1)",
            Identity(),
        ),
        Step(
            "grid_m_bound",
            sp.Le(grid_m, L + sp.log(N) + 1),
            "m = ceil(L + ln N) <= L + ln N + 1, so the grid costs K ln(2L + 2 ln N + 3)",
            Inequality({L: Interval(1, 10_000, integer=True), N: Interval(2, 4096, log=True)}),
        ),  # L up to the --layers cap
        Step(
            "peeling_weights",
            sp.Eq(sp.Sum(1 / (j_peel * (j_peel + 1)), (j_peel, 1, sp.oo)), 1),
            "weights 1/(j(j+1)) over dyadic shells (2^{j-1}, 2^j] sum to 1: shell j costs ln(j(j+1)) <= 2 ln(j+1)",
            Identity(),
        ),
        Step(
            "peeling_cost",
            sp.Le(sp.log(j_peel * (j_peel + 1)), peeling_bound),
            "shell j costs ln(j(j+1)) <= 2 ln(j+1), since j < j + 1",
            Inequality({j_peel: Interval(1, 10**6, integer=True, log=True)}),
        ),
        Step(
            "post_hoc_term",
            sp.Le(sp.Symbol("Pi_post_hoc"), post_hoc(K, m_grid, j_peel)),
            "union bound over P_m^K and the realised radii (weights 1/(2m+1) per slot and 1/(j(j+1)) per shell): "
            "sqrt((K ln(2m+1) + sum_k ln(j_k(j_k+1)) + ln(1/delta))/n) <= the stated term by 'peeling_cost'",
            Premise("union bound with peeling over dyadic radii (standard post hoc argument)"),
        ),
        Step(
            "proxy_summand",
            sp.Eq(sp.sqrt(closed_form / c_of_p).subs({eps: 1 / (L * rho), B: 1}), proxy_summand),
            "the published proxy's summand is sqrt(A_k) with c(p), logs and B set aside and K -> L (eps_k = 1/(L gamma alpha))",
            Identity(
                {
                    p: P_RANGE,
                    M: Interval(1, 1000, log=True),
                    rho: _POS,
                    L: Interval(1, 64),
                    N: Interval(2, 4096, log=True),
                }
            ),
        ),
        Step(
            "proxy_alpha_power",
            sp.Eq(rho * sp.Derivative(sp.log(proxy_summand), rho), p / (p + 2)),
            "d log(summand) / d log(rho) = p/(p+2): the propagation factor alpha enters with power p/(p+2)",
            Identity(),
        ),
        Step(
            "proxy_rank_endpoint",
            sp.Eq(sp.Limit(proxy_summand, p, 0, "+"), sp.sqrt(M * N)),
            "p -> 0+: the summand is sqrt(S_0 N) = sqrt(rank N), free of gamma, alpha and L",
            Limit({M: Interval(1, 100), rho: _POS, L: Interval(1, 64), N: Interval(2, 4096, log=True)}),
        ),
    )


@lru_cache(maxsize=1)
def derivation() -> Derivation:
    """The Theorem 3.1 derivation (docs/definitions.md), each step decided by ``proofs_check``."""
    return Derivation(
        "thm31",
        "Theorem 3.1: the transformer bound (composition, Dudley, post hoc p)",
        _steps(),
        notes="'composition', 'rss_cauchy_schwarz' and 'post_hoc_term' are cited premises.",
    )


def slot_log_cover(d_in_k: sp.Expr, d_out_k: sp.Expr, schatten: sp.Expr, slots: sp.Expr, rho_k: sp.Expr) -> sp.Expr:
    """``A_k (K rho_k)^q``: the eps^{-q} coefficient of slot k after allocation, with ``ell_M = log(2 d_in d_out n T)``
    and the allocated parametric log factor ``ell_par_k = log(c s B K rho_k / Delta)`` (step 'rescaled_log_factor')."""
    values = {
        d_in: d_in_k,
        d_out: d_out_k,
        D: sp.Min(d_in_k, d_out_k),
        M: schatten,
        ell_par: parametric_log(Delta / (slots * rho_k)),
    }
    return slot_coefficient.subs(values).subs(ell_M, maurey_log.subs(values)) * allocation_factor.subs(
        {K: slots, rho: rho_k}
    )


def slot_log_cover_sharp(
    d_in_k: sp.Expr, d_out_k: sp.Expr, schatten: sp.Expr, slots: sp.Expr, rho_k: sp.Expr, p_value: sp.Expr
) -> sp.Expr:
    """``A'_k (K rho_k)^p`` at ``p = p_value``: the sharp route's eps^{-p} coefficient after allocation (Maurey's
    coefficient at p = 2, step 'sharp_maurey_endpoint')."""
    values = {
        d_in: d_in_k,
        d_out: d_out_k,
        D: sp.Min(d_in_k, d_out_k),
        M: schatten,
        ell_par: parametric_log(Delta / (slots * rho_k)),
    }
    coefficient = maurey_coefficient if p_value == 2 else slot_coefficient_sharp
    return (
        coefficient.subs(values).subs(ell_M, maurey_log.subs(values))
        * allocation_factor_sharp.subs({K: slots, rho: rho_k})
    ).subs(p, p_value)


proxy_post_hoc = sp.sqrt(L)
"""The published proxy's stand-in for the post hoc term: ``+ sqrt(L)`` (section 6)."""


@lru_cache(maxsize=1)
def bound():
    """``ours`` as catalog data: the published proxy ``sum_k min_{p in P_m} proxy_summand_k + sqrt(L)`` (section 6);
    its regime rows are Theorem 3.1's own (tag ``own_row``), so ``form`` and ``log_factor`` are those of the summand's
    Dudley bound with logs set aside."""
    from sabounds.theory.bound import Bound, Proxy

    return Bound(
        "ours",
        "Theorem 3.1: Theorem 4.1's cover per slot, p chosen per matrix",
        "reconstructed",
        term=proxy_summand,
        aggregation="sum",
        propagation="gamma",
        log_factor=sp.Integer(1),
        assumptions="per slot ||W_k||_2 <= s_k, S_p(W_k) <= M_k; token norms <= B; p on the grid P_m",
        citation="Sakai and Imaizumi (2026), Theorem 3.1 and section 6 (reconstructed)",
        proxies=(
            Proxy("ours", proxy_summand, "sum", "gamma", "published proxy", offset=proxy_post_hoc, over_grid=True),
        ),
    )


@cache
def _dudley_constants() -> dict[str, sp.Expr]:
    """The two Dudley constants, integrated by sympy on first use (0.6 s: never at import)."""
    return {"dudley_constant": _dudley(q), "dudley_constant_sharp": sp.cancel(_dudley(p) * (2 - p)) / (2 - p)}


def __getattr__(name: str):
    """``dudley_constant`` (crude route: ``12/sqrt(n) int_0^Delta eps^{-q/2} d eps = 12/sqrt(n) (p+2)/2 Delta^{2/(p+2)}``)
    and ``dudley_constant_sharp`` (sharp route: ``12/sqrt(n) Delta^{1-p/2} / (1 - p/2)``, finite for p < 2; written with
    the positive factor ``1/(2 - p)`` so that growth orders see a positive term), derived on first use."""
    if name in ("dudley_constant", "dudley_constant_sharp"):
        return _dudley_constants()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
