"""Decide a user's scalar relation over a box of variables: ``FreeForm`` (sympy, interval branch and bound, an
adversarial search, and for a strict relation its tightest point), and ``declare`` for its variables."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, ClassVar, Mapping

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.expressions.bounded import bounded_evaluate
from sabounds.proofs_check.inequality_decider import certify_inequality
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.conjecture.number_text import exact_str as _exact_str
from sabounds.proofs_check.conjecture.number_text import witness_number
from sabounds.proofs_check.conjecture.number_text import witness_of as _witness_of
from sabounds.proofs_check.search import adversarial_min
from sabounds.proofs_check.conjecture.tight import TIGHT
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory.checks import Interval


def _quiet(note: str = "") -> None:
    """The default progress callback."""


@dataclass(frozen=True)
class FreeForm:
    """Claim: a user's relation ``lhs <op> rhs`` holds for every point of a box of scalar variables.

    Literals are exact rationals (``0.1`` is 1/10).  Method: (0) a relation without variables is evaluated exactly
    by sympy; (1) sympy's sign inference on ``rhs - lhs`` (and on its ``factor``/``simplify``), using only the
    variables' sign and integrality assumptions, within ``symbolic_seconds``: ``proved``; (2) interval arithmetic
    (branch and bound) on the box: ``proved`` on that box, or ``refuted`` at an exact point it certifies; (3) an
    adversarial search of the relative gap ``(rhs - lhs) / max(|lhs|, |rhs|)`` at ``settings.precision`` digits:
    exact structured candidates (ends, 0, +-1, integers, rationals with denominators up to 12, midpoints), then
    ``settings.samples`` random starts and pattern search (counts only; ``budget`` seconds is a safety limit whose
    expiry gives ``unresolved``).  Every point with a gap <= 0 is re-checked at its exact value (interval
    arithmetic, else ``4 precision`` digits): ``refuted`` with that exact witness if the violation persists,
    ``unresolved`` if it cannot be told from 0; a negative margin is never ``verified``.  Points where the
    relation is undefined are counted; if any, the answer is at most ``unresolved`` (the relation does not hold on
    all of its declared box).  Fails: a violation confined to a tiny region can be missed.
    """

    relation: sp.Rel
    domain: Mapping[sp.Symbol, Interval]
    budget: float = 4.0
    symbolic_seconds: float = 1.0
    name: ClassVar[str] = "free-form"
    stages: ClassVar[int] = 1

    @property
    def claim(self) -> str:
        ranges = ", ".join(f"{s} in [{_exact_str(sp.Rational(iv.lo))}, {_exact_str(sp.Rational(iv.hi))}]"
                           for s, iv in self.domain.items())
        return f"{self.relation} for {ranges}" if ranges else str(self.relation)

    def _gap(self) -> tuple[sp.Expr, bool]:
        rel = self.relation
        less = isinstance(rel, (sp.LessThan, sp.StrictLessThan))
        return (rel.rhs - rel.lhs) if less else (rel.lhs - rel.rhs), isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))

    def _sides_gap(self, point: Mapping, dps: int) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
        """``(lhs, rhs, gap)`` at ``point``, ``gap`` > 0 on the true side of the relation."""
        rel = self.relation
        lhs, rhs = bounded_evaluate(rel.lhs, point, dps), bounded_evaluate(rel.rhs, point, dps)
        return lhs, rhs, (rhs - lhs) if isinstance(rel, (sp.LessThan, sp.StrictLessThan)) else (lhs - rhs)

    def _relative_gap(self, point: Mapping, dps: int) -> mpmath.mpf:
        """The search objective and the reported margin: ``gap / max(|lhs|, |rhs|, 1)``.  The 1 keeps a side at 0 from
        reading as full slack (``gap / max(|lhs|, |rhs|)`` is exactly 1 wherever one side vanishes, so a relation
        tight at an irrational point looked flat at 1); large sides still give a relative gap."""
        lhs, rhs, gap = self._sides_gap(point, dps)
        return gap / max(abs(lhs), abs(rhs), 1)

    def _gaps_text(self, point: Mapping, dps: int) -> str:
        """Both measures at ``point``: the absolute gap and the gap relative to ``max(|lhs|, |rhs|)``."""
        try:
            with mpmath.workdps(dps):
                lhs, rhs, gap = self._sides_gap(point, dps)
                scale = max(abs(lhs), abs(rhs))
                relative = mpmath.nstr(gap / scale, 8) if scale else "undefined (both sides 0)"
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
            return "gaps not evaluable at the reported point"
        return f"absolute gap {mpmath.nstr(gap, 8)}, gap relative to max(|lhs|, |rhs|) {relative}"

    def _symbolic(self) -> str | None:
        g, strict = self._gap()
        try:
            with time_limit(self.symbolic_seconds):
                for how, transform in (("sign inference", None), ("factor, then sign inference", sp.factor),
                                       ("simplify, then sign inference", sp.simplify)):
                    form = g if transform is None else transform(g)
                    ok = form.is_positive if strict else form.is_nonnegative
                    if ok and transform is not None and not self._denominator_nonzero(g):
                        return None  # factor/simplify cancelled a 0/0 point: (x^2 - 1)/(x - 1) - x -> 1 at x = 1
                    if ok:
                        return f"sympy {how} on the gap {form} under the variables' sign assumptions"
        except (TimeLimit, RecursionError, MemoryError, TypeError, ValueError, ArithmeticError):
            return None
        return None

    def _denominator_nonzero(self, g: sp.Expr) -> bool:
        """Is the denominator of ``together(g)`` nonzero on the whole box (sympy's assumptions, else an interval
        enclosure of it that excludes 0)?  A proof on a rewritten gap holds only where the original is defined."""
        from sabounds.proofs_check.interval_enclosure import NotEnclosable, constant_interval, enclose, iv, iv_digits
        den = sp.fraction(sp.together(g))[1]
        if den.is_nonzero or not den.free_symbols:
            return bool(den.is_nonzero)
        try:
            with iv_digits(30):
                e = enclose(den, {s: iv.mpf([constant_interval(sp.Rational(d.lo)).a, constant_interval(sp.Rational(d.hi)).b])
                                  for s, d in self.domain.items()})
        except (NotEnclosable, ZeroDivisionError, ValueError, OverflowError, TypeError, ArithmeticError):
            return False
        return bool(e.a > 0 or e.b < 0)

    def _closed(self) -> Outcome | None:
        """A relation without variables, decided by sympy's evaluation of the relation between the two exact numbers."""
        rel = self.relation
        try:
            with time_limit(self.symbolic_seconds):
                truth = type(rel)(rel.lhs, rel.rhs)
        except (TimeLimit, RecursionError, MemoryError, TypeError, ValueError, ArithmeticError):
            return None
        sides = {"lhs": _exact_str(rel.lhs), "rhs": _exact_str(rel.rhs)}
        if truth is sp.true:
            return Outcome(Verdict.PROVED, "sympy: the closed relation evaluated exactly", witness=None,
                           detail=f"lhs = {sides['lhs']}, rhs = {sides['rhs']}: sympy evaluates the relation to True")
        if truth is sp.false:
            g, _ = self._gap()
            try:
                scale = sp.Max(sp.Abs(rel.lhs), sp.Abs(rel.rhs))
                margin = float(sp.N(g / scale if scale != 0 else g, 30))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
                margin = None
            return Outcome(Verdict.REFUTED, "sympy: the closed relation evaluated exactly", None, None, margin, sides,
                           f"lhs = {sides['lhs']}, rhs = {sides['rhs']}: sympy evaluates the relation to False")
        return None

    def _violated_at(self, exact: Mapping[sp.Symbol, sp.Rational], dps: int) -> tuple[bool | None, str]:
        """Is the relation violated at the exact point?  Interval arithmetic at the point first (certified either way),
        then a re-evaluation at ``4 dps`` digits (violated when the gap stays below ``-10^-dps`` there; a gap of 0 there
        is no proof of a strict violation: ``erf(26)`` is 1 to 200 digits but below 1)."""
        from sabounds.proofs_check.interval_enclosure import NotEnclosable, constant_interval, enclose, iv_digits
        g, strict = self._gap()
        digits = 2 * dps
        try:
            with iv_digits(digits):
                e = enclose(g, {s: constant_interval(v) for s, v in exact.items()})
            hi, lo = mpmath.mpf(e.b), mpmath.mpf(e.a)
            if hi < 0 or (strict and hi <= 0):
                return True, f"interval arithmetic at the exact point ({digits} digits): rhs - lhs <= {mpmath.nstr(hi, 6)}"
            if lo > 0 or (not strict and lo >= 0):
                return False, f"interval arithmetic at the exact point ({digits} digits): rhs - lhs >= {mpmath.nstr(lo, 6)}"
        except (NotEnclosable, ZeroDivisionError, ValueError, OverflowError, TypeError, ArithmeticError):
            pass
        verdict = self._exact_sign(g, strict, exact)
        if verdict is not None:
            return verdict, f"sympy at the exact point: rhs - lhs {'is <= 0' if verdict else 'holds the sign'} exactly"
        try:
            with mpmath.workdps(4 * dps):
                point = {s: mpmath.mpf(int(v.p)) / int(v.q) for s, v in exact.items()}
                again = self._relative_gap(point, 4 * dps)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
            return None, "the re-evaluation at the exact point failed"
        tol = mpmath.mpf(10) ** (-dps)
        if again < -tol:
            return True, f"re-evaluated at the exact point at {4 * dps} digits: relative gap {mpmath.nstr(again, 8)}"
        if again >= 0 if not strict else again > tol:
            return False, f"re-evaluated at the exact point at {4 * dps} digits: relative gap {mpmath.nstr(again, 8)}"
        return None, f"relative gap {mpmath.nstr(again, 8)} at {4 * dps} digits: too close to 0 to tell"

    def _exact_sign(self, g: sp.Expr, strict: bool, exact: Mapping) -> bool | None:
        """Violated (True), holds (False) or unknown (None) at a point of small exact rationals, by sympy's exact
        evaluation (``(x - 1/7)**2`` at ``x = 1/7`` is 0 exactly); skipped for long rationals or huge values."""
        if any(abs(v.p) > 10**30 or v.q > 10**30 for v in exact.values()):
            return None
        try:
            with mpmath.workdps(30):
                sides = [bounded_evaluate(side, {s: mpmath.mpf(int(v.p)) / int(v.q) for s, v in exact.items()}, 30)
                         for side in (self.relation.lhs, self.relation.rhs)]
            if max(abs(v) for v in sides) > mpmath.mpf(10) ** 1000:
                return None
            with time_limit(min(1.0, self.symbolic_seconds)):
                value = g.xreplace(dict(exact))
                if not value.is_Number:
                    value = sp.simplify(value)
                negative, zero, positive = value.is_negative, value.is_zero, value.is_positive
        except (TimeLimit, RecursionError, MemoryError, TypeError, ValueError, ArithmeticError, OverflowError):
            return None
        if negative or (strict and zero):
            return True
        if positive or (not strict and (zero or value.is_nonnegative)):
            return False
        return None

    def _exact(self, point: Mapping, dps: int) -> dict:
        """A searched point as exact rationals in the box (exact candidates stay exact; mpf via its ``dps``-digit decimal)."""
        out = {}
        for s, v in point.items():
            r = sp.Rational(v) if isinstance(v, sp.Basic) else sp.Rational(mpmath.nstr(v, dps))
            iv = self.domain[s]
            r = min(max(r, sp.Rational(iv.lo)), sp.Rational(iv.hi))
            if iv.integer:
                r = min(max(sp.Integer(round(r)), sp.ceiling(iv.lo)), sp.floor(iv.hi))
            out[s] = r
        return out

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        start = time.monotonic()
        early = self._exact_routes(settings)
        if isinstance(early, Outcome):
            return early
        dps = settings.precision
        rng = rng_for(str(self.relation), settings)
        try:
            with time_limit(max(0.1, self.budget - (time.monotonic() - start))), mpmath.workdps(dps):
                found = adversarial_min(lambda pt: self._relative_gap(pt, dps), self.domain, settings.samples, rng,
                                        structured=True)
        except ValueError as exc:
            return Outcome.unresolved("adversarial search", f"no point of the domain could be evaluated ({exc})")
        except TimeLimit:
            return Outcome.unresolved("adversarial search", f"the count-bounded search ({settings.samples} starts) did not "
                                      f"finish within the safety time limit of {self.budget:g} s; no verdict is given "
                                      "from a partial search")
        return self._from_search(found, settings, start, why=early)

    def _exact_routes(self, settings: Settings) -> Outcome | str:
        """A closed form, sympy's sign inference, then interval branch and bound: their verdict, or why none."""
        if not self.domain:
            closed = self._closed()
            if closed is not None:
                return closed
        proof = self._symbolic()
        if proof is not None:
            return Outcome(Verdict.PROVED, "sympy sign inference", detail=proof + (f" on the box {self._box()}" if self.domain else ""))
        dps = settings.precision
        certified = None
        if self.domain:
            try:
                with time_limit(max(0.1, self.budget / 2)):
                    certified = certify_inequality(self.relation, self.domain, budget=max(200, 20 * settings.samples))
            except TimeLimit:
                certified = None
            if certified is not None and certified.holds is True:
                return Outcome(Verdict.PROVED, f"interval arithmetic (mpmath.iv, branch and bound) on the box {self._box()}",
                               30, certified.boxes, detail=certified.reason)
            if certified is not None and certified.holds is False:
                exact = {s: certified.exact[str(s)] for s in self.domain}
                return Outcome(Verdict.REFUTED, "interval arithmetic (mpmath.iv): certified violation", 30, certified.boxes,
                               self._margin_at(exact, dps), _witness_of(exact), certified.reason)
        return (certified.reason if certified is not None else "interval arithmetic ran out of its time share") \
            if self.domain else "no variables to box"

    def _from_search(self, found, settings: Settings, start: float, why: str) -> Outcome:
        """The verdict of an adversarial search: a re-checked violation, unresolved, or verified evidence."""
        dps = settings.precision
        _, strict = self._gap()
        method = ("adversarial search (exact structured candidates: ends, 0, +-1, integers, simple rationals; random "
                  "starts; pattern search) at mpmath precision")
        undefined = (f"; {found.undefined} of {found.evaluations} candidate points were undefined (non-real, "
                     "division by zero or beyond the evaluator's magnitude bound) and skipped") if found.undefined else ""
        unsure = []
        for value, point in found.negatives:
            exact = self._exact(point, dps)
            violated, how = self._violated_at(exact, dps)
            if violated:
                return Outcome(Verdict.REFUTED, method, dps, found.evaluations, self._margin_at(exact, dps),
                               _witness_of(exact), f"relative gap {mpmath.nstr(value, 8)} at {dps} digits at the witness; "
                               f"{how}{undefined}")
            if violated is None:
                unsure.append((value, exact, how))
        if unsure:
            value, exact, how = unsure[0]
            return Outcome(Verdict.UNRESOLVED, method, dps, found.evaluations, float(value), _witness_of(exact),
                           f"relative gap {mpmath.nstr(value, 8)} at {dps} digits, but {how}; neither a violation nor "
                           f"a margin can be claimed{undefined}")
        margin = max(found.value, mpmath.mpf(0)) if found.negatives else found.value
        rounding = (f"; {len(found.negatives)} point(s) with a gap <= 0 at {dps} digits hold at their exact values "
                    "(rounding), margin reported as 0") if found.negatives and found.value < 0 else ""
        if found.undefined:
            return Outcome(Verdict.UNRESOLVED, method, dps, found.evaluations, float(margin), _witness_of(self._exact(found.point, dps)),
                           f"the relation is undefined on part of its declared box, so it cannot hold on all of it; where "
                           f"defined, smallest gap {mpmath.nstr(margin, 8)} (relative to max(|lhs|, |rhs|, 1)){undefined}{rounding}")
        point, evaluations = found.point, found.evaluations
        if strict and margin < TIGHT:
            tight, refined, refined_point, evaluations = self._at_tightest(found, settings, start, method)
            if tight is not None:
                return tight
            if refined < margin:
                margin, point = refined, refined_point
        return Outcome(Verdict.VERIFIED, method, dps, evaluations, float(margin), _witness_of(self._exact(point, dps)),
                       f"evidence, not proof: the smallest gap found is {mpmath.nstr(margin, 8)} relative to "
                       f"max(|lhs|, |rhs|, 1) ({self._gaps_text(point, dps)}) among {evaluations} evaluations "
                       f"on the box {self._box()} (exact structured candidates, {settings.samples} random starts, pattern "
                       f"search from the best 4); a violation confined to a region the samples and the interval "
                       f"bisection did not reach can be missed, and the margin is the smallest sampled gap, not a "
                       f"certified slack{rounding} (sympy could not decide the sign; interval arithmetic could not "
                       f"settle it: {why})")

    def _at_tightest(self, found, settings: Settings, start: float, method: str):
        """A strict relation whose smallest gap is small: refine below float64, look for an exact tight point
        (``refuted`` there), else enclose the gap around the refined point (``unresolved`` when the enclosure reaches
        0).  ``(outcome, None, None, evaluations)``, or ``(None, refined gap, its point, evaluations)`` when the gap
        is certainly positive there (the caller reports ``verified`` with the refined gap)."""
        from sabounds.proofs_check.conjecture import tight
        dps = settings.precision
        g, _ = self._gap()
        left = max(0.2, self.budget - (time.monotonic() - start))
        try:
            with time_limit(left), mpmath.workdps(dps):
                value, point, evaluations = tight.refine(lambda pt: self._relative_gap(pt, dps), found.point, self.domain, dps)
        except TimeLimit:
            return Outcome.unresolved(method, f"smallest gap {mpmath.nstr(found.value, 8)} (relative to max(|lhs|, |rhs|, "
                                      "1)) is small and its refinement did not finish within the safety time limit: a "
                                      "strict relation tight somewhere cannot be verified from samples"), None, None, 0
        evaluations += found.evaluations
        exact = tight.tight_point(g, point, self.domain, dps, max(0.2, min(2.0, self.budget - (time.monotonic() - start))))
        if exact is not None:
            witness = {str(s): witness_number(v) if v.is_Rational else str(v) for s, v in exact.items()}
            witness.update({f"{s}_float": float(sp.N(v, 20)) for s, v in exact.items() if not v.is_Rational})
            return Outcome(Verdict.REFUTED, "exact tight point: pattern search at mpmath precision, then sympy "
                           "(nsimplify / solveset) and an exact zero of rhs - lhs", dps, evaluations, 0.0, witness,
                           f"sympy shows rhs - lhs = {g} is exactly 0 at {', '.join(f'{s} = {v}' for s, v in exact.items())}, "
                           f"so the strict relation fails there (the refined search reached gap {mpmath.nstr(value, 6)} "
                           f"relative to max(|lhs|, |rhs|, 1))"), None, None, evaluations
        enclosure = tight.enclosure_near(g, point, self.domain, dps)
        with mpmath.workdps(dps):
            if enclosure is not None:
                if enclosure[0] > 0:
                    return None, value, point, evaluations
                error = (f"the interval enclosure of rhs - lhs on the box of half-width 10^-{dps // 2} (the refinement's "
                         f"resolution) around it is [{mpmath.nstr(enclosure[0], 6)}, {mpmath.nstr(enclosure[1], 6)}] "
                         f"(mpmath.iv, {dps} digits), which reaches 0")
            else:
                lhs, rhs, gap = self._sides_gap(point, dps)
                bound = mpmath.mpf(10) ** (10 - dps) * max(abs(lhs), abs(rhs), 1)
                if gap > bound and value > mpmath.mpf(10) ** (-(dps // 2)):
                    return None, value, point, evaluations
                error = (f"no interval extension certifies it away from 0 (evaluation error estimate "
                         f"{mpmath.nstr(bound, 3)} = 10^(10 - {dps}) max(|lhs|, |rhs|, 1), resolution 10^-{dps // 2})")
        return Outcome(Verdict.UNRESOLVED, method + "; refinement at mpmath precision", dps, evaluations, float(value),
                       _witness_of(self._exact(point, dps)),
                       f"a strict relation tight somewhere: the refined smallest gap is {mpmath.nstr(value, 8)} relative "
                       f"to max(|lhs|, |rhs|, 1) ({self._gaps_text(point, dps)}) and {error}; no exact point with gap 0 "
                       "was found (sympy nsimplify / solveset), so neither a violation nor a margin can be claimed"), None, None, evaluations

    def _box(self) -> str:
        from sabounds.proofs_check.interval import describe_box
        return describe_box(self.domain)

    def _margin_at(self, exact: Mapping, dps: int) -> float | None:
        try:
            with mpmath.workdps(dps):
                return float(self._relative_gap({s: mpmath.mpf(int(v.p)) / int(v.q) for s, v in exact.items()}, dps))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
            return None


def declare(name: str, lo, hi, integer: bool = False, log: bool = False) -> tuple[sp.Symbol, Interval]:
    """A real symbol for a free-form variable ranging over ``[lo, hi]``, with the sign assumptions the range implies.

    ``lo`` and ``hi`` are exact rationals (or finite floats, taken at their exact binary value's shortest repr).
    """
    def exact(v):
        if isinstance(v, sp.Basic):
            if not v.is_Rational:
                raise ValueError(f"range of {name} must have rational bounds, got {v}")
            return sp.Rational(v)
        if not np.isfinite(v):
            raise ValueError(f"range of {name} must be finite with lo <= hi, got [{lo}, {hi}]")
        return sp.Rational(repr(float(v)))

    lo_r, hi_r = exact(lo), exact(hi)
    if hi_r < lo_r:
        raise ValueError(f"range of {name} must be finite with lo <= hi, got [{lo}, {hi}]")
    if log and lo_r <= 0:
        raise ValueError(f"log-uniform range of {name} needs lo > 0")
    assumptions = {"real": True}
    if integer:
        assumptions["integer"] = True
    if lo_r > 0:
        assumptions["positive"] = True
    elif lo_r >= 0:
        assumptions["nonnegative"] = True
    if hi_r < 0:
        assumptions["negative"] = True
    elif hi_r <= 0:
        assumptions["nonpositive"] = True
    if integer and sp.ceiling(lo_r) > sp.floor(hi_r):
        raise ValueError(f"integer range of {name} [{lo}, {hi}] contains no integer")
    return sp.Symbol(name, **assumptions), Interval(lo_r, hi_r, integer=integer, log=log)
