"""The baseline of Edelman, Goel, Kakade and Zhang (2022) for L-layer Transformers, theory and proxy forms.

Each slot is covered in the norm-based way, ``log N_k(eps_k) <= w_k^2 B^2 ell / eps_k^2`` with
``w_k = ||W_k||_{2,1}``; errors propagate with factor ``rho_k = gamma^E_k alpha^(l)``.  Optimising the
allocation of eps over the slots gives ``log N(eps) <= (sum_k (rho_k w_k)^{2/3})^3 B^2 ell / eps^2``,
whence, by Dudley's integral cut at ``Delta/n``,

    theory:  R_n <= 4 Delta/n + 12 W_E B sqrt(ell/n) ln n,    W_E = (sum_k (rho_k w_k)^{2/3})^{3/2},
    proxy:   (1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}            (docs/definitions.md, published proxy).
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from sabounds.theory import symbols as S
from sabounds.theory.bound import AGGREGATIONS, Bound, Proxy
from sabounds.theory.checks import Definition, Identity, Inequality, Interval, Minimum, Premise
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.thm41 import B, N, T, eps, n

rho_1, rho_2, w_1, w_2, eps_1 = sp.symbols("rho_1 rho_2 w_1 w_2 epsilon_1", positive=True)
W_E, ell_E, Delta, cutoff, xi = sp.symbols("W_E ell_E Delta a xi", positive=True)

edelman_log = sp.log(2 * N**2 * n * T)
"""``ell_E = log(2 N^2 n T)``: the Maurey log factor of the norm-based cover, where T enters."""

allocation_objective = w_1**2 / eps_1**2 + w_2**2 / ((eps - rho_1 * eps_1) / rho_2) ** 2
allocation_value = ((rho_1 * w_1) ** sp.Rational(2, 3) + (rho_2 * w_2) ** sp.Rational(2, 3)) ** 3 / eps**2
"""``min sum_k w_k^2 / eps_k^2`` subject to ``sum_k rho_k eps_k = eps`` (two slots): ``(sum (rho_k w_k)^{2/3})^3 / eps^2``."""

theory_form = 4 * Delta / n + 12 * W_E * B * sp.sqrt(ell_E / n) * sp.log(n)
"""``R_n <= 4 Delta/n + 12 W_E B sqrt(ell/n) ln n`` (Dudley with lower cut-off a = Delta/n)."""


def capacity(terms: sp.Expr) -> sp.Expr:
    """``W_E = (sum_k (rho_k ||W_k||_{2,1})^{2/3})^{3/2}`` from ``terms = sum_k (rho_k ||W_k||_{2,1})^{2/3}``."""
    return AGGREGATIONS[PROXY.aggregation](terms)


def proxy_form(terms: sp.Expr) -> sp.Expr:
    """The published proxy ``(1 + sum_l alpha^(l)^{2/3} xi_l)^{3/2}`` with ``terms = sum_l alpha^{2/3} xi_l``."""
    return PROXY.value(terms)


def slot_term(rho_k: sp.Expr, two_one_norm: sp.Expr) -> sp.Expr:
    """``(rho_k ||W_k||_{2,1})^{2/3}``, one slot's share of ``xi_l`` (``rho_k = gamma^E_k alpha^(l)``)."""
    return PROXY.term.subs({S.rho: rho_k, S.w_21: two_one_norm}, simultaneous=True)


PROXY = Proxy(
    "edelman",
    (S.rho * S.w_21) ** sp.Rational(2, 3),
    "power_mean_2/3",
    "gamma_edelman",
    "published proxy",
    offset=sp.Integer(1),
)
"""The published Edelman proxy as data: ``(1 + sum_k (rho_k ||W_k||_{2,1})^{2/3})^{3/2}``, ``rho_k = gamma^E_k alpha^(l)``."""


