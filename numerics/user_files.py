"""The one bounded reader of every file a user names (TOML, JSON, list files, mapping templates, bound files).

A file is opened with ``O_RDONLY | O_NONBLOCK`` and checked with ``fstat`` before one byte is read, so a FIFO, a
device or a socket is refused without blocking; its size is capped (``Limits.max_bytes``), and its structure is
capped before a parser builds anything: dotted key parts per key, nesting depth of arrays and tables, items per
array, keys in all, and digits per integer literal.  ``tomllib`` stores every prefix of a dotted key (29 000
parts: 3 GB) and Python refuses ints over 4300 digits with a traceback, so both are counted on the text first.
Every refusal is one line naming the file and the limit (:class:`UserFileError`, or the ``error`` class given).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path


class UserFileError(ValueError):
    """A user file that is not read: the message is one line naming the file and the limit or fault."""

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


@dataclass(frozen=True)
class Limits:
    """Caps on one file: bytes, dotted key parts in one key, nesting depth, items in one array, keys in all and
    digits in one integer literal (TOML integers are 64-bit: 19 digits; 100 leaves room for the decoder's own
    refusals with a one-line message)."""

    max_bytes: int
    max_key_parts: int = 16
    max_depth: int = 64
    max_items: int = 100_000
    max_keys: int = 10_000
    max_digits: int = 100


def _shown(path) -> str:
    return json.dumps(os.fsdecode(path), ensure_ascii=False)


def _open_regular(path, what: str, error: type[Exception]) -> tuple[int, os.stat_result]:
    """A descriptor on the regular file ``path`` and its ``fstat``: opened ``O_NONBLOCK`` so a FIFO cannot block."""
    where = _shown(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"{where}: {what} not found") from None
    except (OSError, ValueError) as exc:
        raise error(f"{where}: cannot open the {what} ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        info = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise error(f"{where}: cannot read the {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise error(f"{where}: the {what} is not a regular file")
    return fd, info


def require_regular_file(path, what: str, error: type[Exception] = UserFileError) -> None:
    """Refuse ``path`` unless it is a regular file (for readers that map the file themselves, such as GGUF's)."""
    fd, _ = _open_regular(path, what, error)
    os.close(fd)


def read_bytes(path, what: str, max_bytes: int, error: type[Exception] = UserFileError) -> bytes:
    """The bytes of the regular file ``path`` (at most ``max_bytes``); a FIFO, device, socket or folder is refused
    after ``open(O_NONBLOCK)`` and ``fstat``, before any read can block."""
    where = _shown(path)
    fd, info = _open_regular(path, what, error)
    try:
        if info.st_size > max_bytes:
            raise error(f"{where}: the {what} is larger than {max_bytes} bytes ({info.st_size} bytes)")
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise error(f"{where}: cannot read the {what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if total > max_bytes:
        raise error(f"{where}: the {what} grew past {max_bytes} bytes while read")
    return b"".join(chunks)


def read_text(path, what: str, max_bytes: int, error: type[Exception] = UserFileError) -> str:
    """:func:`read_bytes` decoded as UTF-8 (anything else is refused in one line)."""
    try:
        return read_bytes(path, what, max_bytes, error).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{_shown(path)}: the {what} is not UTF-8 text (byte {exc.start})") from None


_TOML_TOKEN = re.compile(
    r'''
    (?P<string>"""(?:[^\\]|\\.)*?(?:"""|\Z) | \'\'\'.*?(?:\'\'\'|\Z) | "(?:[^"\\\n]|\\.)*(?:"|$) | '[^'\n]*(?:'|$))
  | (?P<comment>\#[^\n]*) | (?P<nl>\n) | (?P<open>[\[{]) | (?P<close>[\]}]) | (?P<eq>=) | (?P<comma>,)
  | (?P<dot>\.) | (?P<digits>[0-9_]+) | (?P<other>[^\n"'\#\[\]{}=,.0-9_]+ | ["'\\])''',
    re.VERBOSE | re.DOTALL | re.M,
)


def check_toml_shape(text: str, where: str, limits: Limits, error: type[Exception] = UserFileError) -> None:
    """Refuse a TOML text beyond ``limits`` (key parts, depth, array items, keys, integer digits) in one line, by
    one linear pass over its tokens (strings and comments skipped), before ``tomllib`` builds anything."""
    stack: list[str] = []  # "h": a table header's bracket, "[": an array, "{": an inline table
    items: list[int] = []
    key, parts, keys, line = True, 1, 0, 1
    for m in _TOML_TOKEN.finditer(text):
        kind, token = m.lastgroup, m.group()
        if kind == "nl" or kind == "string":
            line += token.count("\n")
            if kind == "nl" and not stack:
                key, parts = True, 1
            continue
        if kind == "dot" and key:
            parts += 1
            if parts > limits.max_key_parts:
                raise error(
                    f"{where}: line {line} has a key of more than {limits.max_key_parts} dotted parts "
                    f"(at most {limits.max_key_parts})"
                )
        elif kind == "eq" and key:
            key, keys = False, keys + 1
        elif kind == "open":
            if key and (not stack or stack[-1] == "h") and token == "[":
                stack.append("h")
                keys += 1
                continue
            stack.append(token)
            items.append(0)
            if len([s for s in stack if s != "h"]) > limits.max_depth:
                raise error(
                    f"{where}: line {line}: arrays and tables nest more than {limits.max_depth} deep "
                    f"(at most {limits.max_depth})"
                )
            key, parts = token == "{", 1
        elif kind == "close" and stack:
            if stack.pop() != "h":
                items.pop()
            key = False
        elif kind == "comma" and stack and stack[-1] != "h":
            items[-1] += 1
            if items[-1] >= limits.max_items:
                raise error(
                    f"{where}: line {line}: an array or table of more than {limits.max_items} items "
                    f"(at most {limits.max_items})"
                )
            if stack[-1] == "{":
                key, parts = True, 1
        elif kind == "digits" and not key and len(token.replace("_", "")) > limits.max_digits:
            raise error(
                f"{where}: line {line}: a number of {len(token.replace('_', ''))} digits (at most {limits.max_digits})"
            )
        if keys > limits.max_keys:
            raise error(f"{where}: more than {limits.max_keys} keys (at most {limits.max_keys})")


def read_toml(path, what: str, limits: Limits, error: type[Exception] = UserFileError) -> dict:
    """The TOML file ``path`` as a dict, read by :func:`read_text` and shape-checked before ``tomllib`` parses it."""
    import tomllib

    text = read_text(path, what, limits.max_bytes, error)
    where = _shown(path)
    check_toml_shape(text, where, limits, error)
    try:
        return tomllib.loads(text)
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError is a ValueError
        raise error(
            f"{where}: the {what} is not valid TOML ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
        ) from None


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def json_depth(raw: bytes) -> int:
    """Largest nesting depth of ``[`` and ``{`` outside strings (the string literals are cut out first)."""
    stripped = _JSON_STRING.sub(b'""', raw)
    depth = best = 0
    for byte in stripped:
        if byte in (0x5B, 0x7B):
            depth += 1
            best = max(best, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return best


def parse_json(raw: bytes, where: str, what: str, limits: Limits, error: type[Exception] = UserFileError):
    """JSON bytes within ``limits``: depth and items (commas outside strings, an upper bound on values) counted before
    parsing, integer digits and the non-standard ``NaN``, ``Infinity`` and ``-Infinity`` refused as they are parsed."""
    stripped = _JSON_STRING.sub(b'""', raw) if b'"' in raw else raw
    opened = stripped.count(b"[") + stripped.count(b"{")
    if opened > limits.max_depth:
        depth = json_depth(raw)
        if depth > limits.max_depth:
            raise error(f"{where}: the {what} nests {depth} levels deep; at most {limits.max_depth} are accepted")
    values = stripped.count(b",") + 1
    if values > limits.max_items:
        raise error(f"{where}: the {what} holds about {values} values; at most {limits.max_items} are accepted")
    del stripped

    def integer(text: str) -> int:
        if len(text.lstrip("-")) > limits.max_digits:
            raise error(
                f"{where}: the {what} has a number of {len(text.lstrip('-'))} digits (at most {limits.max_digits})"
            )
        return int(text)

    def constant(text: str):
        raise error(f"{where}: the {what} holds {text}; only finite numbers are accepted")

    try:
        return json.loads(raw.decode("utf-8"), parse_int=integer, parse_constant=constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        if isinstance(exc, error):
            raise
        raise error(f"{where}: the {what} is not valid JSON ({' '.join(str(exc).split())})") from None


def read_json(path, what: str, limits: Limits, error: type[Exception] = UserFileError):
    """The JSON file ``path``, read by :func:`read_bytes` and parsed by :func:`parse_json`."""
    return parse_json(read_bytes(path, what, limits.max_bytes, error), _shown(path), what, limits, error)


def read_structured(path, what: str, limits: Limits, error: type[Exception] = UserFileError):
    """A ``.json`` file by :func:`read_json`, anything else as TOML by :func:`read_toml`."""
    reader = read_json if Path(path).suffix.lower() == ".json" else read_toml
    return reader(path, what, limits, error)
