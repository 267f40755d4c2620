"""Errors of checkpoint reading, and the bounded JSON reader every checkpoint file goes through.

Every problem is a :class:`CheckpointError` whose message is one line naming the file and the tensor or field;
user-controlled names (file names, tensor names) are shown through :func:`shown`, so a newline in a shard's
name cannot break the line.  JSON is refused above ``MAX_JSON_BYTES`` or ``MAX_JSON_DEPTH`` levels of nesting
before it is parsed, so a hostile ``config.json`` or index gives this error, never a RecursionError.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

MAX_JSON_BYTES = 64 * 2 ** 20
MAX_JSON_DEPTH = 64
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


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


def json_depth(raw: bytes) -> int:
    """Largest nesting depth of ``[`` and ``{`` outside strings (the string literals are cut out first)."""
    stripped = _STRING.sub(b'""', raw)
    depth = best = 0
    for byte in stripped:
        if byte in (0x5B, 0x7B):
            depth += 1
            best = max(best, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return best


def read_json(path: Path, what: str = "JSON", max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH):
    """Parse a JSON file with bounded size and nesting; any failure is a one-line :class:`CheckpointError`."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise CheckpointError(f"{path}: {what} of {size} bytes exceeds the limit of {max_bytes} bytes")
        raw = path.read_bytes()
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    depth = json_depth(raw) if raw.count(b"[") + raw.count(b"{") > max_depth else 0
    if depth > max_depth:
        raise CheckpointError(f"{path}: {what} nests {depth} levels deep; at most {max_depth} are accepted")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise CheckpointError(f"{path}: not valid JSON ({one_line(exc)})") from None
