"""Checks of the whole bound (``sabounds.theory.whole_bound``) and of its family extension
(``sabounds.theory.family_bound``): every decidable step of both derivations."""

from __future__ import annotations

from sabounds.proofs_check.derivations import register_derivation
from sabounds.theory import family_bound, whole_bound

register_derivation(whole_bound.derivation())
register_derivation(family_bound.derivation())
