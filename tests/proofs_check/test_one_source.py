"""One source of truth (issue 9): the regime tables evaluate the very sympy objects the checks decide, so a change
to any of them (Dudley constants, allocation, post hoc grid and peeling, slot covers) is caught by ``verify``."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy as sp

from sabounds.proofs_check.deciders import decide
from sabounds.proofs_check.verdict import Settings, Verdict
from sabounds.theory import regime_bounds, thm31
from sabounds.theory import regimes as R
from sabounds.theory.checks import Interval
from sabounds.theory.regime_models import rank

SHARED = [  # (step, object the tables use, factor that falsifies it: 2 for identities, 1/2 for an upper bound)
    ("dudley_integral", thm31.dudley_constant, 2),
    ("dudley_integral_sharp", thm31.dudley_constant_sharp, 2),
    ("allocated_scale", thm31.allocation_factor, 2),
    ("allocated_scale_sharp", thm31.allocation_factor_sharp, 2),
    ("slot_covering", thm31.slot_coefficient, 2),
    ("slot_covering_sharp", thm31.slot_coefficient_sharp, 2),
    ("sharp_maurey_endpoint", thm31.maurey_coefficient, 2),
    ("grid_size", thm31.grid_size, 2),
    ("peeling_cost", thm31.peeling_bound, sp.Rational(1, 2)),
]


def _mutated(step, obj, new):
    """The step with ``obj`` replaced by ``new`` on each side, built unevaluated so the checker decides it."""
    rel = step.statement
    return replace(step, statement=type(rel)(rel.lhs.subs(obj, new), rel.rhs.subs(obj, new), evaluate=False))


def test_the_tables_import_the_checked_objects_not_copies():
    assert regime_bounds.dudley_constant is thm31.dudley_constant
    assert regime_bounds.dudley_constant_sharp is thm31.dudley_constant_sharp
    assert regime_bounds.slot_log_cover is thm31.slot_log_cover and regime_bounds.post_hoc is thm31.post_hoc
    m, j = thm31.m_grid, thm31.j_peel
    cost = thm31.post_hoc(thm31.K, m, j)
    assert cost.has(thm31.grid_size) and cost.has(thm31.peeling_bound)


@pytest.mark.parametrize("step_name,obj,factor", SHARED, ids=[s for s, _, _ in SHARED])
def test_the_step_states_the_shared_object_and_a_mutated_copy_is_refuted(step_name, obj, factor):
    step = thm31.derivation()[step_name]
    assert step.statement.has(obj), f"{step_name} does not check the object the tables use"
    mutated = _mutated(step, obj, factor * obj)
    assert mutated.statement != step.statement
    outcome = decide(mutated, Settings(precision=20, samples=8), f"one_source.{step_name}")
    assert outcome.verdict is Verdict.REFUTED and outcome.witness


def test_a_dudley_constant_multiplied_by_L_changes_the_table_and_is_refuted(monkeypatch):
    """The audit's example: L times the Dudley constant changes the depth exponent of the table (through the
    shared object) and the step that states it refutes the change."""
    base = R.regime_result(rank(), R.ALPHAS["bounded"]).bounds["ours_sum"].depth.best.power
    monkeypatch.setattr(regime_bounds, "dudley_constant", thm31.dudley_constant * thm31.L)
    changed = R.regime_result(rank(), R.ALPHAS["bounded"]).bounds["ours_sum"].depth.best.power
    assert changed == base + 1
    step = thm31.derivation()["dudley_integral"]
    step = replace(step, check=replace(step.check, domain={**step.check.domain, thm31.L: Interval(2, 64)}))
    mutated = _mutated(step, thm31.dudley_constant, thm31.dudley_constant * thm31.L)
    outcome = decide(mutated, Settings(precision=20, samples=8), "one_source.L")
    assert outcome.verdict is Verdict.REFUTED and outcome.witness
