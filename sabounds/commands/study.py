"""Train a grid of small transformer encoders, measure them and rank every measure against the generalization gap.

Tasks: digits (scikit-learn's 8x8 digits as 8 row tokens), parity (Edelman et al.'s sparse Boolean functions over T
tokens), modadd (addition mod 23).  Each run is one Dask task (a local cluster of --workers single-threaded processes,
or --scheduler); finished runs are cached by content (data, configuration, seed, code) in the cache folder, so an
interrupted or grown study resumes.  Every run trains to training cross-entropy 0.01 or is excluded; reports per
measure and axis the granulated tau with its interval, permutation p-value and verdict, the overall tau and the
noise-filtered sign-error; with --out, study.json, runs.csv, table.md and figures.  Needs the `study` extra
(torch, scikit-learn, dask).
"""

from __future__ import annotations

import argparse
import json
import sys

from sabounds.api import study, study_grids, study_tasks
from sabounds.arguments import add_figure_arguments, cache_dir_of, figure_options, workers
from sabounds.progress import progress_bar
from sabounds.scheduler_address import scheduler_address


def add_arguments(parser: argparse.ArgumentParser) -> None:
    grids, tasks = study_grids(), study_tasks()
    parser.add_argument(
        "--grid",
        default="default",
        choices=tuple(grids),
        help="; ".join(f"{k}: {v}" for k, v in grids.items()) + " (default %(default)s)",
    )
    parser.add_argument("--tasks", metavar="T[,T]", help=f"comma-separated subset of {','.join(tasks)} (default all)")
    parser.add_argument(
        "--workers",
        type=workers,
        metavar="K",
        help="local cluster size (default: one worker per core; 0: run in this process)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        type=scheduler_address,
        help="use the running Dask scheduler at ADDRESS ([tcp://|tls://]HOST:PORT) instead",
    )
    parser.add_argument("--out", metavar="DIR", help="write study.json, runs.csv, table.md and figures into new DIR")
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="run cache folder (default: $SABOUNDS_CACHE_DIR or the user "
        "cache folder; runs go under its study/ subfolder)",
    )
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the run cache")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    add_figure_arguments(parser, default=("png", "pdf", "svg"))


def run(args) -> int:
    tasks = None if args.tasks is None else [t.strip() for t in args.tasks.split(",") if t.strip()]
    result = study(
        args.grid,
        tasks=tasks,
        workers=args.workers,
        scheduler=args.scheduler,
        cache_dir=cache_dir_of(args),
        out=args.out,
        force=args.force,
        figures=figure_options(args),
        progress_bar=lambda total: progress_bar("runs", total=total, enabled=not args.json),
    )
    if args.json:
        print(json.dumps(result.json, indent=2, sort_keys=True))
    else:
        _print_tables(result, args.out)
    missing = result.json.get("missing") or []
    if missing:
        print(
            f"sabounds study: partial result: {len(missing)} run(s) missing, lost with their workers ({missing[0]}"
            f"{', ...' if len(missing) > 1 else ''}); rerun to complete it (finished runs come from the cache)",
            file=sys.stderr,
        )
        return 1
    return 0


def _print_tables(result, out) -> None:
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    for section in result.sections():
        if "line" in section:
            console.print(escape(section["line"]), highlight=False)
            continue
        table = Table(
            title=escape(section["title"]), box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, show_edge=False
        )
        for column in section["header"]:
            table.add_column(column, justify="left" if column in ("measure", "verdict") else "right", no_wrap=True)
        for row in section["rows"]:
            table.add_row(*map(escape, row))
        console.print(table)
    if out:
        console.print(escape(f"wrote {out}"), highlight=False)
