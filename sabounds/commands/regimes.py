"""Closed-form regime tables: Edelman et al. (2022) and Theorem 3.1 (sum, rss, best p) under five spectral regimes.

Exponents in L and N and the dependence on T are computed by sympy from the derivations' expressions.
"""

from __future__ import annotations

import argparse
import json
import sys

from sabounds.errors import UserError
from sabounds.render.regime_tables import json_data, latex_table, markdown
from sabounds.theory.architecture import ARCHITECTURES
from sabounds.theory.regimes import REGIMES, table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("md", "latex", "json"), default="md", help="output format (default md)")
    parser.add_argument("--regime", metavar="NAME", help=f"only this regime: {', '.join(REGIMES)}")
    parser.add_argument("--architecture", default="single_head", metavar="NAME",
                        help=f"architecture description: {', '.join(ARCHITECTURES)} (default single_head)")


def run(args) -> int:
    if args.regime is not None and args.regime not in REGIMES:
        raise UserError(f"unknown regime {args.regime!r}; choose from {', '.join(REGIMES)}")
    if args.architecture not in ARCHITECTURES:
        raise UserError(f"unknown architecture {args.architecture!r}; choose from {', '.join(ARCHITECTURES)}")
    results = table((args.regime,) if args.regime else None, ARCHITECTURES[args.architecture]())
    if args.format == "json":
        json.dump(json_data(results), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "latex":
        print(latex_table(results))
    else:
        print(markdown(results))
    return 0
