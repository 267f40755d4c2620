"""Hostile inputs as tables: each row is one case a careless or unlucky user can type (issue 10).

The files of ``tests/hostile/`` expand these tables into test cases; the README's reliability section counts them
with ``python -m tests.support.hostile``.  The contract every case checks: exit 2 with exactly one line on stderr and
nothing written or deleted, or a correct result (exit 0, outputs free of ``inf``, ``nan`` and ``Infinity``).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

from tests.support.bert_files import config, random_weights, write_model  # noqa: E402
from tests.support.hostile_exposure import counts as exposure_counts  # noqa: E402

REFUSE, OK = "refuse", "ok"


# --- the file-system state a case starts from, and a snapshot to show nothing else changed ----------------


def snapshot(root: Path) -> dict[str, str]:
    """Every path below ``root`` (links not followed) with the sha256 of its content or link target."""
    out = {}
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                out[rel] = "dir"
    return out


def wait_for(condition, seconds: float, poll: float = 0.005) -> bool:
    """Poll ``condition`` until it holds (True) or ``seconds`` pass (False)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(poll)
    return False


def tiny_model(directory: Path, layers: int = 2, scale: float = 1.0, dtype: str = "F32") -> Path:
    weights = {
        k: (v.astype(np.float64) * scale if k.startswith("encoder") and k.endswith("weight") else v)
        for k, v in random_weights(layers=layers).items()
    }
    return write_model(directory, weights, config(layers=layers), dtype=dtype)


def workspace(root: Path) -> None:
    """A user's folder: a model, their own data, links, a file, an empty folder and a sabounds report."""
    from sabounds.cli import main

    tiny_model(root / "model")
    (root / "data").mkdir()
    (root / "data" / "thesis.tex").write_text("precious")
    (root / "notes.txt").write_text("my notes")
    (root / "link").symlink_to(root / "data")
    (root / "dangling").symlink_to(root / "nowhere")
    (root / "afile").write_text("a file")
    (root / "empty").mkdir()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with open(os.devnull, "w") as null:
            saved, sys.stdout = sys.stdout, null
            try:
                assert main(["analyze", "model", "--out", "rep"]) == 0
            finally:
                sys.stdout = saved
    finally:
        os.chdir(cwd)
    shutil.copytree(root / "rep", root / "rep_edited")
    (root / "rep_edited" / "my_comments.txt").write_text("added by the user")
    shutil.copytree(root / "rep", root / "rep_changed")
    (root / "rep_changed" / "model.csv").write_text("my notes over a file sabounds wrote")
    shutil.copytree(root / "rep", root / "rep_linked")
    (root / "rep_linked" / "model.csv").unlink()
    (root / "rep_linked" / "model.csv").symlink_to(root / "notes.txt")
    for name in ("lock_file", "lock_empty", "lock_link", "lock_dir"):
        (root / name).mkdir()
    (root / "lock_file" / ".out.sabounds-lock").write_text("precious")
    (root / "lock_empty" / ".out.sabounds-lock").write_text("")
    (root / "lock_link" / ".out.sabounds-lock").symlink_to(root / "notes.txt")
    (root / "lock_dir" / ".out.sabounds-lock").mkdir()
    (root / "lock_dir" / ".out.sabounds-lock" / "kept.txt").write_text("a user's folder")
    leftovers = root / "leftovers"  # leftover names that sabounds did not make: never touched
    (leftovers / ".out.partial-999999").mkdir(parents=True)
    (leftovers / ".out.old-999998").mkdir()
    shutil.copytree(root / "rep_edited", leftovers / ".out.old-999997")  # our marker, plus a user's file
    shutil.copytree(root / "rep_changed", leftovers / ".out.partial-999996")  # our marker, an edited file


@dataclass(frozen=True)
class OutputCase:
    """``--out`` hostility: ``out`` relative to the workspace (which is the current folder)."""

    id: str
    out: str
    force: bool
    expect: str
    changes: tuple[str, ...] = ()  # top-level names an OK case may create or replace


