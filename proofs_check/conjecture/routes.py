"""The certified routes of the free-form decider, tried before any sampling: the domain (every subexpression defined
on the box), sympy's sign inference, z3 for a polynomial or rational gap, and interval branch and bound on Arb balls
cross-checked by ``mpmath.iv``.  Each returns an :class:`Outcome` or ``None`` with the reason it could not decide."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace

import mpmath
import sympy as sp

from sabounds.proofs_check import arb_enclosure as A
from sabounds.proofs_check.conjecture.certify import check_point
from sabounds.proofs_check.conjecture.number_text import witness_number
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.proofs_check.verdict import Outcome, Verdict


def witness_text(point: Mapping[sp.Symbol, sp.Expr]) -> dict:
    """An exact point as a witness: an integer variable's coordinate as a JSON integer, JSON floats where float64
    holds a rational exactly, else exact text (with a ``_float`` companion for an irrational coordinate)."""
    out: dict[str, int | float | str] = {}
    for s, v in point.items():
        v = sp.sympify(v)
        if v.is_Integer and getattr(s, "is_integer", False):
            out[str(s)] = int(v)
            continue
        out[str(s)] = witness_number(v) if v.is_Rational else str(v)
        if not v.is_Rational:
            out[f"{s}_float"] = float(sp.N(v, 20))
    return out


def undefined(ff) -> Outcome | None:
    """Domain first: ``unresolved`` with an exact witness where a subexpression is undefined, or when definedness on
    the whole box cannot be certified; ``None`` when every subexpression is defined on the box."""
    from sabounds.proofs_check.domain_check import check_domain, tree_requirements

    g, _ = ff.gap()
    requirements = list(ff.requirements) + tree_requirements(g)
    if not requirements:
        return None
    try:
        with time_limit(max(0.2, ff.budget / 4)):
            result = check_domain(requirements, ff.domain)
    except TimeLimit:
        return Outcome.unresolved(
            "domain check (Arb balls, sympy)",
            "could not certify within its time share that "
            "every subexpression is defined on the box; no verdict on a relation that may be "
            "undefined somewhere",
        )
    if result.defined is True:
        return None
    if result.defined is False:
        return Outcome(
            Verdict.UNRESOLVED,
            "domain check before any simplification (Arb balls, sympy)",
            witness=witness_text(result.witness) or None,
            engines=("arb", "sympy") if A.available() else ("sympy",),
            detail=f"the relation is undefined at the witness: {result.reason}; it cannot hold on all of its "
            "declared box (undefined there), so it is neither proved nor verified",
        )
    return Outcome.unresolved("domain check before any simplification (Arb balls, sympy)", result.reason)


def refuted_at(ff, point: Mapping, method: str, how: str, dps: int, samples: int | None = None, check=None) -> Outcome:
    """``refuted`` at an exact point once both engines certify the violation there (``check``, when the caller has
    it already); otherwise ``unresolved``."""
    g, strict = ff.gap()
    point = {
        **{
            s: (sp.Rational(d.lo) + sp.Rational(d.hi)) / 2 if not d.integer else sp.ceiling(d.lo)
            for s, d in ff.domain.items()
        },
        **point,
    }
    check = check or check_point(g, point, dps)
    witness = witness_text(point)
    if check.violated(strict) and (len(check.engines) >= 2 or not A.available()):
        return Outcome(
            Verdict.REFUTED,
            method,
            dps,
            samples,
            check.middle,
            witness,
            f"{how}; re-checked at the exact witness: {check.text}",
            engines=check.engines,
            margin_error=check.error,
            exact_forms=check.exact_forms,
        )
    return Outcome(
        Verdict.UNRESOLVED,
        method,
        dps,
        samples,
        check.middle,
        witness,
        f"{how}, but the re-check at the exact witness does not certify a violation: {check.text}",
        engines=check.engines,
        margin_error=check.error,
        exact_forms=check.exact_forms,
    )


def symbolic(ff) -> Outcome | None:
    """Sympy's sign inference on the gap, then on its ``factor`` and ``simplify`` (the domain was checked first, so a
    cancelled 0/0 point cannot hide)."""
    g, strict = ff.gap()
    try:
        with time_limit(ff.symbolic_seconds):
            for how, transform in (
                ("sign inference", None),
                ("factor, then sign inference", sp.factor),
                ("simplify, then sign inference", sp.simplify),
            ):
                form = g if transform is None else transform(g)
                if form.is_positive if strict else form.is_nonnegative:
                    box = f" on the box {ff.box_text()}" if ff.domain else ""
                    return Outcome(
                        Verdict.PROVED,
                        "sympy sign inference",
                        engines=("sympy",),
                        detail=f"sympy {how} on the gap {form} under the variables' sign assumptions{box}",
                    )
    except (TimeLimit, RecursionError, MemoryError, TypeError, ValueError, ArithmeticError):
        return None
    return None


def exact_solver(ff, dps: int, seconds: float) -> Outcome | str | None:
    """z3 on a polynomial or rational gap: ``proved``, ``refuted`` at its model (re-checked by sympy exactly and by
    both engines), or the reason it decided nothing (``None`` when the gap is not polynomial or rational)."""
    from sabounds.proofs_check import exact_solver as Z

    g, strict = ff.gap()
    result = Z.decide(g, strict, ff.domain, seconds)
    if result is None:
        return None
    if result.holds is True:
        return Outcome(
            Verdict.PROVED,
            "z3 nonlinear real arithmetic (exact)",
            engines=("z3",),
            detail=f"{result.reason}, on the box {ff.box_text()}",
        )
    if result.holds is False:
        value = g.xreplace(result.witness)
        exact = sp.simplify(value) if not value.is_Number else value
        if not (exact.is_negative or (strict and exact.is_zero)):
            return f"z3's model {result.witness} does not violate the relation exactly (sympy: gap {exact}): ignored"
        out = refuted_at(
            ff,
            result.witness,
            "z3 nonlinear real arithmetic (exact model)",
            f"z3 returns a model and sympy evaluates rhs - lhs = {exact} there exactly",
            dps,
        )
        if out.verdict is not Verdict.REFUTED:
            return out.detail
        return replace(
            out, engines=tuple(dict.fromkeys(("z3", "sympy", *out.engines)))
        )  # z3 found the point, sympy signed it exactly
    return result.reason


def branch_and_bound(ff, settings, seconds: float) -> Outcome | str:
    """Best-first branch and bound on Arb balls (mean-value and Taylor forms); a proof is cross-checked by
    ``mpmath.iv``'s own branch and bound (agreement names both engines, a disagreement is ``unresolved``); a
    violation is the exact centre of a certified sub-box, re-checked by both engines.  Without python-flint, the
    ``mpmath.iv`` branch and bound alone."""
    from sabounds.proofs_check.inequality_decider import certify_inequality

    g, strict = ff.gap()
    budget = max(200, 20 * settings.samples)
    start = time.monotonic()
    if not A.available():
        return _mpmath_only(ff, settings, seconds, budget)
    reasons, result, best = [], None, None
    for form, gap in _forms(ff):
        result = _bisect_raising_precision(
            gap, strict, ff.domain, budget, max(0.1, seconds - (time.monotonic() - start))
        )
        if result is None:
            reasons.append(f"{form}: Arb branch and bound did not finish within its time share of {seconds:g} s")
            break
        if result.holds is not None:
            break
        reasons.append(f"{form}: {result.reason}")
        if not result.exhausted and best is None:
            best = (form, result)
    # what the search's judgement needs: boxes left that cannot be told from 0, or that the bisection did not settle
    ff.notes["aside"] = best[1].pending if best else []
    ff.notes["unsettled"] = None if best else "; ".join(reasons)
    if result is None or result.holds is None:
        return "; ".join(reasons)
    if result.holds is False:
        sub = (
            (
                "; the whole sub-box "
                + ", ".join(f"{s} in [{lo}, {hi}]" for s, (lo, hi) in result.sub_box.items())
                + " is certified violated (mean-value enclosure < 0)"
            )
            if result.sub_box
            else ""
        )
        return refuted_at(
            ff,
            result.exact,
            "interval branch and bound on Arb balls (mean-value forms)",
            f"{result.reason}{sub}",
            settings.precision,
            result.boxes,
        )
    left = max(0.1, seconds - (time.monotonic() - start))
    try:
        with time_limit(left):
            other = certify_inequality(ff.relation, ff.domain, budget=budget)
    except TimeLimit:
        other = None
    if other is not None and other.holds is False:
        return Outcome.unresolved(
            "interval branch and bound: Arb and mpmath.iv",
            "the engines disagree: Arb proves the "
            f"relation on the box ({result.reason}) but mpmath.iv finds a violation ({other.reason})",
        )
    confirmed = other is not None and other.holds is True
    return Outcome(
        Verdict.PROVED,
        "interval branch and bound on Arb balls" + (" and mpmath.iv" if confirmed else ""),
        int(result.bits * 0.30103),
        result.boxes,
        engines=("arb", "mpmath.iv") if confirmed else ("arb",),
        detail=f"{result.reason} on the box {ff.box_text()}; "
        + (
            f"mpmath.iv's own branch and bound agrees ({other.reason})"
            if confirmed
            else "mpmath.iv's branch and bound could not settle it within its budget (no disagreement)"
        ),
    )


def _bisect_raising_precision(gap, strict, domain, budget, seconds):
    """The Arb branch and bound, its set-aside boxes again at higher precisions
    (``arb_branch_bound.raising_precision``); ``None`` when it does not finish within ``seconds``."""
    from sabounds.proofs_check.arb_branch_bound import raising_precision

    try:
        with time_limit(seconds):
            return raising_precision(gap, strict, domain, budget)
    except TimeLimit:
        return None


def _forms(ff):
    """The gaps the branch and bound runs on, each with the relation's sign: ``rhs - lhs``, then (both sides positive
    by sympy's assumptions) ``log rhs - log lhs`` with the logarithms expanded, which turns products of exponentials
    into sums free of the dependency problem."""
    g, _ = ff.gap()
    yield "rhs - lhs", g
    rel = ff.relation
    small, large = (rel.lhs, rel.rhs) if isinstance(rel, (sp.LessThan, sp.StrictLessThan)) else (rel.rhs, rel.lhs)
    try:
        with time_limit(min(0.5, ff.symbolic_seconds)):
            if small.is_positive and large.is_positive:
                logs = sp.expand(sp.expand_log(sp.log(large) - sp.log(small), force=True))
            else:
                logs = None
    except (TimeLimit, TypeError, ValueError, ArithmeticError, RecursionError):
        logs = None
    if logs is not None and logs != g:
        yield "log rhs - log lhs (both sides positive, logarithms expanded)", logs


def _mpmath_only(ff, settings, seconds: float, budget: int) -> Outcome | str:
    from sabounds.proofs_check.inequality_decider import certify_inequality

    missing = f"Arb (python-flint, {A.PIN}) is not installed: mpmath.iv alone"
    ff.notes["aside"], ff.notes["unsettled"] = [], None
    try:
        with time_limit(seconds):
            certified = certify_inequality(ff.relation, ff.domain, budget=budget)
    except TimeLimit:
        return f"{missing}; its branch and bound ran out of its time share"
    if certified.holds is True:
        return Outcome(
            Verdict.PROVED,
            "interval branch and bound on mpmath.iv",
            30,
            certified.boxes,
            engines=("mpmath.iv",),
            detail=f"{certified.reason} on the box {ff.box_text()}; {missing}",
        )
    if certified.holds is False:
        exact = {s: certified.exact[str(s)] for s in ff.domain if str(s) in certified.exact}
        return refuted_at(
            ff,
            exact,
            "interval branch and bound on mpmath.iv",
            f"{certified.reason}; {missing}",
            settings.precision,
            certified.boxes,
        )
    return f"{certified.reason}; {missing}"


def closed(ff) -> Outcome | None:
    """A relation without variables, decided by sympy's evaluation of the relation between the two exact numbers."""
    from sabounds.proofs_check.conjecture.number_text import exact_str

    rel = ff.relation
    try:
        with time_limit(ff.symbolic_seconds):
            truth = type(rel)(rel.lhs, rel.rhs)
    except (TimeLimit, RecursionError, MemoryError, TypeError, ValueError, ArithmeticError):
        return None
    sides = {"lhs": exact_str(rel.lhs), "rhs": exact_str(rel.rhs)}
    if truth is sp.true:
        return Outcome(
            Verdict.PROVED,
            "sympy: the closed relation evaluated exactly",
            engines=("sympy",),
            detail=f"lhs = {sides['lhs']}, rhs = {sides['rhs']}: sympy evaluates the relation to True",
        )
    if truth is sp.false:
        g, strict = ff.gap()
        check = check_point(g, {}, 30)
        if not check.violated(strict) or len(check.engines) < (2 if A.available() else 1):
            return Outcome.unresolved(
                "sympy: the closed relation evaluated exactly",
                f"sympy evaluates the relation to False but the engines do not certify it: {check.text}",
            )
        engines = tuple(dict.fromkeys(("sympy",) + check.engines))
        return Outcome(
            Verdict.REFUTED,
            "sympy: the closed relation evaluated exactly",
            None,
            None,
            check.middle,
            sides,
            f"lhs = {sides['lhs']}, rhs = {sides['rhs']}: sympy evaluates the relation to False; "
            f"re-checked: {check.text}",
            engines=engines,
            margin_error=check.error,
            exact_forms=check.exact_forms,
        )
    return None


def float_text(v) -> str:
    return mpmath.nstr(mpmath.mpf(v), 8) if v is not None else "n/a"
