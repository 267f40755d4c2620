"""The paper's five claims (docs/checks.md), decided from the regime tables and the derivations.

Each claim is judged against the seed summary's own words (quoted, Dutch original with a translation), under
each condition (regime x alpha model x aggregation x tail of Theorem 4.1), and the JSON keeps the per-condition
list.  A condition is *in scope* when the wording speaks about it (e.g. claim 1 compares with Edelman's L^(3/2),
the bounded-alpha rate, in the paper's representative regimes); the verdict is ``refuted`` only if an in-scope
condition fails, and then the failing conditions are its witness; a claim that holds only up to log factors is
``verified``/``proved`` with the headline "holds up to log factors (O~)".  The verdicts judge the
reconstruction (docs/derivations.md), not the unavailable paper.  A decider that fails internally gives ``unresolved``.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from sabounds.proofs_check.registry import claim
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import regimes
from sabounds.theory.asymptotics import Domain, Growth, compare
from sabounds.theory.thm31 import L as L_sym
from sabounds.theory.thm31 import maurey_coefficient, proxy_summand, rho, slot_coefficient, slot_coefficient_sharp
from sabounds.theory.thm41 import M, N, p

_SYMBOLIC = (
    "sympy growth orders of the regime tables (sabounds.theory.regimes; limits of log-ratios, with the positivity "
    "of log factors checked at 3 sample points at 30 digits)"
)
_SAMPLED = {"precision_digits": 30, "samples": 3}
RECONSTRUCTION = "judged on the reconstruction (docs/derivations.md), not on the unavailable paper"

QUOTES = {
    "1": (
        "Specifiek verbetert de afhankelijkheid van diepte van $L^{3/2}$ (in Edelman et al., 2022) naar $\\sqrt{L}$ of "
        "beter, afhankelijk van de spectrale structuur [in representatieve regimes (Frobenius-, Rang- en Spectrale "
        "normbeperkingen)]",
        "the depth dependence improves from L^(3/2) (Edelman et al., 2022) to sqrt(L) or better, depending on the spectral "
        "structure [in representative regimes: Frobenius, rank and spectral norm constraints]",
    ),
    "2": (
        "door kleinere $p$ te selecteren (dichter bij rang), [worden] de laag-voor-laag propagatiefactor en polynomiale "
        "dieptefactoren verminderd",
        "by selecting smaller p (closer to rank), the layer-to-layer propagation factor and polynomial depth factors are reduced",
    ),
    "3": (
        "grenzen voor overdekkingsgetallen [...] die interpoleren tussen op rang gebaseerde ($p=0$) en op normen gebaseerde "
        "($p=2$) regimes",
        "covering-number bounds that interpolate between rank-based (p = 0) and norm-based (p = 2) regimes",
    ),
    "4": (
        "automatisch de meest gunstige afweging te selecteren [...] voor elke specifieke geleerde matrix; [...] zelfs voor "
        "deze [feedforward-]matrices levert de post hoc-selectie van $p=0$ (rang-gebaseerd) vaak de strakste grens op",
        "automatically select the most favourable trade-off for each learned matrix; even for feed-forward matrices the "
        "post hoc selection of p = 0 (rank-based) often gives the tightest bound",
    ),
    "5": (
        "De grenzen behouden een logaritmische afhankelijkheid van de tokenlengte ($T$)",
        "the bounds keep a logarithmic dependence on the token length T",
    ),
}

HOLDS, UP_TO_LOG, FAILS = "holds", "holds up to log factors (O~)", "fails"


def _table() -> tuple[regimes.RegimeResult, ...]:
    return regimes.table()


def _text(g: Growth) -> str:
    if g.exponential:
        return "exponential"
    out = str(g.power)
    return out + (f"*log^{g.log_power}" if g.log_power != 0 else "")


def _judge(
    number: str,
    conditions: list[tuple[str, str, bool]],
    method: str,
    statement: str,
    sampled: bool = True,
    note: str = "",
) -> Outcome:
    """``conditions``: (text, status, in_scope).  ``refuted`` iff an in-scope condition fails (those are the witness);
    the headline says "holds" or "holds up to log factors (O~)" otherwise."""
    if not conditions:
        return Outcome.unresolved(method, "no condition could be decided")
    scoped = [(c, st) for c, st, inside in conditions if inside]
    failing = [c for c, st in scoped if st == FAILS]
    near = [c for c, st in scoped if st == UP_TO_LOG]
    headline = f"refuted: fails under {len(failing)} in-scope condition(s)" if failing else UP_TO_LOG if near else HOLDS
    quote, english = QUOTES[number]
    witness = {
        "headline": headline,
        "quote": quote,
        "quote_en": english,
        "holds": [c for c, st, _ in conditions if st == HOLDS],
        "holds_up_to_log": [c for c, st, _ in conditions if st == UP_TO_LOG],
        "fails": [c for c, st, _ in conditions if st == FAILS],
        "in_scope": [c for c, _ in scoped],
        **({"counterexample": failing} if failing else {}),
    }
    detail = (
        f'{headline}. The paper\'s summary says: "{quote}" ({english}). {statement}; {RECONSTRUCTION}. '
        f"HOLDS under: {'; '.join(witness['holds']) or 'no condition'}. "
        f"HOLDS ONLY UP TO A LOG FACTOR under: {'; '.join(witness['holds_up_to_log']) or 'no condition'}. "
        f"FAILS under: {'; '.join(witness['fails']) or 'no condition'}." + (f" {note}" if note else "")
    )
    verdict = Verdict.REFUTED if failing else Verdict.VERIFIED if sampled else Verdict.PROVED
    return Outcome(verdict, method, detail=detail, witness=witness, **(_SAMPLED if sampled else {}))


_PAPER_REGIMES = ("frobenius", "rank", "spectral")
_VARIANTS = (
    ("sum", "ours_sum"),
    ("rss", "ours_rss"),
    ("sum, sharp", "ours_sum_sharp"),
    ("rss, sharp", "ours_rss_sharp"),
)


@claim(
    "claims.1_depth",
    "at fixed width: the depth dependence improves from L^(3/2) (Edelman et al.) to sqrt(L) or "
    "better, depending on the spectral structure",
)
def _depth(settings: Settings) -> Outcome:
    target = Growth(power=sp.Rational(1, 2))
    conditions = []
    for r in _table():
        ed = r.bounds["edelman"].depth.best
        for label, key in (("best", "ours_best_p"), *_VARIANTS):
            ours = r.bounds[key].depth
            cond = (
                f"{r.regime.name}/{r.alpha.name}/{label}: edelman {_text(ed)}, ours {_text(ours.best)} ({ours.argmin})"
            )
            full = compare(ours.best, target, Domain())
            powers = compare(Growth(ours.best.rate, ours.best.power), target, Domain())
            if full is None and powers is None:
                return Outcome.unresolved(_SYMBOLIC, f"could not compare {cond} with L^(1/2)")
            status = (
                HOLDS if full is not None and full <= 0 else UP_TO_LOG if powers is not None and powers <= 0 else FAILS
            )
            in_scope = label == "best" and r.alpha.name == "bounded" and r.regime.name in _PAPER_REGIMES
            conditions.append((cond, status, in_scope))
    return _judge(
        "1",
        conditions,
        _SYMBOLIC,
        "at fixed width: growth in L (L -> oo, N and all else fixed), infimum over p, compared with "
        "L^(1/2) including the log power (log L from ln(2m+1) of the union bound over P_m and from log K, K = 3L, "
        "in the allocated log factor); in scope: the best bound (both tails, both aggregations) with bounded "
        "Lipschitz products (Edelman's L^(3/2) is the bounded-alpha rate) in the paper's regimes frobenius, rank, "
        "spectral",
        note="This is the fixed-width reading; claims.1_depth_joint decides the comparison with "
        "Edelman when depth and width grow together (at one p).",
    )


@claim(
    "claims.1_depth_joint",
    "jointly in depth and width: at one p, ours grows slower than Edelman et al. along every "
    "joint growth N = L^kappa (up to log factors)",
)
def _depth_joint(settings: Settings) -> Outcome:
    from sabounds.theory.joint import region_text

    conditions = []
    for r in _table():
        j = r.joint
        checked = "; ".join(
            f"kappa = {x.kappa}: ours L^({x.ours.power}) ({x.ours_at}), edelman "
            f"{'exponential' if x.base.exponential else f'L^({x.base.power})'}"
            for x in j.samples
        )
        if not j.agrees:
            return Outcome.unresolved(
                _SYMBOLIC,
                f"{r.regime.name}/{r.alpha.name}: the pairs and the direct growth along "
                f"N = L^kappa disagree ({checked})",
            )
        everywhere = j.region == sp.Interval.open(0, sp.oo)
        cond = (
            f"{r.regime.name}/{r.alpha.name}/best: ours (one p at a time) is smaller where {region_text(j.region)}; "
            f"re-checked by the growth in L of the closed forms with N = L^kappa substituted: {checked}"
        )
        conditions.append(
            (cond, HOLDS if everywhere else FAILS, r.alpha.name == "bounded" and r.regime.name in _PAPER_REGIMES)
        )
    return _judge(
        "1",
        conditions,
        _SYMBOLIC + "; per-p exponent pairs (depth, width) and the direct growth along "
        "N = L^kappa at kappa in {1/2, 1, 2, 3}",
        "jointly: for each p a pair L^a N^b; ours beats Edelman along N = L^kappa where a + kappa b is smaller "
        "than Edelman's; the union over p; in scope: bounded Lipschitz products in the paper's regimes frobenius, "
        "rank, spectral",
        note="In the Frobenius regime every p trades depth for width (a + 2b = 5/2, Edelman's 3/2 + 2 * 1/2): the "
        "sqrt(L) of p = 0 comes with N^1, so ours is smaller only where N < L^2 (not at BERT-base's L = 12, "
        "N = 768, kappa = 2.67); the rank and spectral regimes improve at every kappa.",
    )


def _alpha_degree(sharp: bool) -> sp.Expr:
    """``d log sqrt(cover) / d log rho`` of one slot's allocated cover (``sabounds.theory.thm31``), the logarithms that
    contain rho held fixed: the power with which ``rho = gamma alpha`` enters the slot's Dudley share."""
    from sabounds.theory.thm31 import K, slot_log_cover, slot_log_cover_sharp
    from sabounds.theory.thm41 import d_in, d_out

    r_ = sp.Symbol("rho_share", positive=True)
    cover = slot_log_cover_sharp(d_in, d_out, M, K, r_, p) if sharp else slot_log_cover(d_in, d_out, M, K, r_)
    frozen = sp.sqrt(cover).replace(
        lambda e: isinstance(e, sp.log) and e.has(r_), lambda e: sp.Symbol("ell_fixed", positive=True)
    )
    return r_ * sp.diff(sp.log(frozen), r_)


