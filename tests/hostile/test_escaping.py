"""A checkpoint path as a hostile user types it (tests/support/hostile_exposure.py ``HOSTILE_NAMES``) through report, sweep
and scaling: no output file carries a remote reference, a link, a script, an injected heading or table
row, or a spreadsheet formula built from it (issue 20, items 6-8).  Markdown is checked by rendering it with
markdown-it (CommonMark, as a reader's viewer would), HTML and SVG by their tags, CSV by its parsed cells, PDF by
its actions.  A figure entry crafted into the cache never reaches ``sweep --out``.
"""

import csv
import dataclasses
import glob
import io
import re
import shutil
from pathlib import Path

import pytest

from sabounds.cli import main
from tests.support.hostile import tiny_model
from tests.support.hostile_exposure import ESCAPE_CASES, HOSTILE_NAMES

pytestmark = pytest.mark.slow  # reports, sweeps and scalings of hostile names

OWN_FIGURE = re.compile(r"(analysis|scaling|bound)/[a-z_]+\.png")
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _links_of_markdown(text: str) -> tuple[list[str], list[str], list[list[str]]]:
    """Link and image targets, heading texts and table rows of ``text`` rendered as CommonMark with tables."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    targets, headings, rows, row = [], [], [], None
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            headings.append(tokens[i + 1].content)
        if tok.type == "tr_open":
            row = []
        if tok.type in ("th_open", "td_open"):
            row.append(tokens[i + 1].content)
        if tok.type == "tr_close":
            rows.append(row)
        for child in tok.children or []:
            if child.type in ("image", "link_open"):
                targets.append(child.attrGet("src") or child.attrGet("href"))
    return targets, headings, rows


def _tags(page: str) -> list[tuple[str, list]]:
    """Every start tag of an HTML page with its attributes (as a browser's tokenizer sees them)."""
    from html.parser import HTMLParser

    found = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, attrs))

    Collect().feed(page)
    return found


def assert_inert(folder: Path) -> None:
    """Every file below ``folder``: no remote reference, script, link, injected structure or formula cell."""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        where = path.relative_to(folder)
        if path.suffix == ".md":
            targets, headings, rows = _links_of_markdown(text)
            assert all(OWN_FIGURE.fullmatch(t or "") for t in targets), (where, targets)
            assert not [h for h in headings if h.startswith("Injected")], (where, headings)
            assert not [r for r in rows if r and r[0].strip() == "injected"], (where, "injected table row")
        if path.suffix == ".html":
            tags = _tags(text)
            assert not [t for t, _ in tags if t in ("script", "a", "iframe", "object", "embed", "link")], where
            assert not [a for _, attrs in tags for a, _ in attrs if a.startswith("on")], where
            assert all(OWN_FIGURE.fullmatch(dict(attrs).get("src") or "") for t, attrs in tags if t == "img"), where
        if path.suffix == ".svg":
            assert "<script" not in text.lower() and "javascript:" not in text.lower(), where
            assert not re.findall(r'href="(?!#|data:image/png;base64,)', text), where
        if path.suffix == ".pdf":
            assert b"/JavaScript" not in data and b"/URI" not in data and b"/Launch" not in data, where
        if path.suffix == ".csv":
            for cells in csv.reader(io.StringIO(text, newline="")):
                for cell in cells:
                    if cell.startswith(FORMULA):
                        float(cell)  # a formula-looking cell must be a plain number


@pytest.fixture(scope="module")
def report_data(tmp_path_factory):
    """The report's data for a tiny model, computed once (the checks left out: they hold no user string)."""
    import sabounds.full_report.cached_parts as parts
    import sabounds.full_report.compute as report

    root = tmp_path_factory.mktemp("report-data")
    tiny_model(root / "model")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report, "all_checks", lambda: [])
        mp.setattr(parts, "all_checks", lambda: [])
        mp.setenv("SABOUNDS_CACHE_DIR", "off")  # no record of the empty catalog lands in the user's cache
        from sabounds.proofs_check.verdict import Settings

        return report.compute(root / "model", Settings(precision=15, samples=1), lambda note: None)


