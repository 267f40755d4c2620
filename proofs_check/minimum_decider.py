"""Decide a minimum step: the closed form against a direct minimisation of the objective (golden section on log r,
or an integer scan) at random parameter draws.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import sympy as sp

from sabounds.numerics.expressions.evaluate import evaluate
from sabounds.proofs_check.sampling import point_witness, rng_for
from sabounds.proofs_check.search import from_unit
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import checks
from sabounds.theory.derivation import Step


def _golden_min(f: Callable, lo: mpmath.mpf, hi: mpmath.mpf, iterations: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    inv = (mpmath.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - inv * (b - a), a + inv * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - inv * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + inv * (b - a)
            fd = f(d)
    x = (a + b) / 2
    return f(x), x


def decide_minimum(step: Step, settings: Settings, key: str) -> Outcome:
    """Direct minimisation of the objective (golden section on log r, or an integer scan) against the closed form."""
    spec: checks.Minimum = step.check
    value, objective = step.statement.lhs, step.statement.rhs
    dps = settings.precision
    rng = rng_for(key, settings)
    # golden section runs until its bracket in log r is below 10^-(dps/2 + 2) of the range, so the minimum's error
    # (quadratic in the bracket) is below 10^-dps relative; with the objective's own rounding, 10^(5 - dps) bounds it
    tol = mpmath.mpf(10) ** (5 - dps)
    worst, worst_point = mpmath.mpf(0), {}
    n = max(1, min(settings.samples, 50))
    with mpmath.workdps(dps):
        for _ in range(n):
            point = {s: from_unit(rng.uniform(), iv) for s, iv in spec.domain.items()}
            obj = sp.lambdify(spec.var, objective.subs(point), "mpmath")
            target = evaluate(value, point, dps)
            lo = evaluate(spec.var_range.lo, point, dps)
            hi = evaluate(spec.var_range.hi, point, dps) if spec.var_range.hi != sp.oo else None
            if spec.integer:
                hi_i = int(mpmath.floor(hi)) if hi is not None else 10**6
                best = min(obj(mpmath.mpf(k)) for k in range(max(1, int(mpmath.ceil(lo))), hi_i + 1))
            else:
                lo_l = mpmath.log(lo) if lo > 0 else mpmath.log(mpmath.mpf(10) ** -30)
                hi_l = mpmath.log(hi) if hi is not None else lo_l + 200
                steps = int(mpmath.ceil((dps / 2 + 2) * mpmath.log(10) / mpmath.log((1 + mpmath.sqrt(5)) / 2))) + 10
                best, _ = _golden_min(lambda t: obj(mpmath.exp(t)), lo_l, hi_l, steps)
            err = abs(best - target) / max(abs(target), 1)
            if err > worst:
                worst, worst_point = err, point
    if worst > tol:
        return Outcome(
            Verdict.REFUTED,
            "direct numeric minimisation",
            dps,
            n,
            -float(worst),
            point_witness(worst_point),
            f"closed form and direct minimum differ by {mpmath.nstr(worst, 5)} (relative)",
        )
    return Outcome(
        Verdict.VERIFIED,
        "direct numeric minimisation (golden section)" if not spec.integer else "integer scan",
        dps,
        n,
        float(-worst),
        point_witness(worst_point),
        f"largest relative difference {mpmath.nstr(worst, 5)} over {n} random parameter draws; tolerance "
        f"{mpmath.nstr(tol, 3)} (10^(5 - digits))",
    )
