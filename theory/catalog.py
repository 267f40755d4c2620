"""Every derivation the package knows, by id: what ``sabounds derivation`` prints and ``verify`` decides."""

from __future__ import annotations

from typing import Callable

from sabounds.theory import edelman, thm31, thm41
from sabounds.theory.derivation import Derivation

DERIVATIONS: dict[str, Callable[[], Derivation]] = {
    "thm41": thm41.derivation,
    "thm31": thm31.derivation,
    "edelman": edelman.derivation,
}

from sabounds.theory.architecture import DEPARTURES, extension_derivation  # noqa: E402

DERIVATIONS.update({f"arch.{d}": (lambda _d=d: extension_derivation(_d)) for d in DEPARTURES})
"""The labelled extensions for families whose layer departs from the published one (``arch.*``)."""
