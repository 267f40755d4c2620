"""``sabounds.derivation``: one derivation of the paper, step by step (statement, justification, how it is checked),
as text or LaTeX."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sabounds.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from sabounds.theory.derivation import Derivation as Steps
    from sabounds.theory.derivation import Step


def derivations() -> dict[str, Any]:
    """Every printable derivation, by id: the catalog's entries tagged printable (``sabounds.theory.catalog``)."""
    from sabounds.theory.catalog import derivations as printable

    return printable()


@dataclass(frozen=True)
class Derivation:
    """``sabounds.derivation``'s result: ``name`` and the derivation itself (``steps``, ``notes``); :attr:`text` and
    :meth:`latex` as ``sabounds derivation`` prints them."""

    name: str
    derivation: Steps = field(repr=False)

    @property
    def steps(self) -> list[Step]:
        return list(self.derivation.steps)

    @property
    def text(self) -> str:
        """Plain text, notes last."""
        from sabounds.theory.printer import derivation_text

        d = self.derivation
        return derivation_text(d) + (f"\n{d.notes}" if d.notes else "")

    def latex(self, standalone: bool = False) -> str:
        """A longtable (needs docs/preamble.tex); ``standalone``: a complete document with that preamble."""
        from sabounds.theory.latex_text import justification_latex
        from sabounds.theory.printer import derivation_latex
        from sabounds.theory.printer import standalone as document

        d = self.derivation
        body = derivation_latex(d) + (f"\n\n\\noindent {{\\small {justification_latex(d.notes)}}}\n" if d.notes else "")
        return document(body) if standalone else body

    def to_frame(self) -> pd.DataFrame:
        """One row per step: its name, statement (sympy's text), justification and source."""
        from sabounds.api._common import frame

        return frame(
            [
                {"step": s.name, "statement": str(s.statement), "justification": s.justification, "source": s.source}
                for s in self.steps
            ]
        )


def derivation(name: str) -> Derivation:
    """The derivation ``name`` (one of :func:`derivations`)."""
    known = derivations()
    if name not in known:
        raise InputError(f"unknown derivation {name!r}; choose from {', '.join(sorted(known))}")
    return Derivation(name, known[name]())
