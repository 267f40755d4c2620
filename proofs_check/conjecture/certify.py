"""The sign of a relation's gap at an exact point, certified twice: Arb balls (precision doubled until the ball
excludes 0, up to ``CAP_BITS``) and ``mpmath.iv`` at the matching precision; sympy for an exact zero.

``check_point(gap, point, strict)`` answers ``violated`` / ``holds`` / ``None`` with the engines that agree, the
ball's ends (the certified error of the gap is its radius) and a sentence for the verdict's detail.  Two engines
that certify opposite signs make the answer ``None`` with ``disagreement`` set: the decider then reports
``unresolved`` and says so.  With python-flint missing, mpmath.iv alone certifies and the engines say so.
:func:`scale_free` is the reported scale-free margin: the gap over its first-order change across the box.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from sabounds.proofs_check import arb_enclosure as A
from sabounds.proofs_check.interval_enclosure import NotEnclosable, enclose, iv_digits
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.theory.checks import Interval

START_BITS, CAP_BITS = 128, 8192
"""Arb precision starts at ``max(START_BITS, 2 x the working precision)`` and doubles up to ``CAP_BITS`` (~2466
digits): a gap of 1e-300 at 1 - erf(26.5) = 2.2e-307 is signed at 2048 bits."""


@dataclass(frozen=True)
class PointCheck:
    sign: int | None
    """-1: the gap is certainly < 0; +1: certainly > 0; 0: exactly 0 (sympy); None: undecided."""
    lower: float | None
    upper: float | None
    error: float | None
    """The certified error of the gap: the radius of the ball that decided it (0 for an exact zero)."""
    middle: float | None
    engines: tuple[str, ...]
    text: str
    disagreement: bool = False
    exact_forms: Mapping[str, str] = field(default_factory=dict)
    """``margin`` / ``margin_error`` as 17-digit decimal strings where their float64 is not the number (below
    float64's normal range: a gap of -1e-400 is ``-0.0`` as a float); empty otherwise."""

    def violated(self, strict: bool) -> bool:
        return self.sign == -1 or (strict and self.sign == 0)

    def holds(self, strict: bool) -> bool:
        return self.sign == 1 or (not strict and self.sign == 0)


def _exact_zero(gap: sp.Expr, point: Mapping) -> bool:
    """Sympy shows ``gap == 0`` at the exact point (never through a Float)."""
    from sabounds.proofs_check.conjecture.tight import _is_zero

    try:
        with time_limit(1.0):
            return _is_zero(gap.xreplace(dict(point)))
    except (TimeLimit, TypeError, ValueError, ArithmeticError, RecursionError):
        return False


def _arb_sign(gap: sp.Expr, point: Mapping, start: int):
    """``(sign or None, ball, bits)``: the Arb ball of the gap at doubling precision until it excludes 0."""
    bits, ball = start, None
    while bits <= CAP_BITS:
        try:
            ball = A.at_point(gap, point, bits)
        except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
            return None, None, bits
        if ball > 0:
            return 1, ball, bits
        if ball < 0:
            return -1, ball, bits
        bits *= 2
    return None, ball, bits // 2


def _mpmath_sign(gap: sp.Expr, point: Mapping, digits: int) -> tuple[int | None, str]:
    """The sign certified by ``mpmath.iv`` at ``digits`` digits (the point's coordinates enclosed too)."""
    try:
        with iv_digits(digits), mpmath.workdps(digits):
            e = enclose(gap, {s: enclose(sp.sympify(v), {}) for s, v in point.items()})
        lo, hi = mpmath.mpf(e.a), mpmath.mpf(e.b)
    except (NotEnclosable, ZeroDivisionError, ValueError, OverflowError, TypeError, ArithmeticError) as exc:
        return None, f"mpmath.iv has no enclosure ({exc})"
    text = f"mpmath.iv at {digits} digits: [{mpmath.nstr(lo, 6)}, {mpmath.nstr(hi, 6)}]"
    return (1 if lo > 0 else -1 if hi < 0 else None), text


def beyond_float(value) -> str | None:
    """A nonzero Arb value whose float64 is not the number (0, subnormal or infinite) as a 17-digit decimal string;
    ``None`` when the float is faithful."""
    as_float = float(value)
    if value == 0 or (2.2250738585072014e-308 <= abs(as_float) < float("inf")):
        return None
    return value.str(17, radius=False)


def centre_and_error(ball) -> tuple[float, float, dict[str, str]]:
    """``(middle, error, forms)`` for an Arb ball: the middle as printed (float64, or its 17-digit decimal where the
    float is not the number) and an error rounded up so that ``middle +- error`` contains the whole ball."""
    flint = A.flint_module()
    text = beyond_float(ball.mid())
    printed = flint.arb(text) if text is not None else flint.arb(float(ball.mid()))
    slack = 1 + flint.arb(2) ** -40  # absorbs the rounding of the printed error
    bound = max(((ball.upper() - printed) * slack).upper(), ((printed - ball.lower()) * slack).upper())
    forms: dict[str, str] = {"margin": text} if text is not None else {}
    if (error_text := beyond_float(bound)) is not None:
        forms["margin_error"] = error_text
    return float(ball.mid()), float(bound), forms


def check_point(gap: sp.Expr, point: Mapping[sp.Symbol, sp.Expr], dps: int) -> PointCheck:
    """The sign of ``gap`` at the exact ``point`` (sympy numbers), certified by both engines where both are installed."""
    start = max(START_BITS, int(2 * 3.33 * dps))
    arb_sign, ball, bits = (None, None, start) if not A.available() else _arb_sign(gap, point, start)
    zero = arb_sign is None and _exact_zero(gap, point)
    digits = int(bits / 3.32) + 10
    mp_sign, mp_text = _mpmath_sign(gap, point, digits)
    ends: tuple[float | None, float | None, float | None, float | None] = (None, None, None, None)
    forms: dict[str, str] = {}
    if ball is not None:
        middle, error, forms = centre_and_error(ball)
        ends = (float(ball.lower()), float(ball.upper()), error, middle)
    arb_text = (
        "Arb not installed (" + A.PIN + ")"
        if not A.available()
        else f"Arb at {bits} bits: [{ball.lower().str(6, radius=False)}, {ball.upper().str(6, radius=False)}]"
        if ball is not None
        else "Arb has no enclosure"
    )
    if zero:
        # an exact zero: both balls must contain 0 (they do, if both engines are right)
        consistent = mp_sign is None and (ball is None or ball.contains(0))
        if not consistent:
            return PointCheck(
                None, *ends, (), f"sympy finds the gap exactly 0 but {arb_text}, {mp_text}", True, exact_forms=forms
            )
        return PointCheck(
            0,
            0.0,
            0.0,
            0.0,
            0.0,
            ("sympy",) + (("arb",) if ball is not None else ()) + ("mpmath.iv",),
            f"sympy shows the gap is exactly 0 there; {arb_text} and {mp_text} contain 0",
        )
    if arb_sign is not None and mp_sign is not None and arb_sign != mp_sign:
        return PointCheck(None, *ends, (), f"the engines disagree: {arb_text}, {mp_text}", True, exact_forms=forms)
    if arb_sign is not None and mp_sign == arb_sign:
        return PointCheck(arb_sign, *ends, ("arb", "mpmath.iv"), f"{arb_text}; {mp_text}", exact_forms=forms)
    if arb_sign is None and mp_sign is not None and not A.available():
        return PointCheck(mp_sign, None, None, None, None, ("mpmath.iv",), f"{mp_text}; {arb_text}")
    if arb_sign is not None:
        return PointCheck(
            None, *ends, ("arb",), f"{arb_text}, but {mp_text}: mpmath does not confirm the sign", exact_forms=forms
        )
    return PointCheck(None, *ends, (), f"the gap cannot be told from 0 there: {arb_text}, {mp_text}", exact_forms=forms)


def scale_free(
    gap: sp.Expr,
    point: Mapping[sp.Symbol, sp.Expr],
    domain: Mapping[sp.Symbol, Interval],
    value: float | None,
    dps: int,
) -> float | None:
    """``gap / sum_i |dgap/dx_i| w_i`` at the point, ``w_i`` the width of x_i's range (``x ln(hi/lo)`` for a log
    range): how far, in box widths, the gap's first-order change is from closing it.  Unbounded above (no saturation
    at 1); ``None`` when the gap does not vary at first order there or a derivative cannot be evaluated."""
    from sabounds.numerics.expressions.bounded import bounded_evaluate

    if value is None or not domain:
        return None
    try:
        with time_limit(1.0), mpmath.workdps(dps):
            values = {s: mpmath.mpf(sp.N(v, dps + 5)) for s, v in point.items()}
            rate = mpmath.mpf(0)
            for s, d in domain.items():
                lo, hi = (mpmath.mpf(sp.Rational(e).p) / sp.Rational(e).q for e in (d.lo, d.hi))
                width = values[s] * mpmath.log(hi / lo) if d.log and lo > 0 else hi - lo
                rate += abs(bounded_evaluate(sp.diff(gap, s), values, dps)) * width
    except (TimeLimit, TypeError, ValueError, ZeroDivisionError, OverflowError, ArithmeticError, KeyError):
        return None
    if rate == 0:
        return None
    return float(mpmath.mpf(value) / rate)
