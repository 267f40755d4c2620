"""The table ``sabounds verify`` prints: one row per check, with as many columns as fit the terminal (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

_COLOURS = {"proved": "green", "verified": "cyan", "refuted": "red", "unresolved": "yellow"}


def _precision_samples(rec: dict) -> str:
    if rec["precision_digits"] is None and rec["samples"] is None:
        return "symbolic"
    return f"{rec['precision_digits']} digits, {rec['samples']} samples"


_COLUMNS = ("id", "verdict", "claim", "method", "precision, samples", "s")
"""Columns in the order they are given up when the terminal is narrow (last first)."""
_RIGHT_EDGES = "┓┃┩│┘"


def _table(records: list[dict], columns: tuple[str, ...]) -> Table:
    cells = {
        "id": lambda r: r["id"],
        "claim": lambda r: r["claim"],
        "verdict": lambda r: f"[{_COLOURS[r['verdict']]}]{r['verdict']}[/]",
        "method": lambda r: r["method"],
        "precision, samples": _precision_samples,
        "s": lambda r: f"{r['seconds']:.2f}",
    }
    table = Table(show_lines=False, header_style="bold")
    for col in columns:
        table.add_column(col, overflow="fold", no_wrap=col in ("id", "verdict", "s"))
    for rec in records:
        table.add_row(*(cells[c](rec) for c in columns))
    return table


MIN_WIDTH = 12
"""A column narrower than this (or than its longest cell, if shorter) folds its words into unreadable slivers."""


def _plain_len(cell: str) -> int:
    from rich.text import Text

    return Text.from_markup(cell).cell_len


def _column_widths(top_border: str) -> list[int]:
    """The content widths of a rendered table's columns, read off its top border (``┏━━┳━━┓``, padding 1 a side)."""
    return [len(seg) - 2 for seg in top_border.strip()[1:-1].split("┳")]


def fitting_table(records: list[dict], width: int) -> tuple[Table, list[str]]:
    """The table with as many columns (in :data:`_COLUMNS` order) as fit ``width``: columns are dropped from the
    right until every line ends with the table's border and every column is at least :data:`MIN_WIDTH` wide (or as
    wide as its longest cell); the columns left out."""
    import io

    for n in range(len(_COLUMNS), 1, -1):
        table = _table(records, _COLUMNS[:n])
        probe = Console(width=width, file=io.StringIO(), color_system=None, record=True)
        probe.print(table)
        lines = [line for line in probe.export_text().splitlines() if line]
        if not all(line[-1:] in _RIGHT_EDGES for line in lines):
            continue
        natural = [
            max([len(c)] + [_plain_len(str(cell)) for cell in col.cells]) for c, col in zip(_COLUMNS[:n], table.columns)
        ]
        if all(w >= min(MIN_WIDTH, want) for w, want in zip(_column_widths(lines[0]), natural)):
            break
    return _table(records, _COLUMNS[:n]), list(_COLUMNS[n:])
