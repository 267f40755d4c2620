"""The seed's five claims (THEORY.md section 7), decided from the regime tables and the derivations.

Each check reports the precise conditions (regime, aggregation, alpha model) under which the claim
holds and those under which it fails; a claim that holds only under some of them is ``refuted`` as
stated, with the conditions in its detail.  Claims are results, never failures of ``verify``.
"""

from __future__ import annotations

import sympy as sp

from proofs_check.registry import claim
from proofs_check.verdict import Outcome, Settings, Verdict
from theory import regimes as R
from theory.asymptotics import Growth
from theory.thm31 import L as L_sym, proxy_summand, rho, slot_coefficient
from theory.thm41 import M, N, p

_SYMBOLIC = ("sympy growth orders of the regime tables (theory.regimes; limits of log-ratios, with the positivity "
             "of log factors checked at 3 sample points at 30 digits)")
_SAMPLED = {"precision_digits": 30, "samples": 3}


def _table() -> tuple[R.RegimeResult, ...]:
    return R.table()


def _text(g: Growth) -> str:
    if g.exponential:
        return "exponential"
    out = str(g.power)
    return out + (f"*log^{g.log_power}" if g.log_power != 0 else "")


def _split(holds: list[str], fails: list[str], method: str, statement: str, sampled: bool = True) -> Outcome:
    """Refuted if any condition fails; else ``verified`` when a step of the computation sampled (the growth
    orders' positivity checks, stated as precision and samples), ``proved`` when sympy decided every part."""
    detail = f"{statement}. HOLDS under: {'; '.join(holds) or 'no condition'}. FAILS under: {'; '.join(fails) or 'no condition'}."
    verdict = Verdict.REFUTED if fails else Verdict.VERIFIED if sampled else Verdict.PROVED
    return Outcome(verdict, method, detail=detail, witness={"holds": holds, "fails": fails},
                   **(_SAMPLED if sampled else {}))


@claim("claims.1_depth", "the depth dependence improves from L^(3/2) (Edelman et al.) to sqrt(L) or better")
def _depth(settings: Settings) -> Outcome:
    holds, fails = [], []
    for r in _table():
        ed = r.bounds["edelman"].depth.best
        for agg in ("sum", "rss"):
            ours = r.bounds[f"ours_{agg}"].depth
            cond = f"{r.regime.name}/{r.alpha.name}/{agg}: edelman {_text(ed)}, ours {_text(ours.best)} ({ours.argmin})"
            ok = not ours.best.exponential and ours.best.power <= sp.Rational(1, 2)
            (holds if ok else fails).append(cond)
    return _split(holds, fails, _SYMBOLIC, "exponent of L (L -> oo, all else fixed), infimum over p; the rss "
                  "exponent 1/2 carries a sqrt(log L) from the union bound over P_m")


@claim("claims.2_propagation", "a smaller p removes the layer-to-layer propagation factor: alpha enters with power p/(p+2), zero at p = 0")
def _propagation(settings: Settings) -> Outcome:
    degree = sp.simplify(rho * sp.diff(sp.log(proxy_summand), rho))
    holds, fails = [], []
    if sp.simplify(degree - p / (p + 2)) != 0 or degree.subs(p, 0) != 0:
        fails.append(f"proxy summand: d log / d log rho = {degree}")
    else:
        holds.append("proxy summand: d log / d log(gamma alpha) = p/(p+2), 0 at p = 0 (sympy)")
    for r in _table():
        if r.alpha.name != "exponential":
            continue
        for agg in ("sum", "rss"):
            rows = dict(r.bounds[f"ours_{agg}"].depth.by_piece)
            at0, interior = rows["p=0"], [g for label, g in rows.items() if "<" in label]
            cond = f"{r.regime.name}/exponential/{agg}: p=0 gives {_text(at0)}, 0<p<2 gives {', '.join(_text(g) for g in interior)}"
            ok = not at0.exponential and all(g.exponential for g in interior)
            (holds if ok else fails).append(cond)
        ed = r.bounds["edelman"].depth.best
        (holds if ed.exponential else fails).append(f"{r.regime.name}/exponential/edelman: {_text(ed)}")
    return _split(holds, fails, _SYMBOLIC + " and sympy differentiation", "with alpha^(l) = C^(L-l): ours is polynomial in L "
                  "exactly at p = 0 and exponential for every fixed p > 0; Edelman is exponential")


