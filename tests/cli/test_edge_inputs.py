"""Inputs a hostile reviewer tried: each once gave a wrong, unbounded or unreadable answer."""

import json

import pytest
import sympy as sp

from sabounds.api._conjecture import exact_number
from sabounds.cli import main
from sabounds.proofs_check.conjecture.number_text import exact_text


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "--precision", "5", "--json"],  # a cap, checked after parsing
        ["verify", "--bogus", "--json"],  # a usage error inside argparse
        ["conjecture", "attention-lipschitz", "--json"],  # a command's own refusal (no --value)
        ["analyze", "--dpi", "100000", "--json"],  # the figure-resolution cap
        ["bound", "--n", "3", "--delta", "0.05", "--margin", "1", "--json"],
        ["sweep", "no-such-folder-*", "--json"],
        ["regimes", "--format", "json", "--regime", "nope"],  # --format json asks for JSON too
        ["regimes", "--format", "json", "--architecture", "nope"],
        ["regimes", "--format=json", "--bogus"],
    ],
)
def test_json_readers_get_json_errors(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors leave through SystemExit (the console script's exit)
        code = exc.code
    assert code == 2
    out, err = capsys.readouterr()
    record = json.loads(out)
    assert record["exit_status"] == 2 and record["error"] and "\n" not in record["error"]
    assert err.count("\n") == 1 and "Traceback" not in err


def test_without_json_errors_stay_off_stdout(capsys):
    with pytest.raises(SystemExit) as exc:  # refused by the ranged argument type, before any work
        main(["verify", "--precision", "5"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and "outside 15..1000" in err


def test_an_empty_depth_is_a_typo_not_a_skip(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["scaling", "--depths", "1,,2"])
    assert exc.value.code == 2 and "1,,2" in capsys.readouterr().err


@pytest.mark.parametrize(
    "value",
    [
        sp.Rational(1, 10**400),
        sp.Rational(-123, 10**50),
        sp.Rational(1, 3),
        sp.Rational(19, 10),
        1 + sp.Rational(12345, 10**30),
        sp.Rational(5, 2**90),
    ],
)
def test_exact_text_is_short_and_exact(value):
    text = exact_text(value)
    assert len(text) <= 70
    assert (exact_number(text, "x") if "/" not in text else sp.Rational(text)) == value


@pytest.mark.parametrize("value,margin", [("1e-400", -1.0), ("0", -1.0), ("-1", None), ("1.9", None), ("2", 0.0)])
def test_attention_margins_are_finite_and_signed(value, margin, capsys):
    assert main(["conjecture", "attention-lipschitz", "--value", value, "--samples", "20", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["margin"] == rec["margin"] and abs(rec["margin"]) < 1e6  # finite
    if margin is not None:
        assert rec["margin"] == pytest.approx(margin, abs=1e-12)
    if rec["verdict"] == "refuted":
        assert rec["margin"] < 0
        # the stated precision is the certificate's, and it is the one the detail names
        assert f"(mpmath.iv, {rec['precision_digits']} digits)" in rec["detail"]
        assert rec["witness"]["certificate_digits"] == rec["precision_digits"] and rec["samples"] == 1


def test_tiny_value_is_echoed_briefly(capsys):
    assert main(["conjecture", "attention-lipschitz", "--value", "1e-400", "--samples", "20"]) == 0
    out = capsys.readouterr().out
    assert "1e-400" in out and max(map(len, out.splitlines())) < 1500


def test_strict_relation_refutation_is_worded_for_strictness(capsys):
    assert main(["conjecture", "x < x", "--var", "x:0:1", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["verdict"] == "refuted" and "< 0" not in rec["detail"] and "strict" in rec["detail"]


def test_sample_size_keeps_its_decimal_value():
    from sabounds.bound_arguments import sample_size
    from sabounds.numerics.bound.analysis import _num

    assert _num(sample_size("1e400")) == "1.0e+400"
    assert _num(sample_size("123456789012345678901234567")) == pytest.approx(1.2345678901234568e26, rel=1e-16)


@pytest.mark.parametrize("name", ["attention", "whole_bound"])
def test_every_checked_derivation_can_be_printed_and_is_documented(name, capsys):
    """attention and whole_bound are checked by verify; derivation once refused them and docs had no section."""
    from pathlib import Path

    assert main(["derivation", name]) == 0
    title = capsys.readouterr().out.splitlines()[0]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "derivations.md").read_text()
    assert f"Id `{name}`" in docs and title.split(" (")[0][:30] in docs


def test_figure_options_without_plots_are_refused_in_one_line(tmp_path, capsys):
    assert main(["analyze", "--figure-format", "svg", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--plots" in err and not (tmp_path / "x").exists()


def test_an_unchanged_storage_aware_ours_says_unchanged():
    from types import SimpleNamespace

    from sabounds.render.analysis_text import storage_words

    same = SimpleNamespace(
        ours=20573.03,
        published_ours=20573.03,
        summary=lambda: "p_opt moves for 0 matrices; ours would be 20573.03 instead of 20573.03. Storage",
    )
    assert "unchanged at 20573.03" in storage_words(same) and "instead of" not in storage_words(same)
    moved = SimpleNamespace(ours=1.5, published_ours=2.0, summary=lambda: "ours would be 1.5 instead of 2")
    assert storage_words(moved) == "ours would be 1.5 instead of 2"


def test_one_dpi_limit():
    from sabounds.limits import CAPS
    from sabounds.render.plots import FigureOptions

    assert (CAPS["dpi"].low, CAPS["dpi"].high) == (30, 1200)
    FigureOptions(("png",), 30)
    with pytest.raises(ValueError, match="30..1200"):
        FigureOptions(("png",), 29)


def test_scaling_names_the_bundled_checkpoint_not_its_path(capsys):
    assert main(["scaling", "--depths", "1"]) == 0
    out = capsys.readouterr().out
    assert "all-MiniLM-L6-v2 (bundled)" in out and "site-packages" not in out


@pytest.mark.parametrize("n", ["1e1000000000", "9" * 5001, "7.99"])
def test_an_n_out_of_range_is_one_line_before_any_work(n, capsys):
    """n beyond 1e100000 (the printed bound's fixed notation failed with a traceback at 1e1000000000), text longer
    than 64 characters (echoed whole before) or below 8: one short line, exit 2."""
    with pytest.raises(SystemExit) as exit_:
        main(["bound", "--n", n, "--delta", "0.1", "--margin", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and len(err) < 300, err
