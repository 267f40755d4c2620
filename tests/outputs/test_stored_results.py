"""The report's cached parts (``sabounds.full_report.cached_parts``, ``numerics.result_cache``): a stored or cached
result is used only while it is current for the code, the settings and the library versions that made it."""

import dataclasses
import json

import pytest

from sabounds.full_report import cached_parts
from sabounds.numerics.result_cache import UserCache, compute_record, current, read_records
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict


def test_the_stored_results_are_current_for_this_code():
    """Fails after any change to a module the stored results may depend on; the message names the command."""
    reasons = cached_parts.stale()
    assert not reasons, (
        f"{cached_parts.STORED.name} is stale ({'; '.join(reasons)}): run "
        f"`{cached_parts.REGENERATE}` (a few minutes) and commit the file"
    )


def test_the_stored_file_holds_every_check_at_the_default_settings():
    records = read_records(cached_parts.STORED)
    (checks,) = records["checks"]
    assert checks.inputs["settings"] == {
        "precision": Settings().precision,
        "samples": Settings().samples,
        "seed": Settings().seed,
    }
    assert "sabounds.theory.thm41" in checks.modules and "sabounds.proofs_check.claims" in checks.modules
    assert "sabounds.full_report.cached_parts" in checks.modules  # the code that wrote it counts too


def _record(tmp_path, value=1):
    return compute_record("toy", {"settings": 1}, lambda: value)


def test_a_record_is_stale_when_any_module_it_ran_changed(tmp_path):
    record = _record(tmp_path)
    assert record.stale_reason({"settings": 1}) is None
    changed = dataclasses.replace(record, modules={**record.modules, "sabounds.theory.thm41": "0" * 64})
    assert "sabounds.theory.thm41" in changed.stale_reason({"settings": 1})
    gone = dataclasses.replace(record, modules={**record.modules, "sabounds.theory.no_such_module": "0" * 64})
    assert gone.stale_reason({"settings": 1}) is not None
    assert "settings" in record.stale_reason({"settings": 2})


def test_a_stale_stored_record_is_recomputed_and_a_current_one_is_used(tmp_path):
    cache = UserCache(tmp_path / "cache")
    stored = _record(tmp_path, value="stored")
    calls = []
    compute = lambda: calls.append(1) or "fresh"
    used = current("toy", {"settings": 1}, compute, {"toy": [dataclasses.replace(stored, origin="stored")]}, cache)
    assert (used.value, used.origin, calls) == ("stored", "stored", [])
    stale = dataclasses.replace(stored, modules={**stored.modules, "sabounds.theory.thm41": "0" * 64}, origin="stored")
    used = current("toy", {"settings": 1}, compute, {"toy": [stale]}, cache)
    assert (used.value, used.origin, calls) == ("fresh", "computed", [1])
    again = current("toy", {"settings": 1}, compute, {"toy": [stale]}, cache)  # now from the user's cache
    assert (again.value, again.origin, calls) == ("fresh", "cache", [1])
    assert current("toy", {"settings": 2}, compute, {}, cache).origin == "computed"


def test_a_forged_cache_entry_is_ignored(tmp_path):
    """The user's cache tags entries with its secret: an entry written under another secret does not verify."""
    cache = UserCache(tmp_path / "cache")
    cache.put(_record(tmp_path))
    (tmp_path / "cache" / "secret").write_bytes(b"x" * 32)
    assert UserCache(tmp_path / "cache").get("toy", {"settings": 1}) is None


def test_an_outcome_survives_the_round_trip():
    from sabounds.proofs_check.registry import Check

    """Every field of ``Outcome`` set to a value of its own, so a field lost or shifted on the way fails here."""
    outcome = Outcome(
        Verdict.REFUTED,
        "m",
        50,
        200,
        -0.5,
        {"x": (1, 2), "y": "z"},
        "d",
        1.5,
        ("sympy", "z3"),
        1e-9,
        scaled_margin=0.1,
        exact_forms={"margin": "-1.1e-400"},
        basis="construction",
    )
    assert {f.name for f in dataclasses.fields(Outcome)} <= {
        *cached_parts.outcome_json(Check("a", "b", None), outcome),
        "witness",
    }
    back = cached_parts.outcome_from_json(
        json.loads(json.dumps(cached_parts.outcome_json(Check("a", "b", None), outcome)))
    )
    assert back == dataclasses.replace(outcome, witness={"x": [1, 2], "y": "z"})


@pytest.mark.slow
def test_the_report_says_where_each_part_came_from(quick_report):
    text = (quick_report / "report.md").read_text()
    assert "Where the expensive parts came from" in text and "- checks: " in text and "- regime tables: " in text
    prov = json.loads((quick_report / "provenance.json").read_text())
    assert [p.split(":")[0] for p in prov["parts"]] == ["checks", "regime tables"]
