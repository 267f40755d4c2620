"""Decide a user's scalar relation over a box of variables: ``FreeForm`` (domain first, sympy, z3, branch and bound
on Arb balls, an adversarial search judged by two certified engines, and for a strict relation its tightest
point), and ``declare`` for its variables."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.expressions.bounded import bounded_evaluate
from sabounds.proofs_check.conjecture.number_text import exact_str as _exact_str
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.search import adversarial_min
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.proofs_check.verdict import Outcome, Settings
from sabounds.theory.checks import Interval


def _quiet(note: str = "") -> None:
    """The default progress callback."""


@dataclass(frozen=True)
class FreeForm:
    """Claim: a user's relation ``lhs <op> rhs`` holds for every point of a box of scalar variables.

    Literals are exact rationals (``0.1`` is 1/10).  Method, in order (:mod:`.routes`): (0) domain first: every
    subexpression's requirement (divisors, log and sqrt arguments, gamma's poles), recorded by the parser before
    sympy could cancel it, is checked on the box (Arb balls, sympy): a relation undefined somewhere is
    ``unresolved`` with an exact witness; (1) a relation without variables is evaluated exactly by sympy;
    (2) sympy's sign inference on ``rhs - lhs`` (and on its ``factor``/``simplify``) within ``symbolic_seconds``;
    (3) z3's nonlinear real arithmetic for a polynomial or rational gap (``proved``, or its model re-checked);
    (4) best-first branch and bound on Arb balls with mean-value forms, a proof cross-checked by ``mpmath.iv``;
    (5) an adversarial search of the gap at ``settings.precision`` digits (:mod:`.evidence`): every point with a
    gap <= 0 is re-checked at its exact value by both engines (``refuted``, or ``unresolved``); ``verified`` only
    when no sample violates, the branch and bound settled every sub-box but a few it set aside that each hold an
    exact tight point (where the non-strict relation holds with equality), and the smallest gap's Arb ball excludes 0
    (precision doubled up to a cap) with mpmath.iv agreeing.  Where the engines
    disagree the answer is ``unresolved`` and says so.  ``budget`` seconds is a safety limit whose expiry gives
    ``unresolved``.  Fails: a violation confined to a region neither the bisection nor the samples reach is missed
    (the verdict is then ``verified``, which is evidence, not proof).
    """

    relation: sp.Rel
    domain: Mapping[sp.Symbol, Interval]
    budget: float = 4.0
    symbolic_seconds: float = 1.0
    requirements: tuple = ()
    """The parser's domain requirements (``sabounds.theory.expression.Requirement``), checked before anything else."""
    notes: dict = field(default_factory=dict, compare=False, repr=False)
    """What one route leaves for a later one (the branch and bound's set-aside boxes, or why it did not settle)."""
    name: ClassVar[str] = "free-form"
    stages: ClassVar[int] = 1

    @property
    def claim(self) -> str:
        ranges = ", ".join(
            f"{s} in [{_exact_str(sp.Rational(iv.lo))}, {_exact_str(sp.Rational(iv.hi))}]"
            for s, iv in self.domain.items()
        )
        return f"{self.relation} for {ranges}" if ranges else str(self.relation)

    def gap(self) -> tuple[sp.Expr, bool]:
        """``(rhs - lhs, strict)`` oriented so that the relation says ``gap >= 0`` (``> 0`` when strict)."""
        rel = self.relation
        less = isinstance(rel, (sp.LessThan, sp.StrictLessThan))
        return (rel.rhs - rel.lhs) if less else (rel.lhs - rel.rhs), isinstance(
            rel, (sp.StrictLessThan, sp.StrictGreaterThan)
        )

    def sides_gap(self, point: Mapping, dps: int) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
        """``(lhs, rhs, gap)`` at ``point``, ``gap`` > 0 on the true side of the relation."""
        rel = self.relation
        lhs, rhs = bounded_evaluate(rel.lhs, point, dps), bounded_evaluate(rel.rhs, point, dps)
        return lhs, rhs, (rhs - lhs) if isinstance(rel, (sp.LessThan, sp.StrictLessThan)) else (lhs - rhs)

    def box_text(self) -> str:
        from sabounds.proofs_check.interval import describe_box

        return describe_box(self.domain)

    def exact(self, point: Mapping, dps: int) -> dict:
        """A searched point as exact rationals in the box (exact candidates stay exact; mpf via its ``dps``-digit decimal)."""
        out = {}
        for s, v in point.items():
            r = sp.Rational(v) if isinstance(v, sp.Basic) else sp.Rational(mpmath.nstr(v, dps))
            iv = self.domain[s]
            r = min(max(r, sp.Rational(iv.lo)), sp.Rational(iv.hi))
            if iv.integer:
                r = min(max(sp.Integer(round(r)), sp.ceiling(iv.lo)), sp.floor(iv.hi))
            out[s] = r
        return out

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        from sabounds.proofs_check.conjecture import evidence, routes

        start = time.monotonic()
        early = routes.undefined(self) if self.domain else routes.closed(self)
        early = early or routes.symbolic(self)
        if early is not None:
            return early
        if not self.domain:
            return Outcome.unresolved("sympy", "a relation without variables that sympy could not evaluate")
        reasons = []
        exact = routes.exact_solver(self, settings.precision, max(0.2, self.budget / 4))
        if isinstance(exact, Outcome):
            return exact
        if exact is not None:
            reasons.append(exact)
        left = max(0.1, 0.7 * self.budget - (time.monotonic() - start))
        bisection = routes.branch_and_bound(self, settings, left)
        if isinstance(bisection, Outcome):
            return bisection
        reasons.append(bisection)
        dps = settings.precision
        g, _ = self.gap()
        rng = rng_for(str(self.relation), settings)
        try:
            with time_limit(max(0.1, self.budget - (time.monotonic() - start))), mpmath.workdps(dps):
                found = adversarial_min(
                    lambda pt: self.sides_gap(pt, dps)[2],
                    self.domain,
                    settings.samples,
                    rng,
                    structured=True,
                    keep_zero=True,
                )
        except ValueError as exc:
            return Outcome.unresolved("adversarial search", f"no point of the domain could be evaluated ({exc})")
        except TimeLimit:
            return Outcome.unresolved(
                "adversarial search",
                f"the count-bounded search ({settings.samples} starts) did not "
                f"finish within the safety time limit of {self.budget:g} s; no verdict is given "
                "from a partial search",
            )
        return evidence.judge(self, found, settings, start, "; ".join(reasons))


