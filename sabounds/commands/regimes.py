"""Closed-form regime tables: Edelman et al. (2022) and Theorem 3.1 (sum, rss, best p) under five spectral regimes.

Exponents in L and N and the dependence on T are computed by sympy from the derivations' expressions.
"""

from __future__ import annotations

import argparse
import json
import sys

from sabounds.api import architecture_names, regime_names, regimes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("md", "latex", "json"), default="md", help="output format (default md)")
    parser.add_argument("--regime", metavar="NAME", help=f"only this regime: {', '.join(regime_names())}")
    parser.add_argument(
        "--architecture",
        default="single_head",
        metavar="NAME",
        help=f"architecture description: {', '.join(architecture_names())} (default single_head)",
    )
    parser.add_argument(
        "--bound", metavar="FILE", help="add a row for your own bound, described in a TOML file (docs/bounds.md)"
    )


def run(args) -> int:
    result = regimes(args.regime, args.architecture, user_bound=args.bound)
    if args.format == "json":
        json.dump(result.json, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "latex":
        print(result.latex)
    else:
        print(result.markdown)
    return 0
