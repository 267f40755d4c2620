"""Argument types of ``sabounds bound``: a probability in (0, 1), a sample size n >= 8 (kept at 40 digits), a cited
constant ``NAME=VALUE``, a risk in [0, 1] and a precision of 20..200 digits; each a one-line argparse error."""

from __future__ import annotations

import argparse
from decimal import Decimal

import mpmath

from sabounds.arguments import positive_float, positive_int, ranged


@ranged("0 < D < 1")
def probability(text: str) -> float:
    value = positive_float(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


MAX_N_TEXT = 64
"""Characters of ``--n`` read at most (40 significant digits and an exponent fit)."""
MAX_N = mpmath.mpf(10) ** 100000
"""The largest n: the printed bound writes n's powers in fixed notation, which fails beyond ~1e1000000."""


@ranged("8..1e100000")
def sample_size(text: str) -> mpmath.mpf:
    if len(text) > MAX_N_TEXT:
        raise argparse.ArgumentTypeError(
            f"expected a number of samples such as 1e9 of at most {MAX_N_TEXT} characters, got {len(text)} characters"
        )
    try:
        with mpmath.workdps(40):  # 1e400 stays 1e400 when echoed to 17 digits (not 9.9999999999999997e+399)
            value = mpmath.mpf(text.strip())
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(f"expected a number of samples such as 1e9, got {text!r}") from None
    if not (mpmath.isfinite(value) and 8 <= value <= MAX_N):
        raise argparse.ArgumentTypeError(f"expected a finite n with 8 <= n <= 1e100000, got {text!r}")
    return value


@ranged("VALUE > 0, finite, at most 40 characters")
def constant(text: str) -> tuple[str, str]:
    from sabounds.theory.whole_bound import CONSTANTS

    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or name not in CONSTANTS:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with NAME one of {', '.join(CONSTANTS)}, got {text!r}")
    try:
        number = Decimal(value)
    except ArithmeticError:
        raise argparse.ArgumentTypeError(f"{name}: expected a decimal number, got {value!r}") from None
    if not (number.is_finite() and number > 0 and len(value) <= 40):
        raise argparse.ArgumentTypeError(
            f"{name}: expected a positive finite decimal of at most 40 characters, got {value!r}"
        )
    return name, value


@ranged("0..1")
def risk(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


@ranged("20..200 digits")
def precision(text: str) -> int:
    value = positive_int(text)
    if not 20 <= value <= 200:
        raise argparse.ArgumentTypeError(f"expected 20..200 digits, got {value}")
    return value
