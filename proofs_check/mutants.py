"""Mutation audit of the checker: perturb each checked step's statement and see whether its own check refutes it.

Operators (each builds the mutant with ``evaluate=False``, so the decider, not sympy's constructor, must find
the error):

- ``constant``: an identity's right side times 11/10 (a zero right side becomes 1/10); an inequality's larger side
  minus half of ``|lhs| + |rhs|``;
- ``sign``: an identity's right side negated; an inequality's direction flipped (``a <= b`` -> ``a > b``);
- ``exponent``: the first power with a non-integer or symbolic exponent in an identity's right side (in its left
  side when the right side is 0, e.g. the point of a stationarity condition) gets exponent * 11/10;
- ``factor``: the first factor carrying a symbol dropped from a product on an identity's right side;
- ``unit_tokens``: an identity whose right side carries the token norm ``B_l`` of the whole bound's attention
  factors gets ``B_l = 1`` there (the unit-norm tokens the post-LN bound once assumed; issue 29);
- ``fine_up``, ``fine_down``, ``fine_exponent``: off by 1e-12 (``fine_mutants``), so a tolerance looser than the
  arithmetic lets them survive.

A mutant is *killed* when the step's decider returns ``refuted``; any other verdict lets it *survive*, and the
step is listed as weak.  Definitions, premises and statements true by construction are not mutated (counted
apart).  Budgets are the settings' counts; the same seed gives the same audit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import sympy as sp

from sabounds.proofs_check.deciders import decide
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import checks
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.whole_bound import B_tok as TOKEN_NORM

_LESS = (sp.LessThan, sp.StrictLessThan)
_GREATER = (sp.GreaterThan, sp.StrictGreaterThan)
_MUTABLE = (sp.Eq, *_LESS, *_GREATER)
"""The relations the operators apply to: identities and inequalities (not ``!=``)."""


@dataclass(frozen=True)
class Mutant:
    step: str
    operator: str
    statement: sp.Basic
    outcome: Outcome | None = None

    @property
    def killed(self) -> bool:
        return self.outcome is not None and self.outcome.verdict is Verdict.REFUTED


def _rebuild(rel: sp.Basic, lhs: sp.Expr, rhs: sp.Expr, kind: type | None = None) -> sp.Basic:
    return (kind or type(rel))(lhs, rhs, evaluate=False)


def _first_power(expr: sp.Expr) -> sp.Pow | None:
    """The first power with a non-integer exponent and a symbolic base that occurs exactly once (replacing a
    repeated one everywhere could give an equivalent mutant, e.g. a -> a^(11/10) throughout)."""
    nodes = list(sp.preorder_traversal(expr))
    for node in nodes:
        if (
            isinstance(node, sp.Pow)
            and not node.exp.is_Integer
            and node.base.free_symbols
            and sum(1 for other in nodes if other == node) == 1
        ):
            return node
    return None


def _target(rel: sp.Basic) -> tuple[sp.Expr, Callable[[sp.Expr], sp.Basic]]:
    """The side to mutate and how to put a new one back: the value of a Limit or Minimum, else the right side."""
    lhs, rhs = rel.lhs, rel.rhs
    if isinstance(lhs, sp.Limit):
        return rhs, lambda new: _rebuild(rel, lhs, new)
    if isinstance(rel, sp.Eq) and not isinstance(lhs, sp.Limit) and rhs.has(sp.Symbol) and lhs.is_Atom is False:
        return rhs, lambda new: _rebuild(rel, lhs, new)
    return rhs, lambda new: _rebuild(rel, lhs, new)


FINE = sp.Rational(1, 10**12)
"""The relative size of a fine mutant: a constant times 1 +- 1e-12, an exponent plus 1e-12."""


def _mutants(
    step: Step,
    identity: Callable[[str, sp.Expr, sp.Expr], list[Mutant]],
    inequality: Callable[[Step, sp.Basic], list[Mutant]],
) -> list[Mutant]:
    """The one guard of the audit: ``identity(name, lhs, rhs)`` for an identity, ``inequality(step, rel)`` for an
    inequality, nothing for a definition, a premise, a ``!=`` or a statement sympy evaluated on construction."""
    rel = step.statement
    if isinstance(step.check, (checks.Definition, checks.Premise)) or not isinstance(rel, _MUTABLE):
        return []
    return identity(step.name, rel.lhs, rel.rhs) if isinstance(rel, sp.Eq) else inequality(step, rel)


def fine_mutants(step: Step) -> list[Mutant]:
    """Mutants off by 1e-12 (issue: tolerances must come from error analysis, so they must die):

    - identities, limits and minima: the right side (the value of a limit) times ``1 + 1e-12`` and ``1 - 1e-12``, and
      the first non-integer power's exponent plus 1e-12 (on the left side when the right side is 0);
    - matrix relations (attained with equality): the larger side times ``1 - 1e-12``.
    Scalar inequalities with slack are not given fine mutants: tightening a side with slack by 1e-12 is an equivalent
    mutant (still true), which no decider can refute."""
    return _mutants(step, _fine_identity, _fine_inequality)


def _fine_identity(name: str, lhs: sp.Expr, rhs: sp.Expr) -> list[Mutant]:
    out = []
    if rhs != 0:
        for operator, factor in (("fine_up", 1 + FINE), ("fine_down", 1 - FINE)):
            out.append(Mutant(name, operator, sp.Eq(lhs, sp.Mul(factor, rhs, evaluate=False), evaluate=False)))
    side, put = (
        (rhs, lambda new: sp.Eq(lhs, new, evaluate=False))
        if rhs != 0
        else (lhs, lambda new: sp.Eq(new, rhs, evaluate=False))
    )
    power = _first_power(side) if not isinstance(side, sp.Limit) else None
    if power is not None:
        new = power.func(power.base, sp.Add(power.exp, FINE, evaluate=False), evaluate=False)
        out.append(Mutant(name, "fine_exponent", put(side.xreplace({power: new}))))
    return out


def _fine_inequality(step: Step, rel: sp.Basic) -> list[Mutant]:
    if not isinstance(step.check, checks.MatrixRelation):
        return []
    less = isinstance(rel, _LESS)
    small, large = (rel.lhs, rel.rhs) if less else (rel.rhs, rel.lhs)
    if large == 0:
        return []
    tightened = sp.Mul(1 - FINE, large, evaluate=False)
    sides = (small, tightened) if less else (tightened, small)
    return [Mutant(step.name, "fine_down", type(rel)(*sides, evaluate=False))]


def mutate(step: Step) -> list[Mutant]:
    """The mutants of one step (empty for definitions, premises and non-relations).

    Equivalent mutants are avoided by construction: a side that is structurally 0 is not scaled or negated (the
    point it is evaluated at is mutated instead), and an inequality's constant mutant subtracts half the sides'
    total size from the larger side, which makes any inequality false wherever it is tight."""
    return _mutants(step, _identity_mutants, _inequality_mutants)


def _identity_mutants(name: str, lhs: sp.Expr, rhs: sp.Expr) -> list[Mutant]:
    put = lambda new: sp.Eq(lhs, new, evaluate=False)
    if rhs == 0:
        out = [Mutant(name, "constant", put(sp.Rational(1, 10)))]
        power = _first_power(lhs)
        if power is not None:
            new = power.func(power.base, sp.Mul(sp.Rational(11, 10), power.exp, evaluate=False), evaluate=False)
            out.append(Mutant(name, "exponent", sp.Eq(lhs.xreplace({power: new}), rhs, evaluate=False)))
        return out
    out = [
        Mutant(name, "constant", put(sp.Mul(sp.Rational(11, 10), rhs, evaluate=False))),
        Mutant(name, "sign", put(sp.Mul(-1, rhs, evaluate=False))),
    ]
    power = _first_power(rhs)
    if power is not None:
        new = power.func(power.base, sp.Mul(sp.Rational(11, 10), power.exp, evaluate=False), evaluate=False)
        out.append(Mutant(name, "exponent", put(rhs.xreplace({power: new}))))
    if TOKEN_NORM in rhs.free_symbols:
        out.append(Mutant(name, "unit_tokens", put(rhs.xreplace({TOKEN_NORM: sp.Integer(1)}))))
    if isinstance(rhs, sp.Mul) and len(rhs.args) >= 2:
        moving = [f for f in rhs.args if f.free_symbols]
        if moving:
            rest = [f for f in rhs.args if f is not moving[0]]
            out.append(Mutant(name, "factor", put(sp.Mul(*rest, evaluate=False))))
    return out


def _inequality_mutants(step: Step, rel: sp.Basic) -> list[Mutant]:
    less = isinstance(rel, _LESS)
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    small, large = (rel.lhs, rel.rhs) if less else (rel.rhs, rel.lhs)
    out = [Mutant(step.name, "sign", sp.StrictGreaterThan(small, large, evaluate=False))]
    if small != 0 and large != 0:
        shifted = sp.Add(
            large,
            sp.Mul(sp.Rational(-1, 2), sp.Add(sp.Abs(small), sp.Abs(large), evaluate=False), evaluate=False),
            evaluate=False,
        )
        kind = sp.StrictLessThan if strict else sp.LessThan
        out.append(Mutant(step.name, "constant", kind(small, shifted, evaluate=False)))
    return out


def audit(
    derivations: Iterable[Derivation],
    settings: Settings,
    operators: tuple[str, ...] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Mutant]:
    """Decide every mutant of every checked step with that step's own check specification."""
    results = []
    for derivation in derivations:
        for step in derivation:
            for m in mutate(step) + fine_mutants(step):
                if operators and m.operator not in operators:
                    continue
                try:
                    outcome = decide(
                        replace(step, statement=m.statement),
                        settings,
                        f"mutant.{derivation.id}.{step.name}.{m.operator}",
                    )
                except Exception as exc:  # a decider that breaks on a mutant does not kill it
                    outcome = Outcome(Verdict.UNRESOLVED, "decider raised", detail=f"{type(exc).__name__}: {exc}")
                results.append(replace(m, step=f"{derivation.id}.{step.name}", outcome=outcome))
                if progress:
                    progress(f"{derivation.id}.{step.name} {m.operator}")
    return results


