"""Decide a derivation step from its check specification alone (dispatch on the spec's type).

Symbolic first: a verdict of ``proved`` names the sympy operation that established it.  Otherwise a
numeric decision at ``settings.precision`` digits over ``settings.samples`` draws: ``refuted`` with
a witness, or ``verified`` with the smallest relative margin found.
"""

from __future__ import annotations

import zlib
from dataclasses import replace
from typing import Callable

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.expressions.evaluate import evaluate
from sabounds.proofs_check.interval import BOX_BUDGET, BoxResult, NotEnclosable, describe_box, prove_on_box
from sabounds.proofs_check.search import adversarial_min, from_unit
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import checks
from sabounds.theory.derivation import Step


def rng_for(key: str, settings: Settings) -> np.random.Generator:
    """A generator seeded by the settings' seed and a stable hash of ``key``: reproducible per check."""
    return np.random.default_rng([settings.seed, zlib.crc32(key.encode())])


def _fmt(v) -> float | str:
    try:
        f = float(v)
        return f if np.isfinite(f) else str(v)
    except (TypeError, ValueError):
        return str(v)


def _witness(point: dict) -> dict:
    return {str(k): _fmt(v) for k, v in point.items()}


def gap_of(relation: sp.Basic) -> tuple[sp.Expr, bool]:
    """``(g, strict)`` with the relation equivalent to ``g >= 0`` (or ``g > 0`` when ``strict``)."""
    if isinstance(relation, (sp.LessThan, sp.StrictLessThan)):
        return relation.rhs - relation.lhs, isinstance(relation, sp.StrictLessThan)
    if isinstance(relation, (sp.GreaterThan, sp.StrictGreaterThan)):
        return relation.lhs - relation.rhs, isinstance(relation, sp.StrictGreaterThan)
    raise TypeError(f"not an inequality: {relation}")


def relative_gap(relation: sp.Basic, values: dict, dps: int) -> mpmath.mpf:
    """``(rhs - lhs) / max(|lhs|, |rhs|)`` at ``values`` (the absolute gap when both sides are 0)."""
    lhs = evaluate(relation.lhs, values, dps)
    rhs = evaluate(relation.rhs, values, dps)
    gap = (rhs - lhs) if isinstance(relation, (sp.LessThan, sp.StrictLessThan)) else (lhs - rhs)
    scale = max(abs(lhs), abs(rhs))
    return mpmath.re(gap / scale if scale else gap)


def _symbolic_sign(g: sp.Expr, strict: bool) -> tuple[bool | None, str]:
    for form, how in ((g, "sign inference"), (sp.factor(sp.simplify(g)), "simplify + factor, then sign inference")):
        ok = form.is_positive if strict else form.is_nonnegative
        if ok is not None:
            return ok, f"{how} on rhs - lhs = {form}"
    return None, ""


def prove_equal(lhs: sp.Expr, rhs: sp.Expr) -> str | None:
    """Try sympy rewritings that are valid for positive symbols; return the one that reduced ``lhs - rhs`` to 0."""
    diff = lhs - rhs
    if sp.simplify(diff) == 0:
        return "simplify(lhs - rhs) == 0"
    if sp.simplify(sp.powsimp(sp.expand_power_base(diff))) == 0:
        return "expand_power_base + powsimp + simplify(lhs - rhs) == 0 (positive bases)"
    if lhs.is_positive and rhs.is_positive:
        logdiff = sp.expand_log(sp.log(lhs) - sp.log(rhs))
        if sp.simplify(logdiff) == 0:
            return "expand_log(log lhs - log rhs) simplifies to 0 (both sides positive)"
    return None


def _equal_after(lhs: sp.Expr, rhs: sp.Expr) -> str | None:
    """``log`` route first (cheap when sympy knows both sides positive), then ``powsimp`` (powers of positive bases),
    then ``simplify`` of the difference."""
    if lhs.is_positive and rhs.is_positive and sp.simplify(sp.expand_log(sp.log(lhs) - sp.log(rhs))) == 0:
        return "expand_log(log lhs - log rhs) simplifies to 0 (both sides positive)"
    if sp.simplify(sp.powsimp(sp.expand_power_base(lhs - rhs))) == 0:
        return "expand_power_base + powsimp + simplify(lhs - rhs) == 0 (positive bases)"
    if sp.simplify(lhs - rhs) == 0:
        return "simplify(lhs - rhs) == 0"
    return None


