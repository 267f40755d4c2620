"""Every built-in family's decided verdict (issue 29) names its engines and carries the error of its margin."""

from __future__ import annotations

import pytest

import sabounds

CASES = [
    ("gelu-lipschitz", "1.2", "proved"),
    ("gelu-lipschitz", "1.1", "refuted"),
    ("softmax-linf-l1", "1", "proved"),
    ("softmax-linf-l1", "0.9", "refuted"),
    ("attention-lipschitz", "1.5", "refuted"),
    ("tail-frobenius-schatten", "1.01", "verified"),
    ("tail-singular-value", "0.99", "refuted"),
    ("covering-constant", "5", "proved"),
    ("covering-constant", "1.1", "refuted"),
]


@pytest.mark.parametrize("family, value, verdict", CASES)
def test_decided_family_names_engines_and_margin_error(family, value, verdict):
    rec = sabounds.conjecture(family, value, samples=40).to_json()
    assert rec["verdict"] == verdict, rec
    assert rec["engines"], rec
    error = rec["margin_error"]
    assert error is not None and 0 <= error < 1e-6, rec
    if verdict == "refuted":
        assert rec["margin"] + error < 0, rec
    if verdict == "proved":
        assert rec["margin"] - error >= 0, rec


def test_proved_softmax_margin_is_the_exact_supremum_not_the_search_sample():
    """The supremum 4t(1-t) = 1 is exact: value 1 leaves margin 0, value 3/2 leaves 1/2 (not the best sample's slack)."""
    assert sabounds.conjecture("softmax-linf-l1", "1", samples=40).to_json()["margin"] == 0.0
    assert sabounds.conjecture("softmax-linf-l1", "1.5", samples=40).to_json()["margin"] == 0.5


def test_truncation_error_margin_is_the_extremal_matrix_exact_zero_not_a_forced_one():
    rec = sabounds.conjecture("truncation-error", "1", samples=40).to_json()
    assert rec["verdict"] == "verified" and rec["margin"] == 0.0 and rec["margin_error"] == 0.0, rec
    assert "extremal matrix's, computed at" in rec["detail"] and "reported as 0" not in rec["detail"], rec


def test_attention_proof_names_the_derivation_and_sympy_as_its_engines():
    rec = sabounds.conjecture("attention-lipschitz", "2", samples=20).to_json()
    assert rec["verdict"] == "proved" and rec["engines"] == ["derivation", "sympy"], rec


@pytest.mark.parametrize("value", ["1.9999999999999999999999", "1.9999999999999999", "1.99999"])
def test_covering_margin_interval_contains_the_exact_relative_gap(value):
    """The sup of c(p) on [0, 2] is c(2) = 2: the margin (v - 2)/2 must lie in ``margin +- margin_error`` (it was
    computed at 15 digits, so 1.9999999999999999999999 printed +2.7e-43 +- 6.3e-43 for a true -5e-23)."""
    from fractions import Fraction

    rec = sabounds.conjecture("covering-constant", value, ["p:0:2"]).to_json()
    exact = (Fraction(value) - 2) / 2
    assert rec["verdict"] == "refuted", rec
    assert abs(Fraction(rec["margin"]) - exact) <= Fraction(rec["margin_error"]), rec
