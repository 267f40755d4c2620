"""The GELU Lipschitz constant: is ``sup |GELU'| <= value``?"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mpmath
import sympy as sp

from sabounds.proofs_check.conjecture.base import ConstantFamily, num, quiet, rounding_error
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.search import adversarial_min
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory.checks import Interval


@dataclass(frozen=True)
class GeluLipschitz(ConstantFamily):
    """Claim: GELU(x) = x Phi(x) is ``value``-Lipschitz on R, i.e. ``sup |GELU'| <= value``.

    Method (sympy, exact): GELU'' = -phi(x) (x^2 - 2) vanishes only at x = +-sqrt 2 (``sympy.solve``), and
    GELU' tends to 1 and 0 at +-oo (``sympy.limit``), so ``sup |GELU'|`` is the largest of |GELU'(+-sqrt 2)|
    and those limits: ``Phi(sqrt 2) + sqrt 2 phi(sqrt 2) = 1/2 + erf(1)/2 + e^{-1}/sqrt(pi) = 1.1289041...``.
    The sign of ``value - sup`` is decided by sympy's evalf-based sign test.  A refutation's witness is the
    maximiser x = sqrt 2 (pairs x, x + h with h small then violate the Lipschitz bound).  A numeric scan of
    GELU' on [-8, 8] at ``settings.precision`` digits cross-checks the supremum.  Cost: under a second.
    Fails (unresolved) only if sympy cannot order ``value`` and the supremum (``value`` equal to it).
    """

    name: ClassVar[str] = "gelu-lipschitz"
    engines: ClassVar[tuple[str, ...]] = ("sympy",)
    claim_template: ClassVar[str] = "|GELU(x) - GELU(y)| <= {value} |x - y| for all real x, y"

    def decide(self, settings: Settings, advance: Callable[[str], None] = quiet) -> Outcome:
        x = sp.Symbol("x", real=True)
        gelu = x * (1 + sp.erf(x / sp.sqrt(2))) / 2
        d1 = sp.diff(gelu, x)
        d2 = sp.factor(sp.simplify(sp.diff(gelu, x, 2)))
        critical = sp.solve(sp.Eq(d2, 0), x)
        candidates = [(sp.Abs(sp.simplify(d1.subs(x, c))), c) for c in critical]
        candidates += [(sp.Abs(sp.limit(d1, x, end)), end) for end in (sp.oo, -sp.oo)]
        sup, where = max(candidates, key=lambda t: sp.N(t[0], 30))
        sup = sp.simplify(sup)
        gap = sp.Rational(self.value) - sup
        dps = settings.precision
        margin = float(sp.N(gap / sup, 20))
        scan = self._numeric_sup(settings)
        detail = (
            f"GELU'' = {d2}; critical points {critical}; sup |GELU'| = {sup} = {sp.N(sup, 15)} at x = {where}; "
            f"numeric scan of |GELU'| on [-8, 8] ({scan[2]} evaluations, {dps} digits): max {mpmath.nstr(scan[0], 15)} "
            f"at x = {mpmath.nstr(scan[1], 12)}"
        )
        method = "sympy: GELU'' = 0 solved exactly, limits at +-oo, sign of value - sup"
        if gap.is_negative:
            return Outcome(
                Verdict.REFUTED,
                method,
                None,
                None,
                margin,
                {"x": num(where)},
                detail,
                margin_error=rounding_error(margin, 20),
            )
        if gap.is_nonnegative:
            return Outcome(
                Verdict.PROVED,
                method,
                None,
                None,
                margin,
                {"x": num(where)},
                detail,
                margin_error=rounding_error(margin, 20),
            )
        return Outcome.unresolved(method, "sympy could not order the value and the supremum; " + detail)

    @staticmethod
    def _numeric_sup(settings: Settings):
        dps = settings.precision
        xs = sp.Symbol("x")
        with mpmath.workdps(dps):

            def neg_slope(pt):
                t = pt[xs]
                return -abs(mpmath.ncdf(t) + t * mpmath.npdf(t))

            found = adversarial_min(
                neg_slope,
                {xs: Interval(-8, 8)},
                max(20, settings.samples // 4),
                rng_for("gelu-lipschitz", settings),
                refine=2,
                iterations=200,
            )
        return -found.value, found.point[xs], found.evaluations
