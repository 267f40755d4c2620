"""Analyse many checkpoints as Dask tasks (one per layer), with cached, certified spectra.

SOURCES are checkpoint folders, glob patterns, or text files listing them (one per line).  Without --scheduler a
local cluster of --workers single-threaded processes (default: one per core) runs the layers that are not cached;
--workers 0 runs them in this process.  A checkpoint that fails becomes one row with its one-line error.  With --out,
the folder gets sweep.parquet / sweep.csv (one row per checkpoint and depth), fits per family, figures and
provenance, all at once.  Spectra are cached in a content-addressed folder (see --cache-dir).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

from sabounds.commands.analyze import grid_m, positive_float
from sabounds.commands.scaling import depth_list
from sabounds.errors import UserError
from sabounds.numerics.proxies.published import L_PHI
from sabounds.numerics.spectra import RANK_TOL
from sabounds.scheduler_address import scheduler_address


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sources", nargs="+", metavar="SOURCE", help="checkpoint folder, glob, or text file listing them")
    parser.add_argument("--workers", type=non_negative_int, metavar="K",
                        help="local cluster size (default: one worker per core; 0: run in this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS", type=scheduler_address,
                        help="use the running Dask scheduler at ADDRESS ([tcp://|tls://]HOST:PORT) instead")
    parser.add_argument("--out", metavar="DIR", help="write the table, fits, figures and provenance into new DIR")
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    parser.add_argument("--depths", type=depth_list, metavar="1,2,...", help="depth truncations of every checkpoint")
    parser.add_argument("--grid-m", type=grid_m, metavar="M", help="p grid {0, 1/M, ..., 2} (default ceil(L + ln N))")
    parser.add_argument("--lphi", type=positive_float, default=L_PHI, metavar="X",
                        help="Lipschitz bound of GELU (default %(default)s)")
    parser.add_argument("--rank-tol", type=positive_float, default=RANK_TOL, metavar="T",
                        help="numerical-rank tolerance (default %(default)s)")
    parser.add_argument("--method", choices=("certified", "exact"), default="certified",
                        help="feed-forward spectra: Gram route where certified to 1e-9 relative, else LAPACK "
                             "(default), or LAPACK always")
    parser.add_argument("--cache-dir", metavar="DIR", help="spectra cache folder, apart from the checkpoints, list "
                        "files and --out (default: $SABOUNDS_CACHE_DIR or the user cache folder, e.g. "
                        "~/.cache/sabounds)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the spectra cache")
    parser.add_argument("--json", action="store_true", help="print the rows and fits as JSON")
    from sabounds.commands.analyze import add_figure_arguments
    add_figure_arguments(parser, default=("png", "pdf", "svg"))


def _cache_dir(args) -> str | None:
    from sabounds.numerics.cache import default_cache_dir
    if args.no_cache:
        return None
    path = args.cache_dir or default_cache_dir()
    return None if path is None else str(path)


def check_cache_dir(cache_dir: str | None, inputs, out: str | None) -> None:
    """Refuse (UserError) a spectra cache that is not a folder, or that is, contains or lies inside an input
    (checkpoint or list file) or the --out folder: the cache writes ``entries/`` and ``files/`` into it."""
    if cache_dir is None:
        return
    if "\0" in cache_dir:
        raise UserError("--cache-dir contains a NUL character")
    if os.path.lexists(cache_dir) and not os.path.isdir(cache_dir):
        raise UserError(f"the spectra cache {cache_dir} exists and is not a folder; give a folder as --cache-dir")
    real = os.path.realpath(cache_dir)
    for item, what in [*((i, "the input") for i in inputs), (out, "the --out folder")]:
        if item is None or not str(item).strip():
            continue
        other = os.path.realpath(item)
        if os.path.commonpath([real, other]) in (real, other):
            raise UserError(f"the spectra cache {cache_dir} is, contains or lies inside {what} {item}; "
                            "choose another --cache-dir")


def run(args) -> int:
    from sabounds.numerics.proxies.sweep import (SourceListError, checkpoint_rows, expand_sources, family_fits,
                                                 method_rows, one_line, plan_sweep)
    from sabounds.distributed import run_tasks
    from sabounds.progress import progress_bar

    if args.scheduler is not None and args.workers is not None:
        raise UserError("--workers sizes a local cluster; it cannot be combined with --scheduler")
    if args.out is not None and not args.out.strip():
        raise UserError("--out needs a folder name")
    try:
        sources = expand_sources(args.sources)
    except SourceListError as exc:
        raise UserError(str(exc)) from None
    cache_dir = _cache_dir(args)
    protect = [*sources, *args.sources, cache_dir]  # checkpoints, list files and the cache: never written over
    if args.out:
        from sabounds.outputs.atomic import check_target
        check_target(args.out, args.force, protect=[p for p in protect if p and os.path.lexists(p)])
    check_cache_dir(cache_dir, [*sources, *(s for s in args.sources if os.path.lexists(s))], args.out)
    start = time.perf_counter()
    plan = plan_sweep(sources, args.method, cache_dir, args.depths)
    tasks = [t for p in plan for t in p.tasks]
    owner = {id(t): p.source for p in plan for t in p.tasks}
    left = {p.source: len(p.tasks) for p in plan}
    done = {"checkpoints": sum(1 for p in plan if not p.tasks)}
    with progress_bar("layers", total=len(tasks), enabled=not args.json) as advance:
        def on_done(task, outcome):
            source = owner[id(task)]
            left[source] -= 1
            done["checkpoints"] += left[source] == 0
            advance(f"checkpoints {done['checkpoints']}/{len(plan)}")
        try:
            outcomes = run_tasks(tasks, args.workers, args.scheduler, on_done)
        except OSError as exc:
            raise UserError(f"cannot reach the Dask scheduler {args.scheduler}: {one_line(exc)}") from None
    by_task = dict(zip(map(id, tasks), outcomes))
    rows, methods = [], []
    for p in plan:
        mine = [by_task[id(t)] for t in p.tasks]
        methods += method_rows(p, mine)
        failure = next((o for o in mine if isinstance(o, BaseException)), None)
        rows += checkpoint_rows(p, None if failure else mine, one_line(failure) if failure else None,
                                args.lphi, args.grid_m, args.rank_tol, args.method)
    fits = family_fits(rows)
    seconds = time.perf_counter() - start
    if args.out:
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.outputs.sweep_files import write_sweep_files
        with atomic_directory(args.out, force=args.force,
                              protect=[p for p in protect if p and os.path.lexists(p)]) as work:
            from sabounds.commands.analyze import figure_options
            write_sweep_files(rows, fits, _provenance(args, plan, cache_dir, seconds, outcomes), work, methods,
                              figure_options(args))
    if args.json:
        print(json.dumps({"rows": rows, "fits": [{"family": f, **vars(fit)} for f, fit in fits]}, indent=2))
        return 0
    _print_summary(rows, fits, outcomes, seconds, args.out)
    return 0


def _provenance(args, plan, cache_dir, seconds, outcomes) -> dict:
    from sabounds.outputs.provenance import package_versions, platform_line
    results = [o for o in outcomes if not isinstance(o, BaseException)]
    return {"command": ["sabounds", "sweep", *sys.argv[2:]] if sys.argv[1:2] == ["sweep"] else None,
            "settings": {"method": args.method, "lphi": args.lphi, "rank_tol": args.rank_tol, "grid_m": args.grid_m,
                         "depths": args.depths, "workers": args.workers, "scheduler": args.scheduler,
                         "cache_dir": cache_dir},
            "sources": [p.source for p in plan], "packages": package_versions(), "platform": platform_line(),
            "layers": {"total": len(outcomes), "from_cache": sum(r.cached for r in results),
                       "measured": sum(not r.cached for r in results),
                       "failed": len(outcomes) - len(results)},
            "seconds": round(seconds, 3)}


def _shown(row: dict, quantity: str) -> str:
    """A row's value to 6 digits; beyond float64 the decimal of its log10 column (as ``analyze`` prints it)."""
    from sabounds.numerics.log_real import from_ln
    if row[quantity] is not None or row[f"{quantity}_log10"] is None:
        return f"{row[quantity]:.6g}"
    return f"{from_ln(row[f'{quantity}_log10'] * math.log(10)):.6g}"


def _print_summary(rows, fits, outcomes, seconds, out) -> None:
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
            table.add_row(source, family, str(r["L"]), str(r["N"]), _shown(r, "ours"), _shown(r, "edelman"),
                          f"{r['ff_gram']}/{r['ff_lapack']}", "ok")
        else:
            table.add_row(source, family, "", "", "", "", "", Text(f"error: {printable(r['error'])}"))
    console = Console()
    console.print(table)
    for family, fit in fits:
        slopes = ", ".join(f"d log {fit.quantity} / d log {v} = {s:.3f}"
                           for v, s in (("L", fit.slope_L), ("N", fit.slope_N)) if s is not None)
        console.print(Text(f"{printable(family)}: {fit.quantity}: {slopes or 'no varying L or N'}"), highlight=False)
    cached = sum(1 for o in outcomes if not isinstance(o, BaseException) and o.cached)
    console.print(f"{len(outcomes)} layers ({cached} from cache) in {seconds:.2f} s", highlight=False)
    if out:
        console.print(f"wrote {out}", highlight=False)
