"""The README's study table and ``docs/guide/study.md``'s results are what the code renders from the stored default
study (``docs/study/default.json``), and the stored rankings are what the statistics compute from the stored runs."""

import json
from pathlib import Path

import pytest

from sabounds.render.study_pages import PAGES, STORED, block, rendered_page, sync

ROOT = Path(__file__).resolve().parents[2]


def test_readme_and_the_guide_show_what_the_code_renders_from_the_stored_result():
    assert sync(ROOT, check=True) == [], "run: python -m sabounds.render.study_pages"


def test_a_changed_table_is_caught(tmp_path):
    for name in [*PAGES, str(STORED)]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("anti-tracks", "tracks", 1), encoding="utf-8")
    assert sync(tmp_path, check=True) == ["README.md"]


def test_the_stored_result_is_the_default_grid_with_every_run_accounted_for():
    result = json.loads((ROOT / STORED).read_text(encoding="utf-8"))
    from sabounds.training_study.grids import grid

    specs = [s.to_json() for s in grid("default")]
    assert [r["spec"] for r in result["runs"]] == specs
    t = result["tasks"]["digits"]
    ok = [r for r in result["runs"] if r["status"] == "ok"]
    assert t["used"] == len(ok) and t["runs"] == len(specs) and len(t["excluded"]) == len(specs) - len(ok)
    assert all(r["record"]["train_loss"] <= result["settings"]["stop_loss"] for r in ok)
    assert result["measured"]["cpu_seconds"] <= 15 * 60
    with pytest.raises(ValueError):
        rendered_page("no markers here", block(result, "readme"))


@pytest.mark.slow
def test_the_stored_rankings_are_what_the_statistics_compute_from_the_stored_runs():
    pytest.importorskip("scipy")
    from sabounds.training_study.statistics import rank_measure
    from sabounds.training_study.summary import _stat_rows, clean

    result = json.loads((ROOT / STORED).read_text(encoding="utf-8"))
    t = result["tasks"]["digits"]
    rows = _stat_rows(result["runs"], "gap_error")
    for stored in t["rankings"]["gap_error"]:
        assert clean(rank_measure(rows, stored["measure"], t["axes"])) == stored, stored["measure"]


def _blocks():
    from sabounds.render.study_pages import BEGIN, END

    for name in PAGES:
        text = (ROOT / name).read_text(encoding="utf-8")
        yield name, text, text[text.index(BEGIN) : text.index(END)]


def test_every_measure_is_in_a_pages_table_or_named_as_left_out_with_where_it_is():
    """A table of some of the 13 measures says which it leaves out and where they are; the guide's table has them all."""
    result = json.loads((ROOT / STORED).read_text(encoding="utf-8"))
    measures = [r["measure"] for r in result["tasks"]["digits"]["rankings"]["gap_error"]]
    assert len(measures) == 13
    for name, _, block_text in _blocks():
        shown = [m for m in measures if f"| `{m}` |" in block_text]
        left = [line for line in block_text.splitlines() if line.startswith("Not shown here:")]
        if len(shown) < len(measures):
            assert len(left) == 1 and "default.json" in left[0], name
            assert all((f"`{m}`" in left[0]) == (m not in shown) for m in measures), (name, left)
            assert f"{len(measures) - len(shown)} of {len(measures)} measures" in left[0]
        else:
            assert left == [], name
    assert "docs/guide/study.md" in [n for n, _, b in _blocks() if b.count("| `") == len(measures)]


def test_the_pages_say_how_the_cost_was_measured_as_stored():
    """The CPU time is getrusage's (the stored note), not /usr/bin/time: the prose is the stored field, rendered."""
    note = json.loads((ROOT / STORED).read_text(encoding="utf-8"))["measured"]["note"]
    assert "getrusage" in note
    for name, text, block_text in _blocks():
        assert "/usr/bin/time" not in text, name
        assert note in block_text, name
