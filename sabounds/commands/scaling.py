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

from sabounds.numerics.checkpoints.reader import CheckpointError
from sabounds.numerics.proxies.scaling import plan_scaling, scaling
from sabounds.checkpoint_names import checkpoint_label
from sabounds.arguments import add_common_arguments, depth_list, figure_options, model_dir_or_default
from sabounds.errors import UserError
from sabounds.numerics.log_real import dumps
from sabounds.progress import progress_bar


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model_dirs", nargs="*", metavar="MODEL",
                        help="model directories or .onnx files (default: all-MiniLM-L6-v2)")
    parser.add_argument("--depths", type=depth_list, metavar="1,2,...", help="depth truncations of every checkpoint")
    add_common_arguments(parser)


def run(args) -> int:
    dirs = args.model_dirs or [model_dir_or_default(None)]
    if args.out is not None:
        from sabounds.outputs.atomic import check_target
        check_target(args.out, args.force, protect=dirs)
    try:
        plan = plan_scaling(dirs, args.depths, args.allow_pickle, args.mapping, args.architecture)
        with progress_bar("reading layers", total=plan.layers_to_read, enabled=not args.json) as advance:
            result = scaling(plan, args.lphi, args.rank_tol, advance)
    except (CheckpointError, ValueError) as exc:
        raise UserError(str(exc)) from None
    if args.out is not None:
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.outputs.files import write_scaling_files
        with atomic_directory(args.out, force=args.force, protect=dirs) as work:
            write_scaling_files(result, work, figures=figure_options(args))
    if args.json:
        print(dumps(result.to_json(), indent=2))
        return 0
    table = Table(title="ours and edelman against depth and width")
    for column in ("model", "L", "N", "ours", "edelman"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for p in result.points:
        table.add_row(checkpoint_label(p.model), str(p.layers), str(p.hidden), f"{p.ours:.6g}", f"{p.edelman:.6g}")
    console = Console()
    console.print(table)
    from sabounds.numerics.proxies.growth import depth_growths
    for fit in result.fits:
        growth = depth_growths(result.points, fit.quantity)
        if growth and fit.slope_N is None:
            for g in growth:
                where = f", {checkpoint_label(g.model)}" if len(growth) > 1 else ""
                console.print(f"{fit.quantity}{where}: {g.describe()} (depths {g.depths[0]}..{g.depths[-1]})",
                              highlight=False)
            continue
        slopes = ", ".join(f"d log {fit.quantity} / d log {v} = {s:.3f}"
                           for v, s in (("L", fit.slope_L), ("N", fit.slope_N)) if s is not None)
        console.print(f"{fit.quantity}: {slopes or 'no varying L or N'}", highlight=False)
    if args.out:
        console.print(f"wrote {args.out}", highlight=False)
    return 0
