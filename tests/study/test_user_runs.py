"""Ranking a user's own runs from a table (``sabounds.rank_runs``): the study's ``runs.csv`` of the stored default
result, read back, gives the stored rankings; a bad table is one ``InputError`` line.  No training."""

import json
from pathlib import Path

import pytest

pytest.importorskip("scipy", reason="the study's statistics use scipy (the `study` extra)")
pd = pytest.importorskip("pandas")

import sabounds  # noqa: E402
from sabounds.training_study.outputs import write_csv  # noqa: E402

STORED = Path(__file__).resolve().parents[2] / "docs" / "study" / "default.json"


@pytest.fixture(scope="module")
def runs_csv(tmp_path_factory):
    result = json.loads(STORED.read_text(encoding="utf-8"))
    path = tmp_path_factory.mktemp("user") / "runs.csv"
    write_csv(result["runs"], path)
    keep = [c for c in pd.read_csv(path).columns if not c.startswith("ln_") or c in ("ln_bound_ours_sum", "ln_params")]
    pd.read_csv(path)[keep].to_csv(path, index=False)
    return path, result


def test_the_studys_own_runs_csv_ranks_as_the_study_did(runs_csv):
    path, result = runs_csv
    ranked = sabounds.rank_runs(path, axes=["width", "size", "noise"])
    stored = {r["measure"]: r for r in result["tasks"]["digits"]["rankings"]["gap_error"]}
    mine = ranked.json["tasks"]["user"]
    assert mine["used"] == 60 and [r["measure"] for r in mine["rankings"]["gap_error"]] == ["bound_ours_sum", "params"]
    for r in mine["rankings"]["gap_error"]:
        assert r["granulated"] == stored[r["measure"]]["granulated"]
        assert r["sign_error"] == stored[r["measure"]]["sign_error"]
    assert set(ranked.ranking["axis"]) == {"overall", "width", "size", "noise"}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda f: f.drop(columns=["seed"]), "lacks the column"),
        (lambda f: f[[c for c in f.columns if not c.startswith("ln_")]], "no measure column"),
        (lambda f: f.assign(ln_params=float("inf")), "finite"),
        (lambda f: f.assign(ln_params="big"), "finite"),
    ],
)
def test_a_bad_table_is_one_input_error(runs_csv, change, message):
    path, _ = runs_csv
    with pytest.raises(sabounds.InputError, match=message) as info:
        sabounds.rank_runs(change(pd.read_csv(path)))
    assert "\n" not in str(info.value)
    with pytest.raises(sabounds.InputError, match="axis"):
        sabounds.rank_runs(pd.read_csv(path), axes=["nope"])
    with pytest.raises(sabounds.InputError, match="cannot read"):
        sabounds.rank_runs(path.parent / "missing.csv")
