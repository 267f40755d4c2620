"""Strict inequalities tight at a point, violations on small balls, and the gap a side at 0 leaves (issue 19, 4 and 8)."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from sabounds.cli import main
from sabounds.theory.expression import parse_relation


def _json(argv, capsys) -> tuple[int, dict]:
    code = main(["conjecture", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _false_at(relation: str, names: list[str], witness: dict) -> bool:
    """The witness (floats, exact decimals/fractions or sympy text such as ``sqrt(2)/2``) put exactly into the relation
    makes sympy evaluate it to False."""
    symbols = {n: sp.Symbol(n, real=True) for n in names}
    rel = parse_relation(relation, symbols)
    point = {symbols[n]: _exact(witness[n]) for n in names}
    value = rel.func(*(sp.simplify(side.subs(point)) for side in rel.args))
    return value is sp.false


def _exact(v):
    """A JSON float is its binary value, a decimal or fraction string the rational it spells, else sympy text."""
    if isinstance(v, float):
        return sp.Rational(v)
    try:
        return sp.Rational(v)
    except (TypeError, ValueError):
        return sp.sympify(v)


TIGHT_AT_A_POINT = [
    ("(x-sqrt(2)/2)**2 > 0", ["x"]),
    ("Abs(x - sqrt(2)/2) > 0", ["x"]),
    ("(x-pi/4)**2 > 0", ["x"]),
    ("(x-sqrt(3)/3)**2 + (y-sqrt(2)/2)**2 > 0", ["x", "y"]),
    ("0 < (x-0.4)**2 + (y - sqrt(2)/2)**2", ["x", "y"]),
    # tight on a surface with no recognisable point: the witness must be exact, not 25-digit Floats whose rounded
    # product happens to equal cos(x) (it was: "exactly 0" at three decimals where the relation holds)
    ("(x*y*z - cos(x))**2 > 0", ["x", "y", "z"]),
]


@pytest.mark.parametrize("relation,names", TIGHT_AT_A_POINT)
def test_strict_relation_tight_at_an_irrational_point_is_refuted_there_exactly(relation, names, capsys):
    argv = [relation, *sum((["--var", f"{n}:0:1"] for n in names), []), "--time-limit", "20"]
    code, rec = _json(argv, capsys)
    assert code == 0 and rec["verdict"] == "refuted", rec
    assert _false_at(relation, names, rec["witness"])


def test_strict_relation_tight_where_no_closed_form_exists_is_not_verified(capsys):
    code, rec = _json(["(x - cos(x))**2 > 0", "--var", "x:0:1"], capsys)
    assert (code, rec["verdict"]) in ((1, "unresolved"), (0, "refuted"))


def test_strict_relation_with_a_tiny_true_gap_is_not_refuted(capsys):
    code, rec = _json(["(x-sqrt(2)/2)**2 + 1e-30*(x+1)*erf(x+1) > 0", "--var", "x:0:1"], capsys)
    assert rec["verdict"] != "refuted"


def _ball(centre, k=400000):
    return " + ".join(f"({v}-{c})**2" for v, c in zip("xyzw", centre)) + f")*{k}"


BUMPS = [
    # violated on a ball of radius sqrt(ln 2 / 4e5) ~ 1.3e-3 (1 - 2 e^{-k r^2} < 0), flat (1) elsewhere
    ("1 - 2*exp(-(" + _ball(["0.31"]) + ") >= 0", 1),
    ("1 - 2*exp(-(" + _ball(["0.31", "0.52"]) + ") >= 0", 2),
    ("1 - 2*exp(-(" + _ball(["0.31", "0.52", "0.73"]) + ") >= 0", 3),
    ("1 - 2*exp(-(" + _ball(["0.31", "0.52", "0.73", "0.44"]) + ") >= 0", 4),
    # a linear part plus a bump: 10 e^{-k r^2} > x+y+z+w+1 (<= 5) on a ball of radius >= 1.3e-3
    ("x + y + z + w + 1 >= 10*exp(-(" + _ball(["sqrt(2)/2", "0.123", "0.877", "pi/5"]) + ")", 4),
    # x+y+z+w ~ 3.81 at the centre: violated where 2 e^{-k r^2} > 4.5 - (x+y+z+w), a ball of radius ~1.6e-3
    ("x + y + z + w <= 4.5 - 2*exp(-(" + _ball(["0.9", "0.95", "0.97", "0.99"]) + ")", 4),
    # functions without an mpmath.iv extension (erf, atan, gamma): flat at 50 digits away from the ball, so only
    # bisection finds it; erf(k r^2) < 9/10 on a ball of radius ~1.1e-3
    ("erf((" + _ball(["0.3137", "0.7771", "0.1234", "0.9012"], 1000000) + ") >= 0.9", 4),
    ("erf((" + _ball(["0.3137"], 1000000) + ") >= 0.9", 1),
    # atan(e^{k r^2}) < 1 on a ball of radius ~1.5e-3; Gamma(2 + 1/(1 + k r^2)) > 3/2 on one of radius ~1.1e-3
    ("atan(exp((" + _ball(["0.3137", "0.7771", "0.1234"], 200000) + ")) >= 1", 3),
    ("gamma(2 + 1/(1 + (" + _ball(["0.3137", "0.7771"]) + ")) <= 1.5", 2),
    # violated only within distance 1e-15 of an irrational point: bisection still walks into it
    ("(x - sqrt(2)/2)**2 + (y-pi/5)**2 + (z - sqrt(3)/2)**2 + (w - E/4)**2 >= 1e-30", 4),
]


@pytest.mark.parametrize("relation,dim", BUMPS)
def test_violation_on_a_small_ball_is_refuted_by_bisection_within_the_time_limit(relation, dim, capsys):
    names = list("xyzw"[:dim])
    argv = [relation, *sum((["--var", f"{n}:0:1"] for n in names), []), "--time-limit", "20"]
    code, rec = _json(argv, capsys)
    assert code == 0 and rec["verdict"] == "refuted", rec
    assert _false_at(relation, names, rec["witness"])


def test_side_at_zero_does_not_read_as_full_slack(capsys):
    """(x - 1/2)**2 >= 0 cannot be proved by interval arithmetic at its tight point alone; whatever the verdict, a
    margin reported there is the gap itself (about 0), not 1 from dividing by the nonzero side."""
    code, rec = _json(["(x - sqrt(2)/2)**2 * erf(x + 1) >= 0", "--var", "x:0:1"], capsys)
    assert code == 0 and rec["verdict"] in ("proved", "verified")
    if rec["verdict"] == "verified":
        assert rec["margin"] < 1e-6
        assert "can be missed" in rec["detail"] and "absolute gap" in rec["detail"]


def test_log_range_beyond_float64_samples_without_warnings(capsys):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, rec = _json(["x*sin(x) > -1", "--var", "x:1:1e309:log"], capsys)
    assert code == 0 and rec["verdict"] == "refuted"


def test_covering_constant_one_is_refuted_even_for_tiny_p(capsys):
    """c(p) > 1 for every p > 0 (c(1e-36) - 1 ~ 4.2e-35): decided at the precision the range needs."""
    code, rec = _json(["covering-constant", "--value", "1", "--var", "p:0:1e-36"], capsys)
    assert code == 0 and rec["verdict"] == "refuted"
    code, rec = _json(
        ["covering-constant", "--value", "1.0000000000000000000000000000000001", "--var", "p:0:1e-36"], capsys
    )
    assert code == 0 and rec["verdict"] == "proved"
