"""Checks of the whole bound (``sabounds.theory.whole_bound``): every decidable step of its derivation."""

from __future__ import annotations

from sabounds.proofs_check.derivations import register_derivation
from sabounds.theory import whole_bound

register_derivation(whole_bound.derivation())