OUTPUT_CASES = [
    OutputCase("dot", ".", True, REFUSE),
    OutputCase("dot-no-force", ".", False, REFUSE),
    OutputCase("dotdot", "..", True, REFUSE),
    OutputCase("empty-string", "", True, REFUSE),
    OutputCase("blank", "  ", False, REFUSE),
    OutputCase("cwd-absolute", "{root}", True, REFUSE),
    OutputCase("cwd-trailing-slash", "./", True, REFUSE),
    OutputCase("the-input", "model", True, REFUSE),
    OutputCase("inside-the-input", "model/out", True, REFUSE),
    OutputCase("input-by-other-spelling", "data/../model", True, REFUSE),
    OutputCase("foreign-folder", "data", True, REFUSE),
    OutputCase("foreign-folder-no-force", "data", False, REFUSE),
    OutputCase("symlink-to-folder", "link", True, REFUSE),
    OutputCase("symlink-no-force", "link", False, REFUSE),
    OutputCase("dangling-symlink", "dangling", True, REFUSE),
    OutputCase("a-file", "afile", True, REFUSE),
    OutputCase("file-inside-report", "rep/.sabounds-output", True, REFUSE),
    OutputCase("report-no-force", "rep", False, REFUSE),
    OutputCase("report-with-user-file", "rep_edited", True, REFUSE),
    OutputCase("report-with-edited-file", "rep_changed", True, REFUSE),
    OutputCase("report-file-became-link", "rep_linked", True, REFUSE),
    OutputCase("user-file-named-like-the-lock", "lock_file/out", False, REFUSE),
    OutputCase("empty-file-named-like-the-lock", "lock_empty/out", False, REFUSE),
    OutputCase("link-named-like-the-lock", "lock_link/out", False, REFUSE),
    OutputCase("folder-named-like-the-lock", "lock_dir/out", False, REFUSE),
    OutputCase("unwritable", "/proc/sabounds-no/out", True, REFUSE),
    OutputCase("nul-byte", "a\0b", True, REFUSE),
    OutputCase("our-report-force", "rep", True, OK, ("rep",)),
    OutputCase("empty-folder-force", "empty", True, OK, ("empty",)),
    OutputCase("new-folder", "fresh", False, OK, ("fresh",)),
    OutputCase("new-nested", "deep/er/out", False, OK, ("deep",)),
    OutputCase("through-parent-link", "link/new", False, OK, ("data/new",)),
    OutputCase("beside-unmarked-leftovers", "leftovers/out", False, OK, ("leftovers/out",)),
]
OUTPUT_COMMANDS = ["analyze", "scaling", "report", "bound", "sweep"]
REFUSALS_ONLY = {"report", "sweep"}  # their refusals come before any work; their writing is tested elsewhere
_MODEL_ARGS = {
    "analyze": ["model"],
    "scaling": ["model"],
    "report": ["--model", "model"],
    "bound": ["model", "--n", "1e9", "--delta", "0.05", "--margin", "1"],
    "sweep": ["model", "--workers", "1"],
}


def output_argv(command: str, case: OutputCase, root: Path) -> list[str]:
    out = case.out.replace("{root}", str(root))
    return [command, *_MODEL_ARGS[command], "--out", out, *(["--force"] if case.force else [])]


# --- interrupts of report --force over an existing report ----------------------------------------------------

INTERRUPT_STAGES = [
    "locked",
    "partial-created",
    "writing",
    "written",
    "completed",
    "in-swap",
    "swapped",
    "old-half-deleted",
    "done",
]
NEW_AFTER = {"in-swap", "swapped", "old-half-deleted", "done"}  # an INT/TERM here comes once the new one is in
SIGNALS = ["INT", "TERM", "KILL"]


def fake_build_report(folder, model_dir, settings, advance, figures=None):
    """A fast stand-in for the report's computation (the tables and folder layout are the real writers')."""
    from sabounds.outputs.files import write_csv

    run = os.environ.get("SABOUNDS_TEST_RUN", "?")
    (folder / "analysis").mkdir()
    for i in range(4):
        write_csv(folder / "analysis" / f"t{i}.csv", ["run"], [[run]])
    write_csv(folder / "checks.csv", ["run"], [[run]])
    (folder / "report.md").write_text(f"report of run {run}\n")
    return SimpleNamespace(checks=[], analysis=SimpleNamespace(ours=1.0, edelman=2.0), seconds=0.0)


