"""Certified scalar inequalities on a box: interval arithmetic (``mpmath.iv``) with branch and bound.

``enclose(expr, box)`` evaluates a sympy expression over a box of intervals with outward rounding, so the
result contains every value the expression takes there.  ``prove_on_box(lhs, rhs, ...)`` decides
``lhs <= rhs`` (or ``<``) on the box: a sub-box whose enclosure of ``rhs - lhs`` (or of ``log rhs - log lhs``,
which suffers less from dependency when both sides are products) is ``>= 0`` is settled; a point whose
enclosure is ``< 0`` is a certified counterexample; otherwise the box is halved along its widest coordinate
(log coordinates for log-ranged symbols).  The budget is a count of boxes, never a time: the same input gives
the same answer on any machine.  Fails (``None``) when the relation is tight somewhere on the box (the
enclosures never clear 0), when the dimension is high for the budget, or on a function ``mpmath.iv`` lacks.
The enclosures are ``sabounds.proofs_check.interval_enclosure``.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass

import mpmath
import sympy as sp

from sabounds.proofs_check.interval_enclosure import (
    NotEnclosable,
    constant_interval,
    enclose,
    iv,
    iv_digits,
    strictly_positive,
)

BOX_BUDGET = 4000
"""Default number of boxes branch and bound may examine before it gives up (``None``)."""


@dataclass(frozen=True)
class BoxResult:
    """``holds`` True (proved on the box), False (``witness`` certifies a violation) or None (undecided: ``reason``)."""

    holds: bool | None
    boxes: int
    witness: dict | None = None
    reason: str = ""
    form: str = ""
    exact: dict | None = None
    """The witness as exact sympy rationals inside the domain (symbol name -> value), certified at those values."""


def _ends(v) -> tuple[mpmath.mpf, mpmath.mpf]:
    return mpmath.mpf(v.a), mpmath.mpf(v.b)


def _split(box: dict, logs: set, integers: set) -> tuple[dict, dict] | None:
    """Halve ``box`` (symbol -> (lo, hi) mpf) along its widest coordinate; ``None`` when no coordinate can be split."""

    def width(s):
        lo, hi = box[s]
        if s in integers:
            return float(hi - lo) if hi - lo >= 1 else -1.0
        if s in logs and lo > 0:
            return float(mpmath.log(hi / lo))
        return float(hi - lo)

    if not box:
        return None
    s = max(box, key=width)
    lo, hi = box[s]
    if width(s) <= 0 or (s not in integers and hi - lo <= mpmath.eps * max(abs(lo), abs(hi), 1) * 16):
        return None
    if s in integers:
        mid = mpmath.floor((lo + hi) / 2)
        return {**box, s: (lo, mid)}, {**box, s: (mid + 1, hi)}
    mid = mpmath.sqrt(lo * hi) if s in logs and lo > 0 else (lo + hi) / 2
    return {**box, s: (lo, mid)}, {**box, s: (mid, hi)}


def _as_iv(box: dict) -> dict:
    return {s: iv.mpf([lo, hi]) for s, (lo, hi) in box.items()}


def _mid(box: dict, integers: set) -> dict:
    return {
        s: (m, m)
        for s, (lo, hi) in box.items()
        for m in [mpmath.floor((lo + hi) / 2) if s in integers else (lo + hi) / 2]
    }


def _exact_inside(point: dict, domain: Mapping[sp.Symbol, object], dps: int) -> dict:
    """``point`` (symbol -> mpf) as exact rationals inside the domain: each coordinate's ``dps``-digit decimal, clamped
    to the exact ends of its range (the branch and bound root is rounded outwards, so a midpoint may lie outside)."""
    out = {}
    for s, v in point.items():
        d = domain.get(s)
        r = sp.Rational(mpmath.nstr(v, dps))
        if d is not None:
            lo, hi = sp.Rational(d.lo), sp.Rational(d.hi)
            r = min(max(r, lo), hi)
            if d.integer:
                r = min(max(sp.Integer(round(r)), sp.ceiling(lo)), sp.floor(hi))
        out[s] = r
    return out


def describe_box(domain: Mapping[sp.Symbol, object]) -> str:
    """The box a verdict holds on, as text: ``x in [1/10, 10], L in [1, 64] (integers)``."""
    return ", ".join(
        f"{s} in [{d.lo}, {d.hi}]" + (" (integers)" if d.integer else "")
        for s, d in sorted(domain.items(), key=lambda t: str(t[0]))
    )


def _relax_roundings(expr: sp.Expr) -> tuple[sp.Expr, dict]:
    """Replace each ``ceiling(x)`` by ``x + theta`` and ``floor(x)`` by ``x - theta``, ``theta`` in [0, 1] a new box
    coordinate: a relaxation (it holds for every theta, so for the true one) without the dependency on x."""
    extra = {}

    def fresh(arg, sign):
        theta = sp.Symbol(f"theta_{len(extra)}", nonnegative=True)
        extra[theta] = (mpmath.mpf(0), mpmath.mpf(1))
        return arg + sign * theta

    relaxed = expr.replace(lambda e: isinstance(e, sp.ceiling), lambda e: fresh(e.args[0], 1))
    relaxed = relaxed.replace(lambda e: isinstance(e, sp.floor), lambda e: fresh(e.args[0], -1))
    return relaxed, extra


def _combined_logs(expr: sp.Expr) -> sp.Expr:
    """``log a - log b`` -> ``log(expand(a/b))``: e.g. ``log(j+1) - log j`` -> ``log(1 + 1/j)``, free of dependency."""
    g = sp.logcombine(sp.expand_log(expr, force=True), force=True)
    return g.replace(lambda e: isinstance(e, sp.log), lambda e: sp.log(sp.expand(e.args[0])))


def _gaps(lhs: sp.Expr, rhs: sp.Expr):
    """``(form, gap(box), symbols, extra box coordinates, may_refute)`` for each rewriting of ``rhs - lhs >= 0``."""
    if lhs.is_positive and rhs.is_positive:
        expanded = sp.expand(sp.expand_log(sp.log(rhs) - sp.log(lhs), force=True))
        yield (
            "expand_log(log rhs - log lhs) (both sides positive)",
            lambda box: enclose(expanded, box),
            expanded.free_symbols,
            {},
            True,
        )
    both = lhs.free_symbols | rhs.free_symbols
    if (rhs - lhs).has(sp.log):
        combined = _combined_logs(rhs - lhs)
        yield "rhs - lhs with logarithms combined", lambda box: enclose(combined, box), combined.free_symbols, {}, True
    if lhs.has(sp.ceiling) or lhs.has(sp.floor) or rhs.has(sp.ceiling) or rhs.has(sp.floor):
        relaxed, extra = _relax_roundings(rhs - lhs)
        relaxed = sp.simplify(relaxed)
        yield (
            "rhs - lhs with each ceiling(x) relaxed to x + theta, theta in [0, 1]",
            lambda box: enclose(relaxed, box),
            relaxed.free_symbols,
            extra,
            False,
        )
    yield "rhs - lhs", lambda box: enclose(rhs, box) - enclose(lhs, box), both, {}, True

    def log_form(box):
        lo, hi = enclose(lhs, box), enclose(rhs, box)
        if not (strictly_positive(lo) and strictly_positive(hi)):
            raise NotEnclosable("a side is not bounded away from 0")
        return iv.log(hi) - iv.log(lo)

    yield "log rhs - log lhs", log_form, both, {}, True


def _refute_at_centre(box, root, gap, strict, domain, integers, dps):
    """``(exact, enclosure)`` when the gap is certainly < 0 (<= 0 if ``strict``) at the centre of ``box``, re-checked at
    the centre's exact rational value inside the domain (the witness); else ``None``."""
    point = _mid(box, integers)
    try:
        gp = _ends(gap(_as_iv(point)))
    except (NotEnclosable, ZeroDivisionError, ValueError, OverflowError):
        return None
    if not (gp[1] < 0 or (strict and gp[1] <= 0)):
        return None
    # symbols the form does not contain take any value: the midpoint of their range
    full = {**_mid(root, integers), **point}
    exact = _exact_inside({s: v[0] for s, v in full.items()}, domain, dps)
    try:
        ge = _ends(gap({s: constant_interval(v) for s, v in exact.items() if s in box}))
    except (NotEnclosable, ZeroDivisionError, ValueError, OverflowError):
        return None
    return (exact, ge) if ge[1] < 0 or (strict and ge[1] <= 0) else None


