"""sabounds verify: table, JSON schema, exit status, one-line errors for bad arguments."""

import json

import pytest

from sabounds.cli import main


def test_json_schema_and_thm41_checks(capsys):
    assert main(["verify", "--json", "--only", "thm41.*", "--samples", "20", "--precision", "30"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["summary"]) == {"proved", "verified", "refuted", "unresolved", "basis"}
    thm = [c for c in out["checks"] if c["id"].startswith("thm41.")]
    assert len(thm) >= 12
    for c in thm:
        assert {"id", "claim", "verdict", "method", "precision_digits", "samples", "seconds", "detail"} <= set(c)
        if c["is_step"]:
            assert c["verdict"] in ("proved", "verified"), c
        if c["verdict"] == "verified":
            assert c["precision_digits"] and c["samples"]


def test_table_output_has_summary_line(capsys):
    assert main(["verify", "--only", "thm41.constant*"]) == 0
    out = capsys.readouterr().out
    assert "thm41.constant_at_0" in out and "proved" in out and "checks:" in out


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["verify", "--precision", "-3"], "precision"),
        (["verify", "--samples", "0"], "samples"),
        (["verify", "--only", "no-such-check-xyz"], "matches no check"),
        (["verify", "--precision", "abc"], "expected an integer in 15..1000"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(argv, needle, capsys):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and "Traceback" not in err


def test_failing_step_gives_exit_1(monkeypatch, capsys):
    from sabounds.proofs_check import registry
    from sabounds.proofs_check.verdict import Outcome, Verdict

    bad = registry.Check("zz.failing_step", "a step that fails", lambda s: Outcome(Verdict.REFUTED, "test"), True)
    monkeypatch.setattr(registry, "select", lambda pattern: [bad])
    assert main(["verify", "--only", "zz"]) == 1
