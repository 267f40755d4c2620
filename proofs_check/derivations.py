"""Register one check per decidable step of a derivation: the check is the step's own spec, decided generically."""

from __future__ import annotations

from sabounds.proofs_check.deciders import decide
from sabounds.proofs_check.registry import Check
from sabounds.theory.checks import Premise
from sabounds.theory.derivation import Derivation, Step


def step_check(derivation: Derivation, step: Step) -> Check:
    key = f"{derivation.id}.{step.name}"
    return Check(key, step.justification, lambda settings, _s=step, _k=key: decide(_s, settings, _k), is_step=True)


def step_checks(derivation: Derivation) -> list[Check]:
    """``<derivation.id>.<step.name>`` for every step except cited premises (never reported as checked)."""
    return [step_check(derivation, step) for step in derivation if not isinstance(step.check, Premise)]


def premises(derivation: Derivation) -> list[Step]:
    """The cited premises a derivation rests on, for reports to list as taken-as-given."""
    return [step for step in derivation if isinstance(step.check, Premise)]
