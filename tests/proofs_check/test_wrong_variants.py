"""Every kind of check can fail: a deliberately wrong variant of a Theorem 4.1 step is refuted."""

from dataclasses import replace

import pytest
import sympy as sp

from sabounds.proofs_check.deciders import decide
from sabounds.proofs_check.verdict import Settings, Verdict
from sabounds.theory import thm41 as T
from sabounds.theory.checks import Identity, Inequality, Interval, Limit, MatrixRelation, Minimum
from sabounds.theory.derivation import Step
from sabounds.theory.matrix_atoms import (
    RowNormMax,
    SchattenQuantity,
    SingularValue,
    TailFrobeniusSq,
    TruncationError,
    W,
    X,
)

QUICK = Settings(precision=30, samples=40)
p, a, b, r = T.p, T.a, T.b, T.r


def verdict_of(step: Step) -> Verdict:
    return decide(step, QUICK, step.name).verdict


def mutate(name: str, statement) -> Step:
    return replace(T.derivation()[name], statement=statement)


@pytest.mark.slow  # the quick lane decides every step in tests/cli/test_verify.py::test_json_schema_and_thm41_checks
def test_every_theorem41_step_is_proved_or_verified():
    for step in T.derivation():
        if step.check.kind == "Premise":
            continue
        assert verdict_of(step) in (Verdict.PROVED, Verdict.VERIFIED), step.name


# Identity: a wrong exponent in r* is refuted by numeric sampling after sympy fails to reduce it.
def test_identity_with_wrong_exponent_is_refuted():
    wrong_r = (2 * b / (a * p)) ** (p / (p + 1))
    step = mutate("stationarity", sp.Eq(sp.Derivative(T.objective, r).subs(r, wrong_r), 0))
    assert verdict_of(step) is Verdict.REFUTED


def test_identity_with_wrong_constant_is_refuted():
    wrong_c = ((T.p + 2) ** (T.p + 2) / (2 * T.p**T.p)) ** (1 / (T.p + 2))
    wrong = T.closed_form.subs(T.c_of_p, wrong_c)
    step = mutate("closed_form", sp.Eq(T.minimum.subs({a: T.a_width, b: T.b_width}), wrong))
    assert verdict_of(step) is Verdict.REFUTED


def test_identity_without_domain_and_false_is_not_proved():
    step = Step("c2", sp.Eq(T.c_of_p.subs(p, 2), 3, evaluate=False), "wrong value", Identity())
    assert verdict_of(step) is not Verdict.PROVED


# Inequality: rounding r* up costs at most a, but not at most a/10.
def test_false_inequality_is_refuted_with_witness():
    s = T.derivation()["integer_rounding"]
    wrong = sp.Le(s.statement.lhs, T.objective.subs(r, T.r_star) + a / 10)
    step = replace(s, statement=wrong)
    out = decide(step, QUICK, "w")
    assert out.verdict is Verdict.REFUTED
    assert set(out.witness) >= {"p", "a", "b"} and out.margin < 0


def test_inequality_sign_inference_refutes_a_negative_gap():
    x = sp.Symbol("x", positive=True)
    step = Step("neg", sp.Le(x + 1, x, evaluate=False), "false for all x", Inequality({x: Interval(1, 2)}))
    assert verdict_of(step) is Verdict.REFUTED
    assert verdict_of(Step("auto", sp.Le(x + 1, x), "sympy decides at construction", Inequality())) is Verdict.REFUTED


# Limit: the wrong limit of c(p) at 0, and the wrong rank endpoint.
def test_wrong_limit_is_refuted():
    step = mutate("constant_at_0", sp.Eq(sp.Limit(T.c_of_p, p, 0, "+"), 2))
    assert verdict_of(step) is Verdict.REFUTED


def test_wrong_endpoint_limit_is_refuted():
    step = mutate("rank_endpoint", sp.Eq(sp.Limit(T.closed_form, p, 0, "+"), T.M * T.N**2))
    assert verdict_of(step) is Verdict.REFUTED


# MatrixRelation: sigma_{r+1} <= (S_p/(r+1))^{1/p} holds, with (r+1)^2 in the denominator it does not.
def test_false_matrix_inequality_is_refuted():
    rs = T.r_split
    step = mutate(
        "tail_singular_value", sp.Le(SingularValue(W, rs + 1), (SchattenQuantity(W, p) / (rs + 1) ** 2) ** (1 / p))
    )
    out = decide(step, QUICK, "w")
    assert out.verdict is Verdict.REFUTED and "family" in out.witness


def test_truncation_error_with_sigma_r_plus_2_is_refuted():
    rs = T.r_split
    step = mutate("truncation_error", sp.Le(TruncationError(X, W, rs), RowNormMax(X) * SingularValue(W, rs + 2)))
    assert verdict_of(step) is Verdict.REFUTED


def test_tail_with_wrong_power_is_refuted():
    rs = T.r_split
    step = mutate(
        "tail_frobenius_schatten",
        sp.Le(TailFrobeniusSq(W, rs), SingularValue(W, rs + 1) ** (1 - p / 2) * SchattenQuantity(W, p)),
    )
    assert verdict_of(step) is Verdict.REFUTED


# Minimum: a closed form with the wrong constant differs from the direct minimisation.
def test_wrong_minimum_is_refuted():
    s = T.derivation()["minimum_direct"]
    step = replace(s, statement=sp.Eq((1 + p) * a * T.r_star, T.objective))
    assert verdict_of(step) is Verdict.REFUTED


def test_minimum_check_uses_a_direct_search_not_the_formula():
    s = T.derivation()["closed_form_direct"]
    wrong = sp.Eq(T.closed_form * (1 + sp.Rational(1, 10**8)), s.statement.rhs)
    assert verdict_of(replace(s, statement=wrong)) is Verdict.REFUTED


def test_tighter_constant_substitution_keeps_the_derivation_decidable():
    """A user substitutes a Maurey constant K_M = 1/2: the relaxation step still decides (and holds)."""
    d = T.derivation().subs({T.K_M: sp.Rational(1, 2)})
    step = d["tail_relaxation"]
    assert T.K_M not in step.statement.free_symbols
    assert verdict_of(step) in (Verdict.PROVED, Verdict.VERIFIED)


@pytest.mark.parametrize("kind", [Identity, Inequality, Limit, MatrixRelation, Minimum])
def test_each_check_kind_has_a_decider(kind):
    from sabounds.proofs_check.deciders import DECIDERS

    assert kind in DECIDERS


@pytest.mark.parametrize(
    "name,box",
    [
        ("sum_aggregation", "x_1 in [1/10, 10], x_2 in [1/10, 10], x_3 in [1/10, 10]"),
        ("grid_m_bound", "L in [1, 10000] (integers)"),
        ("peeling_cost", "in [1, 1000000] (integers)"),
    ],
)
def test_a_proof_by_interval_arithmetic_names_its_box(name, box):
    """Interval arithmetic proves a step on a bounded box only: the method says which (L up to the --layers cap)."""
    from sabounds.theory import thm31

    outcome = decide(thm31.derivation()[name], Settings())
    assert outcome.verdict is Verdict.PROVED and "on the box" in outcome.method and box in outcome.method
