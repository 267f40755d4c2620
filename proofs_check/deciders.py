"""Decide a derivation step from its check specification alone (dispatch on the spec's type).

Symbolic first: a verdict of ``proved`` names the sympy operation that established it.  Otherwise a
numeric decision at ``settings.precision`` digits over ``settings.samples`` draws: ``refuted`` with
a witness, or ``verified`` with the smallest relative margin found.

One module per check kind: ``identity_decider``, ``inequality_decider``, ``limit_decider``, ``minimum_decider`` and
``matrix_relation``; what sympy proves alone is ``symbolic_proofs``, the seeding ``sampling``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import sympy as sp

from sabounds.proofs_check.identity_decider import decide_identity
from sabounds.proofs_check.inequality_decider import decide_inequality
from sabounds.proofs_check.limit_decider import decide_limit
from sabounds.proofs_check.matrix_relation import decide_matrix_relation
from sabounds.proofs_check.minimum_decider import decide_minimum
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import checks
from sabounds.theory.derivation import Step

__all__ = ["DECIDERS", "decide", "decide_definition"]


def decide_definition(step: Step, settings: Settings, key: str) -> Outcome:
    return replace(Outcome.proved("definition", "introduces notation; asserts nothing"), basis="definition")


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
        return Outcome(
            Verdict.REFUTED,
            "sympy evaluated the statement to False on construction",
            detail="false for every value of its symbols",
        )
    decider = DECIDERS.get(type(step.check))
    if decider is None:
        raise TypeError(f"no decider for check kind {step.check.kind}")
    return decider(step, settings, key or step.name)
