"""Hostile inputs, round four (tests/support/hostile_round4.py, issue 34): each case is exit 2 with exactly one line
on stderr naming what was refused, no traceback, at most 200 MB of resident memory and 120 s, or the true result."""

from __future__ import annotations

import json
import math

import pytest

from tests.support.hostile import REFUSE, bad_numbers
from tests.support.hostile_round4 import CASES, MAX_RSS_MB, run_measured

pytestmark = pytest.mark.slow


def user_bound_finite(p, root):
    """``term = "s"``: a positive finite value (the campaign's ``term = "-s"`` printed this same number)."""
    assert bad_numbers(p.stdout) == []
    value = json.loads(p.stdout)["baselines"]["mine.mine"]
    assert value["source"] == "user" and math.isfinite(value["value"]) and value["value"] > 0


def link_not_followed(p, root):
    assert json.loads(p.stdout)["rows"][0]["status"] == "ok"
    assert list((root / "elsewhere").iterdir()) == []  # the planted entries/ link was never written through
    assert (root / "c" / "entries").is_symlink()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_round_four(case, tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    case.prepare(root)
    p = run_measured(list(case.argv), root, dict(case.env))
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    if case.expect == REFUSE:
        assert p.returncode == 2, (p.returncode, p.stderr[-3000:])
        assert p.stderr.count("\n") == 1, p.stderr[-3000:]
        assert case.words in p.stderr, p.stderr
        assert p.max_rss_mb <= MAX_RSS_MB, f"{p.max_rss_mb:.0f} MB"
    else:
        assert p.returncode == 0, p.stderr[-3000:]
        globals()[case.check](p, root)
