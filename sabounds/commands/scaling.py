"""Growth of ours and edelman with depth L and width N, across checkpoints or depth truncations of one.

Prints (or writes with --out) one row per checkpoint and depth and, for depth, each proxy's growth law, one law per
quantity across checkpoints: edelman by its factor per layer (a least-squares fit of log value against L), ours by a
power of L or a factor per layer, whichever fits all checkpoints better; a fit to 3 depths is marked weakly
determined.  Across widths: least-squares log-log slopes in N.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from sabounds.api import json_text, scaling
from sabounds.arguments import add_common_arguments, depth_list, figure_options, model_dir_or_default
from sabounds.checkpoint_names import checkpoint_label
from sabounds.progress import progress_bar


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model_dirs", nargs="*", metavar="MODEL", help="model directories or .onnx files (default: all-MiniLM-L6-v2)"
    )
    parser.add_argument("--depths", type=depth_list, metavar="1,2,...", help="depth truncations of every checkpoint")
    add_common_arguments(parser)


def run(args) -> int:
    dirs = args.model_dirs or [model_dir_or_default(None)]
    if args.out is not None:
        from sabounds.outputs.atomic import check_target

        check_target(args.out, args.force, protect=dirs)
    done = scaling(
        dirs,
        depths=args.depths,
        lphi=args.lphi,
        rank_tol=args.rank_tol,
        allow_pickle=args.allow_pickle,
        mapping=args.mapping,
        architecture=args.architecture,
        progress_bar=lambda total: progress_bar("reading layers", total=total, enabled=not args.json),
    )
    result = done.result
    if args.out is not None:
        done.write(args.out, force=args.force, protect=dirs, figures=figure_options(args))
    if args.json:
        print(json_text(done.to_json()))
        return 0
    table = Table(title="ours and edelman against depth and width")
    for column in ("model", "L", "N", "ours", "edelman"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for p in result.points:
        table.add_row(checkpoint_label(p.model), str(p.layers), str(p.hidden), f"{p.ours:.6g}", f"{p.edelman:.6g}")
    console = Console()
    console.print(table)
    for fit in result.fits:
        growth = done.growths(fit.quantity)
        if growth and fit.slope_N is None:
            for g in growth:
                where = f", {checkpoint_label(g.model)}" if len(growth) > 1 else ""
                console.print(
                    f"{fit.quantity}{where}: {g.describe()} (depths {g.depths[0]}..{g.depths[-1]})", highlight=False
                )
            continue
        slopes = ", ".join(
            f"d log {fit.quantity} / d log {v} = {s:.3f}"
            for v, s in (("L", fit.slope_L), ("N", fit.slope_N))
            if s is not None
        )
        console.print(f"{fit.quantity}: {slopes or 'no varying L or N'}", highlight=False)
    if args.out:
        console.print(f"wrote {args.out}", highlight=False)
    return 0
