"""Every verdict sound twice over (issue 29 items 1-4): the five relations of the audit, the two engines (Arb and
mpmath.iv) and z3, domain first, and the CLI where an engine is missing or the engines disagree."""

from __future__ import annotations

import json
import random

import mpmath
import pytest
import sympy as sp

from sabounds.cli import main
from sabounds.proofs_check import arb_enclosure as A
from sabounds.proofs_check import exact_solver as Z
from sabounds.proofs_check.conjecture import certify, declare
from sabounds.proofs_check.domain_check import check_domain
from sabounds.theory.expression import parse_with_requirements


def _json(argv, capsys) -> tuple[int, dict]:
    code = main(["conjecture", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _bump(k: int = 693147) -> str:
    return f"Min(1, 1 - 2*exp(-{k}*(x**2 - 0.62*x + 0.0961)))"


AUDIT = [
    ["1000000000000*(x - pi/10)**2 > 0", "--var", "x:0:1"],
    [f"{_bump()} >= 0", "--var", "x:0:1"],
    ["tanh(500000*(x**2 - 0.62*x + 0.0961 + y**2 - 1.04*y + 0.2704) - 1/2) >= 0", "--var", "x:0:1", "--var", "y:0:1"],
    [
        "1 - 2*exp(-693147*(x**2 - 0.62*x + 0.0961))*exp(-693147*(y**2 - 1.04*y + 0.2704)) >= 0",
        "--var",
        "x:0:1",
        "--var",
        "y:0:1",
    ],
    ["erf(x) <= 1 - 10**(-300)", "--var", "x:20:30"],
    ["x/x >= 1", "--var", "x:-1:1"],
]


@pytest.mark.parametrize("argv", AUDIT, ids=range(len(AUDIT)))
def test_the_audits_false_relations_are_refuted_by_both_engines_or_unresolved(argv, capsys):
    code, rec = _json(argv, capsys)
    assert (code, rec["verdict"]) in ((0, "refuted"), (1, "unresolved")), rec
    if rec["verdict"] == "refuted":
        assert {"arb", "mpmath.iv"} <= set(rec["engines"]) and rec["margin_error"] is not None and rec["margin"] <= 0


def test_strict_relation_tight_at_an_irrational_point_is_refuted_there(capsys):
    code, rec = _json(AUDIT[0], capsys)
    assert rec["verdict"] == "refuted" and rec["witness"]["x"] == "pi/10" and "sympy" in rec["engines"]


def test_bump_written_as_an_expanded_quadratic_is_refuted_with_a_certified_sub_box(capsys):
    code, rec = _json(AUDIT[1], capsys)
    assert rec["verdict"] == "refuted" and "certified violated" in rec["detail"]
    x = sp.Rational(rec["witness"]["x"])
    assert abs(x - sp.Rational(31, 100)) < sp.Rational(1, 1000)


def test_a_gap_below_the_working_precision_is_found_by_raising_the_precision(capsys):
    code, rec = _json(AUDIT[4], capsys)
    assert rec["verdict"] == "refuted" and rec["witness"]["x"] > 26.2 and -2e-300 < rec["margin"] < 0


def test_undefined_point_is_reported_before_sympy_cancels_it(capsys):
    code, rec = _json(AUDIT[5], capsys)
    assert code == 1 and rec["verdict"] == "unresolved" and rec["witness"] == {"x": 0.0}
    assert "division by x" in rec["detail"]


def test_verified_carries_a_certified_margin_and_a_scale_free_measure(capsys):
    code, rec = _json(["x**x >= exp(-1/E)", "--var", "x:0.1:2", "--time-limit", "30"], capsys)
    assert rec["verdict"] == "verified" and rec["engines"] == ["arb", "mpmath.iv"]
    assert rec["margin"] > rec["margin_error"] >= 0 and rec["scaled_margin"] < 1e-6


def test_tiny_violations_need_a_margin_above_the_certified_error(capsys):
    """A violation 1e-23 deep on a ball of radius 3e-12: the gap's sign at the tightest point is certified, never
    a sampled value within rounding."""
    code, rec = _json(["(x - 1/3)**2 >= 10**(-23) - 10**(-46)", "--var", "x:0:1"], capsys)
    assert rec["verdict"] in ("refuted", "unresolved"), rec


def test_scale_free_margin_does_not_saturate_at_one():
    x, iv = declare("x", 0, 1)
    assert certify.scale_free(10 + x, {x: sp.Rational(1, 2)}, {x: iv}, 10.5, 30) == pytest.approx(10.5)


def test_z3_proves_a_polynomial_and_its_model_refutes_a_false_one(capsys):
    code, rec = _json(["x**4 - 4*x + 3 >= 0", "--var", "x:-2:3"], capsys)
    assert rec["verdict"] == "proved" and rec["engines"] in (["sympy"], ["z3"])
    code, rec = _json(["x**4 - 4*x + 3 >= 1/1000", "--var", "x:-2:3"], capsys)
    assert rec["verdict"] == "refuted" and len(rec["engines"]) >= 2


def test_z3_algebraic_model_is_made_exact():
    x, iv = declare("x", 0, 2)
    result = Z.decide(2 - x**2, True, {x: iv}, 2.0)
    assert result.holds is False and (2 - result.witness[x] ** 2 <= 0)


@pytest.mark.parametrize(
    "text,lo,hi",
    [
        ("x**2 - 0.62*x + 0.0961", 0, 1),
        ("exp(x)*sin(3*x) - x**3", -2, 2),
        ("Min(1, tanh(4*x - 1)) + Abs(x - 1/3)", -1, 1),
        ("gamma(x + 1/3) - erf(x) + atan(5*x)", 0.1, 4),
        ("log(1 + x**2)/(1 + x**2) + sqrt(x + 2)", -1, 3),
    ],
)
def test_arb_enclosures_contain_every_sampled_value(text, lo, hi):
    from flint import arb, ctx

    from sabounds.proofs_check.arb_branch_bound import _Enclosures

    x, iv = declare("x", lo, hi)
    expr = parse_with_requirements(f"{text} <= 0", {"x": x}).relation.lhs
    rng = random.Random(29)
    f = sp.lambdify(x, expr, "mpmath")
    with ctx.workprec(96):
        for _ in range(30):
            a = sp.Rational(rng.uniform(lo, hi)).limit_denominator(10**6)
            b = min(sp.Rational(hi), a + sp.Rational(rng.choice([1, 10, 1000])) / 10**4)
            box = {x: (A.fraction(a), A.fraction(b))}
            enclosure = _Enclosures(expr, [x]).box(box)
            for t in (a, b, (a + b) / 2):
                with mpmath.workdps(60):
                    value = arb(mpmath.nstr(f(mpmath.mpf(t.p) / t.q), 40))
                assert enclosure.lower() <= value.upper() and value.lower() <= enclosure.upper(), (text, a, b)


def test_domain_requirements_are_checked_on_the_box():
    x, iv = declare("x", -1, 1)
    parsed = parse_with_requirements("gamma(x) + log(x + 2) + 1/(x - 1/2) >= 0", {"x": x})
    result = check_domain(parsed.requirements, {x: iv})
    assert result.defined is False and result.witness[x] in (0, sp.Rational(1, 2), -1)
    y, ivy = declare("y", 1, 2)
    parsed = parse_with_requirements("gamma(y) + log(y) + 1/(y + 1/2) >= 0", {"y": y})
    assert check_domain(parsed.requirements, {y: ivy}).defined is True


def test_without_python_flint_the_cli_names_mpmath_alone_and_never_verifies(monkeypatch, capsys):
    monkeypatch.setattr(A, "flint_module", lambda: None)
    code, rec = _json([f"{_bump(693)} >= 0", "--var", "x:0:1"], capsys)
    assert rec["verdict"] == "refuted" and rec["engines"] == ["mpmath.iv"] and "not installed" in rec["detail"]
    code, rec = _json(["x**x >= exp(-1/E)", "--var", "x:0.1:2"], capsys)
    assert code == 1 and rec["verdict"] == "unresolved" and "python-flint" in rec["detail"]
    code, rec = _json(["x**2 + 1 >= 2*x", "--var", "x:-10:10"], capsys)
    assert rec["verdict"] == "proved"


def test_without_z3_a_polynomial_is_decided_by_the_other_routes(monkeypatch, capsys):
    monkeypatch.setattr(Z, "z3_module", lambda: None)
    code, rec = _json(["x**4 - 4*x + 3 >= 1/1000", "--var", "x:-2:3"], capsys)
    assert rec["verdict"] in ("refuted", "unresolved") and "z3" not in rec["engines"]
    code, rec = _json(["x**2 + y**2 >= 2*x*y + 1", "--var", "x:-1:1", "--var", "y:-1:1"], capsys)
    assert rec["verdict"] in ("refuted", "unresolved")


def test_engines_that_disagree_give_unresolved_and_say_so(monkeypatch, capsys):
    monkeypatch.setattr(certify, "_mpmath_sign", lambda gap, point, digits: (1, "mpmath.iv (simulated): [1, 2]"))
    code, rec = _json(["x <= 1/2", "--var", "x:0:1", "--samples", "20"], capsys)
    assert code == 1 and rec["verdict"] == "unresolved" and "disagree" in rec["detail"]


def test_margin_below_float64_range_is_a_decimal_string_named_in_number_forms():
    """A certified gap of about -1e-400 is -0.0 as a float64: the JSON carries the decimal string and says so."""
    import sabounds

    rec = sabounds.conjecture("erf(x) <= 1 - 10**(-400)", variables=["x:20:40"]).to_json()
    assert rec["verdict"] == "refuted", rec
    assert set(rec["number_forms"]) == {"margin", "margin_error"}, rec
    margin, error = mpmath.mpf(rec["margin"]), mpmath.mpf(rec["margin_error"])
    assert margin + error < 0 and margin > mpmath.mpf("-1e-398"), rec
    assert sabounds.conjecture("x**2 >= 0.5", variables=["x:0:1"]).to_json()["number_forms"] == {}