@claim(
    "claims.2_propagation", "a smaller p reduces the layer-to-layer propagation factor and the polynomial depth factors"
)
def _propagation(settings: Settings) -> Outcome:
    conditions = []
    for name, degree_expr in (
        ("published proxy summand", rho * sp.diff(sp.log(proxy_summand), rho)),
        ("crude tail (slot cover of the table)", _alpha_degree(False)),
        ("sharp tail (slot cover of the table)", _alpha_degree(True)),
    ):
        degree = sp.simplify(degree_expr)
        slope = sp.factor(sp.diff(degree, p))
        ok = bool(slope.is_positive) and sp.simplify(degree.subs(p, 0)) == 0
        conditions.append(
            (
                f"{name}: alpha enters with power d log / d log(gamma alpha) = {degree}, d/dp = {slope} "
                f"({'positive' if slope.is_positive else 'undecided'}), 0 at p = 0: smaller p, smaller power",
                HOLDS if ok else FAILS,
                True,
            )
        )
    for r in _table():
        if r.alpha.name != "exponential":
            continue
        for label, key in _VARIANTS:
            rows = dict(r.bounds[key].depth.by_piece)
            at0, interior = rows["p=0"], [g for lab, g in rows.items() if "<" in lab]
            ok = not at0.exponential and all(g.exponential for g in interior)
            conditions.append(
                (
                    f"{r.regime.name}/exponential/{label}: p=0 gives {_text(at0)}, 0<p<2 gives "
                    f"{', '.join(_text(g) for g in interior)}",
                    HOLDS if ok else FAILS,
                    True,
                )
            )
        bounded = next(x for x in _table() if x.regime.name == r.regime.name and x.alpha.name == "bounded")
        exp0 = dict(r.bounds["ours_rss"].depth.by_piece)["p=0"]
        bnd0 = dict(bounded.bounds["ours_rss"].depth.by_piece)["p=0"]
        removed = compare(exp0, bnd0, Domain()) == 0
        conditions.append(
            (
                f"{r.regime.name}: a 'removed' reading (not the seed's word): at p = 0, rss, exponential alpha "
                f"gives {_text(exp0)}, bounded alpha {_text(bnd0)}: alpha survives inside the log factor "
                f"log(c s B K rho_k/Delta) and {'does not change' if removed else 'changes'} the polynomial order",
                HOLDS if removed else FAILS,
                False,
            )
        )
    return _judge(
        "2",
        conditions,
        _SYMBOLIC + " and sympy differentiation",
        "the power with which alpha enters decreases with p (both tails); with alpha^(l) = C^(L-l) ours is "
        "polynomial in L exactly at p = 0 and exponential for every fixed p > 0 (Edelman: exponential)",
        note="'Reduced' holds; 'removed' would not (out of scope, listed for the reader).",
    )


