"""The one catalog of derivations and bounds: every other list (verify, verify --mutants, derivation, docs, the
regime tables) is a view of ``CATALOG`` selected by tag.

Tags: ``printable`` (``sabounds derivation``, docs/derivations.md, and every step decided by ``verify``),
``audited`` (mutated by ``verify --mutants``), ``bound`` (a bound with a regime row), ``baseline`` (a published
bound ours is compared with), ``own_row`` (a data bound whose regime rows are built by ``regime_bounds`` itself).  ``claims`` names the proofs_check modules whose claim checks belong to the entry
(strings: theory/ never imports proofs_check).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sabounds.theory.derivation import Derivation


@dataclass(frozen=True)
class Entry:
    """One catalog row: ``make()`` builds the derivation (None for claim-only rows); ``bound()`` the
    :class:`sabounds.theory.bound.Bound` of a ``bound`` entry."""

    id: str
    make: Callable[[], Derivation] | None
    tags: frozenset[str]
    claims: tuple[str, ...] = ()
    bound: Callable[[], object] | None = None


def _lazy(module: str, attr: str = "derivation") -> Callable:
    """``module.attr`` imported when called: the catalog stays cheap to import."""

    def make(*args):
        import importlib

        return getattr(importlib.import_module(f"sabounds.theory.{module}"), attr)(*args)

    return make


def _arch(departure: str) -> Callable[[], Derivation]:
    return lambda: _lazy("architecture", "extension_derivation")(departure)


_CHECKS = "sabounds.proofs_check."
_DERIVED = frozenset({"printable", "audited"})


def _entries() -> list[Entry]:
    from sabounds.theory.architecture import DEPARTURES

    return [
        Entry("thm41", _lazy("thm41"), _DERIVED, (_CHECKS + "thm41",)),
        Entry("thm31", _lazy("thm31"), _DERIVED | {"bound", "own_row"}, bound=_lazy("thm31", "bound")),
        Entry(
            "edelman", _lazy("edelman"), _DERIVED | {"bound", "baseline", "own_row"}, bound=_lazy("edelman", "bound")
        ),
        Entry(
            "trauger_tewari",
            _lazy("trauger_tewari"),
            _DERIVED | {"bound", "baseline"},
            bound=_lazy("trauger_tewari", "bound"),
        ),
        Entry("attention", _lazy("attention_lipschitz"), _DERIVED),
        Entry("whole_bound", _lazy("whole_bound"), _DERIVED | {"bound"}),
        Entry("whole_bound.families", _lazy("family_bound"), _DERIVED),
        Entry("regimes", None, frozenset(), (_CHECKS + "claims", _CHECKS + "regime_fits")),
        Entry("grid", None, frozenset(), (_CHECKS + "grid",)),
        *(Entry(f"arch.{d}", _arch(d), frozenset({"printable"})) for d in DEPARTURES),
        Entry("arch", None, frozenset(), (_CHECKS + "architecture", _CHECKS + "architecture_block")),
    ]


CATALOG: list[Entry] = _entries()
"""Every derivation, bound and claim family, in reporting order (``arch.*``: families departing from BERT)."""


def tagged(tag: str) -> list[Entry]:
    """The entries carrying ``tag`` that have a derivation, in catalog order."""
    return [e for e in CATALOG if tag in e.tags and e.make is not None]


def derivations(tag: str = "printable") -> dict[str, Callable[[], Derivation]]:
    """id -> derivation maker for the entries tagged ``tag``."""
    return {e.id: e.make for e in tagged(tag)}


def data_bounds() -> list[Entry]:
    """The entries whose bound is data (a :class:`sabounds.theory.bound.Bound`): every number on a checkpoint is
    compiled from these (``sabounds.numerics.expressions.generated``)."""
    return [e for e in CATALOG if "bound" in e.tags and e.bound is not None]


def bounds() -> list[Entry]:
    """The data bounds without a regime row of their own (``own_row``: ours, Edelman): extra regime rows."""
    return [e for e in data_bounds() if "own_row" not in e.tags]


def claim_modules() -> list[str]:
    """The proofs_check modules whose claims belong to a catalog entry, in catalog order."""
    return [m for e in CATALOG for m in e.claims]
