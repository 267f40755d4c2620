"""Checks of Theorem 3.1 and of the Edelman et al. (2022) baseline: every decidable step of both derivations."""

from __future__ import annotations

from sabounds.proofs_check.derivations import register_derivation
from sabounds.theory import edelman, thm31

register_derivation(thm31.derivation())
register_derivation(edelman.derivation())