@claim("claims.3_interpolation", "the bound interpolates between rank-based (p = 0) and norm-based (p = 2) covering")
def _interpolation(settings: Settings) -> Outcome:
    from sabounds.theory.thm41 import K_M, B, D, d_in, d_out, ell_M, ell_par

    rank_sym, frob = sp.symbols("rank F", positive=True)
    at0 = slot_coefficient.subs(p, 0).subs(M, rank_sym)
    lim0 = sp.limit(slot_coefficient, p, 0, "+").subs(M, rank_sym)
    at2 = slot_coefficient.subs(p, 2).subs(M, frob**2)
    conditions = []
    rank_form = (d_in + d_out) * ell_par * rank_sym
    ok = sp.simplify(at0 - rank_form) == 0 and sp.simplify(lim0 - at0) == 0
    conditions.append(
        (
            f"both routes, p = 0 (and p -> 0+): log N_k = {at0} = rank (d_in + d_out) log(c s B/eps): parametric, "
            "no eps power, no rho (the sharp route at p = 0 is the crude one)",
            HOLDS if ok else FAILS,
            True,
        )
    )
    norm_form = 2 * sp.sqrt((d_in + d_out) * ell_par * K_M * ell_M * d_out * D) * B * frob
    hybrid = sp.simplify(at2 - norm_form) == 0
    conditions.append(
        (
            f"crude route, p = 2: log N_k = {sp.simplify(at2)} / eps"
            + (
                ": the geometric mean of the parametric count (d_in + d_out) D and Maurey's eps^-2 cover, "
                "~ N^(3/2)/eps at d_in = d_out = D = N: a parametric/norm hybrid, not the norm-based covering "
                "(a reading of 'norm-based' by the crude route)"
                if hybrid
                else ": not the expected hybrid form"
            ),
            FAILS,
            False,
        )
    )
    sharp2 = sp.limit(slot_coefficient_sharp, p, 2, "-").subs(M, frob**2)
    maurey = maurey_coefficient.subs(M, frob**2)
    conditions.append(
        (
            f"sharp route, p -> 2-: log N_k -> {sharp2} / eps^2 = Maurey's K_M ell_M d_out B^2 ||W||_F^2 / eps^2: "
            "exactly the norm-based covering (only the sharp route reaches it)",
            HOLDS if sp.simplify(sharp2 - maurey) == 0 else FAILS,
            True,
        )
    )
    q = 2 * p / (p + 2)
    q0, q2, slope = q.subs(p, 0), q.subs(p, 2), sp.factor(sp.diff(q, p))
    conditions.append(
        (
            f"0 < p < 2: eps exponent q = 2p/(p+2) (crude) has q(0) = {q0}, q(2) = {q2}, dq/dp = {slope} "
            f"({'positive' if slope.is_positive else 'undecided'}); the sharp tail's exponent is p itself: both "
            "move continuously and monotonically between the endpoints",
            HOLDS if q0 == 0 and q2 == 1 and slope.is_positive else FAILS,
            True,
        )
    )
    return _judge(
        "3",
        conditions,
        "sympy substitution and limits of the slot covering coefficients (both tails)",
        "endpoints of Theorem 4.1's slot cover inside Theorem 3.1, labelled by route: the rank-based end by both "
        "routes, the norm-based end by the sharp route only",
        sampled=False,
    )


