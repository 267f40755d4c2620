"""Errors of checkpoint reading, and the bounded JSON reader every checkpoint file goes through.

Every problem is a :class:`CheckpointError` whose message is one line naming the file and the tensor or field;
user-controlled names (file names, tensor names) are shown through :func:`shown`, so a newline in a shard's
name cannot break the line.  JSON is refused above ``MAX_JSON_BYTES`` or ``MAX_JSON_DEPTH`` levels of nesting
before it is parsed, so a hostile ``config.json`` or index gives this error, never a RecursionError; a file of more
than ``MAX_JSON_VALUES`` values is refused before it is parsed (the 200 MB memory budget).
"""

from __future__ import annotations

import json
from pathlib import Path

from sabounds.numerics.user_files import json_depth  # noqa: F401  (its former home)

MAX_JSON_BYTES = 16 * 2**20
MAX_JSON_DEPTH = 64
MAX_JSON_VALUES = 1_000_000


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message is one line naming the file and the tensor or field."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines included) collapsed to one space."""
    return " ".join(str(text).split())


def shown(name: object) -> str:
    """A user-controlled name as a quoted, escaped literal (``'a\\nb'``): one line, and visibly the name."""
    return json.dumps(str(name), ensure_ascii=False)


def read_json(path: Path, what: str = "JSON", max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH):
    """Parse a JSON file through the one bounded reader (:mod:`sabounds.numerics.user_files`: regular file, size,
    depth, values and digits capped); any failure is a one-line :class:`CheckpointError`."""
    from sabounds.numerics.user_files import Limits
    from sabounds.numerics.user_files import read_json as bounded_json

    return bounded_json(path, what, Limits(max_bytes, max_depth=max_depth, max_items=MAX_JSON_VALUES), CheckpointError)