def patch_report() -> None:
    import sabounds.full_report.files as command

    command.build_report = fake_build_report


def cli_with_fault(fault: str | None, *argv: str, fake_report: bool = False, exchange: bool = True) -> list[str]:
    """The command line of a child ``sabounds *argv`` whose test code arms ``fault`` (see
    ``sabounds.outputs.atomic.arm_fault``), optionally with :func:`fake_build_report` and without ``RENAME_EXCHANGE``
    (the two-rename fallback of other systems)."""
    code = (
        "import sys; sys.path.insert(0, %r); from tests.support import hostile; from sabounds.outputs import atomic; atomic.arm_fault(%r); "
        "%s%s from sabounds.cli import main; sys.exit(main(sys.argv[1:]))"
        % (
            str(ROOT),
            fault,
            "hostile.patch_report();" if fake_report else "",
            "" if exchange else " hostile.without_rename_exchange();",
        )
    )
    return [sys.executable, "-c", code, *argv]


def cli_with_ready_file(ready: Path, *argv: str) -> list[str]:
    """The command line of a child ``sabounds *argv`` that creates ``ready`` once its Ctrl-C handler is in place."""
    code = (
        "import sys, sabounds; sabounds._ready_file = %r; from sabounds.cli import main; "
        "sys.exit(main(sys.argv[1:]))" % str(ready)
    )
    return [sys.executable, "-c", code, *argv]


def without_rename_exchange() -> None:
    """Make ``renameat2`` look unsupported, as on non-Linux systems and NFS: the swap takes two renames."""
    from sabounds.outputs import swap

    swap._renameat2 = lambda src, dst, flags: False


def run_report_subprocess(
    out: Path, cwd: Path, run: str, fault: str | None, exchange: bool = True
) -> subprocess.CompletedProcess:
    """``sabounds report --force --out OUT`` with :func:`fake_build_report`, in a child process."""
    env = dict(os.environ, SABOUNDS_TEST_RUN=run)
    argv = cli_with_fault(
        fault,
        "report",
        "--out",
        str(out),
        "--force",
        "--precision",
        "15",
        "--samples",
        "1",
        fake_report=True,
        exchange=exchange,
    )
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


# --- output streams ----------------------------------------------------------------------------------------

STREAM_COMMANDS = {
    "regimes": ["regimes"],
    "derivation": ["derivation", "thm41"],
    "analyze": ["analyze", "{model}", "--json"],
    "version": ["--version"],
}
STREAM_CONDITIONS = ["full", "closed", "broken-pipe"]


def run_with_stdout(argv: list[str], condition: str) -> tuple[int, str]:
    """Run the command line with standard output on /dev/full, closed, or a pipe whose reader has gone."""
    cmd = [sys.executable, "-m", "sabounds", *argv]
    if condition == "full":
        with open("/dev/full", "w") as full:
            p = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=300)
        return p.returncode, p.stderr
    if condition == "closed":
        p = subprocess.run(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=300,
            preexec_fn=lambda: os.close(1),
        )
        return p.returncode, p.stderr
    read, write = os.pipe()
    os.close(read)  # the reader stopped before the first byte, as `| head -c0` would
    try:
        p = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=300)
    finally:
        os.close(write)
    return p.returncode, p.stderr


# --- numbers -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MagnitudeCase:
    """Every encoder weight multiplied by ``scale`` and stored as ``dtype``."""

    id: str
    scale: float
    dtype: str


