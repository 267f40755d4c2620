"""The main job: every check, the regime tables, the model analysis and its depth scaling, as one report folder.

Writes report.md (summary first) and report.html beside it, every table as CSV and JSON, and the figures (PNG,
and PDF/SVG with --figure-format).  The folder appears
whole or not at all: an interrupted run (Ctrl-C, SIGTERM, a full disk) leaves nothing and says so; an
existing folder is replaced only with --force.  Exit status as for verify: 1 if a derivation step fails.
"""

from __future__ import annotations

import argparse
import sys

from sabounds.numerics.checkpoints.reader import CheckpointError
from sabounds.proofs_check.outcome_records import failing_steps, summary, summary_text
from sabounds.outputs.atomic import OutputInterrupted, atomic_directory, check_target
from sabounds.commands.analyze import add_figure_arguments, figure_options, model_dir_or_default
from sabounds.commands.verify import settings_from
from sabounds.errors import UserError
from sabounds.progress import progress_bar
from sabounds.full_report.compute import stage_sizes
from sabounds.full_report.files import build_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", metavar="DIR", help="checkpoint folder (default: the bundled all-MiniLM-L6-v2)")
    parser.add_argument("--out", metavar="DIR", default="report", help="report folder (default: ./report)")
    parser.add_argument("--force", action="store_true", help="replace an existing report folder")
    parser.add_argument("--precision", type=int, default=50, metavar="D", help="mpmath digits (default 50)")
    parser.add_argument("--samples", type=int, default=200, metavar="K", help="random draws per numeric check (default 200)")
    parser.add_argument("--seed", type=int, default=20260507, help="random seed (default %(default)s)")
    add_figure_arguments(parser)


def run(args) -> int:
    settings = settings_from(args)
    model_dir = model_dir_or_default(args.model)
    figures = figure_options(args)
    check_target(args.out, args.force, protect=[model_dir])
    try:
        sizes = stage_sizes(model_dir)
        with atomic_directory(args.out, force=args.force, protect=[model_dir]) as folder, \
                progress_bar("report", total=sum(sizes.values())) as advance:
            data = build_report(folder, model_dir, settings, advance, figures)
    except (CheckpointError, ValueError) as exc:
        raise UserError(str(exc)) from None
    except OutputInterrupted as exc:
        print(f"sabounds report: interrupted; {exc.message}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"sabounds report: interrupted; no report written ({args.out} unchanged)", file=sys.stderr)
        return 130
    except OSError as exc:
        raise UserError(f"could not write the report ({exc.strerror or exc}); nothing written") from None
    counts = summary(data.checks)
    print(f"wrote {args.out}/report.md: {len(data.checks)} checks (" + summary_text(counts)
          + f"); ours = {data.analysis.ours:.8g}, edelman = {data.analysis.edelman:.6g}; {data.seconds:.0f} s")
    return 1 if failing_steps(data.checks) else 0
