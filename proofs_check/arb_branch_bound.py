"""Best-first interval branch and bound on Arb balls, with mean-value enclosures.

``branch_and_bound(gap, strict, domain)`` decides ``gap >= 0`` (``> 0`` when ``strict``) on a box whose ends are exact
rationals (every split point is an exact rational too, so a witness is exact).  Each sub-box is enclosed twice and
the two intersected: naively (:class:`~sabounds.proofs_check.arb_enclosure.ArbForm`, polynomial subexpressions in
Taylor form) and in the mean-value form ``g(c) + sum_i dg/dx_i(B) (B_i - c_i)`` with sympy's derivatives evaluated in
balls (Min/Max/Abs differentiate to Heaviside/sign, enclosed as their Clarke gradients, so the form stays valid at
kinks).  The mean-value form converges quadratically as boxes shrink, which beats the dependency problem on the narrow
bumps that naive interval arithmetic cannot see.  The box whose enclosure reaches lowest is split next; at it, the
gap at the exact centre is enclosed: certainly < 0 (<= 0 when strict) is a violation, and a certified sub-box around
the centre (its whole enclosure < 0) is reported with it.  Budget: a count of enclosures, never a clock.  A box that
cannot be told from 0 at the precision (too thin to split, or below 0 only by rounding) is set aside and the rest
goes on: ``holds`` None with ``unsplittable`` and the set-aside boxes in ``pending`` when only those are left (the
caller raises the precision, or explains them by exact tight points), with ``exhausted`` when the budget ran out.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import sympy as sp

from sabounds.proofs_check import arb_enclosure as A
from sabounds.proofs_check.interval_enclosure import NotEnclosable
from sabounds.theory.checks import Interval

DEFAULT_BITS = 128
MAX_ASIDE = 16
"""Sub-boxes that cannot be told from 0 are set aside (to be explained by exact tight points); more than this many
(a relation tight along a curve) ends the run as unsettled."""


@dataclass(frozen=True)
class ArbBoxResult:
    """``holds`` True (every sub-box certified), False (``exact`` violates, inside the certified ``sub_box``) or None."""

    holds: bool | None
    boxes: int
    reason: str
    exact: dict | None = None
    sub_box: dict | None = None
    upper: sp.Rational | None = None
    """An upper bound of the gap at ``exact`` (negative for a violation)."""
    unsplittable: bool = False
    """Some sub-boxes could not be told from 0 at ``bits`` bits (set aside in ``pending``, exact rational ends)."""
    bits: int = DEFAULT_BITS
    pending: list = field(default_factory=list)
    exhausted: bool = False
    """The run stopped with sub-boxes neither settled nor set aside (its box budget, or too many set aside)."""


class _Enclosures:
    """Naive and mean-value enclosures of one gap on boxes of exact rational ends."""

    def __init__(self, gap: sp.Expr, symbols: list):
        self.symbols = symbols
        self.naive = A.form(gap)
        try:
            self.slopes = [A.form(sp.diff(gap, s)) for s in symbols]
        except (NotEnclosable, TypeError, ValueError, NotImplementedError):
            self.slopes = None

    def balls(self, box: Mapping) -> dict:
        return {s: A.ball(lo, hi) for s, (lo, hi) in box.items()}

    def point(self, centre: Mapping):
        flint = A.flint_module()
        return self.naive.enclose({s: A.point(flint.arb(c)) for s, c in centre.items()})

    def _all(self, balls: Mapping, memo: dict):
        naive = None
        try:
            naive = self.naive.enclose(balls, memo)
        except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
            pass
        slopes = None
        if self.slopes is not None:
            try:
                slopes = [slope.enclose(balls, memo) for slope in self.slopes]
            except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
                slopes = None
        return naive, slopes

    def box(self, box: Mapping):
        """The enclosure of the gap on ``box`` (naive intersected with mean-value), or ``None``."""
        naive, slopes = self._all(self.balls(box), {})
        mean_value = self._mean_value(box, slopes)
        if naive is None or mean_value is None:
            both = naive if mean_value is None else mean_value
        elif not naive.overlaps(mean_value):
            raise NotEnclosable("the naive and mean-value Arb enclosures of one set do not overlap")
        else:
            both = naive.intersection(mean_value)
        face = self._lowest_face(box, slopes)
        if both is None or face is None:
            return both
        lower = self.box(face).lower()
        if lower > both.upper():
            raise NotEnclosable("the monotonicity test contradicts the enclosure")
        return A.Iv(lower, both.upper()) if lower > both.lower() else both

    def _lowest_face(self, box, slopes) -> dict | None:
        """The monotonicity test: where the gap is monotone in a coordinate on the box, its minimum lies on the lower
        (increasing) or upper (decreasing) face; ``None`` when no coordinate is monotone."""
        if slopes is None:
            return None
        face, moved = dict(box), False
        for s, slope in zip(self.symbols, slopes):
            lo, hi = box[s]
            if lo != hi and slope >= 0:
                face[s], moved = (lo, lo), True
            elif lo != hi and slope <= 0:
                face[s], moved = (hi, hi), True
        return face if moved else None

    def _mean_value(self, box, slopes):
        if slopes is None:
            return None
        flint = A.flint_module()
        centre = {s: (lo + hi) / 2 for s, (lo, hi) in box.items()}
        try:
            total = self.point(centre)
            for s, slope in zip(self.symbols, slopes):
                lo, hi = box[s]
                if lo != hi:
                    total = total + slope * A.Iv(flint.arb(lo - centre[s]), flint.arb(hi - centre[s]))
        except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
            return None
        return total


def root_box(domain: Mapping[sp.Symbol, Interval]) -> dict:
    out = {}
    for s, d in domain.items():
        lo, hi = sp.Rational(d.lo), sp.Rational(d.hi)
        if d.integer:
            lo, hi = sp.ceiling(lo), sp.floor(hi)
        out[s] = (A.fraction(lo), A.fraction(hi))
    return out


def _log_ratio(lo, hi) -> float:
    flint = A.flint_module()
    with flint.ctx.workprec(64):
        return float((flint.arb(hi) / flint.arb(lo)).log().mid())


def floor_of(q):
    return A.flint_module().fmpq(q.floor())


def split_box(box: dict, domain: Mapping[sp.Symbol, Interval], bits: int) -> tuple[dict, dict] | None:
    """Halve ``box`` along its widest coordinate, measured as a fraction of its range (log coordinates at a rational
    near the geometric mean; integers at an integer); ``None`` when every coordinate is below the resolution
    ``2^-(bits - 8)`` of its range."""
    root = root_box(domain)

    def width(s):
        (lo, hi), (a, b) = box[s], root[s]
        if a == b:
            return 0.0
        if domain[s].integer:
            return float(hi - lo) / float(b - a) if hi - lo >= 1 else 0.0
        if domain[s].log and lo > 0:
            return _log_ratio(lo, hi) / _log_ratio(a, b)
        return float((hi - lo) / (b - a))

    s = max(box, key=width, default=None)
    if s is None or width(s) <= 0 or (not domain[s].integer and width(s) < 2.0 ** -(bits - 8)):
        return None
    lo, hi = box[s]
    if domain[s].integer:
        mid = floor_of((lo + hi) / 2)
        return {**box, s: (lo, mid)}, {**box, s: (mid + 1, hi)}
    mid = (lo + hi) / 2
    if domain[s].log and lo > 0:
        flint = A.flint_module()
        with flint.ctx.workprec(64):
            geometric = A.fraction(sp.Rational((flint.arb(lo) * flint.arb(hi)).sqrt().mid().str(20, radius=False)))
        mid = geometric if lo < geometric < hi else mid
    return {**box, s: (lo, mid)}, {**box, s: (mid, hi)}


def _rounding_limited(b, bits: int) -> bool:
    """Does the enclosure reach below 0 by no more than the rounding of ``bits``-bit arithmetic on its scale?"""
    flint = A.flint_module()
    if not b.lower() < 0:
        return False
    scale = A.largest([flint.arb(1), abs(b.lower()), abs(b.upper())])
    return bool(-b.lower() <= scale * flint.arb(2) ** (32 - bits))


def _low(b) -> float:
    return float(b.lower().mid())


def _certified_sub_box(enc: _Enclosures, box: dict, centre: dict, strict: bool) -> dict | None:
    """A box around ``centre`` (inside ``box``) on which the whole enclosure of the gap is < 0 (<= 0 if strict)."""
    current = box
    for _ in range(80):
        try:
            b = enc.box(current)
        except NotEnclosable:
            b = None
        if b is not None and (b < 0 or (strict and b <= 0)):
            return current
        current = {
            s: (c - (hi - lo) / 4, c + (hi - lo) / 4) if lo != hi else (lo, hi)
            for s, (lo, hi), c in ((s, current[s], centre[s]) for s in current)
        }
    return None


PRECISIONS = (128, 512, 2048)
"""The bits of the first run and of the runs on the boxes it set aside (a gap of 1e-120 cannot be signed at 128 bits,
whose rounding is about 1e-38)."""


def raising_precision(gap: sp.Expr, strict: bool, domain: Mapping[sp.Symbol, Interval], budget: int) -> ArbBoxResult:
    """:func:`branch_and_bound` at ``PRECISIONS[0]`` bits on the box, then again at each higher precision on every
    box the previous run set aside (each a box of its own): a set-aside box that a higher precision settles is
    settled; a violation found in one is a violation of the relation.  The result's ``pending`` are the boxes left
    at the highest precision."""
    first = branch_and_bound(gap, strict, domain, budget, PRECISIONS[0])
    if not first.unsplittable or first.exhausted:
        return first
    aside, used = first.pending, first.boxes
    for bits in PRECISIONS[1:]:
        left = []
        for box in aside:
            local = {s: Interval(lo, hi, integer=domain[s].integer) for s, (lo, hi) in box.items()}
            result = branch_and_bound(gap, strict, local, max(50, (budget - used) // max(1, len(aside))), bits)
            used += result.boxes
            if result.holds is False:
                return replace(result, boxes=used)
            if result.exhausted:  # too costly at this precision: the boxes of the previous one stay set aside
                return ArbBoxResult(
                    None,
                    used,
                    f"every sub-box settled but {len(aside)} that cannot be told from 0 at "
                    f"{bits // 4} bits (at {bits} bits they would take more than the box budget)",
                    unsplittable=True,
                    bits=bits // 4,
                    pending=aside,
                )
            left += result.pending
        aside = left
        if not aside:
            return ArbBoxResult(
                True,
                used,
                f"all {used} sub-boxes have rhs - lhs {'>' if strict else '>='} 0 (Arb "
                f"balls, up to {bits} bits on the boxes that needed it, naive and mean-value enclosures, "
                "best-first branch and bound)",
                bits=bits,
            )
    return ArbBoxResult(
        None,
        used,
        f"every sub-box settled but {len(aside)} that cannot be told from 0 even at {PRECISIONS[-1]} bits",
        unsplittable=True,
        bits=PRECISIONS[-1],
        pending=aside,
    )


def branch_and_bound(
    gap: sp.Expr, strict: bool, domain: Mapping[sp.Symbol, Interval], budget: int, bits: int = DEFAULT_BITS
) -> ArbBoxResult:
    """Decide ``gap >= 0`` (``> 0`` if ``strict``) on ``domain`` by best-first bisection on Arb balls at ``bits`` bits."""
    flint = A.flint_module()
    symbols = [s for s in domain if s in gap.free_symbols]
    sub_domain = {s: domain[s] for s in symbols}
    used, tie, pending_reason = 0, 0, ""
    with flint.ctx.workprec(bits):
        enc = _Enclosures(gap, symbols)
        root = root_box(sub_domain)

        def bound(box):
            nonlocal used, pending_reason
            used += 1
            try:
                return enc.box(box)
            except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError) as exc:
                pending_reason = str(exc) or type(exc).__name__
                return None

        heap, aside = [(float("-inf"), 0, root, bound(root))], []
        while heap:
            _, _, box, b = heapq.heappop(heap)
            if b is not None and (b > 0 or (not strict and b >= 0)):
                continue
            if used >= budget or len(aside) > MAX_ASIDE:
                why = (
                    f"not settled within {budget} Arb boxes ({len(heap) + 1} left)"
                    if used >= budget
                    else f"more than {MAX_ASIDE} sub-boxes cannot be told from 0 at {bits} bits (tight along a curve?)"
                )
                return ArbBoxResult(
                    None,
                    used,
                    why + (f"; last: {pending_reason}" if pending_reason else ""),
                    bits=bits,
                    unsplittable=bool(aside),
                    pending=_rational_boxes(aside),
                    exhausted=True,
                )
            centre = {
                s: floor_of((lo + hi) / 2) if sub_domain[s].integer else (lo + hi) / 2 for s, (lo, hi) in box.items()
            }
            try:
                at_centre = enc.point(centre)
            except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
                at_centre = None
            if at_centre is not None and (at_centre < 0 or (strict and at_centre <= 0)):
                exact = {s: A.rational(c) for s, c in centre.items()}
                sub = _certified_sub_box(enc, box, centre, strict)
                bound_text = at_centre.upper().str(5, radius=False)
                return ArbBoxResult(
                    False,
                    used,
                    "the gap's Arb enclosure at the exact centre of a sub-box found by "
                    "best-first bisection "
                    + (
                        f"is at most {bound_text}, so the strict relation (which needs a gap > 0) fails there"
                        if strict and not at_centre < 0
                        else f"lies below 0 (at most {bound_text})"
                    ),
                    exact,
                    None if sub is None else _rational_boxes([sub])[0],
                    A.ends(at_centre)[1],
                    bits=bits,
                )
            halves = None if b is not None and _rounding_limited(b, bits) else split_box(box, sub_domain, bits)
            if halves is None:
                aside.append(box)  # it cannot be told from 0 at this precision: set aside, the rest goes on
                continue
            for half in halves:
                bh = bound(half)
                tie += 1
                heapq.heappush(heap, (_low(bh) if bh is not None else float("-inf"), tie, half, bh))
        if aside:
            return ArbBoxResult(
                None,
                used,
                f"every sub-box settled but {len(aside)} that cannot be told from 0 at {bits} "
                "bits (they cannot be split further, or their enclosure reaches below 0 only by rounding)",
                unsplittable=True,
                bits=bits,
                pending=_rational_boxes(aside),
            )
        return ArbBoxResult(
            True,
            used,
            f"all {used} sub-boxes have rhs - lhs {'>' if strict else '>='} 0 (Arb balls, "
            f"{bits} bits, naive and mean-value enclosures, best-first branch and bound)",
            bits=bits,
        )


def _rational_boxes(boxes: list) -> list[dict]:
    return [{s: (A.rational(lo), A.rational(hi)) for s, (lo, hi) in box.items()} for box in boxes]
