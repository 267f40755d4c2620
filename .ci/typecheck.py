#!/usr/bin/env python3
"""mypy on the module names the package installs under, strict on the public API, against a baseline elsewhere.

The repository's folders theory/, numerics/ and proofs_check/ install as sabounds.theory, sabounds.numerics and
sabounds.proofs_check (package-dir in pyproject.toml), so mypy run on the folders would see top-level packages
``theory``, ``numerics`` ... and not the names the code imports.  This script lays a symlink tree in a temporary
folder whose ``sabounds/`` maps each installed name to its folder one to one and runs mypy on it with the settings
of [tool.mypy] in pyproject.toml (strict for ``sabounds``, ``sabounds.api`` and ``sabounds.errors``).

The strict part must have no error at all.  Outside it, the errors present when the baseline was written are
listed in .ci/mypy-baseline.txt (one ``path: error: message  [code]`` a line, without line numbers so that an edit
elsewhere in a file does not move them); a new one fails, one fixed is reported so that the baseline can shrink.

    python .ci/typecheck.py                    # exit 1 on a strict-surface error or an error not in the baseline
    python .ci/typecheck.py --update-baseline  # rewrite the baseline from the current errors (never the strict part)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
# Each installed sub-package and the folder it comes from (pyproject.toml's [tool.setuptools.package-dir]).
REMAPPED = {"theory": "theory", "numerics": "numerics", "proofs_check": "proofs_check"}
# The public surface: zero errors allowed here, whatever the baseline says.
STRICT = ("sabounds/__init__.py", "sabounds/api/", "sabounds/errors.py")
ERROR = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?:\d+:)? error: (?P<message>.*)$")


def symlink_tree(into: Path) -> Path:
    """``into/sabounds``: every entry of the repository's sabounds/ and the remapped folders, as symlinks."""
    package = into / "sabounds"
    package.mkdir()
    for entry in (ROOT / "sabounds").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, folder in REMAPPED.items():
        (package / name).symlink_to(ROOT / folder)
    return package


def run_mypy(tree: Path) -> list[str]:
    """mypy's error lines on the tree, paths relative to it (``sabounds/theory/x.py``), without line numbers."""
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--no-incremental",
        "--cache-dir",
        os.devnull,
        "--show-error-codes",
        "--no-color-output",
        "--no-error-summary",
        "--hide-error-context",
        "-p",
        "sabounds",
    ]
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(tree)})
    if done.returncode not in (0, 1):
        sys.exit(f"mypy failed to run:\n{done.stdout}{done.stderr}")
    errors = []
    for line in done.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            errors.append(f"{match['path']}: error: {match['message']}")
    return errors


def strict(error: str) -> bool:
    path = error.split(":", 1)[0]
    return any(path == s or (s.endswith("/") and path.startswith(s)) for s in STRICT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update-baseline", action="store_true", help="rewrite .ci/mypy-baseline.txt")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sabounds-mypy-") as tmp:
        errors = run_mypy(symlink_tree(Path(tmp)).parent)
    on_surface = [e for e in errors if strict(e)]
    elsewhere = Counter(e for e in errors if not strict(e))
    if args.update_baseline:
        BASELINE.write_text("".join(f"{e}\n" for e in sorted(elsewhere.elements())), encoding="utf-8")
        print(f"wrote {BASELINE.relative_to(ROOT)}: {sum(elsewhere.values())} errors outside the strict surface")
    known = Counter(BASELINE.read_text(encoding="utf-8").splitlines()) if BASELINE.exists() else Counter()
    new = elsewhere - known
    fixed = known - elsewhere
    for e in on_surface:
        print(f"strict: {e}")
    for e in sorted(new.elements()):
        print(f"new: {e}")
    if fixed:
        print(f"{sum(fixed.values())} baseline errors are gone: run .ci/typecheck.py --update-baseline to shrink it")
    if on_surface or new:
        print(f"mypy: {len(on_surface)} errors on the strict surface, {sum(new.values())} not in the baseline")
        return 1
    print(f"mypy: strict surface clean; {sum(elsewhere.values())} baseline errors elsewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
