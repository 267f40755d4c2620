"""The ownership marker ``.sabounds-output`` of an output folder: a run token, the state, the files written and their
sha256 and size, so that ``--force`` replaces only what sabounds wrote and nobody changed since."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path

MARKER = ".sabounds-output"


def read_marker(folder: Path) -> dict | None:
    """The marker of ``folder`` if it is a real folder carrying a well-formed sabounds marker, else None."""
    path = folder / MARKER
    try:
        if folder.is_symlink() or not folder.is_dir() or path.is_symlink() or not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("sabounds_output") != 1 or not isinstance(data.get("files"), list):
        return None
    return data


def write_marker(folder: Path, record: dict) -> None:
    tmp = folder / (MARKER + ".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MARKER)


def contents(folder: Path) -> list[str]:
    """Relative paths of everything below ``folder`` (folders end in ``/``), never following links."""
    out = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        rel = Path(root).relative_to(folder)
        out += [f"{(rel / d).as_posix()}/" for d in dirs]
        out += [(rel / f).as_posix() for f in files]
    return sorted(p for p in out if p not in (MARKER, MARKER + ".tmp"))


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def hashes(folder: Path, names: Iterable[str]) -> dict[str, dict]:
    """sha256 and size of each regular file among ``names`` (folders end in ``/`` and are skipped)."""
    out = {}
    for name in names:
        if not name.endswith("/"):
            path = folder / name
            st = os.lstat(path)
            out[name] = (
                {"sha256": sha256(path), "size": st.st_size}
                if stat.S_ISREG(st.st_mode)
                else {"kind": "not a regular file"}
            )
    return out


def first_changed(folder: Path, marker: dict) -> str | None:
    """The first listed entry that is no longer what sabounds wrote (content, size, or kind), else None."""
    recorded = marker.get("hashes")
    if not isinstance(recorded, dict):
        return None
    for name in marker["files"]:
        path = folder / name.rstrip("/")
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue  # deleted by the user: nothing of theirs to lose
        if name.endswith("/"):
            if not stat.S_ISDIR(st.st_mode):
                return name
            continue
        want = recorded.get(name)
        if (
            not stat.S_ISREG(st.st_mode)
            or not isinstance(want, dict)
            or st.st_size != want.get("size")
            or sha256(path) != want.get("sha256")
        ):
            return name
    return None


def ownership(folder: Path) -> str | None:
    """None if sabounds may replace ``folder`` (empty, or every entry listed in its marker and every listed file
    as sabounds wrote it, by sha256 and size); else why not."""
    present = contents(folder)
    if not present:
        return None
    marker = read_marker(folder)
    if marker is None:
        return (
            f"{folder} is not a sabounds output folder (no {MARKER} marker) and is not empty; "
            "refusing to replace it, even with --force"
        )
    foreign = sorted(set(present) - set(marker["files"]))
    if foreign:
        return (
            f"{folder} holds {len(foreign)} file(s) sabounds did not write (e.g. {foreign[0]!r}); "
            "refusing to replace it, even with --force"
        )
    if not isinstance(marker.get("hashes"), dict):
        return (
            f"{folder} has a marker without content hashes (an older sabounds, or unfinished), so edits to its "
            "files cannot be ruled out; refusing to replace it, even with --force (remove it yourself)"
        )
    changed = first_changed(folder, marker)
    if changed:
        return (
            f"{folder / changed.rstrip('/')} was changed after sabounds wrote it; refusing to replace "
            f"{folder}, even with --force"
        )
    return None
