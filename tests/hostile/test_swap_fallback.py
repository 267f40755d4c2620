"""The two-rename swap (no ``RENAME_EXCHANGE``: other systems, NFS) killed at each stage, then a run to an
unrelated target whose name is a glob pattern matching ours, or a prefix of it: the previous report, possibly the
only copy, is never deleted or taken; the next run to the true target restores or finishes it (issue 20, item 5).
The kill happens in a child process; the other runs are the same command in this process.
"""

import pytest

from sabounds.cli import main
from sabounds.outputs import swap
from sabounds.outputs.atomic import read_marker, recover
from tests.support.hostile import fake_build_report, run_report_subprocess
from tests.support.hostile_exposure import FALLBACK_STAGES, UNRELATED_TARGETS

pytestmark = pytest.mark.slow  # child processes killed at each stage


@pytest.fixture
def fallback(monkeypatch):
    """The report command with a fast fake computation and without ``RENAME_EXCHANGE``."""
    import sabounds.full_report.files as command

    monkeypatch.setattr(command, "build_report", fake_build_report)
    monkeypatch.setattr(swap, "_renameat2", lambda src, dst, flags: False)

    def run(target, name):
        monkeypatch.setenv("SABOUNDS_TEST_RUN", name)
        return main(["report", "--out", str(target), "--force", "--precision", "15", "--samples", "1"])

    return run


def _report_of(target):
    marker = read_marker(target)
    assert marker is not None and marker["state"] == "complete", f"no complete report at {target}"
    return (target / "report.md").read_text().split()[-1]


def _hidden(folder):
    return {
        p.name: sorted(q.name for q in p.iterdir())
        for p in folder.iterdir()
        if p.name.startswith(".report.") and p.is_dir()
    }


@pytest.mark.parametrize("other", UNRELATED_TARGETS)
@pytest.mark.parametrize("stage", FALLBACK_STAGES)
def test_a_kill_in_the_two_rename_swap_never_lets_another_target_take_the_old_report(
    tmp_path, stage, other, fallback, capsys
):
    target, unrelated = tmp_path / "report", tmp_path / other
    assert fallback(target, "old") == 0 and fallback(unrelated, "theirs") == 0
    hit = run_report_subprocess(target, tmp_path, "new", f"{stage}:KILL", exchange=False)
    assert hit.returncode == -9, hit.stderr
    left = _hidden(tmp_path)
    assert left, "the kill left nothing to recover (the two-rename path was not taken)"
    capsys.readouterr()

    assert fallback(unrelated, "theirs-again") == 0
    assert "sabounds:" not in capsys.readouterr().err, "a run to another target recovered this target's leftovers"
    assert _report_of(unrelated) == "theirs-again"
    assert _hidden(tmp_path) == left, "a run to another target touched this target's leftovers"

    assert fallback(target, "third") == 0
    assert _report_of(target) == "third"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["report", other]), "a leftover remains"


def test_the_old_report_comes_back_after_a_kill_between_the_renames(tmp_path, fallback):
    target = tmp_path / "report"
    assert fallback(target, "old") == 0
    assert run_report_subprocess(target, tmp_path, "new", "renamed-away:KILL", exchange=False).returncode == -9
    assert not target.exists(), "the kill did not fall between the two renames"
    done = recover(target)
    assert any("restored" in line for line in done), done
    assert _report_of(target) == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".report.sabounds-lock", "report"]  # the killed run's lock
