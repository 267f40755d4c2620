"""How a derivation step is to be decided: small immutable specifications, no deciding logic.

A step carries one of these; ``sabounds.proofs_check.deciders`` maps each *type* (never a step's name) to the
procedure that decides it.  Domains are intervals of sympy numbers ``(lo, hi)`` from which a numeric
decider samples when symbolic proof fails; ``log=True`` samples log-uniformly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy as sp


@dataclass(frozen=True)
class Interval:
    """A sampling range ``[lo, hi]`` for one scalar symbol; ``integer`` rounds draws, ``log`` draws log-uniformly."""

    lo: sp.Expr
    hi: sp.Expr
    integer: bool = False
    log: bool = False

    def __post_init__(self):
        object.__setattr__(self, "lo", sp.sympify(self.lo))
        object.__setattr__(self, "hi", sp.sympify(self.hi))


Domain = Mapping[sp.Symbol, Interval]


@dataclass(frozen=True)
class CheckSpec:
    """Base of all check specifications."""

    @property
    def kind(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Identity(CheckSpec):
    """``lhs == rhs`` for all symbol values allowed by the symbols' assumptions.

    Decided by ``simplify(lhs - rhs) == 0`` (also after ``doit``), else by numeric sampling on ``domain``.
    """

    domain: Domain = field(default_factory=dict)


@dataclass(frozen=True)
class Inequality(CheckSpec):
    """A scalar relation (``<=``, ``<``, ``>=``, ``>``) over the symbols' ``domain``.

    Decided by sympy's sign inference on ``rhs - lhs`` where it can, else by adversarial sampling.
    """

    domain: Domain = field(default_factory=dict)


@dataclass(frozen=True)
class Limit(CheckSpec):
    """``Eq(Limit(f, x, x0, dir), value)``: decided by ``sympy.limit`` and cross-checked numerically.

    ``domain`` gives values for the other free symbols in the numeric cross-check.
    """

    domain: Domain = field(default_factory=dict)


@dataclass(frozen=True)
class MatrixRelation(CheckSpec):
    """A relation between matrix atoms (``sabounds.theory.matrix_atoms``) that must hold for every matrix.

    Decided on random matrices drawn from each of ``families`` (names known to ``sabounds.numerics.testbeds.random_matrices``);
    the scalar symbols in ``domain`` (e.g. the split rank r) are drawn per sample.  The rounding tolerance is derived
    per sample from the float64 SVD's backward error (``proofs_check.matrix_relation.matrix_tolerance``).
    """

    families: tuple[str, ...] = ("low_rank", "power_law", "flat", "low_rank_tail")
    domain: Domain = field(default_factory=dict)


@dataclass(frozen=True)
class Minimum(CheckSpec):
    """``Eq(value, inf over var in var_range of objective)``, checked against a direct numeric minimisation.

    ``statement`` is ``Eq(value, objective)``; the decider minimises ``objective`` over ``var`` in
    ``var_range`` (continuous unless ``integer``) at high precision for random draws of ``domain``.
    """

    var: sp.Symbol = sp.Symbol("r")
    var_range: Interval = Interval(0, sp.oo)
    domain: Domain = field(default_factory=dict)
    integer: bool = False


@dataclass(frozen=True)
class Definition(CheckSpec):
    """A step that introduces notation; it asserts nothing and is reported as ``proved`` by definition."""


@dataclass(frozen=True)
class Premise(CheckSpec):
    """A cited result the derivation builds on; sabounds does not decide it and never reports it as checked."""

    reference: str = ""
