"""User strings (paths, file names, config values) escaped for the format they land in: Markdown (report.md and
the report.html rendered from it), CSV cells a spreadsheet opens, and matplotlib text (mathtext, SVG).

- Markdown: every ASCII punctuation character that has a meaning inside a line (brackets, parentheses, ``!``,
  ``<``, ``>``, ``*``, ``_``, backticks, ``|``, ``&``, ``~``, ``#``, ``\\``, ...), and a leading one, is
  backslash-escaped (CommonMark renders ``\\X`` as a literal X), so a name can open no link, image, emphasis,
  heading, list, table cell or HTML tag; ``.``, ``/``, ``-``, ``:`` and ``,`` inside a name stay as they are, so a
  path still reads as one.  Control characters (a newline could start a heading or a table row) are shown as ``?``,
  as ``ls`` does.
- CSV: a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is prefixed with ``'`` (the
  OWASP rule against formula injection), unless it is a plain number such as ``-1.5e3``.
- matplotlib: ``$`` is escaped, so a name never enters mathtext (which would render or reject it).
- terminal: :func:`printable` shows control characters (escape sequences, newlines) as ``?``.
"""

from __future__ import annotations

import re
import string

_INERT = "./-:,;%?@'\""  # no meaning inside a line of CommonMark (typographer and linkify are off)
_SPECIAL = re.compile("([" + re.escape("".join(c for c in string.punctuation if c not in _INERT)) + "])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def markdown_text(text) -> str:
    """``text`` as literal Markdown inline text: no markup, link, image or line break can come from it."""
    text = _CONTROL.sub("?", str(text))
    escaped = _SPECIAL.sub(r"\\\1", text)
    return "\\" + escaped if text[:1] in tuple(_INERT) else escaped


def csv_cell(value):
    """``value`` unchanged, except a text cell a spreadsheet would run as a formula, which gets a leading ``'``."""
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    try:
        float(value)
        return value
    except ValueError:
        return "'" + value


def csv_row(values) -> list:
    return [csv_cell(v) for v in values]


def printable(text) -> str:
    """``text`` with control characters (terminal escapes, newlines) shown as ``?``."""
    return _CONTROL.sub("?", str(text))


def plot_text(text) -> str:
    """``text`` for a matplotlib label or title: no mathtext, no control characters."""
    return printable(text).replace("$", r"\$")
