"""Leftovers of killed runs beside a target: only folders carrying our marker, named exactly for this target and
made by a dead process, are finished (an interrupted replacement) or undone."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from sabounds.outputs.lock import acquire, release
from sabounds.outputs.marker import ownership, read_marker


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _named_leftovers(target: Path) -> list[tuple[Path, str, int]]:
    """Entries beside ``target`` named exactly ``.<name>.partial-<pid>`` or ``.<name>.old-<pid>`` for this very
    name (compared as strings, never as a glob pattern), with their kind and pid."""
    prefix = f".{target.name}."
    try:
        names = sorted(e.name for e in os.scandir(target.parent) if e.name.startswith(prefix))
    except OSError:
        return []
    found = []
    for name in names:
        kind, _, pid = name[len(prefix) :].rpartition("-")
        if kind in ("partial", "old") and pid.isdigit() and pid == str(int(pid)):
            found.append((target.parent / name, kind, int(pid)))
    return found


def _made_for(marker: dict, target: Path, pid: int) -> bool:
    """Whether a marker says it was written by run ``pid`` for a folder named like ``target``."""
    return marker.get("target") == target.name and marker.get("pid") == pid


def find_leftovers(target: Path) -> list[tuple[Path, dict]]:
    """Folders beside ``target`` that a dead sabounds run left for this target and that hold nothing else: a
    partial whose marker names this target and the run in the folder's name (``writing``, or ``complete`` and
    cleared by :func:`ownership`), or the cleared previous report that such a partial, or the report at
    ``target``, says it replaces (by token).  Anything else (no marker, another target's, foreign or edited
    files) is never touched."""
    candidates = []
    for path, kind, pid in _named_leftovers(target):
        if pid == os.getpid() or _alive(pid):
            continue
        marker = read_marker(path)
        if marker is not None:
            candidates.append((path, kind, pid, marker))
    current = read_marker(target) if os.path.lexists(target) else None
    replaced = {(current.get("replaces"), None)} if current else set()
    replaced |= {
        (m.get("replaces"), pid) for _, kind, pid, m in candidates if kind == "partial" and _made_for(m, target, pid)
    }
    found = []
    for path, kind, pid, marker in candidates:
        state, token = marker.get("state"), marker.get("token")
        own = kind == "partial" and _made_for(marker, target, pid)
        previous = isinstance(token, str) and ((token, None) in replaced or (token, pid) in replaced)
        if state == "writing" and own:
            found.append((path, marker))
        elif state == "complete" and (own or previous) and ownership(path) is None:
            found.append((path, marker))
    return found


def recover(target: str | os.PathLike) -> list[str]:
    """Finish or undo what killed runs left beside ``target`` (only folders with our marker); return what was done.

    A ``writing`` leftover is deleted.  A ``complete`` leftover is either the old report of a finished swap (the
    report at ``target`` names it in ``replaces``: deleted, the replacement is finished) or, if ``target`` is
    missing, the old report of a two-rename swap cut in the middle (put back: the replacement is undone), or a
    new report that never reached ``target`` (deleted: the run is undone).
    """
    target = Path(os.path.abspath(target))
    current = read_marker(target) if os.path.lexists(target) else None
    done = []
    leftovers = find_leftovers(target)
    if not os.path.lexists(target):
        olds = [
            (p, m) for p, m in leftovers if m.get("state") == "complete" and p.name.startswith(f".{target.name}.old-")
        ]
        if olds:
            path, _ = olds[0]
            os.rename(path, target)
            done.append(f"restored {target.name} from {path.name}: a replacement killed half-way was undone")
            leftovers = [(p, m) for p, m in leftovers if p != path]
            current = read_marker(target)
    for path, marker in leftovers:
        if marker.get("state") != "complete":
            what = "removed the unfinished output"
        elif current is not None and current.get("replaces") == marker.get("token"):
            what = f"finished an interrupted replacement of {target.name}: removed the previous report"
        else:
            what = f"undid an interrupted run: removed its report, which never reached {target.name}"
        shutil.rmtree(path)
        done.append(f"{what} {path.name}")
    return done


def remove_stale_partials(target: str | os.PathLike) -> list[Path]:
    """Delete leftover folders (with our marker) of runs that no longer exist; return them (see :func:`recover`)."""
    target = Path(os.path.abspath(target))
    before = {p for p, _ in find_leftovers(target)}
    lock = acquire(target)
    try:
        recover(target)
    finally:
        release(target, lock)
    return sorted(p for p in before if not p.exists())
