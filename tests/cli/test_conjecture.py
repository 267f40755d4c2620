"""``sabounds conjecture``: the expected verdicts of issue 5 item 5, the JSON schema, exit codes and the parser."""

from __future__ import annotations

import json
import math

import pytest
import sympy as sp

from sabounds.cli import main
from sabounds.proofs_check.conjecture import AttentionLipschitz, SoftmaxLinfL1
from sabounds.proofs_check.verdict import Settings, Verdict
from sabounds.theory.expression import ExpressionError, parse_relation

KEYS = {"verdict", "method", "witness", "margin", "precision_digits", "samples"}


def _json(argv, capsys) -> tuple[int, dict]:
    code = main(["conjecture", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_gelu_is_not_1_12_lipschitz_witness_near_sqrt2(capsys):
    code, rec = _json(["gelu-lipschitz", "--value", "1.12"], capsys)
    assert code == 0 and rec["verdict"] == "refuted"
    assert KEYS <= set(rec)
    assert abs(rec["witness"]["x"] - math.sqrt(2)) < 1e-9
    assert rec["margin"] < 0


def test_gelu_is_1_13_lipschitz_and_the_supremum_is_1_1289041(capsys):
    code, rec = _json(["gelu-lipschitz", "--value", "1.13"], capsys)
    assert code == 0 and rec["verdict"] == "proved"
    sup = 0.5 + math.erf(1) / 2 + math.exp(-1) / math.sqrt(math.pi)
    assert abs(rec["margin"] - (1.13 - sup) / sup) < 1e-12
    assert "1.12890414518515" in rec["detail"]


def test_gelu_value_just_below_the_supremum_is_refuted_and_just_above_is_proved(capsys):
    assert _json(["gelu-lipschitz", "--value", "1.128904145"], capsys)[1]["verdict"] == "refuted"
    assert _json(["gelu-lipschitz", "--value", "1.128904146"], capsys)[1]["verdict"] == "proved"


def test_softmax_linf_l1_constant_0_9_refuted_and_1_proved():
    settings = Settings(samples=50)
    low = SoftmaxLinfL1(sp.Rational(9, 10)).decide(settings)
    assert low.verdict is Verdict.REFUTED and low.witness["ratio"] > 0.9
    one = SoftmaxLinfL1(sp.Integer(1)).decide(settings)
    assert one.verdict is Verdict.PROVED and 0.99 < one.witness["ratio"] <= 1.0


def test_attention_constant_2_is_proved_and_every_smaller_constant_refuted():
    """The derivation proves c <= 2; the tight family refutes 1, 1.9 and 1.99 with certified witnesses."""
    settings = Settings(samples=20)
    two = AttentionLipschitz(sp.Integer(2)).decide(settings)
    assert two.verdict is Verdict.PROVED and "derivation attention" in two.method
    for value in (sp.Integer(1), sp.Rational(19, 10), sp.Rational(199, 100)):
        low = AttentionLipschitz(value).decide(settings)
        assert low.verdict is Verdict.REFUTED, value
        lo, hi = (float(v) for v in low.witness["constant_interval"])
        assert float(value) < lo <= hi < 2 and low.witness["constant_float_witness"] > float(value)


def test_attention_refutation_is_identical_across_runs(capsys):
    first = _json(["attention-lipschitz", "--value", "1.99", "--samples", "20"], capsys)[1]
    second = _json(["attention-lipschitz", "--value", "1.99", "--samples", "20"], capsys)[1]
    assert (
        first["verdict"] == "refuted" and first["witness"] == second["witness"] and first["detail"] == second["detail"]
    )


def test_attention_proof_is_not_fooled_by_a_mutated_step():
    """A mutant of the proof's softmax constant (1 -> 1/2) is refuted by the step's own check."""
    from dataclasses import replace as _replace

    from sabounds.proofs_check.deciders import decide
    from sabounds.theory import attention_lipschitz as AL

    step = AL.derivation()["softmax_jacobian"]
    mutant = _replace(step, statement=sp.Le(AL.softmax_jacobian_norm, sp.Rational(1, 2)))
    assert decide(mutant, Settings(samples=20)).verdict is Verdict.REFUTED


def test_free_form_refutation_has_a_witness_and_exit_0(capsys):
    code, rec = _json(["log(1 + x) <= x - x**2/3", "--var", "x:0:2"], capsys)
    x = rec["witness"]["x"]
    assert code == 0 and rec["verdict"] == "refuted" and math.log(1 + x) > x - x**2 / 3  # the witness violates it


def test_free_form_true_inequality_is_proved_or_verified(capsys):
    code, rec = _json(["x**2 + 1 >= 2*x", "--var", "x:-10:10"], capsys)
    assert code == 0 and rec["verdict"] == "proved"
    code, rec = _json(["log(1 + x) <= x", "--var", "x:0:100"], capsys)
    assert code == 0 and rec["verdict"] in ("proved", "verified") and (rec["margin"] is None or rec["margin"] >= 0)


def test_strict_relation_with_equality_at_a_corner_is_refuted(capsys):
    code, rec = _json(["x < 1", "--var", "x:0:1"], capsys)
    assert rec["verdict"] == "refuted" and rec["witness"]["x"] == 1.0


def test_unresolved_exits_1(capsys):
    code, rec = _json(["log(-x) <= 1", "--var", "x:1:2"], capsys)
    assert code == 1 and rec["verdict"] == "unresolved"


@pytest.mark.parametrize(
    "argv",
    [
        ["nonsense-family", "--value", "1"],
        ["gelu-lipschitz"],
        ["gelu-lipschitz", "--value", "nan"],
        ["gelu-lipschitz", "--value", "1e999"],
        ["x <= 1", "--var", "x:2:1"],
        ["x <= 1", "--var", "x:0"],
        ["x <= 1", "--var", "__x:0:1"],
        ["x <= 1", "--var", "sqrt:0:1"],
        ["x <= 1", "--var", "x:0:inf"],
        ["x <= 1", "--var", "x:0:1", "--value", "3"],
    ],
)
def test_bad_arguments_exit_2(argv, capsys):
    assert main(["conjecture", *argv]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_parser_builds_the_sympy_relation_it_reads():
    x, p = sp.Symbol("x", positive=True), sp.Symbol("p", positive=True)
    rel = parse_relation("x**(2/p) * sqrt(x) >= Max(x, 1) / gamma(p + 1)", {"x": x, "p": p})
    assert isinstance(rel, sp.GreaterThan)
    assert sp.simplify(rel.lhs - x ** (2 / p) * sp.sqrt(x)) == 0
    assert sp.simplify(rel.rhs - sp.Max(x, 1) / sp.gamma(p + 1)) == 0


@pytest.mark.parametrize(
    "text",
    [
        "x == 1",
        "x != 1",
        "x",
        "x <= y",
        "1e401 <= x",
        "1e-401 <= x",
        "True <= x",
        "x <= 'a'",
        "x // 2 <= 1",
        "x ^ 2 <= 1",
        "x @ x <= 1",
        "log(x, 2, 3) <= 1",
        "sqrt <= 1",
    ],
)
def test_parser_refuses(text):
    with pytest.raises(ExpressionError):
        parse_relation(text, {"x": sp.Symbol("x")})


@pytest.mark.parametrize(
    "family", ["tail-singular-value", "tail-frobenius-rank", "tail-frobenius-schatten", "truncation-error"]
)
def test_theorem_41_tail_steps_hold_with_constant_1_and_no_smaller(family, capsys):
    code, rec = _json([family, "--value", "0.999", "--samples", "40"], capsys)
    assert code == 0 and rec["verdict"] == "refuted" and rec["witness"]["lhs"] == pytest.approx(rec["witness"]["rhs"])
    code, rec = _json([family, "--value", "1", "--samples", "40"], capsys)
    assert code == 0 and rec["verdict"] == "verified" and rec["samples"] == 40


def test_covering_constant_is_c_of_hi_exactly(capsys):
    assert _json(["covering-constant", "--value", "2"], capsys)[1]["verdict"] == "proved"
    code, rec = _json(["covering-constant", "--value", "1.999"], capsys)
    assert rec["verdict"] == "refuted" and rec["witness"]["p"] == 2.0
    c1 = 1.5 * 2 ** (1 / 3)  # c(1) = (3^3 / 4)^(1/3)
    assert _json(["covering-constant", "--value", str(c1 + 1e-9), "--var", "p:0:1"], capsys)[1]["verdict"] == "proved"
    code, rec = _json(["covering-constant", "--value", str(c1 - 1e-9), "--var", "p:0:1"], capsys)
    assert rec["verdict"] == "refuted" and rec["witness"]["c"] == pytest.approx(c1)


def test_family_rejects_foreign_variables(capsys):
    assert main(["conjecture", "covering-constant", "--value", "2", "--var", "q:0:1"]) == 2
    assert main(["conjecture", "covering-constant", "--value", "2", "--var", "p:0:3"]) == 2
    assert main(["conjecture", "gelu-lipschitz", "--value", "2", "--var", "p:0:1"]) == 2


def test_value_is_taken_exactly_not_rounded_or_simplified(capsys):
    """1.99999999999999999 is below c(2) = 2 (float would round it to 2); 5e-16 below c(1) must not snap to it."""
    assert _json(["covering-constant", "--value", "1.99999999999999999"], capsys)[1]["verdict"] == "refuted"
    assert (
        _json(["covering-constant", "--value", "1.8898815748423092", "--var", "p:0:1"], capsys)[1]["verdict"]
        == "refuted"
    )
    assert _json(["softmax-linf-l1", "--value", "0.99999999999999999"], capsys)[1]["verdict"] == "refuted"


def test_negative_constant_has_a_negative_margin(capsys):
    code, rec = _json(["softmax-linf-l1", "--value", "-1"], capsys)
    assert rec["verdict"] == "refuted" and rec["margin"] < 0


def test_a_z3_refutation_names_z3_and_sympy_among_its_engines(capsys):
    """The point comes from z3's model and its sign from sympy's exact value: both certify the verdict."""
    import json

    assert main(["conjecture", "--json", "x**2 >= 2*x - 1 + 1/10**400", "--var", "x:0:2"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["verdict"] == "refuted" and record["method"].startswith("z3")
    assert record["engines"][:2] == ["z3", "sympy"] and {"arb", "mpmath.iv"} <= set(record["engines"])
