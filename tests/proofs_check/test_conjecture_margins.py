"""An unresolved free-form verdict prints no margin it cannot certify: the printed ``margin +- margin_error``
contains the true gap at the witness, never ``0 +- 0`` for a gap that is not exactly 0 (hostile review items 1-2)."""

from __future__ import annotations

import mpmath
import pytest

import sabounds
from sabounds.api._conjecture import record
from sabounds.proofs_check.verdict import Outcome, Verdict


def _contains(rec: dict, true_gap: mpmath.mpf) -> bool:
    margin, error = mpmath.mpf(rec["margin"]), mpmath.mpf(rec["margin_error"])
    return abs(true_gap - margin) <= error


CASES = [
    ("tanh(x) < 1", "x:0:1e6", lambda x: 2 / (mpmath.exp(2 * x) + 1)),
    ("erf(x) < 1", "x:20:1e10", mpmath.erfc),
    (
        "log(1 + exp(-x)) > exp(-x) - exp(-2*x)/2",
        "x:30:3000",
        lambda x: mpmath.log1p(mpmath.exp(-x)) - mpmath.exp(-x) + mpmath.exp(-2 * x) / 2,
    ),
]


@pytest.mark.parametrize("relation, var, gap", CASES)
def test_unresolved_margin_interval_contains_the_true_gap(relation, var, gap):
    rec = sabounds.conjecture(relation, variables=[var]).to_json()
    assert rec["verdict"] in ("unresolved", "verified"), rec
    if rec["margin"] is None:
        assert rec["margin_error"] is None and "margin" in rec["detail"], rec
        return
    assert rec["margin_error"] is not None, rec
    assert mpmath.mpf(rec["margin_error"]) > 0, rec
    with mpmath.workdps(500):  # the log case cancels 1e-47 terms to a 1e-140 gap
        true_gap = gap(mpmath.mpf(str(rec["witness"]["x"])))
    assert _contains(rec, true_gap), (rec, true_gap)


class _Claim:
    claim = "a claim"


@pytest.mark.parametrize("error", [None, 0.0])
def test_record_withholds_an_unresolved_margin_without_a_certified_error(error):
    rec = record(_Claim(), Outcome(Verdict.UNRESOLVED, "search", margin=-1.3e-51, margin_error=error))
    assert rec["margin"] is None and rec["margin_error"] is None and "no margin is reported" in rec["detail"]


def test_record_keeps_an_exact_zero_and_deduplicates_engines():
    rec = record(
        _Claim(),
        Outcome(
            Verdict.UNRESOLVED,
            "exact",
            margin=0.0,
            margin_error=0.0,
            engines=("z3", "sympy", "sympy", "arb", "arb", "mpmath.iv"),
        ),
    )
    assert rec["margin"] == 0.0 and rec["margin_error"] == 0.0
    assert rec["engines"] == ["z3", "sympy", "arb", "mpmath.iv"]
