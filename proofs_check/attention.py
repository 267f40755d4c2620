"""Checks of the attention Lipschitz derivation (``sabounds.theory.attention_lipschitz``): every decidable step."""

from __future__ import annotations

from sabounds.proofs_check.derivations import register_derivation
from sabounds.theory import attention_lipschitz

register_derivation(attention_lipschitz.derivation())
