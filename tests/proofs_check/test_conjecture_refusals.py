"""Twenty-three hostile relations given to ``sabounds conjecture``: each is refused (exit 2, one line) or decided
within 5 s, never hangs, never runs code.

"Never runs code" is checked by a sentinel: every injection attempt would create or touch a file or set a
global if it were evaluated; the test asserts none did.  Timing is the wall time of ``main([...])``.
"""

from __future__ import annotations

import time

import pytest

from sabounds.cli import main

SENTINEL = "/tmp/sabounds_hostile_sentinel"

REFUSED = [
    "__import__('os').system('touch " + SENTINEL + "') <= 1",
    "open('" + SENTINEL + "', 'w').write('x') <= 1",
    "x.__class__.__bases__[0].__subclasses__() <= x",
    "(lambda: 1)() <= x",
    "eval('1') <= x",
    "exec('import os') <= x",
    "[c for c in ().__class__.__base__.__subclasses__()] <= x",
    "x <= getattr(x, '__dict__')",
    "sqrt.__globals__ <= x",
    "(y := 2) <= x",
    "x <= 1 if x else 2",
    "'a' * 10 <= x",
    "9**9**9**9 <= x",
    "x**(10**9) <= 1",
    "-" * 3000 + "x <= 1",
    "sqrt(" * 60 + "x" + ")" * 60 + " <= 1",
    "x <= 1 <= 2",
    "x <= ",
    "gamma(9999) <= x",  # an exact integer of 35,000 digits: refused before it is printed or used
    "sin(" + "*".join(["gamma(9999.5)"] * 30) + ")**2 <= x",  # sin of a huge float: refused, not reduced mod 2 pi
]
DECIDED = [
    # towers whose values overflow mpmath's bounded arithmetic: points are skipped, the search still ends
    "x**x**x**x <= 10**100",
    "exp(exp(exp(x))) >= x",
    # a polynomial whose expansion is large: sympy's attempt is cut off by the time limit
    "(x+1)**10000 - (x-1)**10000 >= 0",
    # redundant parentheses are no nesting at all: parsed and decided
    "(" * 150 + "x" + ")" * 150 + " <= 1000",
]


@pytest.fixture(autouse=True)
def _no_sentinel(tmp_path):
    import os

    if os.path.exists(SENTINEL):
        os.remove(SENTINEL)
    yield
    assert not os.path.exists(SENTINEL), "an injected expression ran code"


def _run(expr: str, capsys) -> tuple[int, float, str]:
    start = time.monotonic()
    code = main(["conjecture", expr, "--var", "x:1:1000", "--json"])
    return code, time.monotonic() - start, capsys.readouterr().err


def test_at_least_twenty_hostile_expressions_are_listed():
    assert len(REFUSED) + len(DECIDED) >= 20


@pytest.mark.parametrize("expr", REFUSED, ids=range(len(REFUSED)))
def test_hostile_expression_is_refused_in_one_line_with_exit_2(expr, capsys):
    code, seconds, err = _run(expr, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("sabounds conjecture: error:")
    assert seconds < 5.0


@pytest.mark.parametrize("expr", DECIDED, ids=range(len(DECIDED)))
def test_hostile_expression_is_decided_within_5_seconds(expr, capsys):
    code, seconds, _ = _run(expr, capsys)
    assert code in (0, 1)
    assert seconds < 5.0


# Issue 10 item 6: values whose size or precision once hung the built-in families.
HANGS = [
    (["softmax-linf-l1", "--value", "0." + "9" * 60], "refuted"),
    (["covering-constant", "--value", "2", "--var", "p:0:1.23456789"], "proved"),
    (["covering-constant", "--value", "1.5", "--var", "p:0:1.23456789"], "refuted"),
]
REFUSED_VALUES = ["1e999999999", "1e-5000", "-1e401", "1e", "0x10", "1/0", "nan", "inf"]


@pytest.mark.parametrize("argv,verdict", HANGS)
def test_family_value_that_once_hung_is_decided_within_10_seconds(argv, verdict, capsys):
    import json

    start = time.perf_counter()
    code = main(["conjecture", *argv, "--json", "--samples", "20"])
    out = capsys.readouterr().out
    assert code == 0 and json.loads(out)["verdict"] == verdict
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize("value", REFUSED_VALUES)
def test_value_beyond_the_caps_is_a_one_line_refusal(value, capsys):
    start = time.perf_counter()
    code = main(["conjecture", "gelu-lipschitz", f"--value={value}"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and time.perf_counter() - start < 2
