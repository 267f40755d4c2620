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
