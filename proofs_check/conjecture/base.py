"""What every built-in constant family shares: the :class:`ConstantFamily` base (a proposed ``value``, the claim's
text, ``build`` from ranges) and the numeric helpers the families use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import mpmath
import numpy as np
import sympy as sp

from sabounds.proofs_check.conjecture.number_text import exact_text
from sabounds.theory.checks import Interval


def quiet(note: str = "") -> None:
    """The default progress callback: ``decide(settings, advance)`` calls ``advance`` once per stage."""


def num(v, digits: int = 17) -> float:
    return float(mpmath.mpf(v)) if not isinstance(v, sp.Basic) else float(sp.N(v, digits))


def digits_to_separate(value: sp.Expr, other: sp.Expr, floor: int) -> int:
    """Working digits that tell ``value`` from ``other``: at least ``floor``, plus the digits their gap needs (+20)."""
    gap = abs(sp.Rational(value) - sp.Rational(other))
    if gap == 0:
        return floor
    return max(floor, int(mpmath.ceil(-mpmath.log10(mpmath.mpf(gap.p) / gap.q))) + 20)


def matrix_list(a: np.ndarray) -> list:
    return [[float(v) for v in row] for row in np.atleast_2d(a)]


@dataclass(frozen=True)
class ConstantFamily:
    """A built-in family: one proposed constant ``value``; subclasses set ``name``, ``claim_template`` and ``decide``."""

    value: sp.Rational
    name: ClassVar[str] = ""
    engines: ClassVar[tuple[str, ...]] = ()
    """What decides this family's verdicts (``conjecture --json`` lists them with ``margin_error``, the bound on the
    error of the printed margin: the rounding of an exact or high-precision value, an enclosure's width, or a sampled
    matrix's float64 tolerance)."""
    claim_template: ClassVar[str] = "{value}"
    stages: ClassVar[int] = 1

    @property
    def claim(self) -> str:
        return self.claim_template.format(value=exact_text(self.value))

    @classmethod
    def build(cls, value: sp.Rational, ranges: Mapping[str, Interval]) -> ConstantFamily:
        """The family for ``value``; ``ranges`` restrict the family's parameters (none by default)."""
        if ranges:
            raise ValueError(f"family {cls.name} takes no --var")
        return cls(value)


def rounding_error(margin: float, digits: int) -> float:
    """Error bound of ``margin`` computed at ``digits`` significant digits and rounded to a float64:
    ``|margin| (2^-53 + 10^(1 - digits))`` (a relative error of one unit in the last digit of each)."""
    return abs(margin) * (2.0**-53 + 10.0 ** (1 - digits))


def relative_margin(value, constant) -> float:
    """``(value - constant) / constant``: the slack relative to the constant at the tightest point, as for the
    other families (negative = violated); finite for every accepted value (|value| <= 1e100, constant > 0)."""
    constant = sp.Rational(constant) if not isinstance(constant, float) else sp.Rational(repr(constant))
    diff = sp.Rational(value) - constant
    return float(diff / constant) if constant > 0 else float(diff)
