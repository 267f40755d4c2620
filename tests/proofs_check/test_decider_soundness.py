"""Checks that can fail and tolerances from the arithmetic (issue 19, findings 5 and 7)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from sabounds.cli import main
from sabounds.numerics.expressions import matrix_atoms as MA
from sabounds.proofs_check import mutants as Mu
from sabounds.proofs_check.deciders import decide
from sabounds.proofs_check.verdict import Verdict
from sabounds.theory import thm41
from sabounds.theory.checks import Limit
from sabounds.theory.derivation import Step

QUICK = Mu.QUICK


@pytest.mark.parametrize(
    "family", ["tail-singular-value", "tail-frobenius-schatten", "tail-frobenius-rank", "truncation-error"]
)
def test_matrix_family_just_below_one_is_refuted(family, capsys):
    code = main(["conjecture", family, "--value", "0.999999999999", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["verdict"] == "refuted"


@pytest.mark.parametrize(
    "name", ["tail_singular_value", "tail_frobenius_rank", "tail_frobenius_schatten", "truncation_error"]
)
def test_matrix_step_times_one_minus_1e12_is_refuted_by_its_own_check(name):
    step = thm41.derivation()[name]
    assert decide(step, QUICK).verdict is Verdict.VERIFIED
    for mutant in Mu.fine_mutants(step):
        assert decide(replace(step, statement=mutant.statement), QUICK).verdict is Verdict.REFUTED, mutant


def test_split_is_checked_against_an_independent_truncation(monkeypatch):
    step = thm41.derivation()["split"]
    assert decide(step, QUICK).verdict is Verdict.VERIFIED
    honest = MA._svd_parts

    def one_too_many(w, r):  # a head with r + 1 triplets: still sums to W with its tail
        return honest(w, r + 1)

    monkeypatch.setattr(MA, "_svd_parts", one_too_many)
    assert decide(step, QUICK).verdict is Verdict.REFUTED


def test_independent_truncation_leaves_the_eckart_young_residual():
    w = np.random.default_rng(1).standard_normal((7, 5))
    s = np.linalg.svd(w, compute_uv=False)
    for r in range(6):
        assert abs(np.linalg.norm(w - MA._independent_head(w, r)) - np.sqrt(np.sum(s[r:] ** 2))) < 1e-12


def test_one_sided_limit_outside_the_real_domain_is_not_proved():
    p = thm41.p
    left = Step("left", sp.Eq(sp.Limit(thm41.c_of_p, p, 0, "-"), 1), "", Limit())
    right = Step("right", sp.Eq(sp.Limit(thm41.c_of_p, p, 0, "+"), 1), "", Limit())
    assert decide(left, QUICK).verdict is Verdict.UNRESOLVED
    assert decide(right, QUICK).verdict is Verdict.PROVED
    q = sp.Symbol("q", real=True)
    assert (
        decide(Step("s", sp.Eq(sp.Limit(sp.sqrt(q), q, 0, "-"), 0), "", Limit()), QUICK).verdict is not Verdict.PROVED
    )


def test_fine_mutants_of_theorem_41_all_die_at_the_quick_profile():
    results = Mu.audit([thm41.derivation()], QUICK, operators=("fine_up", "fine_down", "fine_exponent"))
    assert results and all(m.killed for m in results), [m.step for m in results if not m.killed]


def test_identity_tolerance_is_below_the_fine_mutants_at_20_digits():
    from sabounds.proofs_check.identity_decider import identity_tolerance

    step = thm41.derivation()["closed_form"]
    assert identity_tolerance(step.statement, 20) < 1e-14


@pytest.mark.parametrize(
    "module,name",
    [
        ("thm41", "sharp_tail_stationarity"),
        ("thm41", "tail_crossover"),
        ("thm31", "dudley_integral_sharp"),
        ("whole_bound", "sharp_cover"),
    ],
)
def test_identities_with_p_below_2_are_proved_after_reparametrising(module, name):
    import importlib

    step = importlib.import_module(f"sabounds.theory.{module}").derivation()[name]
    outcome = decide(step, QUICK)
    assert outcome.verdict is Verdict.PROVED and "p = 2 k/(1 + k)" in outcome.method


def test_reparametrising_does_not_prove_a_false_identity():
    from sabounds.proofs_check.symbolic_proofs import prove_reparametrised
    from sabounds.theory.checks import Interval

    p = thm41.p
    assert (
        prove_reparametrised(p**2 / (2 - p), p / (2 - p), {p: Interval(sp.Rational(1, 20), sp.Rational(39, 20))})
        is None
    )
    assert prove_reparametrised(sp.sqrt((2 - p) ** 2), 2 - p, {p: Interval(sp.Rational(1, 20), sp.Rational(39, 20))})


TIGHT_INEQUALITIES = [
    ("attention_lipschitz", "score_perturbation"),
    ("thm31", "grid_m_bound"),
    ("whole_bound", "log_split"),
]


@pytest.mark.parametrize("module,name", TIGHT_INEQUALITIES)
def test_tight_inequality_with_its_larger_side_times_one_minus_1e12_is_refuted(module, name):
    """These steps are attained with equality on their boxes, so the larger side times 1 - 1e-12 is false there; the
    sampled gap (-1e-12 at 20 digits) is far beyond the evaluation's rounding, and once was `verified` with a negative
    margin under a tolerance of 10^-(digits/2)."""
    import importlib

    step = importlib.import_module(f"sabounds.theory.{module}").derivation()[name]
    rel = step.statement
    less = isinstance(rel, (sp.LessThan, sp.StrictLessThan))
    small, large = (rel.lhs, rel.rhs) if less else (rel.rhs, rel.lhs)
    scaled = sp.Mul(1 - Mu.FINE, large, evaluate=False)
    mutant = type(rel)(*((small, scaled) if less else (scaled, small)), evaluate=False)
    assert decide(step, QUICK).verdict in (Verdict.PROVED, Verdict.VERIFIED)
    outcome = decide(replace(step, statement=mutant), QUICK)
    assert outcome.verdict is Verdict.REFUTED, outcome


@pytest.mark.parametrize("module,name", TIGHT_INEQUALITIES)
def test_a_verified_inequality_never_carries_a_negative_margin(module, name):
    import importlib

    outcome = decide(importlib.import_module(f"sabounds.theory.{module}").derivation()[name], QUICK)
    assert outcome.verdict is not Verdict.VERIFIED or outcome.margin >= 0
