"""Print a derivation step by step (statement, justification, how it is checked) as text or LaTeX."""

from __future__ import annotations

import argparse

from sabounds.theory.catalog import DERIVATIONS
from sabounds.theory.printer import derivation_latex, derivation_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=sorted(DERIVATIONS), help="which derivation")
    parser.add_argument("--format", choices=("text", "latex"), default="text")


def run(args) -> int:
    d = DERIVATIONS[args.name]()
    print(derivation_latex(d) if args.format == "latex" else derivation_text(d))
    if d.notes:
        print(("% " if args.format == "latex" else "") + d.notes)
    return 0