def prove_reparametrised(lhs: sp.Expr, rhs: sp.Expr, domain) -> str | None:
    """An identity sympy cannot simplify while a positive symbol's range ends below an integer h (``p < 2`` keeps
    ``2 - p > 0``, which sympy cannot see from ``p > 0``): substitute ``s = h k / (1 + k)``, k > 0 (a bijection onto
    (0, h)), then ``_equal_after``.  Returns what was proved, for every s in (0, h), or ``None``."""
    for s_, iv in (domain or {}).items():
        lo, hi = sp.sympify(iv.lo), sp.sympify(iv.hi)
        if not (s_.is_positive and lo.is_nonnegative and hi.is_Rational and not hi.is_Integer and hi > 0):
            continue
        h = sp.ceiling(hi)
        k = sp.Symbol("k", positive=True)
        sub = {s_: h * k / (1 + k)}
        how = _equal_after(lhs.subs(sub).doit(), rhs.subs(sub).doit())
        if how:
            return (f"{how} after substituting {s_} = {h} k/(1 + k), k > 0, so for every {s_} in (0, {h}) "
                    f"(the sampled range [{lo}, {hi}] included)")
    return None


def decide_definition(step: Step, settings: Settings, key: str) -> Outcome:
    return replace(Outcome.proved("definition", "introduces notation; asserts nothing"), basis="definition")


def assumed_domain(symbols) -> dict | None:
    """A sampling box implied by the symbols' own assumptions (what an Identity or Inequality without a domain
    quantifies over): positive -> log-uniform [1/10, 10], positive integer -> [1, 50], nonnegative -> [0, 10],
    real -> [-10, 10]; ``None`` if some symbol has no usable assumption."""
    out = {}
    for s_ in sorted(symbols, key=str):
        if s_.is_integer and s_.is_positive:
            out[s_] = checks.Interval(1, 50, integer=True)
        elif s_.is_positive:
            out[s_] = checks.Interval(sp.Rational(1, 10), 10, log=True)
        elif s_.is_nonnegative:
            out[s_] = checks.Interval(0, 10)
        elif s_.is_real:
            out[s_] = checks.Interval(-10, 10)
        else:
            return None
    return out


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
    return Outcome(Verdict.REFUTED, "numeric evaluation at a seeded point", dps, 1, -float(mpmath.re(err)),
                   {**_witness(point), "lhs": mpmath.nstr(lhs, 15), "rhs": mpmath.nstr(rhs, 15)},
                   f"lhs = {mpmath.nstr(lhs, 15)}, rhs = {mpmath.nstr(rhs, 15)} at the witness")


def decide_identity(step: Step, settings: Settings, key: str) -> Outcome:
    stmt = step.statement
    if stmt.lhs == stmt.rhs:
        return replace(Outcome.proved("both sides are the same expression as built", "true by construction"),
                       basis="construction")
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
            return Outcome(Verdict.REFUTED, "closed numbers evaluated at mpmath precision", dps, 1, -float(err), sides,
                           f"lhs = {sides['lhs']}, rhs = {sides['rhs']}: a false closed identity")
        return Outcome(Verdict.VERIFIED, "closed numbers evaluated at mpmath precision (sympy could not simplify)", dps, 1,
                       -float(err), sides, f"lhs and rhs agree within the tolerance {mpmath.nstr(identity_tolerance(stmt, dps), 3)} "
                       "((operations + 1) 10^(2 - digits))")
    if not domain:
        return Outcome.unresolved("sympy simplify", f"lhs - rhs simplifies to {sp.simplify(diff)}, not 0; no domain to sample")
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
        return Outcome(Verdict.REFUTED, "numeric evaluation", dps, settings.samples, -float(worst), _witness(worst_point),
                       f"difference relative to max(|lhs|, |rhs|, 1) {mpmath.nstr(worst, 5)} > {mpmath.nstr(tol, 3)}")
    return Outcome(Verdict.VERIFIED, "numeric evaluation (sympy could not simplify to 0)", dps, settings.samples,
                   float(-worst), _witness(worst_point), f"largest relative difference {mpmath.nstr(worst, 5)} over "
                   f"{settings.samples} points; tolerance {mpmath.nstr(tol, 3)} ((operations + 1) 10^(2 - digits))")


