"""The main job: every check, the regime tables, the model analysis and its depth scaling, as one report folder.

Writes report.md (summary first) and report.html beside it, every table as CSV and JSON, and the figures (PNG,
and PDF/SVG with --figure-format).  The folder appears
whole or not at all: an interrupted run (Ctrl-C, SIGTERM, a full disk) leaves nothing and says so; an
existing folder is replaced only with --force.  Exit status as for verify: 1 if a derivation step fails.
"""

from __future__ import annotations

import argparse
import sys

from sabounds.api import checks_summary_line, report
from sabounds.arguments import add_figure_arguments, add_settings_arguments, figure_options
from sabounds.outputs.atomic import OutputInterrupted
from sabounds.progress import progress_bar


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", metavar="DIR", help="checkpoint folder (default: the bundled all-MiniLM-L6-v2)")
    parser.add_argument("--out", metavar="DIR", default="report", help="report folder (default: ./report)")
    parser.add_argument("--force", action="store_true", help="replace an existing report folder")
    add_settings_arguments(parser)
    add_figure_arguments(parser)


def run(args) -> int:
    try:
        result = report(
            args.out,
            model=args.model,
            force=args.force,
            precision=args.precision,
            samples=args.samples,
            seed=args.seed,
            figures=figure_options(args),
            progress_bar=lambda total: progress_bar("report", total=total),
        )
    except OutputInterrupted as exc:
        print(f"sabounds report: interrupted; {exc.message}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"sabounds report: interrupted; no report written ({args.out} unchanged)", file=sys.stderr)
        return 130
    data = result.data
    print(
        f"wrote {args.out}/report.md: {len(data.checks)} checks ("
        + checks_summary_line(result.summary)
        + f"); ours = {data.analysis.ours:.8g}, edelman = {data.analysis.edelman:.6g}; {data.seconds:.0f} s"
    )
    return 1 if result.failing else 0
