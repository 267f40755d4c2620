"""The covering constant c(p) of Theorem 4.1, decided in closed form (sympy) over a range of p."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import mpmath
import sympy as sp

from sabounds.proofs_check.conjecture.base import ConstantFamily, digits_to_separate, quiet, rounding_error
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import thm41
from sabounds.theory.checks import Interval


@dataclass(frozen=True)
class CoveringConstant(ConstantFamily):
    """Claim: ``min_{r > 0} (a r + b r^{-2/p}) <= value * a^{2/(p+2)} b^{p/(p+2)}`` for all a, b > 0 and p in
    ``p_range`` (default (0, 2]): the constant c(p) of Theorem 4.1 is at most ``value``.

    Method (sympy): the minimum is ``(1 + p/2) a r*`` at ``r* = (2b/(ap))^{p/(p+2)}`` (``sabounds.theory.thm41``, steps
    stationarity .. minimum_value); sympy simplifies its ratio to ``a^{2/(p+2)} b^{p/(p+2)}`` to a function of
    p alone and checks it equals ``c(p) = ((p+2)^{p+2}/(4 p^p))^{1/(p+2)}``; with ``p = 2/(1+q)``, q >= 0, sympy
    shows ``d log c / dp = 2 log(2/p)/(p+2)^2 >= 0``, so the supremum over the range is ``c(hi)`` (``c(0+) = 1``,
    ``c(2) = 2``); the sign of ``value - c(hi)`` is decided by sympy.  Witness: p = hi, a = b = 1.  Cost: ~1 s.
    """

    p_range: tuple[sp.Rational, sp.Rational] = (sp.Integer(0), sp.Integer(2))
    name: ClassVar[str] = "covering-constant"
    engines: ClassVar[tuple[str, ...]] = ("sympy",)
    claim_template: ClassVar[str] = "min_r (a r + b r^(-2/p)) <= {value} a^(2/(p+2)) b^(p/(p+2)) for all a, b > 0"

    @classmethod
    def build(cls, value: sp.Rational, ranges: Mapping[str, Interval]) -> CoveringConstant:
        """``ranges`` may restrict p (``--var p:lo:hi`` with 0 <= lo <= hi <= 2, hi > 0)."""
        if set(ranges) - {"p"}:
            raise ValueError(f"family {cls.name} takes only --var p:LO:HI")
        if "p" not in ranges:
            return cls(value)
        lo, hi = ranges["p"].lo, ranges["p"].hi
        if not (0 <= lo <= hi <= 2 and hi > 0):
            raise ValueError("the range of p must satisfy 0 <= lo <= hi <= 2 and hi > 0")
        return cls(value, (lo, hi))

    @property
    def claim(self) -> str:
        lo, hi = self.p_range
        return f"{super().claim} and p in ({lo}, {hi}]" if lo == 0 else f"{super().claim} and p in [{lo}, {hi}]"

    def decide(self, settings: Settings, advance: Callable[[str], None] = quiet) -> Outcome:
        p, a, b = thm41.p, thm41.a, thm41.b
        lo, hi = self.p_range
        ratio = sp.simplify(sp.powsimp(thm41.minimum / (a ** (2 / (p + 2)) * b ** (p / (p + 2))), force=True))
        if ratio.has(a) or ratio.has(b):
            return Outcome.unresolved("sympy simplify", f"could not reduce the ratio to a function of p: {ratio}")
        same = sp.simplify(sp.expand_log(sp.log(ratio) - sp.log(thm41.c_of_p), force=True)) == 0
        q = sp.Symbol("q", nonnegative=True)
        slope = sp.factor(sp.expand_log(sp.diff(sp.log(thm41.c_of_p), p), force=True))
        increasing = sp.factor(sp.expand_log(slope.subs(p, 2 / (1 + q)), force=True)).is_nonnegative
        if not (same and increasing):
            return Outcome.unresolved(
                "sympy", f"ratio {ratio}; equals c(p): {same}; d log c/dp = {slope}, nonnegative: {increasing}"
            )
        from sabounds.proofs_check.interval_enclosure import enclose, iv, iv_digits

        # c(hi) - 1 ~ hi (1 + log 2 - log hi) / 2 for small hi, so separating a value near 1 from c(hi) needs about
        # -log10(hi) digits more than the value's own: the enclosure is redone at doubling precision up to 1000 digits
        digits = max(
            digits_to_separate(self.value, 2, 30), int(mpmath.ceil(-mpmath.log10(mpmath.mpf(hi.p) / hi.q))) + 30
        )
        while True:
            with iv_digits(digits):
                box = iv.mpf(int(hi.p)) / iv.mpf(int(hi.q))
                c_box = enclose(thm41.c_of_p, {p: box})
                v_box = iv.mpf(int(self.value.p)) / iv.mpf(int(self.value.q))
                below, above = v_box.b < c_box.a, v_box.a > c_box.b
            with mpmath.workdps(digits):
                c_lo, c_hi = mpmath.mpf(c_box.a), mpmath.mpf(c_box.b)
                excess = f"[{mpmath.nstr(c_lo - 1, 6)}, {mpmath.nstr(c_hi - 1, 6)}]"
            if below or above or digits >= 1000:
                break
            digits = min(1000, 2 * digits)
        detail = (
            f"min / (a^(2/(p+2)) b^(p/(p+2))) = {ratio} = c(p); d log c / dp = {slope} >= 0 on (0, 2], "
            f"so the supremum over the range is c({hi}) in [{mpmath.nstr(c_lo, 17)}, {mpmath.nstr(c_hi, 17)}] (mpmath.iv, "
            f"{digits} digits; c(hi) - 1 in {excess})"
        )
        witness = {"p": float(hi), "p_exact": str(hi), "a": 1.0, "b": 1.0, "c": float(c_lo)}
        with mpmath.workdps(digits):  # at the enclosure's precision: a margin of 5e-23 must not round away at 15 digits
            margin = float((mpmath.mpf(self.value.p) / self.value.q - c_lo) / c_lo)
            width = float(mpmath.mpf(self.value.p) / self.value.q * (c_hi - c_lo) / (c_lo * c_lo))
        if below or above:
            method = "sympy: closed-form minimum, d log c/dp >= 0; interval arithmetic (mpmath.iv): value vs c(hi)"
            error = width + rounding_error(margin, digits)
            if below:
                return Outcome(Verdict.REFUTED, method, None, None, margin, witness, detail, margin_error=error)
            return Outcome(Verdict.PROVED, method, None, None, margin, witness, detail, margin_error=error)
        if hi.q > 10**6:
            return Outcome.unresolved(
                "interval arithmetic",
                "the value lies inside the enclosure of c(hi) and hi is too "
                "finely specified for exact sympy evaluation; " + detail,
            )
        sup = thm41.c_of_p.subs(p, hi)
        gap = sp.Rational(self.value) - sup
        r_star = thm41.r_star.subs({p: hi, a: 1, b: 1})
        witness = {"p": float(hi), "a": 1.0, "b": 1.0, "r_star": float(sp.N(r_star, 17)), "c": float(sp.N(sup, 17))}
        method = "sympy: closed-form minimum, d log c/dp >= 0, sign of value - c(hi)"
        margin = float(sp.N(gap / sup, 17))
        if gap.is_negative:
            return Outcome(
                Verdict.REFUTED, method, None, None, margin, witness, detail, margin_error=rounding_error(margin, 17)
            )
        if gap.is_nonnegative:
            return Outcome(
                Verdict.PROVED, method, None, None, margin, witness, detail, margin_error=rounding_error(margin, 17)
            )
        return Outcome.unresolved(method, "sympy could not order the value and c(hi); " + detail)
