"""The summary ``sabounds sweep`` prints: one row per checkpoint and depth (user strings inert), the fits per
family, and how many layers came from the cache."""

from __future__ import annotations

import math


def shown(row: dict, quantity: str) -> str:
    """A row's value to 6 digits; beyond float64 the decimal of its log10 column (as ``analyze`` prints it)."""
    from sabounds.numerics.log_real import from_ln

    if row[quantity] is not None or row[f"{quantity}_log10"] is None:
        return f"{row[quantity]:.6g}"
    return f"{from_ln(row[f'{quantity}_log10'] * math.log(10)):.6g}"


def print_summary(rows, fits, layers: dict, seconds, out) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from sabounds.render.user_text import printable

    table = Table(title="sweep: one row per checkpoint and depth")
    for column in ("source", "family", "L", "N", "ours", "edelman", "ff gram/lapack", "status"):
        table.add_column(column, justify="left" if column in ("source", "family", "status") else "right")
    for r in rows:  # user strings as rich Text: never read as console markup, control characters shown as ?
        source, family = Text(printable(r["source"])), Text(printable(r["family"] or ""))
        if r["status"] == "ok":
            table.add_row(
                source,
                family,
                str(r["L"]),
                str(r["N"]),
                shown(r, "ours"),
                shown(r, "edelman"),
                f"{r['ff_gram']}/{r['ff_lapack']}",
                "ok",
            )
        else:
            table.add_row(source, family, "", "", "", "", "", Text(f"error: {printable(r['error'])}"))
    console = Console()
    console.print(table)
    for family, fit in fits:
        slopes = ", ".join(
            f"d log {fit.quantity} / d log {v} = {s:.3f}"
            for v, s in (("L", fit.slope_L), ("N", fit.slope_N))
            if s is not None
        )
        console.print(Text(f"{printable(family)}: {fit.quantity}: {slopes or 'no varying L or N'}"), highlight=False)
    console.print(f"{layers['total']} layers ({layers['from_cache']} from cache) in {seconds:.2f} s", highlight=False)
    if out:
        console.print(f"wrote {out}", highlight=False)