def declare(name: str, lo, hi, integer: bool = False, log: bool = False) -> tuple[sp.Symbol, Interval]:
    """A real symbol for a free-form variable ranging over ``[lo, hi]``, with the sign assumptions the range implies.

    ``lo`` and ``hi`` are exact rationals (or finite floats, taken at their exact binary value's shortest repr).
    """

    def exact(v):
        if isinstance(v, sp.Basic):
            if not v.is_Rational:
                raise ValueError(f"range of {name} must have rational bounds, got {v}")
            return sp.Rational(v)
        if not np.isfinite(v):
            raise ValueError(f"range of {name} must be finite with lo <= hi, got [{lo}, {hi}]")
        return sp.Rational(repr(float(v)))

    lo_r, hi_r = exact(lo), exact(hi)
    if hi_r < lo_r:
        raise ValueError(f"range of {name} must be finite with lo <= hi, got [{lo}, {hi}]")
    if log and lo_r <= 0:
        raise ValueError(f"log-uniform range of {name} needs lo > 0")
    assumptions = {"real": True}
    if integer:
        assumptions["integer"] = True
    if lo_r > 0:
        assumptions["positive"] = True
    elif lo_r >= 0:
        assumptions["nonnegative"] = True
    if hi_r < 0:
        assumptions["negative"] = True
    elif hi_r <= 0:
        assumptions["nonpositive"] = True
    if integer and sp.ceiling(lo_r) > sp.floor(hi_r):
        raise ValueError(f"integer range of {name} [{lo}, {hi}] contains no integer")
    return sp.Symbol(name, **assumptions), Interval(lo_r, hi_r, integer=integer, log=log)
