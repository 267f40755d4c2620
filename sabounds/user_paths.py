"""Paths a user names on the command line, checked against the system's limits before any work.

A name component over ``NAME_MAX`` bytes (255 on Linux) or a path over ``PATH_MAX - 1`` bytes (4095) cannot be
opened or created anywhere; each such path is refused here in one line (exit 2) instead of an ``ENAMETOOLONG``
traceback at whichever of the many places first touches it.  A NUL byte is refused the same way.
"""

from __future__ import annotations

import os

from sabounds.errors import UserError

PATH_ARGUMENTS = {
    "model_dir": "MODEL",
    "model_dirs": "MODEL",
    "sources": "SOURCE",
    "out": "--out",
    "mapping": "--mapping",
    "cache_dir": "--cache-dir",
    "model": "--model",
}


def _limit(name: str, fallback: int) -> int:
    try:
        return int(os.pathconf("/", name))
    except (OSError, ValueError, AttributeError):
        return fallback


NAME_MAX = _limit("PC_NAME_MAX", 255)
PATH_MAX = _limit("PC_PATH_MAX", 4096)


def check_path(text: str, what: str) -> None:
    """UserError (one line) if ``text`` holds a NUL, a component over NAME_MAX bytes or over PATH_MAX - 1 bytes."""
    if "\0" in text:
        raise UserError(f"{what}: the path contains a NUL byte")
    raw = os.fsencode(text)
    if len(raw) >= PATH_MAX:
        raise UserError(f"{what}: the path has {len(raw)} bytes; the system accepts at most {PATH_MAX - 1}")
    for part in raw.split(b"/"):
        if len(part) > NAME_MAX:
            shown = os.fsdecode(part[:24]) + "..."
            raise UserError(
                f"{what}: the name {shown!r} has {len(part)} bytes; the system accepts at most {NAME_MAX} in one name"
            )


def check_user_paths(args) -> None:
    """Every path argument the command has (see PATH_ARGUMENTS), and ``$SABOUNDS_CACHE_DIR`` when set."""
    for key, what in PATH_ARGUMENTS.items():
        value = getattr(args, key, None)
        for text in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(text, str):
                check_path(text, what)
    cache = os.environ.get("SABOUNDS_CACHE_DIR")
    if cache and getattr(args, "command", None) == "sweep":
        check_path(cache, "SABOUNDS_CACHE_DIR")
