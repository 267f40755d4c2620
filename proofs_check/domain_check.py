"""Domain first: is every subexpression of a relation defined on the whole box, before anything simplifies it?

A requirement (``sabounds.theory.expression.Requirement``: a divisor nonzero, a log argument positive, a square
root's argument nonnegative, gamma's argument off its poles) is recorded by the parser as each node is built, so
``x/x`` keeps ``x != 0`` although sympy makes it 1; :func:`tree_requirements` reads the same conditions off a finished
tree.  :func:`check_domain` decides each on the box: sympy's assumptions, then best-first bisection on Arb balls
(settled where the ball satisfies it; at each box's exact centre a certain failure, or an exact zero shown by sympy,
is a witness), then sympy's ``solveset`` for a zero near an unsplittable box.  The answer is ``defined`` (every
requirement certified), ``undefined`` at an exact witness point, or ``unknown`` (the reason says why).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import sympy as sp

from sabounds.proofs_check import arb_enclosure as A
from sabounds.proofs_check.interval_enclosure import NotEnclosable
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.theory.checks import Interval
from sabounds.theory.expression import Requirement

BITS = 96


@dataclass(frozen=True)
class DomainResult:
    """``defined`` True (certified on the box), False (``witness`` is an exact point where ``failed`` fails) or None."""

    defined: bool | None
    reason: str
    witness: dict | None = None
    failed: Requirement | None = None


def tree_requirements(expr: sp.Expr) -> list[Requirement]:
    """The requirements visible in a finished sympy tree (negative and fractional powers, log, gamma)."""
    out = []
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and node.base.free_symbols:
            e = node.exp
            kind = (
                ("nonzero" if e < 0 else None)
                if e.is_Integer
                else "nonnegative"
                if (e.is_number and e > 0)
                else "positive"
            )
            if kind:
                out.append(Requirement(kind, node.base, f"{node.base} to the power {e}"))
        elif isinstance(node, sp.log) and node.args[0].free_symbols:
            out.append(Requirement("positive", node.args[0], f"log of {node.args[0]}"))
        elif isinstance(node, sp.gamma) and node.args[0].free_symbols:
            out.append(Requirement("not_pole", node.args[0], f"gamma({node.args[0]})"))
    return out


def _assumed(r: Requirement) -> bool:
    e = r.expr
    return bool(
        {
            "nonzero": e.is_nonzero,
            "positive": e.is_positive,
            "nonnegative": e.is_nonnegative,
            "not_pole": e.is_positive or e.is_integer is False,
        }[r.kind]
    )


def _holds(r: Requirement, b) -> bool:
    """Does the requirement hold at every point of the ball ``b``?"""
    if r.kind == "nonzero":
        return b > 0 or b < 0
    if r.kind == "positive":
        return b > 0
    if r.kind == "nonnegative":
        return b >= 0
    return b > 0 or not b.contains_integer()


def _fails_exactly(r: Requirement, point: Mapping, b) -> bool:
    """Does the requirement certainly fail at the exact ``point`` (``b`` its ball there)?"""
    if r.kind == "positive" and b < 0 or r.kind == "nonnegative" and b < 0:
        return True
    if not b.contains(0) and r.kind != "not_pole":
        return False
    if r.kind == "not_pole" and not (b.contains_integer() and not b > 0):
        return False
    try:
        with time_limit(0.5):
            value = sp.simplify(r.expr.xreplace(dict(point)))
    except (TimeLimit, TypeError, ValueError, ArithmeticError, RecursionError):
        return False
    if r.kind == "not_pole":
        return bool(value.is_integer and value <= 0)
    return bool(value.is_zero if r.kind in ("nonzero", "positive") else value.is_negative)


def _solved_zero(r: Requirement, centre: Mapping, domain: Mapping[sp.Symbol, Interval]) -> dict | None:
    """An exact point of the box where the requirement's expression is 0 (or, for gamma, a pole), near ``centre``:
    ``solveset`` in one variable with the others at the centre's rationals."""
    targets = [sp.Integer(0)]
    if r.kind == "not_pole":
        targets = [sp.Integer(-k) for k in range(0, 5)]
    elif r.kind == "nonnegative":
        return None
    try:
        with time_limit(1.0):
            for s in r.expr.free_symbols:
                others = {t: v for t, v in centre.items() if t != s}
                d = domain[s]
                for target in targets:
                    roots = sp.solveset(sp.Eq(r.expr.xreplace(others), target), s, sp.Interval(d.lo, d.hi))
                    if isinstance(roots, sp.FiniteSet):
                        for root in roots:
                            if root.is_real and (not d.integer or root.is_Integer):
                                point = {**others, s: root}
                                if sp.simplify(r.expr.xreplace(point) - target) == 0:
                                    return point
    except (TimeLimit, NotImplementedError, TypeError, ValueError, ArithmeticError, RecursionError):
        return None
    return None


