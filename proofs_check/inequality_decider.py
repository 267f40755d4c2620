"""Decide an inequality step: sympy's sign inference, then interval branch and bound on its box
(``sabounds.proofs_check.interval``: proved or a certified violation), then adversarial sampling as evidence.
"""

from __future__ import annotations

from dataclasses import replace

import mpmath
import sympy as sp

from sabounds.numerics.expressions.evaluate import evaluate
from sabounds.proofs_check.identity_decider import identity_tolerance
from sabounds.proofs_check.interval import BOX_BUDGET, BoxResult, NotEnclosable, describe_box, prove_on_box
from sabounds.proofs_check.sampling import assumed_domain, point_witness, rng_for
from sabounds.proofs_check.search import adversarial_min
from sabounds.proofs_check.symbolic_proofs import gap_of, symbolic_sign
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory.derivation import Step


def relative_gap(relation: sp.Basic, values: dict, dps: int) -> mpmath.mpf:
    """``(rhs - lhs) / max(|lhs|, |rhs|)`` at ``values`` (the absolute gap when both sides are 0)."""
    lhs = evaluate(relation.lhs, values, dps)
    rhs = evaluate(relation.rhs, values, dps)
    gap = (rhs - lhs) if isinstance(relation, (sp.LessThan, sp.StrictLessThan)) else (lhs - rhs)
    scale = max(abs(lhs), abs(rhs))
    return mpmath.re(gap / scale if scale else gap)


def _numeric_inequality(
    relation: sp.Basic, domain, settings: Settings, key: str, tol: mpmath.mpf, method: str
) -> Outcome:
    """Sampled evidence for a scalar inequality: ``refuted`` when the smallest relative gap is below ``-tol`` (the
    rounding of the evaluation) and stays there when the witness is re-evaluated at twice the digits; a gap within
    ``[-tol, 0)`` is rounding of a tight point, reported as margin 0 (``verified`` never carries a negative margin)."""
    rng = rng_for(key, settings)
    dps = settings.precision
    _, strict = gap_of(relation)
    with mpmath.workdps(dps):
        found = adversarial_min(lambda pt: relative_gap(relation, pt, dps), domain, settings.samples, rng)
    margin = found.value
    violated = margin <= 0 if strict and margin < tol else margin < -tol
    if violated:
        with mpmath.workdps(2 * dps):
            again = relative_gap(relation, {s_: mpmath.mpf(v) for s_, v in found.point.items()}, 2 * dps)
        if again < -tol or (strict and again <= 0):
            return Outcome(
                Verdict.REFUTED,
                method,
                dps,
                found.evaluations,
                float(margin),
                point_witness(found.point),
                f"relative gap {mpmath.nstr(margin, 6)} at the witness ({mpmath.nstr(again, 6)} re-evaluated at "
                f"{2 * dps} digits), beyond the rounding tolerance {mpmath.nstr(tol, 3)}",
            )
        return Outcome.unresolved(
            method,
            f"relative gap {mpmath.nstr(margin, 6)} at {dps} digits but "
            f"{mpmath.nstr(again, 6)} at {2 * dps}: the sign cannot be told",
        )
    rounding = (
        (f"; the smallest sampled gap {mpmath.nstr(margin, 3)} lies within the rounding tolerance and is reported as 0")
        if margin < 0
        else ""
    )
    return Outcome(
        Verdict.VERIFIED,
        method,
        dps,
        found.evaluations,
        float(max(margin, 0)),
        point_witness(found.point),
        f"smallest relative gap {mpmath.nstr(max(margin, 0), 6)} in {found.evaluations} evaluations "
        f"({settings.samples} random starts, box corners and face midpoints, pattern search): evidence, not "
        f"proof; a violation confined to a region the samples did not reach can be missed; rounding tolerance "
        f"{mpmath.nstr(tol, 3)} ((operations + 1) 10^(2 - digits)){rounding}",
    )


def certify_inequality(relation: sp.Basic, domain, budget: int = BOX_BUDGET) -> BoxResult:
    """Branch and bound with interval arithmetic on the relation's box (``sabounds.proofs_check.interval``);
    ``budget`` boxes at most (``decide_inequality`` passes ``20 * samples``, at least 200)."""
    less = isinstance(relation, (sp.LessThan, sp.StrictLessThan))
    small, large = (relation.lhs, relation.rhs) if less else (relation.rhs, relation.lhs)
    strict = isinstance(relation, (sp.StrictLessThan, sp.StrictGreaterThan))
    try:
        return prove_on_box(small, large, strict, domain, budget=budget)
    except (NotEnclosable, ValueError, TypeError, ZeroDivisionError, OverflowError) as exc:
        return BoxResult(None, 0, None, f"no interval extension: {exc}")


def decide_inequality(step: Step, settings: Settings, key: str) -> Outcome:
    g, strict = gap_of(step.statement)
    ok, how = symbolic_sign(g.doit(), strict)
    if ok:
        return Outcome.proved(f"sympy {how.split(' on ')[0]}", how)
    domain = step.check.domain or assumed_domain(step.statement.free_symbols)
    if not domain:
        return Outcome.unresolved(
            "sympy sign inference", "sympy could not decide the sign and no domain was given to sample"
        )
    rel = step.statement
    rel = type(rel)(rel.lhs.doit(), rel.rhs.doit(), evaluate=False)
    # rounding of the sampled gap, from the arithmetic (as for identities): (operations + 1) 10^(2 - digits)
    tol = identity_tolerance(rel, settings.precision)
    certified = certify_inequality(rel, domain, budget=max(200, 20 * settings.samples))
    if certified.holds is True and ok is not False:
        return Outcome.proved(
            f"interval arithmetic (mpmath.iv, branch and bound) on the box {describe_box(domain)}",
            f"{certified.reason}; proved on the box {describe_box(domain)} only",
        )
    if certified.holds is False:
        exact = certified.exact or {}
        point = {s_: exact[str(s_)] for s_ in domain if str(s_) in exact}
        with mpmath.workdps(settings.precision):
            margin = float(relative_gap(rel, point, settings.precision))
        witness = {k: float(v) if sp.Rational(float(v)) == v else str(v) for k, v in exact.items()}
        return Outcome(
            Verdict.REFUTED,
            "interval arithmetic (mpmath.iv): certified violation",
            30,
            certified.boxes,
            margin,
            witness,
            certified.reason,
        )
    out = _numeric_inequality(rel, domain, settings, key, tol, "adversarial search (random starts + pattern search)")
    if out.verdict is Verdict.VERIFIED:
        out = replace(
            out, detail=f"{out.detail}; sampled because interval arithmetic could not settle it: {certified.reason}"
        )
    if ok is False:
        if out.verdict is Verdict.REFUTED:
            return replace(out, method=f"sympy {how.split(' on ')[0]} (rhs - lhs < 0); witness by search", detail=how)
        return Outcome.unresolved("sympy sign inference disagrees with sampling", how)
    return out
