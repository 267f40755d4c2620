"""Decide every registered check: derivation steps (must be proved or verified) and claims (any verdict is a result).

Exit status 0 when no derivation step is refuted or unresolved, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from sabounds.api import verify
from sabounds.api._checks import audit_mutants, count_checks
from sabounds.arguments import add_settings_arguments
from sabounds.progress import progress_bar
from sabounds.render.check_table import fitting_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    add_settings_arguments(parser)
    parser.add_argument("--only", metavar="PATTERN", help="only checks whose id matches (glob, or a substring)")
    parser.add_argument(
        "--mutants",
        action="store_true",
        help="mutation audit instead: perturb every checked derivation step (constant, sign, exponent, "
        "dropped factor, and fine mutants off by 1e-12) and report which check refutes each "
        "mutant; exit 1 if one survives",
    )


def _print_json(record: dict) -> None:
    json.dump(record, sys.stdout, indent=2)
    sys.stdout.write("\n")


def run_mutants(args) -> int:
    """``--mutants``: the mutation audit under the arguments' settings."""
    audit = audit_mutants(
        args.only,
        precision=args.precision,
        samples=args.samples,
        seed=args.seed,
        progress_bar=lambda total: progress_bar("deciding mutants", total=total, enabled=not args.json),
    )
    counts = audit.summary
    if args.json:
        _print_json(audit.json)
        return 1 if counts["surviving"] else 0
    table = Table(header_style="bold")
    for col in ("step", "operator", "killed by", "verdict"):
        table.add_column(col, overflow="fold")
    for m in audit.results:
        table.add_row(
            m.step, m.operator, m.outcome.method, f"[{'green' if m.killed else 'red'}]{m.outcome.verdict.value}[/]"
        )
    console = Console()  # the terminal's own width: long cells fold
    console.print(table)
    console.print(
        f"{counts['mutants']} mutants of {counts['steps_mutated']} steps: {counts['killed']} killed, "
        f"{counts['surviving']} surviving; weak steps: {', '.join(counts['weak_steps']) or 'none'}; "
        f"not mutated (definitions, premises): {len(counts['counted_apart'])}"
    )
    return 1 if counts["surviving"] else 0


def run(args) -> int:
    if args.mutants:
        return run_mutants(args)
    with progress_bar("deciding checks", total=count_checks(args.only), enabled=not args.json) as advance:
        result = verify(args.only, precision=args.precision, samples=args.samples, seed=args.seed, progress=advance)
    records, counts, failing = result.json["checks"], result.summary, result.failing
    if args.json:
        _print_json(result.json)
        return 1 if failing else 0
    console = Console()  # the terminal's own width (COLUMNS when not a terminal)
    table, dropped = fitting_table(records, console.width)
    console.print(table)
    if dropped:
        console.print(
            f"({', '.join(dropped)} left out to fit {console.width} columns; --json has every field)", highlight=False
        )
    line = ", ".join(f"{n} {v}" for v, n in counts.items() if v != "basis")
    line += "; by basis: " + ", ".join(f"{n} {v}" for v, n in counts["basis"].items() if n)
    console.print(
        f"{len(records)} checks: {line}; {sum(r['seconds'] for r in records):.1f} s"
        + (f"; FAILING derivation steps: {', '.join(failing)}" if failing else "")
    )
    return 1 if failing else 0
