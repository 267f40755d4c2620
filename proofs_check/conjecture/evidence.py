"""Judge the free-form decider's adversarial search: a violation re-checked at its exact value by both engines
(``refuted``), a strict relation's tightest point (``refuted`` at an exact zero, else ``unresolved``), or ``verified``
evidence whose smallest gap is certified by an Arb ball that excludes 0 (precision doubled up to a cap) with
``mpmath.iv`` agreeing.  ``verified`` is never given when a sample violates, when the branch and bound left a
sub-box it did not settle (its budget or time ran out), when a sub-box it set aside (no sign even at the precision
cap) holds no exact tight point of a non-strict relation, or when the smallest gap cannot be told from 0: those are
``unresolved`` with the reason."""

from __future__ import annotations

import time
from collections.abc import Mapping

import mpmath
import sympy as sp

from sabounds.proofs_check import arb_enclosure as A
from sabounds.proofs_check.conjecture import tight
from sabounds.proofs_check.conjecture.certify import check_point, scale_free
from sabounds.proofs_check.conjecture.routes import refuted_at, witness_text
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.proofs_check.verdict import Outcome, Verdict

METHOD = (
    "adversarial search (exact structured candidates: ends, 0, +-1, integers, simple rationals; random starts; "
    "pattern search) at mpmath precision, judged by Arb and mpmath.iv"
)


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
        out = refuted_at(
            ff,
            exact,
            METHOD,
            f"gap {mpmath.nstr(value, 8)} at {dps} digits at the witness",
            dps,
            found.evaluations,
            check,
        )
        if out.verdict is Verdict.REFUTED:
            return out, held
        unsure = unsure or out
    return unsure, held


def _inside(point: Mapping, box: Mapping) -> bool:
    """Is the exact ``point`` inside ``box`` widened by its own width on each side?  (Sympy evaluates the point 30
    digits beyond the box's width: a box set aside at 2048 bits is 1e-600 wide.)"""
    for s, (lo, hi) in box.items():
        w = hi - lo
        digits = 60 if w == 0 else max(60, int(-mpmath.log10(mpmath.mpf(w.p) / w.q)) + 30)
        v = sp.Rational(str(sp.N(point[s], digits)))
        if not (lo - w - sp.Rational(1, 10 ** (digits - 5)) <= v <= hi + w + sp.Rational(1, 10 ** (digits - 5))):
            return False
    return True


def _leftovers(ff, dps: int, seconds: float) -> Outcome | str | None:
    """What the branch and bound left: sub-boxes it did not settle make ``verified`` impossible (``unresolved``);
    set-aside boxes (no sign at the precision cap) must each hold an exact tight point: it refutes a strict relation
    and explains a non-strict one (a string naming the points); ``None`` when nothing was left."""
    g, strict = ff.gap()
    unsettled = ff.notes.get("unsettled", "the branch and bound did not run")
    if unsettled:
        return Outcome.unresolved(
            METHOD,
            "no sample violates the relation, but the branch and bound left sub-boxes it "
            f"did not settle ({unsettled}); `verified` needs every sub-box settled, or set aside "
            "and explained by an exact tight point",
        )
    middle = {s: (sp.Rational(d.lo) + sp.Rational(d.hi)) / 2 for s, d in ff.domain.items()}
    found: list[dict] = []
    for box in ff.notes.get("aside", []):
        centre = {**middle, **{s: (lo + hi) / 2 for s, (lo, hi) in box.items()}}
        exact = next((p for p in found if _inside(p, box)), None)
        if exact is None:
            exact = tight.tight_point(g, {s: mpmath.mpf(v.p) / v.q for s, v in centre.items()}, ff.domain, dps, seconds)
            if (
                exact is None
                or not _inside(exact, box)
                or not (strict or tight.certified_minimum(g, exact, box, ff.domain))
            ):
                return Outcome(
                    Verdict.UNRESOLVED,
                    "interval branch and bound on Arb balls",
                    dps,
                    None,
                    None,
                    witness_text(centre),
                    "a sub-box of the bisection cannot be told from 0 even at the "
                    "highest precision, and sympy finds no exact point with gap 0 in it where the gap is "
                    "certified to have its minimum (zero gradient and a positive definite Hessian on the "
                    "box, or an increase into the domain at its edge): neither a proof, a violation nor a "
                    "margin",
                )
            found.append(exact)
        if strict:
            return refuted_at(
                ff,
                exact,
                "exact tight point inside a sub-box the bisection could not sign (sympy)",
                f"sympy shows rhs - lhs = {g} is exactly 0 there, so the strict relation fails",
                dps,
            )
    if not found:
        return None
    return (
        "; the bisection's remaining sub-boxes each hold an exact tight point ("
        + "; ".join(", ".join(f"{s} = {v}" for s, v in p.items()) for p in found)
        + "), where the non-strict relation holds with equality and the gap has its minimum on the box (certified: "
        "zero gradient and a positive definite Hessian by Arb, or an increase into the domain)"
    )


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
        return Outcome.unresolved(
            METHOD,
            "a strict relation with a small smallest gap whose refinement did not finish "
            "within the safety time limit: it cannot be verified from samples",
        ), None
    exact = tight.tight_point(g, point, ff.domain, dps, max(0.2, min(2.0, ff.budget - (time.monotonic() - start))))
    if exact is not None:
        return refuted_at(
            ff,
            exact,
            "exact tight point: pattern search at mpmath precision, then sympy (nsimplify / "
            "solveset) and an exact zero of rhs - lhs",
            f"sympy shows rhs - lhs = {g} is exactly 0 at "
            f"{', '.join(f'{s} = {v}' for s, v in exact.items())}, so the strict relation fails there",
            dps,
        ), None
    near = tight.enclosure_near(g, point, ff.domain, dps)
    arb_near = tight.arb_enclosure_near(g, point, ff.domain, dps) if A.available() else None
    if (
        near is not None
        and near[0] > 0
        and (arb_near is None and not A.available() or arb_near is not None and arb_near > 0)
    ):
        return None, ff.exact(point, dps)
    exact = ff.exact(point, dps)
    check = check_point(g, exact, dps)  # the margin printed is the certified ball at the point, never the rounded gap
    return Outcome(
        Verdict.UNRESOLVED,
        METHOD + "; refinement at mpmath precision",
        dps,
        found.evaluations,
        check.middle,
        witness_text(exact),
        f"a strict relation tight somewhere: the refined smallest gap is {mpmath.nstr(value, 8)} at {dps} "
        f"digits, and the enclosures of rhs - lhs on the box of half-width 10^-{dps // 2} of each range around "
        f"it (mpmath.iv: {_pair(near)}; Arb: {arb_near if arb_near is not None else 'none'}) do not exclude "
        "0; no exact point with gap 0 was found (sympy nsimplify / solveset), so neither a violation nor a "
        f"verified margin can be claimed; the gap at the point itself: {check.text}",
        margin_error=check.error,
        exact_forms=check.exact_forms,
    ), None


