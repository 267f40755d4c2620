"""Judge the free-form decider's adversarial search: a violation re-checked at its exact value by both engines
(``refuted``), a strict relation's tightest point (``refuted`` at an exact zero, else ``unresolved``), or ``verified``
evidence whose smallest gap is certified by an Arb ball that excludes 0 (precision doubled up to a cap) with
``mpmath.iv`` agreeing.  ``verified`` is never given when a sample violates, when the branch and bound left a box it
could not split (unless an exact tight point of a non-strict relation explains it), or when the smallest gap cannot
be told from 0: those are ``unresolved`` with the reason."""

from __future__ import annotations

import time

import mpmath
import sympy as sp

from sabounds.proofs_check import arb_enclosure as A
from sabounds.proofs_check.conjecture import tight
from sabounds.proofs_check.conjecture.certify import check_point, scale_free
from sabounds.proofs_check.conjecture.routes import refuted_at, witness_text
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.proofs_check.verdict import Outcome, Verdict

METHOD = ("adversarial search (exact structured candidates: ends, 0, +-1, integers, simple rationals; random starts; "
          "pattern search) at mpmath precision, judged by Arb and mpmath.iv")


def _violations(ff, found, dps: int) -> tuple[Outcome | None, list]:
    """The first sampled point with a gap <= 0 whose violation both engines certify at its exact value (``refuted``),
    else ``unresolved`` when such a point cannot be told from 0 or the engines disagree, else ``None``; with the
    ``(check, exact point)`` of every such point that holds at its exact value (rounding at the working precision)."""
    g, strict = ff.gap()
    unsure, held = None, []
    for value, point in found.negatives:
        exact = ff.exact(point, dps)
        check = check_point(g, exact, dps)
        if check.holds(strict) and len(check.engines) >= 2:
            held.append((check, exact))
            continue
        out = refuted_at(ff, exact, METHOD, f"gap {mpmath.nstr(value, 8)} at {dps} digits at the witness", dps,
                         found.evaluations, check)
        if out.verdict is Verdict.REFUTED:
            return out, held
        unsure = unsure or out
    return unsure, held


def _unsplittable(ff, dps: int, seconds: float) -> Outcome | str | None:
    """The branch and bound's unsplittable boxes: an exact tight point inside refutes a strict relation and explains a
    non-strict one (``None``); otherwise ``unresolved``; a string names the explained points."""
    g, strict = ff.gap()
    explained = []
    middle = {s: (sp.Rational(d.lo) + sp.Rational(d.hi)) / 2 for s, d in ff.domain.items()}
    for centre in ff.notes.get("unsplittable", []):
        full = {s: mpmath.mpf(v.p) / v.q for s, v in {**middle, **centre}.items()}
        exact = tight.tight_point(g, full, ff.domain, dps, seconds)
        if exact is None:
            return Outcome(Verdict.UNRESOLVED, "interval branch and bound on Arb balls", dps, None, None,
                           witness_text(ff.exact(full, dps)),
                           "a sub-box of the bisection could not be split further and the gap cannot be told from 0 "
                           "there (no exact point with gap 0 was found by sympy): neither a proof nor a margin")
        if strict:
            return refuted_at(ff, exact, "exact tight point inside an unsplittable box of the bisection (sympy)",
                              f"sympy shows rhs - lhs = {g} is exactly 0 there, so the strict relation fails", dps)
        explained.append(", ".join(f"{s} = {v}" for s, v in exact.items()))
    return ("; the bisection's unsplittable box holds an exact tight point (" + "; ".join(explained) + "), where the "
            "non-strict relation holds with equality") if explained else None


