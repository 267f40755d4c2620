"""The corpus of issue 29 item 7: no false relation is ``proved`` or ``verified``; the true ones are, at the rate the
docs state.  A sample of about twenty runs in the quick lane; the rest is ``slow``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sympy as sp

from sabounds.api import conjecture
from sabounds.theory.expression import parse_relation
from tests.support.conjecture_corpus import TRUE_OK, Case, false_cases, true_cases

FALSE, TRUE = false_cases(), true_cases()
DOC = Path(__file__).resolve().parents[2] / "docs" / "guide" / "verdicts.md"


def _variable(spec: str) -> str:
    return spec if ":" in spec else f"{spec}:0:1"


def _decide(case: Case) -> dict:
    return conjecture(case.relation, None, [_variable(v) for v in case.variables], time_limit=case.time_limit).json


def _violated_at(case: Case, witness: dict) -> bool:
    """The witness put exactly into the relation (floats at their binary value, texts as sympy reads them) violates
    it: sympy shows the gap is exactly 0 (a strict relation), or evaluates it below 0 at 1200 digits (sympy's own
    evaluation, independent of both engines; the corpus's smallest violation is 1e-300)."""
    names = [v.split(":")[0] for v in case.variables]
    symbols = {n: sp.Symbol(n, real=True) for n in names}
    rel = parse_relation(case.relation, symbols)
    names = [n for n in names if symbols[n] in rel.free_symbols]  # a relation sympy made closed needs no point
    point = {symbols[n]: _exact(witness[n]) for n in names if n in rel.free_symbols or n in witness}
    less = isinstance(rel, (sp.LessThan, sp.StrictLessThan))
    gap = ((rel.rhs - rel.lhs) if less else (rel.lhs - rel.rhs)).subs(point)
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    if strict and sp.simplify(gap) == 0:
        return True
    return bool(sp.N(gap, 1200) < 0)


def _exact(v) -> sp.Expr:
    """A witness coordinate as the number it denotes: a JSON float at its binary value, a decimal or fraction text as
    the rational it spells, other text (``pi/10``) as sympy reads it."""
    if isinstance(v, float):
        return sp.Rational(v)
    try:
        return sp.Rational(v)
    except (TypeError, ValueError):
        return sp.sympify(v)


def _check(case: Case) -> None:
    rec = _decide(case)
    assert rec["verdict"] in case.allowed, (case.relation, rec["verdict"], rec["detail"])
    if not case.true:
        assert rec["verdict"] not in ("proved", "verified"), rec
    if rec["verdict"] in ("refuted", "verified"):
        assert rec["engines"] and rec["margin_error"] is not None, rec
    if rec["verdict"] == "refuted" and case.kind != "undefined":
        assert len(rec["engines"]) >= 2 and _violated_at(case, rec["witness"]), rec
    if case.kind == "undefined":
        assert "undefined at the witness" in rec["detail"] or "could not certify" in rec["detail"], rec


@pytest.mark.parametrize("case", [c for c in FALSE + TRUE if c.quick], ids=lambda c: c.id)
def test_sample_of_the_corpus_gets_its_expected_verdict(case):
    _check(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in FALSE + TRUE if not c.quick], ids=lambda c: c.id)
def test_corpus_relation_gets_its_expected_verdict(case):
    _check(case)


def corpus_rates() -> dict:
    expected_true = sum(1 for c in TRUE if c.allowed <= TRUE_OK)
    return {
        "false": len(FALSE),
        "true": len(TRUE),
        "true_decided": expected_true,
        "percent": round(100 * expected_true / len(TRUE)),
    }


def test_corpus_is_large_enough_and_the_docs_state_its_rates():
    rates = corpus_rates()
    assert rates["false"] >= 100 and rates["true"] >= 100 and rates["true_decided"] >= 0.8 * rates["true"]
    assert all(c.allowed.isdisjoint({"proved", "verified"}) for c in FALSE)
    kinds = {c.kind for c in FALSE}
    assert {
        "tight-strict",
        "bump-min",
        "bump-max",
        "bump-tanh",
        "bump-exp-product",
        "tiny-gap",
        "undefined",
        "near-tie",
    } <= kinds
    assert 15 <= sum(c.quick for c in FALSE + TRUE) <= 25
    text = DOC.read_text()
    found = re.search(
        r"(\d+) false relations.*?none of them `proved` or `verified`.*?(\d+) true relations.*?(\d+) of them"
        r"\s+\((\d+)%\) `proved` or `verified`",
        text,
        re.S,
    )
    assert found, "docs/guide/verdicts.md must state the corpus rates"
    assert tuple(map(int, found.groups())) == (rates["false"], rates["true"], rates["true_decided"], rates["percent"])
