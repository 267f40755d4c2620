"""Decide a limit step: ``sympy.limit`` against the stated value, cross-checked numerically by approaching the limit
point at two distances (and refused when the approach leaves the function's real domain).
"""

from __future__ import annotations

import mpmath
import sympy as sp

from sabounds.numerics.expressions.evaluate import evaluate
from sabounds.proofs_check.sampling import point_witness, rng_for
from sabounds.proofs_check.search import from_unit
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory.derivation import Step


def _outside_domain(f: sp.Expr, x: sp.Symbol, near: list, point: dict, dps: int) -> str:
    """Why the approach points ``near`` lie outside ``f``'s real domain (the symbol's sign assumptions, or a value
    that is not a finite real there), or ``""`` when every approach point is inside."""
    for h in near:
        if (
            (x.is_positive and h <= 0)
            or (x.is_nonnegative and h < 0)
            or (x.is_negative and h >= 0)
            or (x.is_nonpositive and h > 0)
        ):
            return (
                f"{x} = {mpmath.nstr(h, 6)} violates the assumptions on {x} ({'positive' if x.is_positive else 'sign'})"
            )
        try:
            v = mpmath.mpmathify(evaluate(f, {**point, x: h}, dps))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError) as exc:
            return f"f is undefined at {x} = {mpmath.nstr(h, 6)} ({type(exc).__name__})"
        if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
            return f"f({mpmath.nstr(h, 6)}) = {mpmath.nstr(v, 6)} is not a finite real"
    return ""


def decide_limit(step: Step, settings: Settings, key: str) -> Outcome:
    lim, value = step.statement.lhs, step.statement.rhs
    if not isinstance(lim, sp.Limit):
        raise TypeError(f"a Limit check needs Eq(Limit(...), value), got {step.statement}")
    f, x, x0, direction = lim.args
    dps = settings.precision
    # numeric cross-check: f approaching x0 at two distances, other symbols drawn from the domain
    rng = rng_for(key, settings)
    point = {s: from_unit(rng.uniform(), iv) for s, iv in step.check.domain.items()}
    with mpmath.workdps(dps):
        if x0 in (sp.oo, -sp.oo):
            near = [mpmath.mpf(10) ** (dps // 6), mpmath.mpf(10) ** (dps // 3)]
            near = [h if x0 == sp.oo else -h for h in near]
        else:
            sign = -1 if str(direction) == "-" else 1
            near = [
                evaluate(x0, point, dps) + sign * mpmath.mpf(10) ** (-(dps // 6)),
                evaluate(x0, point, dps) + sign * mpmath.mpf(10) ** (-(dps // 3)),
            ]
        target = evaluate(value, point, dps)
        outside = _outside_domain(f, x, near, point, dps)
        if outside:
            return Outcome.unresolved(
                "domain check before sympy.limit",
                f"the approach {x} -> {x0}{direction} leaves the "
                f"real domain of the function: {outside}; a one-sided limit there is not a statement "
                "about the function, so sympy.limit's value is not taken as a proof",
            )
        errs = [abs(evaluate(f, {**point, x: h}, dps) - target) / max(abs(target), 1) for h in near]
    numeric = (
        f"numeric error {mpmath.nstr(errs[0], 3)} at distance 1e-{dps // 6}, {mpmath.nstr(errs[1], 3)} at 1e-{dps // 3}"
    )
    try:
        computed = sp.limit(f, x, x0, str(direction))
    except (NotImplementedError, ValueError, TypeError):
        computed = None
    if computed is not None and not computed.has(sp.Limit):
        if computed == value or sp.simplify(computed - value) == 0:
            return Outcome.proved("sympy.limit", f"limit = {computed}; {numeric}")
        return Outcome(
            Verdict.REFUTED,
            "sympy.limit",
            detail=f"sympy.limit gives {computed}, not {value}; {numeric}",
            witness={**point_witness(point), "limit": str(computed), "stated": str(value)},
        )
    converging = errs[1] <= errs[0] and errs[1] < mpmath.mpf(10) ** (-(dps // 8))
    verdict = Verdict.VERIFIED if converging else Verdict.REFUTED
    return Outcome(
        verdict,
        "numeric approach to the limit point (sympy.limit failed)",
        dps,
        2,
        float(-errs[1]),
        point_witness(point),
        numeric,
    )
