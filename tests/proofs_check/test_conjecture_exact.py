"""Exact literals, exact witnesses and no negative margin carried by ``verified`` (hostile review of ``conjecture``)."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from sabounds.cli import main
from sabounds.theory.expression import parse_relation


def _json(argv, capsys) -> tuple[int, dict]:
    code = main(["conjecture", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _exact(v) -> sp.Rational:
    """A witness coordinate as the exact number it denotes: a JSON float is its binary value, a string is read exactly."""
    return sp.Rational(v) if isinstance(v, float) else sp.Rational(str(v))


def _violates(relation: str, variables: list[str], witness: dict) -> bool:
    """Substituting the witness exactly into the relation makes sympy evaluate it to False."""
    symbols = {n: sp.Symbol(n, real=True) for n in variables}
    rel = parse_relation(relation, symbols)
    return rel.func(*(side.subs({symbols[n]: _exact(witness[n]) for n in variables}) for side in rel.args)) is sp.false


def _names(argv) -> list[str]:
    return [a.split(":")[0] for prev, a in zip(argv, argv[1:]) if prev == "--var"]


REFUTED = [
    ["x <= 1 - 1e-30", "--var", "x:0:1"],
    ["(x-1/3)**2 >= 1e-40", "--var", "x:0:1"],
    ["x <= 1 - 10**-40", "--var", "x:0:1"],
    ["x >= 1/3", "--var", "x:0.3333333333333333333333333333333333:1"],
    ["x <= 1", "--var", "x:0:1.0000000000000000001"],
    ["(x-1)**2 > 0", "--var", "x:0:3"],
    ["(x-1/7)**2 > 0", "--var", "x:0:1"],
    ["log(1 + x) <= x - x**2/3", "--var", "x:0:2"],
    ["x < 1", "--var", "x:0:1"],
    ["x*y <= 1/2", "--var", "x:0:1", "--var", "y:0:1"],
    ["(n-3)**2 >= 1", "--var", "n:0.5:10:int"],
    ["(x-1000)**2 > 0", "--var", "x:1:1e6:log"],
]


@pytest.mark.parametrize("argv", REFUTED, ids=range(len(REFUTED)))
def test_refutation_witness_substituted_exactly_violates_the_relation(argv, capsys):
    code, rec = _json(argv + ["--samples", "40"], capsys)
    assert code == 0 and rec["verdict"] == "refuted", rec
    assert _violates(argv[0], _names(argv), rec["witness"])
    assert rec["margin"] is None or rec["margin"] <= 0


@pytest.mark.parametrize(
    "argv", [["x >= 0.1", "--var", "x:0.1:1"], ["x <= 0.3", "--var", "x:0:0.3"], ["x <= 1", "--var", "x:0:1"]]
)
def test_decimal_literal_is_the_decimal_not_the_binary_float(argv, capsys):
    code, rec = _json(argv + ["--samples", "40"], capsys)
    assert code == 0 and rec["verdict"] in ("proved", "verified") and (rec["margin"] is None or rec["margin"] >= 0)


@pytest.mark.parametrize(
    "text,verdict",
    [
        ("3*0.1 <= 0.3", "proved"),
        ("1 <= 1 - 1e-30", "refuted"),
        ("1 <= 1 - 10**-40", "refuted"),
        ("0.1 + 0.2 >= 0.3", "proved"),
        ("0.1 + 0.2 > 0.3", "refuted"),
    ],
)
def test_closed_relation_is_decided_exactly(text, verdict, capsys):
    code, rec = _json([text], capsys)
    assert code == 0 and rec["verdict"] == verdict
    if verdict == "refuted":
        assert rec["witness"] and rec["margin"] <= 0


def test_parser_reads_literals_exactly():
    x = sp.Symbol("x")
    assert parse_relation("x >= 0.1", {"x": x}).rhs == sp.Rational(1, 10)
    assert parse_relation("x >= 1_0.5e-3", {"x": x}).rhs == sp.Rational(21, 2000)
    assert parse_relation("1 <= 1 - 1e-30", {}).rhs == 1 - sp.Rational(1, 10**30)


def test_a_negative_margin_never_carries_verified(capsys):
    for argv in REFUTED[:5]:
        code, rec = _json(argv + ["--samples", "20"], capsys)
        assert not (rec["verdict"] == "verified" and rec["margin"] < 0)


def test_undefined_part_of_the_box_is_reported_at_a_witness_and_not_verified(capsys):
    code, rec = _json(["sqrt(x) >= -1", "--var", "x:-1:1", "--samples", "40"], capsys)
    assert code == 1 and rec["verdict"] == "unresolved" and "undefined at the witness" in rec["detail"]
    assert _exact(rec["witness"]["x"]) < 0
    code, rec = _json(["sqrt(x) >= -1", "--var", "x:0:1", "--samples", "40"], capsys)
    assert rec["verdict"] in ("proved", "verified")


@pytest.mark.parametrize(
    "family", ["tail-singular-value", "tail-frobenius-rank", "tail-frobenius-schatten", "truncation-error"]
)
def test_tail_constant_just_below_1_is_refuted_exactly(family, capsys):
    code, rec = _json([family, "--value", "0.99999999999999999999", "--samples", "10"], capsys)
    assert code == 0 and rec["verdict"] == "refuted" and rec["margin"] < 0


@pytest.mark.parametrize("value", ["1.99999999999", "1.99999999999999", "1.9999999999999999999999999"])
def test_attention_constant_close_to_2_is_refuted_on_the_exact_point_without_a_traceback(value, capsys):
    code, rec = _json(["attention-lipschitz", "--value", value, "--samples", "10"], capsys)
    assert code == 0 and rec["verdict"] == "refuted"
    w = rec["witness"]
    assert w["theta"] == "pi/4" and w["delta"].startswith("2^-") and isinstance(w["sigma"], int)
    assert sp.Rational(w["constant_interval"][0]) > sp.Rational(value)
    assert "cross-check skipped" in rec["detail"]


@pytest.mark.parametrize(
    "value,ok", [("1e-400", True), ("1e-401", False), ("9.99e-401", False), ("1e-500", False), ("-1e-400", True)]
)
def test_value_floor_is_exactly_1e_minus_400(value, ok, capsys):
    code = main(["conjecture", "covering-constant", f"--value={value}", "--json"])
    capsys.readouterr()
    assert (code != 2) is ok


def test_json_is_byte_identical_for_the_same_seed(capsys):
    argv = ["conjecture", "log(1 + x) <= x", "--var", "x:0:100", "--samples", "20", "--json"]
    main(argv)
    first = capsys.readouterr().out
    main(argv)
    assert capsys.readouterr().out == first and "seconds" not in json.loads(first)


def test_tail_constant_1_is_verified_without_a_negative_margin(capsys):
    code, rec = _json(["tail-singular-value", "--value", "1", "--samples", "30"], capsys)
    assert code == 0 and rec["verdict"] == "verified" and rec["margin"] >= 0


def test_a_gap_rounded_to_0_is_no_strict_violation(capsys):
    """erf(26) is 1 to 200 digits but below 1: without an exact enclosure, a 0 gap cannot refute ``<``."""
    code, rec = _json(["erf(x) < 1", "--var", "x:0:30", "--samples", "20"], capsys)
    assert rec["verdict"] != "refuted"
    code, rec = _json(["erf(x) <= 1", "--var", "x:0:30", "--samples", "20"], capsys)
    # erf's interval extension (clipped to [-1, 1]) proves it; sampled evidence never carries a negative margin
    assert rec["verdict"] == "proved" or (rec["verdict"] == "verified" and rec["margin"] >= 0)


def test_closed_refutation_margin_is_exact_even_below_working_precision(capsys):
    code, rec = _json(["1 <= 1 - 1e-300"], capsys)
    assert rec["verdict"] == "refuted" and rec["margin"] == pytest.approx(-1e-300)


def test_a_proof_after_factor_does_not_cancel_a_point_where_the_relation_is_undefined(capsys):
    """(x^2 - 1)/(x - 1) > x factors to 1 > 0, but at x = 1 the left side is 0/0: the relation does not hold on all
    of [0, 2], so it is not proved (it was, by 'factor, then sign inference')."""
    code, rec = _json(["(x**2 - 1)/(x - 1) > x", "--var", "x:0:2"], capsys)
    assert rec["verdict"] != "proved", rec
    code, rec = _json(["(x**2 + 2*x + 1)/(x + 1) >= x", "--var", "x:0:2"], capsys)
    assert rec["verdict"] == "proved", rec


def test_gamma_between_poles_is_decided_by_both_engines(capsys):
    """Gamma on (-1, 0) peaks at -3.5446... (x = -0.504...): mpmath.iv encloses it by the reflection formula, so a false
    bound is refuted (it was unresolved: no second enclosure) and a true one proved; an interval holding the pole at
    -1 is never proved."""
    code, out = _json(["gamma(x) <= -3.545", "--var", "x:-0.9:-0.1"], capsys)
    assert out["verdict"] == "refuted" and set(out["engines"]) == {"arb", "mpmath.iv"}
    assert _violates("gamma(x) <= -3.545", ["x"], out["witness"])
    code, out = _json(["gamma(x) <= -3.544", "--var", "x:-0.9:-0.1"], capsys)
    assert out["verdict"] == "proved"
    code, out = _json(["gamma(x) < 0", "--var", "x:-1.5:-0.1"], capsys)
    assert out["verdict"] != "proved"


def test_the_reflected_gamma_enclosure_contains_gamma():
    """mpmath.iv's gamma of a negative interval between poles holds mpmath's gamma at its ends and midpoint."""
    import mpmath
    from mpmath import iv

    from sabounds.proofs_check.interval_enclosure import NotEnclosable, _gamma

    for a, b in ((-0.9, -0.1), (-1.99, -1.01), (-2.7, -2.6), (-30.5, -30.25)):
        box = _gamma(iv.mpf([a, b]))
        for x in (a, b, (a + b) / 2):
            assert box.a <= mpmath.gamma(x) <= box.b
    for a, b in ((-1.5, -0.5), (-1, -0.5), (-0.5, 0)):
        with pytest.raises(NotEnclosable):
            _gamma(iv.mpf([a, b]))