class _BestFirst:
    """Best-first branch and bound of one rewriting's ``gap`` from its root box: the box whose enclosure reaches lowest is
    split next, so bisection walks into a narrow violated region (a bump of radius 1e-3 in 4 variables takes ~40 levels)
    instead of sweeping the box.  ``used`` counts enclosures; ``pending`` is set when the search stops unsettled."""

    def __init__(self, gap, strict: bool, budget: int, logs: set, integers: set):
        self.gap, self.strict, self.budget, self.logs, self.integers = gap, strict, budget, logs, integers
        self.used, self.why, self.pending = 0, "", False

    def bound(self, box):
        """The enclosure of the gap on ``box`` (``None`` when it has no interval extension there)."""
        self.used += 1
        try:
            return _ends(self.gap(_as_iv(box)))
        except (NotEnclosable, ZeroDivisionError, ValueError, OverflowError) as exc:
            self.why = str(exc) or type(exc).__name__
            return None

    def search(self, form: str, start: dict, refute, reasons: list):
        """``refute(box)``'s certified violation at the first unsettled box where it finds one, else ``None`` (every box
        settled, or ``pending`` with the reason appended to ``reasons`` when a box cannot be split)."""
        tie = 0
        heap = [(mpmath.ninf, 0, start, self.bound(start))]
        while heap:
            _, _, box, g = heapq.heappop(heap)
            if self.used > self.budget // 2:
                self.pending = True
                return None
            if g is not None and (g[0] > 0 or (not self.strict and g[0] >= 0)):
                continue
            found = refute(box) if refute is not None else None
            if found is not None:
                return found
            halves = _split(box, self.logs, self.integers)
            if halves is None:
                self.pending = True
                reasons.append(
                    f"{form}: a sub-box could not be split further" + (f" ({self.why})" if g is None else "")
                )
                return None
            for half in halves:
                gh = self.bound(half)
                tie += 1
                heapq.heappush(heap, (gh[0] if gh is not None else mpmath.ninf, tie, half, gh))
        return None


