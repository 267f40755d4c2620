"""Analyse many checkpoints as Dask tasks (one per layer), with cached, certified spectra.

SOURCES are checkpoint folders, glob patterns, or text files listing them (one per line); a name that exists is
read literally, and only one that does not is a glob pattern.  Without --scheduler a local cluster of --workers
single-threaded processes (default: one per core) runs the layers that are not cached; --workers 0 runs them in
this process.  A checkpoint that fails becomes one row with its one-line error.  With --out,
the folder gets sweep.parquet / sweep.csv (one row per checkpoint and depth), fits per family, figures and
provenance, all at once.  Spectra are cached in a content-addressed folder (see --cache-dir).
"""

from __future__ import annotations

import argparse
import json
import sys

from sabounds.api import default_lphi, default_rank_tol, sweep
from sabounds.arguments import add_figure_arguments, cache_dir_of, capped, depth_list, figure_options, grid_m, workers
from sabounds.progress import progress_bar
from sabounds.render.sweep_table import print_summary
from sabounds.scheduler_address import scheduler_address


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="checkpoint folder, glob (if no such path exists), or text file listing them",
    )
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
    parser.add_argument("--out", metavar="DIR", help="write the table, fits, figures and provenance into new DIR")
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="complete the partial result in DIR of a sweep whose workers were lost (the finished "
        "layers come from the cache)",
    )
    parser.add_argument("--depths", type=depth_list, metavar="1,2,...", help="depth truncations of every checkpoint")
    parser.add_argument("--grid-m", type=grid_m, metavar="M", help="p grid {0, 1/M, ..., 2} (default ceil(L + ln N))")
    parser.add_argument(
        "--lphi",
        type=capped("lphi", float),
        default=default_lphi(),
        metavar="X",
        help="Lipschitz bound of GELU (default %(default)s)",
    )
    parser.add_argument(
        "--rank-tol",
        type=capped("rank_tol", float),
        default=default_rank_tol(),
        metavar="T",
        help="numerical-rank tolerance (default %(default)s)",
    )
    parser.add_argument(
        "--method",
        choices=("certified", "exact"),
        default="certified",
        help="feed-forward spectra: Gram route where certified to 1e-9 relative, else LAPACK "
        "(default), or LAPACK always",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="spectra cache folder, apart from the checkpoints, list "
        "files and --out (default: $SABOUNDS_CACHE_DIR or the user cache folder, e.g. "
        "~/.cache/sabounds)",
    )
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the spectra cache")
    parser.add_argument("--json", action="store_true", help="print the rows and fits as JSON")
    add_figure_arguments(parser, default=("png", "pdf", "svg"))


def run(args) -> int:
    result = sweep(
        args.sources,
        method=args.method,
        depths=args.depths,
        lphi=args.lphi,
        grid_m=args.grid_m,
        rank_tol=args.rank_tol,
        workers=args.workers,
        scheduler=args.scheduler,
        cache_dir=cache_dir_of(args),
        out=args.out,
        force=args.force,
        figures=figure_options(args) if args.out else None,
        command=["sabounds", "sweep", *sys.argv[2:]] if sys.argv[1:2] == ["sweep"] else None,
        progress_bar=lambda total: progress_bar("layers", total=total, enabled=not args.json),
        resume=args.resume,
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print_summary(result.rows, result.fits, result.layers, result.seconds, args.out)
    if result.missing:
        print(
            f"sabounds sweep: partial result: {len(result.missing)} layer task(s) missing, lost with their workers "
            f"({result.missing[0]}{', ...' if len(result.missing) > 1 else ''}); rerun with --resume to complete it",
            file=sys.stderr,
        )
        return 1
    return 0