def counted_apart(derivations: Iterable[Derivation]) -> list[str]:
    """Every step not mutated, with why: definitions, premises, and statements that are neither an identity nor an
    inequality (``!=``, or evaluated by sympy on construction, e.g. to True), so no step leaves the audit unmentioned."""
    out = []
    for d in derivations:
        for s in d:
            if isinstance(s.check, (checks.Definition, checks.Premise)):
                out.append(f"{d.id}.{s.name} ({type(s.check).__name__.lower()})")
            elif not mutate(s):
                out.append(
                    f"{d.id}.{s.name} (neither an identity nor an inequality to mutate: the statement is {s.statement})"
                )
    return out


QUICK = Settings(precision=20, samples=8)
"""The quick profile the test suite runs: 20 digits, 8 samples per numeric check."""


def derivations_audited() -> list[Derivation]:
    """The catalog's derivations tagged ``audited`` (``sabounds.theory.catalog``), in catalog order."""
    from sabounds.theory.catalog import derivations

    return [make() for make in derivations("audited").values()]


def record(m: Mutant) -> dict:
    o = m.outcome
    return {
        "step": m.step,
        "operator": m.operator,
        "mutant": str(m.statement),
        "killed": m.killed,
        "verdict": o.verdict.value if o else None,
        "method": o.method if o else None,
        "witness": dict(o.witness) if o and o.witness else None,
    }


def summary(results: list[Mutant], derivations: list[Derivation]) -> dict:
    """Counts: mutants, killed, surviving, the weak steps (a surviving mutant) and the steps counted apart."""
    steps = {m.step for m in results}
    weak = sorted({m.step for m in results if not m.killed})
    return {
        "mutants": len(results),
        "killed": sum(m.killed for m in results),
        "surviving": sum(not m.killed for m in results),
        "steps_mutated": len(steps),
        "weak_steps": weak,
        "counted_apart": counted_apart(derivations),
    }
