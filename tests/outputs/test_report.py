"""sabounds report: the numbers equal those of the individual commands, and a run is atomic."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sabounds.cli import main
from tests.support.hostile import wait_for

pytestmark = pytest.mark.slow  # the full report, child processes and headless Chromium

QUICK = ["--precision", "20", "--samples", "10"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def report(quick_report):
    """The session's report at the quick settings (tests/conftest.py)."""
    return quick_report


def _json_of(argv, capsys):
    main(argv)
    return json.loads(capsys.readouterr().out)


def test_report_files(report):
    for name in (
        "report.md",
        "checks.json",
        "checks.csv",
        "regimes.json",
        "regimes.csv",
        "provenance.json",
        "analysis/matrices.csv",
        "analysis/analysis.json",
        "analysis/singular_value_decay.png",
        "analysis/contribution_vs_p.png",
        "analysis/p_opt_per_layer.png",
        "scaling/scaling.csv",
        "scaling/scaling.json",
        "scaling/scaling.png",
        "report.html",
    ):
        assert (report / name).is_file(), name
    text = (report / "report.md").read_text()
    assert text.index("## Summary") < text.index("## Every check")
    assert "The paper's claims" in text and "by regime" in text and "sha256" in text
    prov = json.loads((report / "provenance.json").read_text())
    assert len(prov["checkpoint_sha256"]["model.safetensors"]) == 64
    assert prov["settings"]["precision_digits"] == 20 and prov["settings"]["samples"] == 10
    assert set(prov["versions"]) >= {"sympy", "mpmath", "numpy", "sabounds"}


def test_report_checks_equal_verify(report, quick_checks):
    direct = quick_checks
    saved = json.loads((report / "checks.json").read_text())
    strip = lambda recs: [{k: v for k, v in r.items() if k != "seconds"} for r in recs]
    assert strip(saved["checks"]) == strip(direct["checks"])
    assert saved["summary"] == direct["summary"]


def test_report_regimes_equal_regimes_command(report, regime_command_json, regime_tables):
    """The report's tables and the cached part the fast tests read are the command's (computed here, fresh)."""
    assert json.loads((report / "regimes.json").read_text()) == regime_command_json == regime_tables


def test_report_analysis_equals_analyze(report, capsys):
    direct = _json_of(["analyze", "--json"], capsys)
    saved = json.loads((report / "analysis" / "analysis.json").read_text())
    assert set(direct) - set(saved) == {"storage_rank", "source"}  # the source is in the report's provenance.json
    assert saved == {k: v for k, v in direct.items() if k not in ("storage_rank", "source")}
    provenance = json.loads((report / "provenance.json").read_text())
    assert provenance["source"] == direct["source"]


def test_existing_report_needs_force(report, capsys):
    assert main(["report", "--out", str(report), *QUICK]) == 2
    assert "--force" in capsys.readouterr().err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_report_leaves_no_partial_output(tmp_path, sig):
    out = tmp_path / "report"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sabounds", "report", "--out", str(out), *QUICK],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(lambda: list(tmp_path.glob(".report.partial-*")), 60), "the run never started writing"
        time.sleep(0.5)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode != 0
    assert "interrupted" in err and "no report written" in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_killed_report_leaves_only_a_partial_that_the_next_run_removes(tmp_path):
    out = tmp_path / "report"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sabounds", "report", "--out", str(out), *QUICK],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # the partial folder counts as ours once its marker is in it (a kill between mkdir and the marker leaves an
    # empty folder that carries no marker, which the package must not delete)
    assert wait_for(lambda: any((p / ".sabounds-output").exists() for p in tmp_path.glob(".report.partial-*")), 60)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert not out.exists()
    from sabounds.outputs.atomic import remove_stale_partials

    assert len(remove_stale_partials(out)) == 1
    assert list(tmp_path.iterdir()) == []


def test_every_verified_check_states_precision_and_samples(report):
    checks = json.loads((report / "checks.json").read_text())["checks"]
    verified = [c for c in checks if c["verdict"] == "verified"]
    assert verified
    for c in verified:
        assert c["precision_digits"] and c["samples"], c["id"]