def _relabelled(data, model_dir: str):
    """``data`` as if computed for ``model_dir``: the names that come from the user's path carry it."""
    from sabounds.checkpoint_names import checkpoint_label

    points = [dataclasses.replace(p, model=checkpoint_label(model_dir)) for p in data.scaling.points]
    return dataclasses.replace(
        data,
        model_dir=Path(model_dir),
        scaling=dataclasses.replace(data.scaling, points=points),
        digests={f"{model_dir}.safetensors": v for v in data.digests.values()},
    )


def _run(command: str, name: str, report_data, monkeypatch) -> None:
    out = "out"
    if command == "report":
        import sabounds.full_report.compute as report
        import sabounds.full_report.files as report_files

        monkeypatch.setattr(report, "all_checks", lambda: [])
        monkeypatch.setattr(
            report_files, "compute", lambda model_dir, settings, advance: _relabelled(report_data, name)
        )
        argv = ["report", "--model", name, "--out", out, "--precision", "15", "--samples", "1"]
    elif command == "sweep":
        argv = ["sweep", glob.escape(name), "--workers", "0", "--no-cache", "--out", out]  # SOURCE may be a glob
    else:
        argv = ["scaling", name, "plain", "--out", out, "--figure-format", "png,svg,pdf"]  # two: names in the legend
    assert main(argv) in (0, 1)  # 1: report with a failing step (none here)


@pytest.mark.parametrize("command,name", ESCAPE_CASES, ids=[f"{c}-{n}" for c, n in ESCAPE_CASES])
def test_a_hostile_checkpoint_path_lands_inert_in_every_output_file(
    command, name, tmp_path, monkeypatch, capsys, report_data
):
    path = HOSTILE_NAMES[name]
    monkeypatch.chdir(tmp_path)
    tiny_model(tmp_path / path)
    tiny_model(tmp_path / "plain")
    _run(command, path, report_data, monkeypatch)
    capsys.readouterr()
    assert_inert(tmp_path / "out")
    if command == "report":  # the name is there, as text
        md = (tmp_path / "out" / "report.md").read_text()
        assert path.replace("\n", "?") in re.sub(r"\\(.)", r"\1", md)
    if command == "sweep":
        with open(tmp_path / "out" / "sweep.csv", newline="", encoding="utf-8") as fh:
            first = list(csv.reader(fh))[1]
        assert first[0].lstrip("'") == path and first[2] == "ok", first


def test_a_figure_crafted_into_the_cache_never_reaches_sweep_out(tmp_path, monkeypatch, capsys):
    """The cache folder is writable by whoever shares it: whatever it holds for a figure, the SVG is drawn anew."""
    import numpy as np

    import sabounds.outputs.sweep_files as outputs
    from sabounds.numerics.cache import SpectraCache

    crafted = {
        fmt: np.frombuffer(b"<svg><script>alert(1)</script></svg>", dtype=np.uint8) for fmt in ("png", "pdf", "svg")
    }
    real_write = outputs.write_sweep_files

    def writing_with_a_crafted_cache(*args, **kwargs):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(SpectraCache, "get", lambda self, key: crafted)
            return real_write(*args, **kwargs)

    monkeypatch.setattr(outputs, "write_sweep_files", writing_with_a_crafted_cache)
    tiny_model(tmp_path / "model")
    assert (
        main(
            [
                "sweep",
                str(tmp_path / "model"),
                "--workers",
                "0",
                "--cache-dir",
                str(tmp_path / "cache"),
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    svg = (tmp_path / "out" / "sweep_scaling.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<script" not in svg
    assert_inert(tmp_path / "out")
    shutil.rmtree(tmp_path / "cache")