def _flat_contributions(r_: sp.Expr, gk: sp.Expr, width: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """``sqrt(cover coefficient * kappa^t)`` of one N x N slot whose r singular values equal g (``S_p = r g^p``,
    ``gk = g kappa``, ``B = K_M = ell_par = ell_M = 1``), from the table's slot coefficients (``sabounds.theory.thm31``):
    (rank cover at p = 0, crude tail at p, sharp tail at p)."""
    from sabounds.theory.thm41 import K_M, B, D, d_in, d_out, ell_M, ell_par

    g = sp.Symbol("g_flat", positive=True)
    flat = {d_in: width, d_out: width, D: width, B: 1, K_M: 1, ell_M: 1, ell_par: 1}
    rank = sp.sqrt(slot_coefficient.subs(flat).subs(M, r_).subs(p, 0))
    crude = sp.sqrt(slot_coefficient.subs(flat).subs(M, r_ * g**p) * (gk / g) ** (2 * p / (p + 2)))
    sharp = sp.sqrt(slot_coefficient_sharp.subs(flat).subs(M, r_ * g**p) * (gk / g) ** p)
    return rank, sp.simplify(crude.subs(g, 1)), sp.simplify(sharp.subs(g, 1))


def _picked(r_, gk, width, ps) -> tuple[sp.Expr, str, float, float]:
    """The grid p (and tail) minimising min(crude, sharp) at one point, its value and the rank cover's, at 30 digits."""
    rank, crude, sharp = _flat_contributions(r_, gk, width)
    best = (sp.Integer(0), "rank", float(rank.evalf(30)))
    for v in ps:
        for tail, e in (("crude", crude), ("sharp", sharp)):
            if tail == "sharp" and v >= 2:
                continue
            x = float(e.subs(p, v).evalf(30))
            if x < best[2]:
                best = (v, tail, x)
    return (*best, float(rank.evalf(30)))


@claim(
    "claims.4_best_p",
    "the infimum over p selects the most favourable trade-off per matrix; p = 0 is often optimal, "
    "even for feed-forward matrices",
)
def _best_p(settings: Settings) -> Outcome:
    r_, gk, width = sp.symbols("r gkappa N_w", positive=True)
    rank, crude, sharp = _flat_contributions(r_, gk, width)
    conditions = []
    proxy = sp.log(proxy_summand.subs({M: r_ * (gk / rho) ** p, L_sym: 1, N: width}))
    crude_slope = sp.expand_log(sp.simplify(sp.diff(proxy, p) * (p + 2) ** 2), force=True)
    sharp_ratio = sp.simplify(sharp / rank)
    free = sp.simplify(sp.diff(sp.log(sharp_ratio), r_)) == 0 and sp.simplify(sp.diff(sp.log(sharp_ratio), width)) == 0
    rising = sp.simplify(gk * sp.diff(sp.log(sharp_ratio), gk) - p / 2) == 0
    rising_crude = sp.simplify(gk * sp.diff(sp.log(crude / rank), gk) - p / (p + 2)) == 0
    if not (free and rising and rising_crude):
        return Outcome.unresolved(
            "sympy differentiation of the slot covers",
            f"could not reduce the tails' ratios to the rank cover: sharp/rank = {sharp_ratio}",
        )
    ps = [sp.Rational(k, 17) for k in range(1, 35)]
    high = _picked(4, 4, 64, ps)
    conditions.append(
        (
            f"best tail (the table's object: min of crude and sharp per p, grid P_17): sharp/rank = {sharp_ratio} "
            "is free of r and N and rises in g kappa (d log / d log(g kappa) = p/2; crude: p/(p+2), sympy), so "
            "where p = 0 wins at one g kappa it wins for every larger g kappa: an open region ('often'); at "
            f"r = 4, N = 64, g kappa = 4: the smallest p > 0 value is above the rank cover {high[3]:.4g}, "
            f"p = {high[0]} ({high[1]}) is picked",
            HOLDS if high[0] == 0 else FAILS,
            True,
        )
    )
    low = _picked(4, sp.Rational(1, 2), 64, ps)
    at19 = float(sharp.subs({r_: 4, gk: sp.Rational(1, 2), width: 64, p: sp.Rational(19, 10)}).evalf(30))
    conditions.append(
        (
            "the crude tail's rule alone (published proxy: p = 0 optimal iff (g kappa)^2 N >= r, (p+2)^2 d/dp log = "
            f"{crude_slope}) is not the best tail's rule: at r = 4, N = 64, g kappa = 1/2 "
            f"((g kappa)^2 N = 16 >= r) the sharp tail at p = 19/10 gives {at19:.4g} against the rank cover "
            f"{low[3]:.4g}; on P_17 p = {low[0]} ({low[1]}, {low[2]:.4g}) is picked",
            HOLDS if low[0] == 0 else FAILS,
            False,
        )
    )
    conditions.append(
        (
            f"an 'always' reading (not the seed's word): at r = 4, N = 64, g kappa = 1/2, p = {low[0]} is picked",
            HOLDS if low[0] == 0 else FAILS,
            False,
        )
    )
    real = _checkpoint_share()
    synthetic = [(name, width, rank_, _break_even(sigma, width, width)) for name, width, rank_, sigma in spectra_met()]
    for name, width, rank_, (star, at4) in synthetic:
        conditions.append(
            (
                f"{name}, N = {width}, r = {rank_}: p = 0 is picked from sigma_1 kappa >= {star:.3g} on "
                f"2^(k/4); at sigma_1 kappa = {SPECTRUM_SCALE} p = {at4}",
                HOLDS if at4 == 0 else FAILS,
                False,
            )
        )
    families = (
        "(flat, power-law a in {1/2, 1, 2}, low rank plus a 1e-2 tail, full-rank exponential decay; N in "
        "{64, 384, 768}; r in {4, 16, 64})"
    )
    scales = [(SPECTRUM_SCALE, "the flat condition's scale", real is None)]
    if real is not None:
        scales += [(real[2], "the checkpoint's smallest sigma_1 kappa", True), (real[3], "its median", True)]
    for scale, what, scoped in scales:
        share = sum(star <= scale for *_, (star, _) in synthetic) / len(synthetic)
        conditions.append(
            (
                f"'often' over the spectra people meet: p = 0 is picked in {share:.0%} of the {len(synthetic)} "
                f"conditions {families} at sigma_1 kappa = {scale:.3g} ({what}), at least half required",
                HOLDS if share >= 0.5 else FAILS,
                scoped,
            )
        )
    if real is not None:
        total, ff = real[:2]
        conditions.append(
            (
                f"all-MiniLM-L6-v2 (the bundled checkpoint), every matrix at its own published scale kappa = "
                f"gamma alpha L with the best tail on P_17: p = 0 picked for {total:.1%} of the matrices and "
                f"{ff:.1%} of the feed-forward ones, at least half required of each",
                HOLDS if total >= 0.5 and ff >= 0.5 else FAILS,
                True,
            )
        )
    return _judge(
        "4",
        conditions,
        "sympy differentiation of the table's slot covers (both tails) and their values on the "
        "grid P_17 at 30 digits (34 points per tail); float64 logs of the same covers on 54 prescribed spectra "
        "and on a real checkpoint's measured spectra",
        "which p the infimum picks, with the best tail",
        note="Prescribed spectra have sigma_1 = 1, B = K_M = ell = 1 (as the flat conditions); the checkpoint's "
        "matrices use their measured singular values and the published scale; 'often' is read as at least half.",
    )


SPECTRUM_SCALE = 4
"""The in-scope scale ``sigma_1 kappa`` of the prescribed spectra (the flat condition's ``g kappa = 4``)."""


def spectra_met():
    """``(name, N, r, sigma)``: flat (r ones), power-law ``i^-a`` on r values (a = 1/2, 1, 2), r ones plus an N - r
    tail at 1e-2, and full-rank ``exp(-(i-1)/r)`` (r the decay length); N in {64, 384, 768}, r in {4, 16, 64}."""
    import numpy as np

    for width in (64, 384, 768):
        for rank_ in (4, 16, 64):
            i = np.arange(1, rank_ + 1, dtype=float)
            yield "flat", width, rank_, np.ones(rank_)
            for a in (0.5, 1.0, 2.0):
                yield f"power-law a = {a:g}", width, rank_, i**-a
            yield "low rank plus tail", width, rank_, np.concatenate([np.ones(rank_), np.full(width - rank_, 1e-2)])
            yield "full-rank decay", width, rank_, np.exp(-np.arange(width) / rank_)


@lru_cache(maxsize=1)
def _log_covers():
    """float64 ``log sqrt(cover * kappa^t)`` of the table's slot covers (thm31), as functions of
    ``(p, ln S_p, d_in, d_out, D, ln kappa)``: rank (p = 0, S_0 = rank), crude tail, sharp tail."""
    import numpy as np

    from sabounds.theory.thm41 import K_M, B, D, d_in, d_out, ell_M, ell_par

    lm, lk = sp.symbols("lM lkappa", real=True)
    unit = {B: 1, K_M: 1, ell_M: 1, ell_par: 1, M: sp.exp(lm)}
    crude = sp.expand_log(sp.log(slot_coefficient.subs(unit)) / 2 + p / (p + 2) * lk, force=True)
    sharp = sp.expand_log(sp.log(slot_coefficient_sharp.subs(unit)) / 2 + p / 2 * lk, force=True)
    rank = sp.expand_log(sp.log(slot_coefficient.subs(unit).subs(p, 0)) / 2, force=True)
    args = (p, lm, d_in, d_out, D, lk)
    return tuple(sp.lambdify(args, e, modules="numpy") for e in (rank, crude, sharp)), np


def _picked_grid(log_sp, d_in, d_out, dim, lkappa):
    """``(p picked on P_17, best value, rank value)``: min over p > 0 of the best tail against the rank cover."""
    (rank, crude, sharp), np = _log_covers()
    ps = np.arange(1, 35) / 17
    with np.errstate(all="ignore"):
        tails = np.minimum(
            crude(ps, log_sp[1:], d_in, d_out, dim, lkappa),
            np.where(ps < 2, sharp(ps, log_sp[1:], d_in, d_out, dim, lkappa), np.inf),
        )
    r0 = float(rank(0.0, log_sp[0], d_in, d_out, dim, lkappa))
    j = int(np.nanargmin(tails))
    return (sp.Integer(0) if not tails[j] < r0 else sp.Rational(j + 1, 17)), r0


def _log_schatten(sigma):
    import numpy as np

    from sabounds.numerics.spectra import RANK_TOL, log_schatten_grid

    return log_schatten_grid(np.asarray(sigma, dtype=float), np.arange(0, 35) / 17, RANK_TOL)


def _break_even(sigma, d_in, d_out) -> tuple[float, sp.Expr]:
    """``(smallest 2^(k/4) >= 2^-10 from which p = 0 is picked (bisection: the tails rise in kappa, the rank cover
    does not), p picked at sigma_1 kappa = SPECTRUM_SCALE)``; sigma_1 = 1."""
    import math

    log_sp, dim = _log_schatten(sigma), min(d_in, d_out)

    def zero(k):
        return _picked_grid(log_sp, d_in, d_out, dim, k / 4 * math.log(2))[0] == 0

    lo, hi = -40, 400
    if not zero(hi):
        return math.inf, _picked_grid(log_sp, d_in, d_out, dim, math.log(SPECTRUM_SCALE))[0]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if zero(mid) else (mid, hi)
    return 2 ** (hi / 4), _picked_grid(log_sp, d_in, d_out, dim, math.log(SPECTRUM_SCALE))[0]


def _checkpoint_share():
    """(share of all matrices, share of feed-forward matrices) of all-MiniLM-L6-v2 where p = 0 is picked, and the
    smallest and median ``sigma_1 kappa`` over its matrices; None if the bundled checkpoint is not installed."""
    import math

    from sabounds.numerics.checkpoints.errors import CheckpointError
    from sabounds.numerics.checkpoints.reader import default_model_dir
    from sabounds.numerics.proxies.model_analysis import analyze_model

    try:
        folder = default_model_dir()
    except CheckpointError:  # the checkpoint is an optional package (sabounds.default_model())
        return None
    analysis = analyze_model(folder)
    width = analysis.shape.hidden
    sizes = {"M_in": (width, analysis.shape.intermediate), "M_out": (analysis.shape.intermediate, width)}
    zero, ff, scales = [], [], []
    for m in analysis.matrices:
        d_in, d_out = sizes.get(m.type, (width, width))
        lkappa = m.scale.ln if hasattr(m.scale, "ln") else math.log(m.scale)
        scales.append(lkappa + math.log(m.sigma[0]))
        picked, _ = _picked_grid(_log_schatten(m.sigma), d_in, d_out, min(d_in, d_out), lkappa)
        zero.append(picked == 0)
        if m.type in sizes:
            ff.append(picked == 0)
    scales.sort()
    return sum(zero) / len(zero), sum(ff) / len(ff), math.exp(scales[0]), math.exp(scales[len(scales) // 2])


@claim("claims.5_tokens", "token length T enters logarithmically")
def _tokens(settings: Settings) -> Outcome:
    conditions, logs = [], set()
    half = sp.Rational(1, 2)
    for r in _table():
        for name, b in r.bounds.items():
            worst = b.token.worst or b.token.best
            ok = not worst.exponential and worst.power == 0 and bool(worst.log_power <= half)
            logs.add(worst.log_power)
            conditions.append(
                (
                    f"{r.regime.name}/{r.alpha.name}/{name}: (log T)^{worst.log_power} at worst",
                    HOLDS if ok else FAILS,
                    True,
                )
            )
    return _judge(
        "5",
        conditions,
        _SYMBOLIC,
        "growth in T with everything else fixed, worst over p: power 0 and log power "
        f"at most 1/2 required; log powers found: {', '.join(str(x) for x in sorted(logs, key=float))}",
    )