def _tightest(ff, found, settings, start: float):
    """A strict relation whose smallest gap is small: refine it, refute at an exact zero, or certify the gap away from
    0 on the refinement's resolution box by both engines.  ``(outcome, None)`` or ``(None, refined exact point)``."""
    dps = settings.precision
    g, _ = ff.gap()
    left = max(0.2, ff.budget - (time.monotonic() - start))
    try:
        with time_limit(left), mpmath.workdps(dps):
            value, point, _ = tight.refine(lambda pt: ff.sides_gap(pt, dps)[2], found.point, ff.domain, dps)
    except TimeLimit:
        return Outcome.unresolved(METHOD, "a strict relation with a small smallest gap whose refinement did not finish "
                                  "within the safety time limit: it cannot be verified from samples"), None
    exact = tight.tight_point(g, point, ff.domain, dps, max(0.2, min(2.0, ff.budget - (time.monotonic() - start))))
    if exact is not None:
        return refuted_at(ff, exact, "exact tight point: pattern search at mpmath precision, then sympy (nsimplify / "
                          "solveset) and an exact zero of rhs - lhs", f"sympy shows rhs - lhs = {g} is exactly 0 at "
                          f"{', '.join(f'{s} = {v}' for s, v in exact.items())}, so the strict relation fails there", dps), None
    near = tight.enclosure_near(g, point, ff.domain, dps)
    arb_near = tight.arb_enclosure_near(g, point, ff.domain, dps) if A.available() else None
    if near is not None and near[0] > 0 and (arb_near is None and not A.available() or arb_near is not None and arb_near > 0):
        return None, ff.exact(point, dps)
    return Outcome(Verdict.UNRESOLVED, METHOD + "; refinement at mpmath precision", dps, found.evaluations, float(value),
                   witness_text(ff.exact(point, dps)),
                   f"a strict relation tight somewhere: the refined smallest gap is {mpmath.nstr(value, 8)}, and the "
                   f"enclosures of rhs - lhs on the box of half-width 10^-{dps // 2} of each range around it (mpmath.iv: "
                   f"{_pair(near)}; Arb: {arb_near if arb_near is not None else 'none'}) do not exclude 0; no exact "
                   "point with gap 0 was found (sympy nsimplify / solveset), so neither a violation nor a margin can be "
                   "claimed"), None


def _pair(near) -> str:
    return "none" if near is None else f"[{mpmath.nstr(near[0], 6)}, {mpmath.nstr(near[1], 6)}]"


def judge(ff, found, settings, start: float, why: str) -> Outcome:
    dps = settings.precision
    g, strict = ff.gap()
    violated, held = _violations(ff, found, dps)
    if violated is not None:
        return violated
    if found.undefined:
        return Outcome(Verdict.UNRESOLVED, METHOD, dps, found.evaluations, None, witness_text(ff.exact(found.point, dps)),
                       f"{found.undefined} of {found.evaluations} sampled points could not be evaluated (beyond the "
                       "evaluator's magnitude bound, or undefined): no verdict from a search that skipped points")
    explained = _unsplittable(ff, dps, max(0.2, min(2.0, ff.budget - (time.monotonic() - start))))
    if isinstance(explained, Outcome):
        return explained
    point = ff.exact(found.point, dps)
    with mpmath.workdps(dps):
        lhs, rhs, value = ff.sides_gap({s: mpmath.mpf(v.p) / v.q for s, v in point.items()}, dps)
    scaled = scale_free(g, point, ff.domain, float(value), dps)
    small = (scaled is not None and abs(scaled) < tight.TIGHT) or value <= tight.TIGHT * max(abs(lhs), abs(rhs), 1)
    if strict and small:
        out, refined = _tightest(ff, found, settings, start)
        if out is not None:
            return out
        point = refined
    if not A.available():
        return Outcome(Verdict.UNRESOLVED, METHOD, dps, found.evaluations, float(value), witness_text(point),
                       f"no sample violates the relation, but a verified margin must be certified by Arb, which is not "
                       f"installed ({A.PIN}); interval arithmetic could not settle it: {why}")
    check = check_point(g, point, dps)
    for other, exact in held:  # a point whose gap rounded to <= 0 but holds exactly: smaller than the search's best
        if check.middle is not None and other.middle is not None and other.middle < check.middle and check.holds(strict):
            check, point = other, exact
    scaled = scale_free(g, point, ff.domain, check.middle, dps)
    if not check.holds(strict) or len(check.engines) < 2:
        return Outcome(Verdict.UNRESOLVED, METHOD, dps, found.evaluations, check.middle, witness_text(point),
                       f"no sample violates the relation, but the smallest gap cannot be certified away from 0 "
                       f"(precision doubled up to the cap): {check.text}", engines=check.engines, margin_error=check.error,
                       scaled_margin=scaled)
    tail = explained or ""
    return Outcome(Verdict.VERIFIED, METHOD, dps, found.evaluations, check.middle, witness_text(point),
                   f"evidence, not proof: the smallest gap found is {check.middle:.8g} +- {check.error:.2g} (certified: "
                   f"{check.text}); scale-free margin {_scaled_text(scaled)} (the gap over its first-order change across "
                   f"the box) among {found.evaluations} evaluations on the box {ff.box_text()} (exact structured "
                   f"candidates, {settings.samples} random starts, pattern search from the best 4); a violation confined "
                   f"to a region the samples and the bisection did not reach can be missed (interval arithmetic could "
                   f"not settle it: {why}){tail}", engines=check.engines, margin_error=check.error, scaled_margin=scaled)


def _scaled_text(scaled: float | None) -> str:
    return f"{scaled:.6g}" if scaled is not None else "undefined (the gap does not vary at first order there)"
