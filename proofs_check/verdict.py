"""Verdicts, the outcome of deciding one check, and the settings a decision runs under."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any


class Verdict(str, Enum):
    """``proved`` symbolically; ``verified`` numerically; ``refuted`` with a witness; or ``unresolved``."""

    PROVED = "proved"
    VERIFIED = "verified"
    REFUTED = "refuted"
    UNRESOLVED = "unresolved"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Settings:
    """How hard to try: ``precision`` significant digits for mpmath, ``samples`` random draws, ``seed``."""

    precision: int = 50
    samples: int = 200
    seed: int = 20260507

    def __post_init__(self):
        if int(self.precision) < 15:
            raise ValueError(f"precision must be at least 15 digits, got {self.precision}")
        if int(self.samples) < 1:
            raise ValueError(f"samples must be a positive integer, got {self.samples}")
        if not 0 <= int(self.seed) < 2**63:
            raise ValueError(f"seed must be an integer in [0, 2^63), got {self.seed}")


@dataclass(frozen=True)
class Outcome:
    """The decision on one check.

    ``margin`` is the smallest relative slack ``(rhs - lhs) / scale`` found (negative: violated);
    ``witness`` maps variable names to the values of a counterexample or of the tightest sample.
    ``precision_digits`` and ``samples`` are ``None`` for purely symbolic verdicts.
    """

    verdict: Verdict
    method: str
    precision_digits: int | None = None
    samples: int | None = None
    margin: float | None = None
    witness: Mapping[str, Any] | None = None
    detail: str = ""
    seconds: float = 0.0
    engines: tuple[str, ...] = ()
    """The certified engines that agree on the verdict (``sympy``, ``z3``, ``arb``, ``mpmath.iv``, ...)."""
    margin_error: float | None = None
    """The certified error of ``margin`` (the radius of the ball that decided its sign; 0 for an exact value)."""
    scaled_margin: float | None = None
    """A scale-free margin that cannot saturate at 1 (the free-form decider: the gap over its first-order change
    across the box)."""
    exact_forms: Mapping[str, str] = field(default_factory=dict)
    """Fields (``margin``, ``margin_error``) whose float64 is not the number (a certified gap of -1e-400 is ``-0.0``
    as a float), as 17-digit decimal strings; the JSON prints these strings and names them in ``number_forms``."""
    basis: str = ""
    """What the verdict rests on when it is not the verdict itself: ``definition`` (notation, asserts nothing) or
    ``construction`` (sympy evaluated the statement to True when it was built); empty means the verdict."""

    @property
    def grounds(self) -> str:
        """``proved``/``verified``/``refuted``/``unresolved``, or ``definition``/``construction`` counted apart from proofs."""
        return self.basis or self.verdict.value

    def with_seconds(self, seconds: float) -> Outcome:
        return replace(self, seconds=seconds)

    def checked(self) -> Outcome:
        """A ``refuted`` without a witness is not a refutation a reader can check: it becomes ``unresolved``."""
        if self.verdict is Verdict.REFUTED and not self.witness:
            return replace(
                self,
                verdict=Verdict.UNRESOLVED,
                detail=f"refutation without a witness, reported as unresolved; {self.detail}",
            )
        return self

    @staticmethod
    def proved(method: str, detail: str = "") -> Outcome:
        return Outcome(Verdict.PROVED, method, detail=detail)

    @staticmethod
    def unresolved(method: str, detail: str = "") -> Outcome:
        return Outcome(Verdict.UNRESOLVED, method, detail=detail)