def _numeric_inequality(relation: sp.Basic, domain, settings: Settings, key: str, tol: mpmath.mpf, method: str) -> Outcome:
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
            return Outcome(Verdict.REFUTED, method, dps, found.evaluations, float(margin), _witness(found.point),
                           f"relative gap {mpmath.nstr(margin, 6)} at the witness ({mpmath.nstr(again, 6)} re-evaluated at "
                           f"{2 * dps} digits), beyond the rounding tolerance {mpmath.nstr(tol, 3)}")
        return Outcome.unresolved(method, f"relative gap {mpmath.nstr(margin, 6)} at {dps} digits but "
                                  f"{mpmath.nstr(again, 6)} at {2 * dps}: the sign cannot be told")
    rounding = (f"; the smallest sampled gap {mpmath.nstr(margin, 3)} lies within the rounding tolerance and is "
                "reported as 0") if margin < 0 else ""
    return Outcome(Verdict.VERIFIED, method, dps, found.evaluations, float(max(margin, 0)), _witness(found.point),
                   f"smallest relative gap {mpmath.nstr(max(margin, 0), 6)} in {found.evaluations} evaluations "
                   f"({settings.samples} random starts, box corners and face midpoints, pattern search): evidence, not "
                   f"proof; a violation confined to a region the samples did not reach can be missed; rounding tolerance "
                   f"{mpmath.nstr(tol, 3)} ((operations + 1) 10^(2 - digits)){rounding}")


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
    ok, how = _symbolic_sign(g.doit(), strict)
    if ok:
        return Outcome.proved(f"sympy {how.split(' on ')[0]}", how)
    domain = step.check.domain or assumed_domain(step.statement.free_symbols)
    if not domain:
        return Outcome.unresolved("sympy sign inference", "sympy could not decide the sign and no domain was given to sample")
    rel = step.statement
    rel = type(rel)(rel.lhs.doit(), rel.rhs.doit(), evaluate=False)
    # rounding of the sampled gap, from the arithmetic (as for identities): (operations + 1) 10^(2 - digits)
    tol = identity_tolerance(rel, settings.precision)
    certified = certify_inequality(rel, domain, budget=max(200, 20 * settings.samples))
    if certified.holds is True and ok is not False:
        return Outcome.proved(f"interval arithmetic (mpmath.iv, branch and bound) on the box {describe_box(domain)}",
                              f"{certified.reason}; proved on the box {describe_box(domain)} only")
    if certified.holds is False:
        exact = certified.exact or {}
        point = {s_: exact[str(s_)] for s_ in domain if str(s_) in exact}
        with mpmath.workdps(settings.precision):
            margin = float(relative_gap(rel, point, settings.precision))
        witness = {k: float(v) if sp.Rational(float(v)) == v else str(v) for k, v in exact.items()}
        return Outcome(Verdict.REFUTED, "interval arithmetic (mpmath.iv): certified violation", 30, certified.boxes,
                       margin, witness, certified.reason)
    out = _numeric_inequality(rel, domain, settings, key, tol, "adversarial search (random starts + pattern search)")
    if out.verdict is Verdict.VERIFIED:
        out = replace(out, detail=f"{out.detail}; sampled because interval arithmetic could not settle it: {certified.reason}")
    if ok is False:
        if out.verdict is Verdict.REFUTED:
            return replace(out, method=f"sympy {how.split(' on ')[0]} (rhs - lhs < 0); witness by search", detail=how)
        return Outcome.unresolved("sympy sign inference disagrees with sampling", how)
    return out