def test_claim_verdicts_and_their_conditions(report):
    """What the regime derivation decides about the seed's claims (README, 'What the package finds')."""
    checks = {c["id"]: c for c in json.loads((report / "checks.json").read_text())["checks"]}
    verdicts = {k: v["verdict"] for k, v in checks.items() if k.startswith("claims.")}
    assert verdicts == {
        "claims.1_depth": "verified",
        "claims.1_depth_joint": "refuted",
        "claims.2_propagation": "verified",
        "claims.3_interpolation": "proved",
        "claims.4_best_p": "verified",
        "claims.5_tokens": "verified",
    }
    joint = checks["claims.1_depth_joint"]["witness"]
    assert joint["counterexample"] and all(c.startswith("frobenius/bounded/") for c in joint["counterexample"])
    assert "0 < kappa < 2" in joint["counterexample"][0]
    depth = checks["claims.1_depth"]["witness"]
    assert depth["headline"] == "holds up to log factors (O~)"
    assert depth["holds_up_to_log"] and any("/bounded/best:" in c for c in depth["holds_up_to_log"])
    assert all("/bounded/best:" not in c for c in depth["fails"])
    assert depth["fails"] and all("/sum" in c or "/exponential/" in c for c in depth["fails"])
    best_p = checks["claims.4_best_p"]["witness"]
    assert "9.306 against the rank cover 22.63" in best_p["fails"][0]
    assert not set(best_p["fails"]) & set(best_p["in_scope"]) and "counterexample" not in best_p
    per_spectrum = [c for c in best_p["holds"] + best_p["fails"] if "picked from sigma_1 kappa >=" in c]
    assert len(per_spectrum) == 54  # issue 29: flat, power-law, low rank plus tail, full rank x N x r
    assert any("all-MiniLM-L6-v2" in c for c in best_p["in_scope"])


PRIVATE_WORDS = (
    "seed",
    "ours_best_p",
    "ours_sum",
    "ours_rss",
    "sum min",
    "THEORY.md",
    "V_tilde",
    "grid_union",
    "spectral_shells",
    "rank_choices",
    "schatten_shells",
    "derivation '",
    "_sharp",
    "_crude",
)
PYTHON_SYNTAX = re.compile(r"\w\*\*\w|[\w)]\*[\w(]")


def _summary_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("## Summary")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    return lines[:end]


def test_first_screen_holds_the_claims_and_the_model_numbers_with_formulas(report):
    text = (report / "report.md").read_text()
    first = _summary_lines(text)
    assert len(first) <= 40, len(first)
    screen = "\n".join(first)
    claim_rows = [line for line in first if line.startswith("| ") and line[2:3].isdigit()]
    assert len(claim_rows) == 6 and all("**" in row for row in claim_rows)  # claim 1 at fixed width and jointly
    assert (
        "S_p(W)^(1/(p+2)) scale^(p/(p+2)) N^((p+1)/(p+2))" in screen
        and "(1 + sum_l alpha_l^(2/3) xi_l)^(3/2)" in screen
    )
    assert "capacity proxies" in screen and "not bounds on the risk" in screen
    analysis = json.loads((report / "analysis" / "analysis.json").read_text())
    assert f"{analysis['totals']['ours']:.8g}" in screen
    assert "per layer" in screen  # edelman's exponential growth as a factor per layer, not a log-log slope
    assert "log factor" in screen


def _prose(text: str) -> str:
    """``text`` without code spans (check ids, commands, file names: identifiers documented in definitions.md)."""
    return re.sub(r"<code>.*?</code>", "", re.sub(r"`[^`\n]*`", "", text))


def test_no_private_word_anywhere(report):
    """report.md, report.html and bound/bound.txt speak words: no code names, no Python syntax, no raw TeX, no
    doubled word; the bound block's columns stay aligned."""
    for name in ("report.md", "report.html", "bound/bound.txt"):
        text = _prose((report / name).read_text())
        found = [w for w in PRIVATE_WORDS if w.lower() in text.lower()]
        assert found == [], (name, found)
        assert not PYTHON_SYNTAX.search(text), (name, PYTHON_SYNTAX.search(text).group())
        assert "$" not in text.replace("$ ", ""), name
        assert not re.search(r"\b([A-Za-z]{2,}) \1\b", text), (name, re.search(r"\b([A-Za-z]{2,}) \1\b", text).group())
    block = (report / "bound" / "bound.txt").read_text().splitlines()
    dudley = [line for line in block if line.startswith("  Dudley integral,") and "slots" in line]
    assert len(dudley) == 4 and len({len(line) for line in dudley}) == 1, dudley