def _root_box(domain: Mapping[sp.Symbol, object], integers: set) -> dict:
    """Each symbol's range as (lo, hi) mpf, rounded outwards (integer ranges to their integer ends)."""
    root = {}
    for s, d in domain.items():
        lo, hi = _ends(enclose(sp.sympify(d.lo), {}))[0], _ends(enclose(sp.sympify(d.hi), {}))[1]
        if s in integers:
            lo, hi = mpmath.ceil(lo), mpmath.floor(hi)
        root[s] = (lo, hi)
    return root


def prove_on_box(
    lhs: sp.Expr,
    rhs: sp.Expr,
    strict: bool,
    domain: Mapping[sp.Symbol, object],
    budget: int = BOX_BUDGET,
    dps: int = 30,
) -> BoxResult:
    """Decide ``lhs <= rhs`` (``<`` when ``strict``) for every point of ``domain`` (symbol -> Interval) by branch and bound."""
    logs = {s for s, d in domain.items() if d.log}
    integers = {s for s, d in domain.items() if d.integer}
    with iv_digits(dps), mpmath.workdps(dps):
        root = _root_box(domain, integers)
        boxes, reasons = 0, []
        for form, gap, used_symbols, extra, may_refute in _gaps(lhs, rhs):
            start = {**{s: v for s, v in root.items() if s in used_symbols}, **extra}
            run = _BestFirst(gap, strict, budget, logs, integers)
            refute = (
                (lambda box: _refute_at_centre(box, root, gap, strict, domain, integers, dps)) if may_refute else None
            )
            found = run.search(form, start, refute, reasons)
            if found is not None:
                exact, ge = found
                return BoxResult(
                    False,
                    boxes + run.used,
                    {str(s): float(v) for s, v in exact.items()},
                    f"{form} <= {mpmath.nstr(ge[1], 6)} {'< 0' if ge[1] < 0 else '(the strict relation needs > 0)'} "
                    f"at the witness, the centre of a sub-box found by best-first bisection (interval "
                    f"arithmetic, {dps} digits, at the witness's exact value)",
                    form,
                    {str(s): v for s, v in exact.items()},
                )
            boxes += run.used
            if not run.pending:
                return BoxResult(
                    True,
                    boxes,
                    None,
                    f"all {run.used} sub-boxes have {form} {'>' if strict else '>='} 0 "
                    f"(mpmath.iv interval arithmetic, {dps} digits, branch and bound)",
                    form,
                )
            if run.used > budget // 2:
                reasons.append(
                    f"{form}: not settled within {budget // 2} boxes" + (f" (last: {run.why})" if run.why else "")
                )
        return BoxResult(None, boxes, None, "; ".join(dict.fromkeys(reasons)))