def _check_one(r: Requirement, domain: Mapping[sp.Symbol, Interval], budget: int) -> DomainResult:
    from sabounds.proofs_check.arb_branch_bound import floor_of, root_box, split_box

    flint = A.flint_module()
    symbols = [s for s in domain if s in r.expr.free_symbols]
    sub = {s: domain[s] for s in symbols}
    form = A.form(r.expr)
    stack, used, last = [root_box(sub)], 0, None
    with flint.ctx.workprec(BITS):
        while stack:
            box = stack.pop()
            used += 1
            try:
                if _holds(r, form.enclose({s: A.ball(lo, hi) for s, (lo, hi) in box.items()})):
                    continue
            except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
                pass
            centre = {s: floor_of((lo + hi) / 2) if sub[s].integer else (lo + hi) / 2 for s, (lo, hi) in box.items()}
            exact = {s: A.rational(c) for s, c in centre.items()}
            try:
                at_centre = form.enclose({s: A.point(flint.arb(c)) for s, c in centre.items()})
            except (NotEnclosable, ZeroDivisionError, ValueError, ArithmeticError):
                at_centre = None
            if at_centre is not None and _fails_exactly(r, exact, at_centre):
                return DomainResult(False, f"{r.origin} needs {r.expr} {_NEEDS[r.kind]}", exact, r)
            halves = split_box(box, sub, BITS) if used < budget else None
            if halves is None:
                last = exact
                break
            stack.extend(reversed(halves))
        else:
            return DomainResult(True, f"{r.origin}: {r.expr} {_NEEDS[r.kind]} on every one of {used} Arb sub-boxes")
    zero = _solved_zero(r, last, sub)
    if zero is not None:
        return DomainResult(
            False, f"{r.origin} needs {r.expr} {_NEEDS[r.kind]}; sympy solves it to fail exactly there", zero, r
        )
    return DomainResult(
        None,
        f"could not certify that {r.origin} is defined on the whole box ({r.expr} "
        f"{_NEEDS[r.kind]}) within {budget} Arb sub-boxes",
    )


_NEEDS = {"nonzero": "!= 0", "positive": "> 0", "nonnegative": ">= 0", "not_pole": "not in {0, -1, -2, ...}"}


def check_domain(
    requirements: Iterable[Requirement], domain: Mapping[sp.Symbol, Interval], budget: int = 2000
) -> DomainResult:
    """Every requirement on the box: the first failure (with its exact witness), else the first that cannot be
    certified, else defined."""
    unknown = None
    seen = []
    for r in requirements:
        if r in seen:
            continue
        seen.append(r)
        if not r.expr.free_symbols:
            value = r.expr
            ok = {
                "nonzero": value.is_nonzero,
                "positive": value.is_positive,
                "nonnegative": value.is_nonnegative,
                "not_pole": value.is_positive or value.is_integer is False,
            }[r.kind]
            if ok is False:
                return DomainResult(False, f"{r.origin} needs {r.expr} {_NEEDS[r.kind]}", {}, r)
            if ok is None and unknown is None:
                unknown = DomainResult(
                    None, f"could not decide whether {r.origin} is defined ({r.expr} {_NEEDS[r.kind]})"
                )
            continue
        if _assumed(r):
            continue
        if not A.available():
            unknown = unknown or DomainResult(
                None,
                f"{r.origin} ({r.expr} {_NEEDS[r.kind]}) is not implied by the "
                f"variables' signs, and the Arb engine that would check it on the box "
                f"is not installed ({A.PIN})",
            )
            continue
        result = _check_one(r, domain, budget)
        if result.defined is False:
            return result
        if result.defined is None and unknown is None:
            unknown = result
    return unknown or DomainResult(True, "every subexpression is defined on the whole box")
