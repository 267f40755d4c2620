"""Decide an identity step: equal as built, a one-point disagreement refuted at once, sympy's rewritings, then
numeric evaluation at ``settings.precision`` digits over ``settings.samples`` draws against a tolerance from the
rounding of the evaluation (``identity_tolerance``).
"""

from __future__ import annotations

from dataclasses import replace

import mpmath
import sympy as sp

from sabounds.numerics.expressions.evaluate import evaluate
from sabounds.proofs_check.sampling import assumed_domain, point_witness, rng_for
from sabounds.proofs_check.search import from_unit
from sabounds.proofs_check.symbolic_proofs import prove_equal, prove_reparametrised
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory.derivation import Step


def identity_tolerance(stmt, dps: int) -> mpmath.mpf:
    """Tolerance of a numeric identity check, relative to ``max(|lhs|, |rhs|, 1)``: mpmath evaluates each of the
    ``n`` operations of both sides with relative error <= 10^-dps, amplified at most 100-fold by conditioning (powers
    ``x^y`` multiply a relative error by ``|y log x|``, <= ~100 on the sampled boxes): ``(n + 1) 10^(2 - dps)``.
    At 20 digits and 100 operations that is 1e-16, so a constant off by 1e-12 is refuted."""
    ops = sp.count_ops(stmt.lhs) + sp.count_ops(stmt.rhs) + 1
    return ops * mpmath.mpf(10) ** (2 - dps)


def _one_point_disagreement(stmt, domain, settings: Settings, key: str) -> Outcome | None:
    """Both sides at one seeded point of the domain: a disagreement beyond rounding refutes at once (with the point and
    both values as witness), before any slow symbolic attempt; agreement decides nothing."""
    rng = rng_for(key + ".first", settings)
    dps = settings.precision
    try:
        with mpmath.workdps(dps):
            point = {s_: from_unit(rng.uniform(), iv) for s_, iv in domain.items()}
            lhs, rhs = evaluate(stmt.lhs.doit(), point, dps), evaluate(stmt.rhs.doit(), point, dps)
            err = abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
        return None
    if not err > identity_tolerance(stmt, dps):
        return None
    return Outcome(
        Verdict.REFUTED,
        "numeric evaluation at a seeded point",
        dps,
        1,
        -float(mpmath.re(err)),
        {**point_witness(point), "lhs": mpmath.nstr(lhs, 15), "rhs": mpmath.nstr(rhs, 15)},
        f"lhs = {mpmath.nstr(lhs, 15)}, rhs = {mpmath.nstr(rhs, 15)} at the witness",
    )


def decide_identity(step: Step, settings: Settings, key: str) -> Outcome:
    stmt = step.statement
    if stmt.lhs == stmt.rhs:
        return replace(
            Outcome.proved("both sides are the same expression as built", "true by construction"), basis="construction"
        )
    domain = step.check.domain or assumed_domain(stmt.lhs.free_symbols | stmt.rhs.free_symbols)
    quick = _one_point_disagreement(stmt, domain, settings, key) if domain else None
    if quick is not None:
        return quick
    how = prove_equal(stmt.lhs.doit(), stmt.rhs.doit()) or prove_reparametrised(stmt.lhs, stmt.rhs, step.check.domain)
    if how:
        return Outcome.proved(f"sympy: {how}")
    diff = (stmt.lhs - stmt.rhs).doit()
    if not (stmt.lhs.free_symbols | stmt.rhs.free_symbols):
        dps = settings.precision
        with mpmath.workdps(dps):
            lhs, rhs = evaluate(stmt.lhs.doit(), {}, dps), evaluate(stmt.rhs.doit(), {}, dps)
            err = abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1)
        sides = {"lhs": mpmath.nstr(lhs, 20), "rhs": mpmath.nstr(rhs, 20)}
        if err > identity_tolerance(stmt, dps):
            return Outcome(
                Verdict.REFUTED,
                "closed numbers evaluated at mpmath precision",
                dps,
                1,
                -float(err),
                sides,
                f"lhs = {sides['lhs']}, rhs = {sides['rhs']}: a false closed identity",
            )
        return Outcome(
            Verdict.VERIFIED,
            "closed numbers evaluated at mpmath precision (sympy could not simplify)",
            dps,
            1,
            -float(err),
            sides,
            f"lhs and rhs agree within the tolerance {mpmath.nstr(identity_tolerance(stmt, dps), 3)} "
            "((operations + 1) 10^(2 - digits))",
        )
    if not domain:
        return Outcome.unresolved(
            "sympy simplify", f"lhs - rhs simplifies to {sp.simplify(diff)}, not 0; no domain to sample"
        )
    rng = rng_for(key, settings)
    dps = settings.precision
    tol = identity_tolerance(stmt, dps)
    worst, worst_point = mpmath.mpf(0), {}
    with mpmath.workdps(dps):
        for _ in range(settings.samples):
            point = {s: from_unit(rng.uniform(), iv) for s, iv in domain.items()}
            lhs, rhs = evaluate(stmt.lhs.doit(), point, dps), evaluate(stmt.rhs.doit(), point, dps)
            err = abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1)
            if err > worst:
                worst, worst_point = err, point
    if worst > tol:
        return Outcome(
            Verdict.REFUTED,
            "numeric evaluation",
            dps,
            settings.samples,
            -float(worst),
            point_witness(worst_point),
            f"difference relative to max(|lhs|, |rhs|, 1) {mpmath.nstr(worst, 5)} > {mpmath.nstr(tol, 3)}",
        )
    return Outcome(
        Verdict.VERIFIED,
        "numeric evaluation (sympy could not simplify to 0)",
        dps,
        settings.samples,
        float(-worst),
        point_witness(worst_point),
        f"largest relative difference {mpmath.nstr(worst, 5)} over "
        f"{settings.samples} points; tolerance {mpmath.nstr(tol, 3)} ((operations + 1) 10^(2 - digits))",
    )
