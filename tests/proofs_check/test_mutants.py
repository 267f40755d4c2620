"""The mutation audit (issue 9): every mutant of every checked step of Theorems 4.1 and 3.1 and of the attention
constant is refuted by that step's own check, under the quick profile (20 digits, 8 samples)."""

from __future__ import annotations

import json

import sympy as sp

from sabounds.cli import main
from sabounds.proofs_check import mutants as MU
from sabounds.theory import thm31, thm41


def test_every_mutant_of_theorems_41_and_31_is_killed():
    results = MU.audit([thm41.derivation(), thm31.derivation()], MU.QUICK)
    survivors = [(m.step, m.operator, m.outcome.verdict.value) for m in results if not m.killed]
    assert len(results) > 100 and survivors == []
    assert all(m.outcome.witness for m in results), "a killed mutant carries its witness"


def test_each_operator_occurs_and_no_mutant_is_the_original():
    ops = {m.operator for d in (thm41.derivation(), thm31.derivation()) for s in d for m in MU.mutate(s)}
    assert ops == {"constant", "sign", "exponent", "factor"}
    for d in (thm41.derivation(), thm31.derivation()):
        for step in d:
            for m in MU.mutate(step):
                assert m.statement != step.statement


def test_premises_and_definitions_are_counted_apart_not_mutated():
    apart = MU.counted_apart([thm41.derivation(), thm31.derivation()])
    assert "thm41.rank_part_cover (premise)" in apart and "thm31.composition (premise)" in apart
    assert MU.mutate(thm31.derivation()["composition"]) == []


def test_cli_mutants_json_on_the_attention_derivation(capsys):
    code = main(["verify", "--mutants", "--only", "attention", "--json", "--samples", "8", "--precision", "20"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["summary"]["surviving"] == 0 and out["summary"]["killed"] == len(out["mutants"]) > 5


def test_every_mutant_of_the_whole_bound_is_killed():
    """The whole bound's steps: its Edelman step once left every mutant unresolved (constants missing from the
    domain, so the numeric route could not run); now each mutant is refuted by the step's own check."""
    from sabounds.theory import whole_bound

    assert any(d.id == "whole_bound" for d in MU.derivations_audited())
    results = MU.audit([whole_bound.derivation()], MU.QUICK)
    survivors = [(m.step, m.operator, m.outcome.verdict.value) for m in results if not m.killed]
    assert len(results) >= 20 and survivors == []
    unit = {m.step for m in results if m.operator == "unit_tokens"}
    assert unit == {"whole_bound.token_attention_factor", "whole_bound.token_gamma_qk"}, (
        "issue 29: the unit-token mutant exists and dies"
    )
    assert all(m.killed for m in results if m.operator == "unit_tokens")


def test_every_step_is_mutated_or_listed_apart():
    """No step leaves the audit unmentioned (two attention steps that sympy evaluates to True once were)."""
    derivations = MU.derivations_audited()
    apart = {line.split(" ")[0] for line in MU.counted_apart(derivations)}
    for d in derivations:
        for step in d:
            assert bool(MU.mutate(step)) != (f"{d.id}.{step.name}" in apart), f"{d.id}.{step.name}"
    assert "attention.value_term" in apart  # a premise; the steps once built as True are now mutated


def test_fine_mutants_of_every_audited_theorem_die():
    """Constants times 1 +- 1e-12 and exponents plus 1e-12 (issue 19): tolerances must be tighter than 1e-12, so
    each is refuted by the step's own check, for Theorems 4.1 and 3.1, the attention derivation and the whole bound."""
    from sabounds.theory import attention_lipschitz, whole_bound

    derivations = [thm41.derivation(), thm31.derivation(), attention_lipschitz.derivation(), whole_bound.derivation()]
    results = MU.audit(derivations, MU.QUICK, operators=("fine_up", "fine_down", "fine_exponent"))
    assert {m.operator for m in results} == {"fine_up", "fine_down", "fine_exponent"}
    assert len(results) > 100 and [m.step for m in results if not m.killed] == []
    matrix_steps = {m.step for m in results if m.step.startswith("thm41.t") and m.operator == "fine_down"}
    assert {"thm41.tail_singular_value", "thm41.truncation_error"} <= matrix_steps


def test_a_relation_the_operators_do_not_apply_to_gets_no_mutant_and_is_listed_apart():
    """One guard decides what is mutated (``mutate`` and ``fine_mutants`` alike): a checked ``!=`` is no identity and
    no inequality, so "flipping" or shifting it would make a meaningless mutant; it is counted apart, with why."""
    from sabounds.theory import checks
    from sabounds.theory.derivation import Derivation, Step

    x = sp.Symbol("x", positive=True)
    unequal = Step("unequal", sp.Ne(x + 1, x, evaluate=False), "shifted", checks.Inequality({x: checks.Interval(1, 2)}))
    assert MU.mutate(unequal) == [] and MU.fine_mutants(unequal) == []
    apart = MU.counted_apart([Derivation("toy", "a toy", (unequal,))])
    assert apart == ["toy.unequal (neither an identity nor an inequality to mutate: the statement is Ne(x + 1, x))"]