def test_negative_controls_and_margins_are_explained(report):
    text = (report / "report.md").read_text()
    assert "Negative controls are refuted on purpose" in text
    assert "`thm41.schatten_to_rank_raw_svd` | refuted (negative control)" in text
    assert "violated only when it fails by more than its method's rounding tolerance" in text
    assert "marked float64" in text and "float64, " in text


def test_negative_margins_of_held_checks_carry_their_tolerance(report):
    """Verified rows with tiny negative margins (float64 rounding, 50-digit residue) say they are rounding within the
    method's tolerance, and the margin is indeed within it."""
    checks = json.loads((report / "checks.json").read_text())["checks"]
    text = (report / "report.md").read_text()
    held = [c for c in checks if c["verdict"] == "verified" and c["margin"] is not None and c["margin"] < 0]
    assert held
    for c in held:
        row = next(line for line in text.splitlines() if line.startswith(f"| `{c['id']}` |"))
        tol = re.search(r"within tolerance ([\d.e+-]+)\)", row)
        assert tol, row
        assert -c["margin"] <= float(tol.group(1)), row


def test_html_has_the_tables_and_figures_inline(report):
    page = (report / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<table>") >= 4
    for src in re.findall(r'<img src="([^"]+)"', page):
        assert (report / src).is_file(), src
    assert len(re.findall(r"<img ", page)) >= 4


def _chromium():
    import shutil

    return next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


@pytest.mark.skipif(_chromium() is None, reason="no headless Chromium here (apt-get install chromium)")
def test_html_renders_in_a_real_browser(report, tmp_path):
    """Headless Chromium loads report.html from the folder and paints the tables and figures (not a blank page)."""
    import matplotlib.image
    import numpy as np

    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            "--window-size=1200,3000",
            (report / "report.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.is_file(), proc.stderr[-2000:]
    pixels = matplotlib.image.imread(shot)[..., :3]
    assert pixels.shape[0] == 3000 and pixels.shape[1] == 1200
    dark = (pixels.mean(axis=2) < 0.5).mean()
    assert 0.005 < dark < 0.5, dark  # text and table rules painted, not an empty or black page
    assert np.unique(pixels.reshape(-1, 3), axis=0).shape[0] > 50  # antialiased text and figure colours


def test_no_path_of_this_machine_in_any_file(report):
    """Every text file of the folder is free of the working directory, the Python prefix and site-packages: the
    bundled checkpoint is named, and the Reproduce command omits --model for it."""
    from tests.support.machine_paths import machine_words

    words = machine_words()
    for path in report.rglob("*"):
        if path.is_file() and path.suffix in (".md", ".html", ".csv", ".json", ".txt", ".svg", ".tex"):
            text = path.read_text(encoding="utf-8", errors="replace")
            found = [w for w in words if w in text]
            assert found == [], (path.relative_to(report), found)
    text = (report / "report.md").read_text()
    assert "sabounds report --precision 20 --samples 10" in text
    assert json.loads((report / "provenance.json").read_text())["model"] == "all-MiniLM-L6-v2 (bundled)"


def test_reproduce_command_names_a_user_model_as_given_and_the_figure_options():
    import argparse

    from sabounds.full_report.sections import checkpoint_label, reproduce_section
    from sabounds.render.plots import FigureOptions

    assert checkpoint_label("models/mine") == "models/mine"
    from sabounds.numerics.checkpoints.reader import default_model_dir

    assert checkpoint_label(default_model_dir()) == "all-MiniLM-L6-v2 (bundled)"
    data = argparse.Namespace(
        model_dir=Path("models/mine"),
        settings=argparse.Namespace(precision=20, samples=10, seed=20260507),
        figures=FigureOptions(("png", "svg"), 300),
        seconds=1.0,
        versions={},
        digests={},
        origins=[],
        analysis=argparse.Namespace(lphi=1.13, grid_m=8, rank_tol=1e-10),
    )
    text = "\n".join(reproduce_section(data))
    assert "sabounds report --model models/mine --precision 20 --samples 10 --figure-format png,svg --dpi 300" in text


def test_regime_table_prints_the_full_growth_law_with_readable_labels(report, capsys):
    """Each row's L and N columns equal those of ``sabounds regimes`` (log factors included); no code labels."""
    from sabounds.full_report.sections import _REGIME_BOUND_WORDS

    main(["regimes"])
    per_variable = capsys.readouterr().out.split("\n\n")[0]  # the second table compares at one p (joint)
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in per_variable.splitlines()[2:]]
    text = (report / "report.md").read_text()
    section = text[text.index("## Growth of each bound by regime") : text.index("## The model in detail")]
    for regime, alpha, bound, depth, width, *_ in rows:
        expected = (
            f"| {regime.replace('_', ' ')} | {alpha} | {_REGIME_BOUND_WORDS[bound]} | "
            f"{depth.replace('exponential in L', 'exponential')} | {width.replace('exponential in N', 'exponential')} |"
        )
        assert expected in section, expected
    assert "(log L)^(1/2)" in section and "_sharp" not in section and "_crude" not in section
    assert "(log T)^(1/4)" in section and "| log^(" not in section
    assert "ours L^(1/2) (log L)^(1/2)" in text and "ours 1/2 log^1/2" not in text  # the depth claim's conditions


def test_html_style_keeps_wide_blocks_inside_the_page():
    """Static check (the browser test below measures): code blocks and tables scroll inside themselves."""
    from sabounds.full_report.html import _HTML_STYLE

    style = _HTML_STYLE.replace("\n", "")
    assert re.search(r"pre\{[^}]*overflow-x:auto", style) and re.search(r"table\{[^}]*overflow-x:auto", style)


@pytest.mark.skipif(_chromium() is None, reason="no headless Chromium here (apt-get install chromium)")
def test_html_has_no_horizontal_overflow_in_a_real_browser(report, tmp_path):
    """At 1265 px (and a phone's 400 px) the page does not scroll sideways: scrollWidth <= clientWidth (the bound
    block's pre was once 1565 px wide)."""
    import shutil

    for width in (1265, 400):
        shutil.copytree(report, tmp_path / f"r{width}")
        page = tmp_path / f"r{width}" / "report.html"
        page.write_text(
            page.read_text().replace(
                "</body>",
                "<script>document.body.insertAdjacentHTML('beforeend', "
                "'<p id=\"probe\">' + document.documentElement.scrollWidth + ' ' + "
                "document.documentElement.clientWidth + '</p>')</script></body>",
            )
        )
        proc = subprocess.run(
            [
                _chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--window-size={width},900",
                "--dump-dom",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        found = re.search(r'<p id="probe">(\d+) (\d+)</p>', proc.stdout)
        assert found, proc.stderr[-2000:]
        scroll, client = map(int, found.groups())
        assert scroll <= client, (width, scroll, client)


def test_the_guides_excerpt_is_the_start_of_a_default_report(tmp_path):
    """docs/guide/report.md quotes the start of ``report.md`` at the default settings: every quoted line is in a report
    made now (a line cut with ``...`` by its start), so the excerpt cannot go stale."""
    guide = (ROOT / "docs" / "guide" / "report.md").read_text()
    start = guide.index("The start of `report/report.md`")
    opened = guide.index("```text\n", start) + len("```text\n")
    excerpt = guide[opened : guide.index("\n```", opened)].splitlines()
    assert main(["report", "--out", str(tmp_path / "report")]) == 0
    lines = (tmp_path / "report" / "report.md").read_text().splitlines()
    quoted = [line for line in excerpt if line and line != "..."]
    assert len(quoted) >= 10
    for line in quoted:
        found = any(x.startswith(line[:-3]) for x in lines) if line.endswith("...") else line in lines
        assert found, f"docs/guide/report.md quotes a line the report no longer has: {line[:100]}"