@claim("claims.3_interpolation", "the bound interpolates between rank-based (p = 0) and norm-based (p = 2) covering")
def _interpolation(settings: Settings) -> Outcome:
    from theory.thm41 import B, D, K_M, d_in, d_out, ell_M, ell_par
    rank_sym, frob = sp.symbols("rank F", positive=True)
    at0 = slot_coefficient.subs(p, 0).subs(M, rank_sym)
    lim0 = sp.limit(slot_coefficient, p, 0, "+").subs(M, rank_sym)
    at2 = slot_coefficient.subs(p, 2).subs(M, frob**2)
    holds, fails = [], []
    rank_form = (d_in + d_out) * ell_par * rank_sym
    (holds if sp.simplify(at0 - rank_form) == 0 and sp.simplify(lim0 - at0) == 0 else fails).append(
        f"p = 0 (and p -> 0+): log N_k = {at0} = rank (d_in + d_out) log(c s B/eps): parametric, no eps power, no rho")
    norm_form = 2 * sp.sqrt((d_in + d_out) * ell_par * K_M * ell_M * d_out * D) * B * frob
    (holds if sp.simplify(at2 - norm_form) == 0 else fails).append(
        f"p = 2: log N_k = {sp.simplify(at2)} / eps: linear in ||W||_F = F, norm-based (eps^-1, i.e. sqrt of Maurey's eps^-2 bound "
        "balanced against the parametric part)")
    q_mid = sp.simplify((2 * p / (p + 2)).subs(p, 1))
    holds.append(f"0 < p < 2: eps exponent q = 2p/(p+2) moves continuously from 0 to 1 (q(1) = {q_mid}); S_p -> rank as p -> 0 (thm41)")
    return _split(holds, fails, "sympy substitution and limits of the slot covering coefficient",
                  "endpoints of Theorem 4.1's slot cover inside Theorem 3.1", sampled=False)


def _flat_summand(r_: sp.Expr, g: sp.Expr, kappa: sp.Expr, n_: sp.Expr) -> sp.Expr:
    """The proxy summand for r equal singular values g: S_p = r g^p."""
    return proxy_summand.subs({M: r_ * g**p, rho: kappa / L_sym, N: n_})


@claim("claims.4_best_p", "the infimum over p is never worse than either endpoint, and picks p = 0 for exactly low-rank matrices")
def _best_p(settings: Settings) -> Outcome:
    r_, g, kappa = sp.symbols("r g kappa", positive=True)
    f = sp.log(_flat_summand(r_, g, kappa, N))
    slope = sp.factor(sp.simplify(sp.diff(f, p) * (p + 2) ** 2))
    holds = ["endpoints: P_m contains 0 and 2, so min over P_m <= min(contribution(0), contribution(2)) by construction"]
    fails = []
    expected = 2 * sp.log(g * kappa) + sp.log(N) - sp.log(r_)
    if sp.simplify(sp.expand_log(slope - expected, force=True)) != 0:
        fails.append(f"could not reduce d/dp log contribution to the expected form: (p+2)^2 d/dp = {slope}")
        return _split(holds, fails, "sympy", "", sampled=False)
    holds.append("rank-r matrix with equal singular values g, kappa = gamma alpha L: (p+2)^2 d/dp log contribution = "
                 "2 log(g kappa) + log(N/r), constant in p, so p = 0 is optimal iff (g kappa)^2 N >= r")
    witness = {r_: 4, g: sp.Rational(1, 100), kappa: 1, N: 64}
    c0, c2 = (_flat_summand(r_, g, kappa, N).subs(witness).subs(p, v) for v in (0, 2))
    fails.append(f"exactly low rank but (g kappa)^2 N < r, e.g. r = 4, g = 0.01, kappa = 1, N = 64: contribution(0) = "
                 f"{float(c0):.4g} > contribution(2) = {float(c2):.4g}, p = 2 is picked")
    return _split(holds, fails, "sympy differentiation of the proxy summand", "which p the infimum picks", sampled=False)


@claim("claims.5_tokens", "token length T enters logarithmically")
def _tokens(settings: Settings) -> Outcome:
    holds, fails = [], []
    for r in _table():
        for name, b in r.bounds.items():
            worst = b.token.worst or b.token.best
            ok = not worst.exponential and worst.power == 0
            cond = f"{r.regime.name}/{r.alpha.name}/{name}: (log T)^{worst.log_power} at worst"
            (holds if ok else fails).append(cond)
    return _split(holds, fails, _SYMBOLIC, "growth in T with everything else fixed: power 0, log power at most 1/2 "
                  "(ours: (log T)^(p/(2p+4)), none at p = 0; Edelman: (log T)^(1/2))")
