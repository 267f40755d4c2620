"""Decide a proposed sharper constant or a user's scalar inequality: ``refuted`` (with a witness), ``proved``,
``verified`` (numeric evidence: precision, samples, smallest margin) or ``unresolved``.

Each built-in family is a small frozen dataclass holding the proposed ``value`` with a ``decide(settings)``
method; its docstring states the claim, the method, its cost and when it fails.  ``FreeForm`` decides a
relation parsed by ``sabounds.theory.expression`` over a box of scalar variables.  Sympy goes first where it can
decide; otherwise an adversarial search (random starts, then local optimisation) at mpmath precision.
A refutation found in float64 is re-evaluated at mpmath precision before it is reported.

Layout: :mod:`.base` (the family base class), one module per family (:mod:`.gelu`, :mod:`.softmax`,
:mod:`.attention`, :mod:`.tail`, :mod:`.covering`), the free-form decider (:mod:`.free_form`: its certified routes
in :mod:`.routes`, the search's judgement in :mod:`.evidence`, two-engine point checks in :mod:`.certify`,
:mod:`.tight` for a strict relation's tightest point) and number formatting (:mod:`.number_text`).  The engines
themselves: ``proofs_check.arb_interval`` / ``arb_enclosure`` / ``arb_branch_bound`` (Arb), ``interval_enclosure``
(mpmath.iv), ``exact_solver`` (z3), ``domain_check``.
"""

from __future__ import annotations

from sabounds.proofs_check.conjecture.attention import AttentionLipschitz
from sabounds.proofs_check.conjecture.base import ConstantFamily
from sabounds.proofs_check.conjecture.covering import CoveringConstant
from sabounds.proofs_check.conjecture.free_form import FreeForm, declare
from sabounds.proofs_check.conjecture.gelu import GeluLipschitz
from sabounds.proofs_check.conjecture.number_text import exact_text
from sabounds.proofs_check.conjecture.softmax import SoftmaxLinfL1
from sabounds.proofs_check.conjecture.tail import (
    TailFrobeniusRank,
    TailFrobeniusSchatten,
    TailSingularValue,
    Thm41Tail,
    TruncationError,
)

__all__ = [
    "AttentionLipschitz",
    "ConstantFamily",
    "CoveringConstant",
    "FAMILIES",
    "FreeForm",
    "GeluLipschitz",
    "SoftmaxLinfL1",
    "TailFrobeniusRank",
    "TailFrobeniusSchatten",
    "TailSingularValue",
    "Thm41Tail",
    "TruncationError",
    "declare",
    "exact_text",
]

FAMILIES: dict[str, type] = {
    cls.name: cls
    for cls in (
        GeluLipschitz,
        SoftmaxLinfL1,
        AttentionLipschitz,
        TailSingularValue,
        TailFrobeniusRank,
        TailFrobeniusSchatten,
        TruncationError,
        CoveringConstant,
    )
}
