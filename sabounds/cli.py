"""The ``sabounds`` command line: a thin dispatcher over ``sabounds.commands.<name>`` modules.

Each command module provides ``add_arguments(parser)`` and ``run(args) -> int``.  Bad arguments and
bad input end with a one-line message on stderr and exit status 2, never a traceback.  Standard output the
Unix way: a reader that stops early (``| head``) ends the run quietly with status 0; a full device
(ENOSPC) or a closed standard output is a one-line error with status 2.  Ctrl-C at any moment is one line
and status 130.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys

from sabounds.arguments import show_ranges
from sabounds.errors import UserError
from sabounds.version import installed_version


def _interrupted_at_start_up(signum, frame):  # nothing has been written yet: one line, no traceback
    import os

    os.write(2, b"sabounds: interrupted\n")
    os._exit(130)


def _signal_ready() -> None:
    """Test hook: a test that set ``sabounds._ready_file`` before calling :func:`main` learns that the one-line
    Ctrl-C handler is in place.  No environment variable arms it, and it only ever creates a new file."""
    import os

    path = getattr(sys.modules.get("sabounds"), "_ready_file", None)
    if path is not None:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
        except OSError:
            pass


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
    "study": "train a grid of small transformers and rank every measure against their generalization gap",
    "docs": "regenerate the generated pages of docs/ (derivations, checks, LaTeX preamble) from the code",
}

DOCS_POINTER = (
    "Definitions of every quantity (ours, edelman, alpha, gamma, scale, S_p) and of the verdicts: "
    "docs/definitions.md; derivations and checks: docs/derivations.md, docs/checks.md."
)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        _json_error(message)
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")

    def _print_message(self, message, file=None):  # argparse swallows write errors; main reports them
        if message and file is not None:  # None: the stream was closed at start-up (main says so)
            file.write(message)


_WANTS_JSON = False


MESSAGE_CHARS = 600
"""An error line is cut to this many characters: a message that quotes a 100 kB argument stays one readable line."""


def one_line(message: object) -> str:
    """``message`` on one line, cut to :data:`MESSAGE_CHARS` with the length it had."""
    text = " ".join(str(message).split())
    if len(text) <= MESSAGE_CHARS:
        return text
    return f"{text[:MESSAGE_CHARS]}... ({len(text)} characters in all)"


def _json_error(message: str) -> None:
    """With ``--json`` on the line, an error is JSON on stdout too (the one-line message still goes to stderr)."""
    if _WANTS_JSON and sys.stdout is not None:  # None: standard output was closed (the error says so on stderr)
        import json

        try:
            sys.stdout.write(json.dumps({"error": one_line(message), "exit_status": 2}) + "\n")
            sys.stdout.flush()
        except (OSError, ValueError, AttributeError):
            pass


def wants_json(words: list[str]) -> bool:
    """``--json``, ``--format json`` or ``--format=json`` on the line: errors are then JSON on stdout too."""
    words = list(words)
    return (
        "--json" in words
        or "--format=json" in words
        or any(a == "--format" and b == "json" for a, b in zip(words, words[1:]))
    )


def chosen_command(argv: list[str] | None) -> str | None:
    """The command named on the line (the first word that is one), so only its module is imported."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if w in COMMANDS), None)


def build_parser(argv: list[str] | None = None, every_command: bool = True) -> argparse.ArgumentParser:
    """The parser; with ``every_command=False`` only the command named in ``argv`` is imported and given its
    options (``--version`` and ``--help`` import no command: start-up without numpy or sympy)."""
    parser = _Parser(
        prog="sabounds",
        description="Verify, evaluate and test the spectrum-adaptive generalization "
        "bounds for trained deep Transformers (Sakai and Imaizumi, 2026).",
        epilog=DOCS_POINTER,
    )
    parser.add_argument("--version", action="version", version=f"sabounds {installed_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    wanted = None if every_command else chosen_command(argv)
    for name, help_text in COMMANDS.items():
        if not every_command and name != wanted:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(f"sabounds.commands.{name}")
        cmd = sub.add_parser(
            name, help=help_text, description=(module.__doc__ or help_text).strip(), epilog=DOCS_POINTER
        )
        module.add_arguments(cmd)
        show_ranges(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def _main(argv: list[str] | None) -> int:
    from sabounds import streams
    from sabounds.limits import check_arguments

    global _WANTS_JSON
    streams.guard_closed_descriptors()
    _WANTS_JSON = wants_json(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser(argv, every_command=False).parse_args(argv)
    except SystemExit as exc:  # --help, --version or a usage error: a full or closed output is an error here too
        if not streams.flush_quietly():
            return 2
        if exc.code in (0, None):
            try:
                streams.require_stdout()
            except UserError as err:
                print(f"sabounds: error: {err}", file=sys.stderr)
                return 2
        raise
    except BrokenPipeError:
        streams.discard_stdout()
        return 0
    except OSError as exc:
        if not streams.is_stdout_error(exc):
            raise
        streams.discard_stdout()
        print(f"sabounds: error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
        return 2
    try:
        check_arguments(args)
        streams.require_stdout()
        on_main_thread = signal.getsignal(signal.SIGINT) is _interrupted_at_start_up
        if on_main_thread:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            code = int(args._run(args) or 0)
        finally:
            if on_main_thread:
                signal.signal(signal.SIGINT, _interrupted_at_start_up)
        streams.flush_stdout()
        return code
    except UserError as exc:
        _json_error(str(exc))
        print(f"sabounds {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into a reader that stopped early (e.g. head): a quiet, normal end
        streams.discard_stdout()
        return 0
    except OSError as exc:
        if streams.is_stdout_error(exc):
            streams.discard_stdout()
            print(f"sabounds {args.command}: error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
            return 2
        raise
    except KeyboardInterrupt as exc:
        detail = getattr(exc, "message", "")
        print(f"sabounds {args.command}: interrupted" + (f"; {detail}" if detail else ""), file=sys.stderr)
        cluster = sys.modules.get("sabounds.distributed")
        if getattr(cluster, "cluster_started", False):  # its finalizers at exit log the closing: the line above is last
            import logging

            for name in cluster.QUIET_LOGGERS:
                logging.getLogger(name).setLevel(logging.CRITICAL)
        return 130


def main(argv: list[str] | None = None) -> int:
    """Run one command.  The process state the command line needs (a one-line Ctrl-C handler while the command's
    imports load, one BLAS thread unless the user chose) is set here, not on import, and restored on return, so
    a notebook or a test that imports :mod:`sabounds.cli` keeps its own."""
    import threading

    from sabounds.threads import one_blas_thread_by_default

    on_main_thread = threading.current_thread() is threading.main_thread()  # only it may set a handler
    previous = signal.signal(signal.SIGINT, _interrupted_at_start_up) if on_main_thread else None
    try:
        _signal_ready()
        with one_blas_thread_by_default():
            return _main(argv)
    finally:
        if on_main_thread:
            signal.signal(signal.SIGINT, previous)
