"""``sabounds conjecture``'s printed numbers: no ``0 +- 0`` for an unresolved gap that is not 0, integer variables'
witnesses as integers, engines named once, and an honest note about variables the relation does not depend on."""

from __future__ import annotations

import json

from sabounds.cli import main


def test_unresolved_true_relation_prints_no_zero_margin_with_zero_error(capsys):
    assert main(["conjecture", "tanh(x) < 1", "--var", "x:0:1e6"]) == 1
    out = capsys.readouterr().out
    margin = next(line for line in out.splitlines() if line.startswith("margin:"))
    assert "+- 0 " not in margin and not margin.startswith(("margin:  0 ", "margin:  -0 ")), out


def test_integer_witness_is_printed_as_an_integer(capsys):
    main(["conjecture", "n**2 >= 3*n", "--var", "n:0:5:int", "--json"])
    rec = json.loads(capsys.readouterr().out)
    assert rec["verdict"] == "refuted" and type(rec["witness"]["n"]) is int, rec
    main(["conjecture", "n**2 >= 3*n", "--var", "n:0:5:int"])
    assert "witness: n = 1\n" in capsys.readouterr().out


def test_engines_are_named_once(capsys):
    main(["conjecture", "x**2 > 0", "--var", "x:-1:1", "--json"])
    engines = json.loads(capsys.readouterr().out)["engines"]
    assert engines and len(engines) == len(set(engines)), engines


def test_note_says_a_written_variable_was_simplified_away_not_that_it_does_not_occur(capsys):
    main(["conjecture", "sin(pi*n) >= 0", "--var", "n:1:5:int", "--var", "m:0:1"])
    err = capsys.readouterr().err
    assert "variable(s) m do not occur" in err and "n do not occur" not in err, err
    assert "does not depend on variable(s) n" in err, err


def test_an_error_quoting_a_huge_argument_stays_one_short_line(capsys):
    """A 100 000-character variable name is refused in one line of at most a few hundred characters, in the text
    and in the JSON error alike."""
    name = "x" * 100_000
    assert main(["conjecture", "x <= 1", "--var", f"{name}:0:1", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and len(captured.err) < 1000, len(captured.err)
    error = json.loads(captured.out)["error"]
    assert len(error) < 1000 and error.endswith("characters in all)")
