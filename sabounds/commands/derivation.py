"""Print a derivation step by step (statement, justification, how it is checked) as text or LaTeX.

The LaTeX is a longtable that needs the preamble in docs/preamble.tex (amsmath, longtable, graphicx and the
\\fitmath macro); --standalone prints a complete document with that preamble.  Definitions of every symbol:
docs/definitions.md; every derivation and its checks: docs/derivations.md.
"""

from __future__ import annotations

import argparse

from sabounds.errors import UserError
from sabounds.theory.catalog import derivations
from sabounds.theory.printer import derivation_latex, derivation_text, standalone


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=sorted(derivations()), help="which derivation (catalog entries tagged printable)")
    parser.add_argument("--format", choices=("text", "latex"), default="text")
    parser.add_argument("--standalone", action="store_true",
                        help="with --format latex: a complete document (preamble of docs/preamble.tex included)")


def run(args) -> int:
    if args.standalone and args.format != "latex":
        raise UserError("--standalone needs --format latex")
    d = derivations()[args.name]()
    if args.format == "latex":
        body = derivation_latex(d) + (f"\n\n\\noindent {latex_note(d.notes)}\n" if d.notes else "")
        print(standalone(body) if args.standalone else body)
    else:
        print(derivation_text(d))
        if d.notes:
            print(d.notes)
    return 0


def latex_note(text: str) -> str:
    from sabounds.theory.latex_text import justification_latex
    return "{\\small " + justification_latex(text) + "}"
