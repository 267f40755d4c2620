"""Decide every registered check: derivation steps (must be proved or verified) and claims (any verdict is a result).

Exit status 0 when no derivation step is refuted or unresolved, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from sabounds.proofs_check.registry import run_all, select
from sabounds.proofs_check.outcome_records import failing_steps, outcome_record, summary
from sabounds.proofs_check.verdict import Settings
from sabounds.errors import UserError
from sabounds.progress import progress_bar

_COLOURS = {"proved": "green", "verified": "cyan", "refuted": "red", "unresolved": "yellow"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--precision", type=int, default=50, metavar="D", help="mpmath digits (default 50, at least 15)")
    parser.add_argument("--samples", type=int, default=200, metavar="K", help="random draws per numeric check (default 200)")
    parser.add_argument("--seed", type=int, default=Settings.seed, help="random seed (default %(default)s)")
    parser.add_argument("--only", metavar="PATTERN", help="only checks whose id matches (glob, or a substring)")
    parser.add_argument("--mutants", action="store_true",
                        help="mutation audit instead: perturb every checked derivation step (constant, sign, exponent, "
                             "dropped factor, and fine mutants off by 1e-12) and report which check refutes each "
                             "mutant; exit 1 if one survives")


def settings_from(args) -> Settings:
    try:
        return Settings(precision=args.precision, samples=args.samples, seed=args.seed)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def decide(args) -> tuple[list, dict]:
    """Run the selected checks under the arguments' settings; returns ``(results, summary)``."""
    settings = settings_from(args)
    checks = select(args.only)
    if not checks:
        raise UserError(f"--only {args.only!r} matches no check id")
    with progress_bar("deciding checks", total=len(checks), enabled=not args.json) as advance:
        results = run_all(checks, settings, progress=lambda c, o: advance(c.id))
    return results, summary(results)


def _precision_samples(rec: dict) -> str:
    if rec["precision_digits"] is None and rec["samples"] is None:
        return "symbolic"
    return f"{rec['precision_digits']} digits, {rec['samples']} samples"


_COLUMNS = ("id", "verdict", "claim", "method", "precision, samples", "s")
"""Columns in the order they are given up when the terminal is narrow (last first)."""
_RIGHT_EDGES = "┓┃┩│┘"


def _table(records: list[dict], columns: tuple[str, ...]) -> Table:
    cells = {"id": lambda r: r["id"], "claim": lambda r: r["claim"],
             "verdict": lambda r: f"[{_COLOURS[r['verdict']]}]{r['verdict']}[/]", "method": lambda r: r["method"],
             "precision, samples": _precision_samples, "s": lambda r: f"{r['seconds']:.2f}"}
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
        natural = [max([len(c)] + [_plain_len(str(cell)) for cell in col.cells]) for c, col in
                   zip(_COLUMNS[:n], table.columns)]
        if all(w >= min(MIN_WIDTH, want) for w, want in zip(_column_widths(lines[0]), natural)):
            break
    return _table(records, _COLUMNS[:n]), list(_COLUMNS[n:])


def run_mutants(args) -> int:
    """``--mutants``: the mutation audit of ``sabounds.proofs_check.mutants`` under the arguments' settings."""
    from sabounds.proofs_check import mutants as MU
    settings = settings_from(args)
    derivations = [d for d in MU.derivations_audited() if not args.only or args.only in d.id]
    if not derivations:
        raise UserError(f"--only {args.only!r} matches no derivation (thm41, thm31, attention, edelman, whole_bound)")
    total = sum(len(MU.mutate(step)) for d in derivations for step in d)
    with progress_bar("deciding mutants", total=total, enabled=not args.json) as advance:
        results = MU.audit(derivations, settings, progress=advance)
    counts = MU.summary(results, derivations)
    if args.json:
        json.dump({"mutants": [MU.record(m) for m in results], "summary": counts}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        table = Table(header_style="bold")
        for col in ("step", "operator", "killed by", "verdict"):
            table.add_column(col, overflow="fold")
        for m in results:
            colour = "green" if m.killed else "red"
            table.add_row(m.step, m.operator, m.outcome.method, f"[{colour}]{m.outcome.verdict.value}[/]")
        console = Console()  # the terminal's own width: long cells fold
        console.print(table)
        console.print(f"{counts['mutants']} mutants of {counts['steps_mutated']} steps: {counts['killed']} killed, "
                      f"{counts['surviving']} surviving; weak steps: {', '.join(counts['weak_steps']) or 'none'}; "
                      f"not mutated (definitions, premises): {len(counts['counted_apart'])}")
    return 1 if counts["surviving"] else 0


def run(args) -> int:
    if args.mutants:
        return run_mutants(args)
    results, counts = decide(args)
    records = [outcome_record(c, o) for c, o in results]
    failing = failing_steps(results)
    if args.json:
        json.dump({"checks": records, "summary": counts}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        console = Console()  # the terminal's own width (COLUMNS when not a terminal)
        table, dropped = fitting_table(records, console.width)
        console.print(table)
        if dropped:
            console.print(f"({', '.join(dropped)} left out to fit {console.width} columns; --json has every field)",
                          highlight=False)
        total = sum(r["seconds"] for r in records)
        line = ", ".join(f"{n} {v}" for v, n in counts.items() if v != "basis")
        line += "; by basis: " + ", ".join(f"{n} {v}" for v, n in counts["basis"].items() if n)
        console.print(f"{len(records)} checks: {line}; {total:.1f} s"
                      + (f"; FAILING derivation steps: {', '.join(c.id for c in failing)}" if failing else ""))
    return 1 if failing else 0
