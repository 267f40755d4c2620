"""Argument types and option groups the commands share (internal to the command line): numbers with their ranges,
the figure options, the model options of ``analyze`` and ``scaling``, the check settings and the default model."""

from __future__ import annotations

import argparse
import math
import os

from sabounds.errors import UserError

MAX_GRID_M = 10_000
MAX_WORKERS = max(64, 8 * (os.cpu_count() or 1))
"""Local worker processes (and threads) at most: 64, or 8 per core on a larger machine; each costs a process."""
MAX_TIME_LIMIT = 60.0
"""Seconds a free-form conjecture may take at most (``sabounds.api.conjecture`` holds the same cap)."""


def ranged(text: str):
    """Mark an argparse type with the range it accepts; :func:`show_ranges` appends it to the option's help, and a
    test requires every numeric option to carry one."""

    def mark(parse):
        parse.range = text
        return parse

    return mark


def show_ranges(parser: argparse.ArgumentParser) -> None:
    """Append ``[range: ...]`` to the help of every option whose type carries a range (see :func:`ranged`)."""
    for action in parser._actions:
        text = getattr(action.type, "range", None)
        if text and action.help and f"range: {text}" not in action.help:
            action.help = f"{action.help} [range: {text}]"


def _integer(text: str, least: int, what: str, most: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {what} integer, got {text[:40]!r}") from None
    if value < least or (most is not None and value > most):
        span = f"{least}..{most}" if most is not None else f"at least {least}"
        raise argparse.ArgumentTypeError(f"expected a {what} integer ({span}), got {text[:40]!r}")
    return value


@ranged("1 or more")
def positive_int(text: str) -> int:
    return _integer(text, 1, "positive")


@ranged("0 or more")
def non_negative_int(text: str) -> int:
    return _integer(text, 0, "non-negative")


@ranged(f"0..{MAX_WORKERS}")
def workers(text: str) -> int:
    """``--workers``: local worker processes, 0 (in this process) up to :data:`MAX_WORKERS`."""
    return _integer(text, 0, "worker", MAX_WORKERS)


@ranged(f"1..{MAX_WORKERS}")
def threads(text: str) -> int:
    """``--threads``: layers measured at once in this process, 1 up to :data:`MAX_WORKERS`."""
    return _integer(text, 1, "thread", MAX_WORKERS)


def capped(key: str, kind: type = int):
    """An argparse type for the capped argument ``key`` of ``sabounds.limits.CAPS``, its range in the help."""
    from sabounds.limits import CAPS

    cap = CAPS[key]
    low, high = (int(cap.low), int(cap.high)) if kind is int else (cap.low, cap.high)

    @ranged(f"{low:g}..{high:g}" if kind is float else f"{low}..{high}")
    def parse(text: str):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(
                f"expected {'an integer' if kind is int else 'a number'} in {parse.range}, got {text[:40]!r}"
            ) from None
        if not ((kind is int or math.isfinite(value)) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"--{cap.name} {text[:40]} is outside {parse.range} ({cap.why})")
        return value

    parse.__name__ = key
    return parse


def grid_m(text: str) -> int:
    """``--grid-m``: a positive integer up to 10^4 (the contribution table has ``2m + 1`` columns per matrix)."""
    value = positive_int(text)
    if value > MAX_GRID_M:
        raise argparse.ArgumentTypeError(f"at most {MAX_GRID_M}, got {value}")
    return value


grid_m = ranged(f"1..{MAX_GRID_M}")(grid_m)


@ranged("> 0, finite")
def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text[:40]!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text[:40]!r}")
    return value


@ranged(f"> 0 .. {MAX_TIME_LIMIT:g} seconds")
def time_limit(text: str) -> float:
    """``--time-limit``: seconds, positive and finite, at most a day."""
    value = positive_float(text)
    if value > MAX_TIME_LIMIT:
        raise argparse.ArgumentTypeError(f"at most {MAX_TIME_LIMIT:g} seconds, got {text[:40]}")
    return value


@ranged("positive integers, each 1..10000, at most 1000 of them")
def depth_list(text: str) -> list[int]:
    """``1,2,4``: positive integers separated by single commas (an empty item is a typo, not a skip)."""
    try:
        depths = [int(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text[:40]!r}") from None
    if not depths or min(depths) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text[:40]!r}")
    return depths


def add_figure_arguments(parser: argparse.ArgumentParser, default: tuple[str, ...] = ("png",)) -> None:
    """``--figure-format png,pdf,svg`` and ``--dpi`` (PNG resolution) for every command that draws figures."""
    from sabounds.render.figure_formats import FORMATS, parse_formats

    def formats(text):
        try:
            return parse_formats(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parser.add_argument(
        "--figure-format",
        type=formats,
        default=tuple(default),
        metavar="FMT[,FMT]",
        help=f"figure file formats, any of {','.join(FORMATS)} (default {','.join(default)})",
    )
    parser.add_argument("--dpi", type=capped("dpi"), default=150, metavar="D", help="PNG resolution (default 150)")


def figure_options(args):
    from sabounds.render.figure_formats import FigureOptions

    try:
        return FigureOptions(tuple(args.figure_format), args.dpi)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``analyze`` and ``scaling``."""
    from sabounds.numerics.checkpoints.architectures import FAMILIES
    from sabounds.numerics.spectra import RANK_TOL

    parser.add_argument(
        "--lphi",
        type=capped("lphi", float),
        default=None,
        metavar="X",
        help="Lipschitz bound of the activation (default: GELU's published 1.13, or the derived "
        "constant of the family's activation)",
    )
    parser.add_argument(
        "--rank-tol",
        type=capped("rank_tol", float),
        default=RANK_TOL,
        metavar="T",
        help="numerical-rank tolerance (default %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--out", metavar="DIR", help="write CSV tables (and figures) into the new directory DIR")
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    add_figure_arguments(parser)
    parser.add_argument(
        "--allow-pickle",
        action="store_true",
        help="read pytorch_model.bin through PyTorch's weights-only loader (needs torch)",
    )
    parser.add_argument(
        "--mapping",
        metavar="FILE",
        help="describe a model of no built-in family: tensor names and structure (TOML or JSON)",
    )
    parser.add_argument(
        "--architecture",
        choices=sorted(FAMILIES),
        metavar="FAMILY",
        help=f"use this family instead of config.json's model_type ({', '.join(FAMILIES)})",
    )


def add_settings_arguments(parser: argparse.ArgumentParser, what: str = "random draws per numeric check") -> None:
    """``--precision``, ``--samples`` and ``--seed`` of a decision."""
    from sabounds.proofs_check.verdict import Settings

    parser.add_argument(
        "--precision", type=capped("precision"), default=50, metavar="D", help="mpmath digits (default 50)"
    )
    parser.add_argument("--samples", type=capped("samples"), default=200, metavar="K", help=f"{what} (default 200)")
    parser.add_argument("--seed", type=capped("seed"), default=Settings.seed, help="random seed (default %(default)s)")


def model_dir_or_default(model_dir: str | None):
    """``model_dir``, or the bundled checkpoint; a missing bundled package is a one-line error."""
    from sabounds.api._common import default_model

    return model_dir if model_dir is not None else default_model()


def cache_dir_of(args) -> str | None:
    """The cache folder ``--cache-dir`` / ``--no-cache`` ask for (default: $SABOUNDS_CACHE_DIR or the user cache)."""
    from sabounds.numerics.cache import default_cache_dir

    if args.no_cache:
        return None
    path = args.cache_dir or default_cache_dir()
    return None if path is None else str(path)
