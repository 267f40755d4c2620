"""Every built-in family's decided verdict (issue 29) names its engines and carries the error of its margin."""

from __future__ import annotations

import pytest

import sabounds

CASES = [
    ("gelu-lipschitz", "1.2", "proved"), ("gelu-lipschitz", "1.1", "refuted"),
    ("softmax-linf-l1", "1", "proved"), ("softmax-linf-l1", "0.9", "refuted"),
    ("attention-lipschitz", "1.5", "refuted"),
    ("tail-frobenius-schatten", "1.01", "verified"), ("tail-singular-value", "0.99", "refuted"),
    ("covering-constant", "5", "proved"), ("covering-constant", "1.1", "refuted"),
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
