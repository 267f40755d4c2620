"""A derivation is data: ordered :class:`Step` s, each a sympy statement, a justification and a check.

The same object feeds the checker (``proofs_check``), the LaTeX and text printers
(:mod:`sabounds.theory.printer`) and the documentation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

import sympy as sp

from sabounds.theory.checks import CheckSpec, Definition, Interval


@dataclass(frozen=True)
class Step:
    """One step: ``statement`` (a sympy relation or expression) holds because of ``justification``.

    ``check`` says how it is decided; ``source`` labels its provenance (``published proxy``, ``reconstructed``,
    ``extension`` or ``paper's summary``, as in docs/derivations.md).
    """

    name: str
    statement: sp.Basic
    justification: str
    check: CheckSpec = field(default_factory=Definition)
    source: str = "reconstructed"

    def subs(self, mapping: Mapping) -> Step:
        """The step with symbols replaced, check domains included (e.g. a tighter constant)."""
        check = self.check
        domain = getattr(check, "domain", None)
        if domain:
            kept = {s: iv for s, iv in domain.items() if s not in mapping}
            check = replace(check, domain=kept)
        return replace(self, statement=self.statement.subs(mapping), check=check)


@dataclass(frozen=True)
class Derivation:
    """An ordered, named sequence of steps; ``id`` prefixes the ids of the checks that decide it."""

    id: str
    title: str
    steps: tuple[Step, ...]
    notes: str = ""

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, name: str) -> Step:
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(f"{self.id} has no step {name!r}; steps: {', '.join(s.name for s in self.steps)}")

    @property
    def free_symbols(self) -> set[sp.Symbol]:
        out: set[sp.Symbol] = set()
        for step in self.steps:
            out |= step.statement.free_symbols
        return out

    def subs(self, mapping: Mapping) -> Derivation:
        """The whole derivation with symbols replaced: how a user substitutes tighter constants."""
        return replace(self, steps=tuple(step.subs(mapping) for step in self.steps))


__all__ = ["Derivation", "Step", "Interval"]