MAGNITUDE_CASES = [
    MagnitudeCase(f"{d}-{s:g}", s, d)
    for d, scales in (
        ("F64", (1e-300, 1e-150, 1e-30, 1.0, 1e30, 1e100, 1e150, 1e200, 1e300, 1.7e308)),
        ("F32", (1e-30, 1e-20, 1.0, 1e10, 1e20, 1e30, 3e38)),
        ("F16", (1e-4, 1.0, 100.0, 6e4)),
        ("BF16", (1e-30, 1.0, 1e30, 3e38)),
    )
    for s in scales
]

_BAD_NUMBER = re.compile(r"(?<![A-Za-z_])(inf|nan|infinity)(?![A-Za-z_])", re.IGNORECASE)


def bad_numbers(text: str) -> list[str]:
    """``inf``, ``nan`` or ``Infinity`` tokens where a number could stand."""
    return _BAD_NUMBER.findall(text)


ARGUMENT_CASES = [
    ("precision-too-high", ["verify", "--precision", "1000000"]),
    ("precision-too-low", ["verify", "--precision", "14"]),
    ("precision-negative", ["verify", "--precision", "-5"]),
    ("samples-huge", ["verify", "--samples", "1000000000"]),
    ("samples-zero", ["verify", "--samples", "0"]),
    ("seed-negative", ["verify", "--seed", "-1"]),
    ("seed-huge", ["verify", "--seed", str(2**70)]),
    ("report-precision", ["report", "--precision", "1000000", "--out", "x"]),
    ("report-samples", ["report", "--samples", "1000000000", "--out", "x"]),
    ("report-empty-out", ["report", "--out", ""]),
    ("analyze-lphi-inf", ["analyze", "--lphi", "inf"]),
    ("analyze-lphi-nan", ["analyze", "--lphi", "nan"]),
    ("analyze-lphi-overflow", ["analyze", "--lphi", "1e309"]),
    ("analyze-lphi-zero", ["analyze", "--lphi", "0"]),
    ("analyze-rank-tol-above-1", ["analyze", "--rank-tol", "2"]),
    ("analyze-layers-zero", ["analyze", "--layers", "0"]),
    ("analyze-layers-huge", ["analyze", "--layers", "100000"]),
    ("analyze-grid-m-huge", ["analyze", "--grid-m", "10001"]),
    ("analyze-plots-without-out", ["analyze", "--plots"]),
    ("analyze-empty-out", ["analyze", "--out", ""]),
    ("scaling-depths-huge", ["scaling", "--depths", "1,100000"]),
    ("scaling-depths-many", ["scaling", "--depths", ",".join(str(i) for i in range(1, 1100))]),
    ("scaling-empty-out", ["scaling", "--out", ""]),
    ("unknown-command", ["bogus"]),
    ("no-command", []),
]

STARTUP_DELAYS = [0.0, 0.05, 0.15, 0.3, 0.6, 1.0, 2.0]  # after sabounds.cli installs its Ctrl-C handler


def counts() -> dict[str, int]:
    """How many generated cases each class has (for the README's reliability section)."""
    outputs = sum(1 for c in OUTPUT_CASES for cmd in OUTPUT_COMMANDS if cmd not in REFUSALS_ONLY or c.expect == REFUSE)
    return {
        "outputs (--out, --force, links, inputs)": outputs + 2,
        "interrupts (report --force, stage x signal)": len(INTERRUPT_STAGES) * len(SIGNALS),
        "Ctrl-C at start-up": len(STARTUP_DELAYS),
        "output streams (command x full/closed/broken pipe)": len(STREAM_COMMANDS) * len(STREAM_CONDITIONS),
        "magnitudes (scale x dtype, analyze --json and --out)": len(MAGNITUDE_CASES),
        "arguments and caps": len(ARGUMENT_CASES),
        **_data_counts(),
        **exposure_counts(),
    }


def _data_counts() -> dict[str, int]:
    from tests.support.hostile_data import counts as data_counts  # issue 20's classes, in their own table module
    from tests.support.hostile_round4 import counts as round_four_counts  # issue 34's

    return {**data_counts(), **round_four_counts()}


if __name__ == "__main__":
    table = counts()
    for name, n in table.items():
        print(f"| {name} | {n} |")
    print(f"| total | {sum(table.values())} |")