@lru_cache(maxsize=1)
def bound() -> Bound:
    """Edelman et al. (2022) as catalog data: ``theory_form`` is ``DUDLEY_FORM`` at ``W = W_E``, ``ell = ell_E``."""
    return Bound(
        "edelman",
        "Edelman et al. (2022): (2,1)-norm covers, Lemma A.8 allocation",
        "published",
        term=PROXY.term,
        aggregation=PROXY.aggregation,
        propagation=PROXY.propagation,
        log_factor=edelman_log,
        assumptions="every ||W_k||_{2,1} <= w_k, token norms <= B (l2), spectral-norm Lipschitz factors",
        citation="Edelman, Goel, Kakade and Zhang (2022), ICML, Lemma A.8",
        proxies=(PROXY,),
    )


def _steps() -> tuple[Step, ...]:
    pos = Interval(sp.Rational(1, 10), 10, log=True)
    integral = sp.Integral(W_E * B * sp.sqrt(ell_E) / eps, (eps, cutoff, Delta))
    return (
        Step(
            "slot_cover",
            sp.Le(sp.Symbol("log N_k"), sp.Symbol("w_k") ** 2 * B**2 * ell_E / sp.Symbol("epsilon_k") ** 2),
            "norm-based (Maurey) cover of one matrix with ||W||_{2,1} <= w_k, ell_E = log(2 N^2 n T)",
            Premise("Bartlett, Foster and Telgarsky (2017), Lemma 3.2; Edelman et al. (2022), Lemma A.x"),
        ),
        Step(
            "allocation",
            sp.Eq(allocation_value, allocation_objective),
            "min over eps_1 of w_1^2/eps_1^2 + w_2^2/eps_2^2 with rho_1 eps_1 + rho_2 eps_2 = eps (Lagrange: eps_k ~ (w_k^2/rho_k)^{1/3})",
            Minimum(
                var=eps_1,
                var_range=Interval(sp.Rational(1, 10**12), eps / rho_1 * (1 - sp.Rational(1, 10**12))),
                domain={rho_1: pos, rho_2: pos, w_1: pos, w_2: pos, eps: pos},
            ),
        ),
        Step(
            "dudley_cutoff",
            sp.Eq(integral, W_E * B * sp.sqrt(ell_E) * sp.log(Delta / cutoff)),
            "with log N(eps) = W_E^2 B^2 ell / eps^2 Dudley's integrand is W_E B sqrt(ell)/eps, integrable only away from 0",
            Identity(
                {
                    W_E: pos,
                    B: pos,
                    ell_E: pos,
                    Delta: Interval(1, 10),
                    cutoff: Interval(sp.Rational(1, 1000), 1, log=True),
                }
            ),
        ),
        Step(
            "theory_form",
            sp.Eq(4 * cutoff + 12 / sp.sqrt(n) * integral.subs(cutoff, Delta / n), theory_form).subs(cutoff, Delta / n),
            "R_n <= 4a + 12/sqrt(n) int_a^Delta sqrt(log N) at a = Delta/n",
            Identity({W_E: pos, B: pos, ell_E: pos, Delta: pos, n: Interval(2, 10**6, log=True)}),
        ),
        Step(
            "proxy_dominates_capacity",
            sp.Le(capacity(xi), proxy_form(xi)),
            "the proxy's leading 1 only enlarges W_E: x^{3/2} <= (1 + x)^{3/2}",
            Inequality({xi: Interval(0, 10**6)}),
        ),
        Step(
            "proxy_definition",
            sp.Eq(sp.Symbol("edelman"), proxy_form(sp.Symbol("sum_l alpha_l^(2/3) xi_l", positive=True))),
            "xi_l = sum_h[(s_out s_in s_V ||QK_h||_{2,1})^{2/3} + (s_out s_in ||Vt_h||_{2,1})^{2/3}] + (s_out ||M_in||_{2,1})^{2/3} + ||M_out||_{2,1}^{2/3}",
            Definition(),
        ),
    )


@lru_cache(maxsize=1)
def derivation() -> Derivation:
    """Edelman et al. (2022) for L-layer Transformers (docs/definitions.md), as a derivation."""
    return Derivation(
        "edelman",
        "Edelman et al. (2022): norm-based baseline, theory and proxy forms",
        _steps(),
        notes="'slot_cover' is a cited premise.",
    )
