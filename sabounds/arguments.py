"""Argument types and option groups the commands share (internal to the command line): numbers with their ranges,
the figure options, the model options of ``analyze`` and ``scaling``, the check settings and the default model."""

from __future__ import annotations

import argparse
import math

from sabounds.errors import UserError

MAX_GRID_M = 10_000


def _integer(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {what} integer, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a {what} integer, got {text!r}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, 1, "positive")


def non_negative_int(text: str) -> int:
    return _integer(text, 0, "non-negative")


def grid_m(text: str) -> int:
    """``--grid-m``: a positive integer up to 10^4 (the contribution table has ``2m + 1`` columns per matrix)."""
    value = positive_int(text)
    if value > MAX_GRID_M:
        raise argparse.ArgumentTypeError(f"at most {MAX_GRID_M}, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text!r}")
    return value


def depth_list(text: str) -> list[int]:
    """``1,2,4``: positive integers separated by single commas (an empty item is a typo, not a skip)."""
    try:
        depths = [int(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}") from None
    if not depths or min(depths) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}")
    return depths


def add_figure_arguments(parser: argparse.ArgumentParser, default: tuple[str, ...] = ("png",)) -> None:
    """``--figure-format png,pdf,svg`` and ``--dpi`` (PNG resolution) for every command that draws figures."""
    from sabounds.render.figure_formats import FORMATS, parse_formats

    def formats(text):
        try:
            return parse_formats(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parser.add_argument("--figure-format", type=formats, default=tuple(default), metavar="FMT[,FMT]",
                        help=f"figure file formats, any of {','.join(FORMATS)} (default {','.join(default)})")
    parser.add_argument("--dpi", type=positive_int, default=150, metavar="D", help="PNG resolution (default 150)")


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
    parser.add_argument("--lphi", type=positive_float, default=None, metavar="X",
                        help="Lipschitz bound of the activation (default: GELU's published 1.13, or the derived "
                             "constant of the family's activation)")
    parser.add_argument("--rank-tol", type=positive_float, default=RANK_TOL, metavar="T",
                        help="numerical-rank tolerance (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--out", metavar="DIR", help="write CSV tables (and figures) into the new directory DIR")
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    add_figure_arguments(parser)
    parser.add_argument("--allow-pickle", action="store_true",
                        help="read pytorch_model.bin through PyTorch's weights-only loader (needs torch)")
    parser.add_argument("--mapping", metavar="FILE",
                        help="describe a model of no built-in family: tensor names and structure (TOML or JSON)")
    parser.add_argument("--architecture", choices=sorted(FAMILIES), metavar="FAMILY",
                        help=f"use this family instead of config.json's model_type ({', '.join(FAMILIES)})")


def add_settings_arguments(parser: argparse.ArgumentParser, what: str = "random draws per numeric check") -> None:
    """``--precision``, ``--samples`` and ``--seed`` of a decision."""
    from sabounds.proofs_check.verdict import Settings
    parser.add_argument("--precision", type=int, default=50, metavar="D", help="mpmath digits (default 50, at least 15)")
    parser.add_argument("--samples", type=int, default=200, metavar="K", help=f"{what} (default 200)")
    parser.add_argument("--seed", type=int, default=Settings.seed, help="random seed (default %(default)s)")


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
