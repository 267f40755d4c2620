"""The SOURCES of ``sabounds sweep``: folders, model files, globs and list files, expanded with bounded work.

A list file names one source a line (``#`` comments; paths relative to the list file).  Every read is bounded:
a list file of at most ``MAX_LIST_BYTES``, lines of at most ``MAX_LINE_CHARS``, lists nested at most
``MAX_LIST_DEPTH`` deep, at most ``MAX_SOURCES`` sources and glob matches in all.  A list that names itself,
directly or through others, is a cycle (one line naming it), and a glob walks past folders it may not read.
A SOURCE (or a list's line) that exists is read literally even when it holds ``*``, ``?`` or ``[``; only a name
that does not exist is a glob pattern, and a list file's own folder is never part of a pattern.
"""

from __future__ import annotations

import glob
import itertools
import os
from collections.abc import Sequence
from pathlib import Path

from sabounds.numerics.checkpoints.errors import shown
from sabounds.numerics.user_files import read_text

GLOB_CHARS = set("*?[")
MODEL_FILE_SUFFIXES = (".onnx", ".safetensors", ".bin", ".pt", ".pth")
MAX_LIST_BYTES = 16 * 2**20
MAX_LINE_CHARS = 4096
MAX_LIST_DEPTH = 16
MAX_SOURCES = 100_000


class SourceListError(ValueError):
    """A SOURCES argument that names nothing usable (an empty glob, an unreadable list file)."""


def _is_source(path: str) -> bool:
    try:
        return Path(path).suffix in MODEL_FILE_SUFFIXES or Path(path).is_dir()
    except (OSError, ValueError):  # a folder that may not be read, a name too long: not a source
        return False


def _glob(pattern: str, root: str | None) -> list[str]:
    """The folders and model files ``pattern`` matches, sorted; ``root``: the folder a relative pattern is taken
    in (a list file's folder, never itself read as a pattern), None for the current folder."""
    try:
        matches = (
            str(Path(root) / p) if root else p for p in glob.iglob(_literal_prefix(pattern, root), root_dir=root)
        )
        found = list(itertools.islice((p for p in matches if _is_source(p)), MAX_SOURCES + 1))
    except (OSError, ValueError, RecursionError) as exc:
        raise SourceListError(f"{shown(pattern)}: the pattern cannot be expanded ({exc})") from None
    if len(found) > MAX_SOURCES:
        raise SourceListError(f"{shown(pattern)}: the pattern matches more than {MAX_SOURCES} sources")
    if not found:
        raise SourceListError(f"{shown(pattern)}: the pattern matches no folder")
    return sorted(found)


def _literal_prefix(pattern: str, root: str | None) -> str:
    """``pattern`` with its longest leading run of folders that exist as written escaped: ``runs[1]/ckpt-*`` beside a
    folder ``runs[1]`` looks inside that folder (not in ``runs1``); the rest stays a pattern."""
    parts = pattern.split(os.sep)
    for k in range(len(parts) - 1, 0, -1):
        head = os.sep.join(parts[:k])
        if head and _exists(str(Path(root) / head) if root else head):
            return glob.escape(head) + os.sep + os.sep.join(parts[k:])
    return pattern


def _exists(path: str) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):  # a NUL byte, a name too long: it does not exist as typed
        return False


def _is_list_file(item: str) -> bool:
    try:
        return Path(item).is_file() and Path(item).suffix not in MODEL_FILE_SUFFIXES
    except (OSError, ValueError):
        return False


def _read_list(item: str) -> list[str]:
    """The non-comment lines of a list file (regular, at most MAX_LIST_BYTES, lines at most MAX_LINE_CHARS)."""
    text = read_text(item, "list of checkpoints", MAX_LIST_BYTES, SourceListError)
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE_CHARS:
            raise SourceListError(
                f"{shown(item)}: line {number} has {len(line)} characters; at most {MAX_LINE_CHARS} are accepted"
            )
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def expand_sources(items: Sequence[str]) -> list[str]:
    """Checkpoints from folders and model files (``.onnx``, ...), globs (folders and model files they match, sorted)
    and text files listing any of these; order kept, repeats dropped.  A name that exists is taken literally, glob
    characters and all (a file ``a[1].safetensors``, a folder ``x*``); a pattern expands only where no such path
    exists."""
    out: list[str] = []
    _expand(items, out, [], {}, [0])
    seen: set[str] = set()
    return [s for s in out if not (s in seen or seen.add(s))]


def _expand(
    items: Sequence[str],
    out: list[str],
    chain: list[str],
    lists: dict[str, list[str]],
    visited: list[int],
    root: str | None = None,
) -> None:
    """Append the sources of ``items`` to ``out``; ``chain``: the list files being expanded; ``lists``: those read
    (their lines as written); ``visited``: a one-element count of the names looked at, capped so that lists naming
    lists stay linear; ``root``: the folder relative items are taken in (a list file's), None for the current one.
    A name that exists is read as it is written; only one that does not exist and holds ``*``, ``?`` or ``[`` is a
    pattern."""
    for item in items:
        visited[0] += 1
        if len(out) > MAX_SOURCES or visited[0] > 10 * MAX_SOURCES:
            raise SourceListError(f"the SOURCES and their lists name more than {MAX_SOURCES} sources in all")
        path = str(Path(root) / item) if root else item
        if not _exists(path) and GLOB_CHARS & set(item):
            out += _glob(item, root)
        elif _is_list_file(path):
            real = os.path.realpath(path)
            if real in chain:
                cycle = " -> ".join(shown(p) for p in chain[chain.index(real) :] + [real])
                raise SourceListError(f"{shown(path)}: the lists of checkpoints name each other in a cycle ({cycle})")
            if len(chain) >= MAX_LIST_DEPTH:
                raise SourceListError(f"{shown(path)}: lists of checkpoints nested more than {MAX_LIST_DEPTH} deep")
            if real not in lists:
                lists[real] = _read_list(path)
            _expand(lists[real], out, chain + [real], lists, visited, os.path.dirname(path) or None)
        else:
            out.append(path)
