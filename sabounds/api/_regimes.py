"""``sabounds.regimes``: the closed-form regime tables (exponents in L and N, dependence on T) of Edelman et al.
(2022) and Theorem 3.1 under the spectral regimes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabounds.api._common import frame, renamed
from sabounds.api._common import user_bound as load_user_bound
from sabounds.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from sabounds.theory.bound import Bound as UserBound
    from sabounds.theory.regimes import RegimeResult


@dataclass(frozen=True)
class Regimes:
    """``sabounds.regimes``' result: ``json`` as ``regimes --format json``; ``table`` one row per regime and bound;
    ``markdown`` and ``latex`` as the command prints them.  ``json`` is built on first use: its second route (the
    direct growth at each sampled kappa) takes most of the time and the markdown and LaTeX tables do not need it."""

    markdown: str = field(repr=False, default="")
    results: tuple[RegimeResult, ...] = field(repr=False, default=())

    @cached_property
    def json(self) -> dict[str, Any]:
        from sabounds.render.regime_tables import json_data

        return json_data(list(self.results))

    @property
    def table(self) -> pd.DataFrame:
        rows = [
            {"regime": r["name"], "alpha": r["alpha"], "bound": bound, **b}
            for r in self.json["regimes"]
            for bound, b in r["bounds"].items()
        ]
        return frame(rows)

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def to_json(self) -> dict[str, Any]:
        return self.json

    @property
    def latex(self) -> str:
        """The LaTeX table (``regimes --format latex``)."""
        from sabounds.render.regime_tables import latex_table

        return latex_table(list(self.results))


USER_ROWS_SECONDS = 120
"""A user's bound gets this long for its rows (the shipped example takes a few seconds): sympy's growth orders of
a term like ``exp(exp(s))`` can run without end, and a command must not hang on a file."""


def _with_user_rows(
    table: Callable[..., tuple[RegimeResult, ...]], chosen: tuple[str, ...] | None, arch: Any, user: UserBound
) -> tuple[RegimeResult, ...]:
    """The tables with the user's rows (the built-in rows are cached), or a one-line error past the time limit."""
    from sabounds.proofs_check.time_limit import TimeLimit, time_limit

    try:
        with time_limit(USER_ROWS_SECONDS):
            rows = table(chosen, arch, (user,))
    except TimeLimit:
        raise InputError(
            f"{user.id}: its growth orders in L, N and T were not found within {USER_ROWS_SECONDS} s; "
            "write the term in a simpler closed form"
        ) from None
    return rows


@renamed(bound="user_bound")
def regimes(
    regime: str | None = None, architecture: str = "single_head", user_bound: str | Path | None = None
) -> Regimes:
    """The closed-form regime tables for one regime (by name) or all, for the named architecture description;
    ``user_bound``: a TOML file of your own bound (docs/bounds.md), one more row."""
    from sabounds.render.regime_tables import markdown
    from sabounds.theory.architecture import ARCHITECTURES
    from sabounds.theory.regimes import REGIMES, table

    if regime is not None and regime not in REGIMES:
        raise InputError(f"unknown regime {regime!r}; choose from {', '.join(REGIMES)}")
    if architecture not in ARCHITECTURES:
        raise InputError(f"unknown architecture {architecture!r}; choose from {', '.join(ARCHITECTURES)}")
    user = load_user_bound(user_bound)
    chosen, arch = (regime,) if regime else None, ARCHITECTURES[architecture]()
    results = table(chosen, arch)
    if user:
        results = _with_user_rows(table, chosen, arch, user)
    return Regimes(markdown(list(results)), tuple(results))