def _pair(near) -> str:
    return "none" if near is None else f"[{mpmath.nstr(near[0], 6)}, {mpmath.nstr(near[1], 6)}]"


def judge(ff, found, settings, start: float, why: str) -> Outcome:
    dps = settings.precision
    g, strict = ff.gap()
    violated, held = _violations(ff, found, dps)
    if violated is not None:
        return violated
    if found.undefined:
        return Outcome(
            Verdict.UNRESOLVED,
            METHOD,
            dps,
            found.evaluations,
            None,
            witness_text(ff.exact(found.point, dps)),
            f"{found.undefined} of {found.evaluations} sampled points could not be evaluated (beyond the "
            "evaluator's magnitude bound, or undefined): no verdict from a search that skipped points",
        )
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
    explained = _leftovers(ff, dps, max(0.2, min(2.0, ff.budget - (time.monotonic() - start))))
    if isinstance(explained, Outcome):
        return explained
    if not A.available():
        return Outcome(
            Verdict.UNRESOLVED,
            METHOD,
            dps,
            found.evaluations,
            None,
            witness_text(point),
            f"no sample violates the relation, but a verified margin must be certified by Arb, which is not "
            f"installed ({A.PIN}), so no margin is reported (the searched gap {mpmath.nstr(value, 8)} has no "
            f"certified error); interval arithmetic could not settle it: {why}",
        )
    check = check_point(g, point, dps)
    for other, exact in held:  # a point whose gap rounded to <= 0 but holds exactly: smaller than the search's best
        if (
            check.middle is not None
            and other.middle is not None
            and other.middle < check.middle
            and check.holds(strict)
        ):
            check, point = other, exact
    scaled = scale_free(g, point, ff.domain, check.middle, dps)
    if not check.holds(strict) or len(check.engines) < 2:
        return Outcome(
            Verdict.UNRESOLVED,
            METHOD,
            dps,
            found.evaluations,
            check.middle,
            witness_text(point),
            f"no sample violates the relation, but the smallest gap cannot be certified away from 0 "
            f"(precision doubled up to the cap): {check.text}",
            engines=check.engines,
            margin_error=check.error,
            scaled_margin=scaled,
            exact_forms=check.exact_forms,
        )
    tail = explained or ""
    return Outcome(
        Verdict.VERIFIED,
        METHOD,
        dps,
        found.evaluations,
        check.middle,
        witness_text(point),
        f"evidence, not proof: the smallest gap found is {check.middle:.8g} +- {check.error:.2g} (certified: "
        f"{check.text}); scale-free margin {_scaled_text(scaled)} (the gap over its first-order change across "
        f"the box) among {found.evaluations} evaluations on the box {ff.box_text()} (exact structured "
        f"candidates, {settings.samples} random starts, pattern search from the best 4); a violation confined "
        f"to a region the samples and the bisection did not reach can be missed (interval arithmetic could "
        f"not settle it: {why}){tail}",
        engines=check.engines,
        margin_error=check.error,
        scaled_margin=scaled,
        exact_forms=check.exact_forms,
    )


def _scaled_text(scaled: float | None) -> str:
    return f"{scaled:.6g}" if scaled is not None else "undefined (the gap does not vary at first order there)"
