"""Print a derivation step by step (statement, justification, how it is checked) as text or LaTeX.

The LaTeX is a longtable that needs the preamble in docs/preamble.tex (amsmath, longtable, graphicx and the
\\fitmath macro); --standalone prints a complete document with that preamble.  Definitions of every symbol:
docs/definitions.md; every derivation and its checks: docs/derivations.md.
"""

from __future__ import annotations

import argparse

from sabounds.api import derivation, derivations
from sabounds.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name", choices=sorted(derivations()), help="which derivation (catalog entries tagged printable)"
    )
    parser.add_argument("--format", choices=("text", "latex"), default="text")
    parser.add_argument(
        "--standalone",
        action="store_true",
        help="with --format latex: a complete document (preamble of docs/preamble.tex included)",
    )


def run(args) -> int:
    if args.standalone and args.format != "latex":
        raise UserError("--standalone needs --format latex")
    result = derivation(args.name)
    print(result.latex(args.standalone) if args.format == "latex" else result.text)
    return 0
