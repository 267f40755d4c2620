"""The ``sabounds`` command line: a thin dispatcher over ``sabounds.commands.<name>`` modules.

Each command module provides ``add_arguments(parser)`` and ``run(args) -> int``.  Bad arguments and
bad input end with a one-line message on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from sabounds.threads import default_to_one_blas_thread

default_to_one_blas_thread()

from sabounds import __version__  # noqa: E402  (numpy must not be imported before the thread default)
from sabounds.errors import UserError  # noqa: E402

COMMANDS = {
    "verify": "decide every registered check (derivation steps and claims)",
    "derivation": "print a derivation step by step, as text or LaTeX",
    "report": "the main job: checks, regime tables, model analysis and depth scaling as one report folder",
    "conjecture": "decide a proposed sharper constant or a scalar inequality (refuted / proved / verified)",
    "analyze": "spectra, post hoc p and the paper's proxies of a trained BERT checkpoint",
    "scaling": "growth of the proxies with depth and width across checkpoints",
    "regimes": "closed-form regime tables: exponents in L, N and the T dependence of each bound",
    "sweep": "many checkpoints as Dask tasks per layer, with cached certified spectra: tidy table, fits, figures",
    "bound": "the whole bound on a checkpoint as a number: every term, vacuity, n needed, break-even",
    "docs": "regenerate the generated pages of docs/ (derivations, checks, LaTeX preamble) from the code",
}

DOCS_POINTER = ("Definitions of every quantity (ours, edelman, alpha, gamma, scale, S_p) and of the verdicts: "
                "docs/definitions.md; derivations and checks: docs/derivations.md, docs/checks.md.")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def chosen_command(argv: list[str] | None) -> str | None:
    """The command named on the line (the first word that is one), so only its module is imported."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if w in COMMANDS), None)


def build_parser(argv: list[str] | None = None, every_command: bool = True) -> argparse.ArgumentParser:
    """The parser; with ``every_command=False`` only the command named in ``argv`` is imported and given its
    options (``--version`` and ``--help`` import no command: start-up without numpy or sympy)."""
    parser = _Parser(prog="sabounds", description="Verify, evaluate and test the spectrum-adaptive generalization "
                     "bounds for trained deep Transformers (Sakai and Imaizumi, 2026).", epilog=DOCS_POINTER)
    parser.add_argument("--version", action="version", version=f"sabounds {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    wanted = None if every_command else chosen_command(argv)
    for name, help_text in COMMANDS.items():
        if not every_command and name != wanted:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(f"sabounds.commands.{name}")
        cmd = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip(), epilog=DOCS_POINTER)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser(argv, every_command=False).parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except UserError as exc:
        print(f"sabounds {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into a reader that stopped early (e.g. head)
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print(f"sabounds {args.command}: interrupted", file=sys.stderr)
        return 130