def _outside_domain(f: sp.Expr, x: sp.Symbol, near: list, point: dict, dps: int) -> str:
    """Why the approach points ``near`` lie outside ``f``'s real domain (the symbol's sign assumptions, or a value
    that is not a finite real there), or ``""`` when every approach point is inside."""
    for h in near:
        if (x.is_positive and h <= 0) or (x.is_nonnegative and h < 0) or (x.is_negative and h >= 0) \
                or (x.is_nonpositive and h > 0):
            return f"{x} = {mpmath.nstr(h, 6)} violates the assumptions on {x} ({'positive' if x.is_positive else 'sign'})"
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
            near = [evaluate(x0, point, dps) + sign * mpmath.mpf(10) ** (-(dps // 6)),
                    evaluate(x0, point, dps) + sign * mpmath.mpf(10) ** (-(dps // 3))]
        target = evaluate(value, point, dps)
        outside = _outside_domain(f, x, near, point, dps)
        if outside:
            return Outcome.unresolved("domain check before sympy.limit", f"the approach {x} -> {x0}{direction} leaves the "
                                      f"real domain of the function: {outside}; a one-sided limit there is not a statement "
                                      "about the function, so sympy.limit's value is not taken as a proof")
        errs = [abs(evaluate(f, {**point, x: h}, dps) - target) / max(abs(target), 1) for h in near]
    numeric = f"numeric error {mpmath.nstr(errs[0], 3)} at distance 1e-{dps // 6}, {mpmath.nstr(errs[1], 3)} at 1e-{dps // 3}"
    try:
        computed = sp.limit(f, x, x0, str(direction))
    except (NotImplementedError, ValueError, TypeError):
        computed = None
    if computed is not None and not computed.has(sp.Limit):
        if computed == value or sp.simplify(computed - value) == 0:
            return Outcome.proved("sympy.limit", f"limit = {computed}; {numeric}")
        return Outcome(Verdict.REFUTED, "sympy.limit", detail=f"sympy.limit gives {computed}, not {value}; {numeric}",
                       witness={**_witness(point), "limit": str(computed), "stated": str(value)})
    converging = errs[1] <= errs[0] and errs[1] < mpmath.mpf(10) ** (-(dps // 8))
    verdict = Verdict.VERIFIED if converging else Verdict.REFUTED
    return Outcome(verdict, "numeric approach to the limit point (sympy.limit failed)", dps, 2,
                   float(-errs[1]), _witness(point), numeric)


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
        return Outcome(Verdict.REFUTED, "direct numeric minimisation", dps, n, -float(worst), _witness(worst_point),
                       f"closed form and direct minimum differ by {mpmath.nstr(worst, 5)} (relative)")
    return Outcome(Verdict.VERIFIED, "direct numeric minimisation (golden section)" if not spec.integer else "integer scan",
                   dps, n, float(-worst), _witness(worst_point),
                   f"largest relative difference {mpmath.nstr(worst, 5)} over {n} random parameter draws; tolerance "
                   f"{mpmath.nstr(tol, 3)} (10^(5 - digits))")


def decide_matrix_relation(step: Step, settings: Settings, key: str) -> Outcome:
    """Random and exactly tight matrices: ``sabounds.proofs_check.matrix_relation`` (imported here, as it uses this
    module's seeding)."""
    from sabounds.proofs_check.matrix_relation import decide_matrix_relation as decide_on_matrices
    return decide_on_matrices(step, settings, key)


DECIDERS: dict[type, Callable[[Step, Settings, str], Outcome]] = {
    checks.Definition: decide_definition,
    checks.Identity: decide_identity,
    checks.Inequality: decide_inequality,
    checks.Limit: decide_limit,
    checks.MatrixRelation: decide_matrix_relation,
    checks.Minimum: decide_minimum,
}


def decide(step: Step, settings: Settings, key: str | None = None) -> Outcome:
    """Decide ``step`` by the procedure registered for its check type."""
    if step.statement is sp.true:
        return replace(Outcome.proved("sympy evaluated the statement to True on construction"), basis="construction")
    if step.statement is sp.false:
        return Outcome(Verdict.REFUTED, "sympy evaluated the statement to False on construction",
                       detail="false for every value of its symbols")
    decider = DECIDERS.get(type(step.check))
    if decider is None:
        raise TypeError(f"no decider for check kind {step.check.kind}")
    return decider(step, settings, key or step.name)
