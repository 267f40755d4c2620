"""``sabounds.regimes``: the closed-form regime tables (exponents in L and N, dependence on T) of Edelman et al.
(2022) and Theorem 3.1 under the spectral regimes."""

from __future__ import annotations

from dataclasses import dataclass, field

from sabounds.api._common import frame, user_bound
from sabounds.errors import InputError


@dataclass(frozen=True)
class Regimes:
    """``sabounds.regimes``' result: ``json`` as ``regimes --format json``; ``table`` one row per regime and bound;
    ``markdown`` and ``latex`` as the command prints them."""

    json: dict = field(repr=False)
    markdown: str = field(repr=False, default="")
    results: object = field(repr=False, default=None)

    @property
    def table(self):
        rows = [{"regime": r["name"], "alpha": r["alpha"], "bound": bound, **b}
                for r in self.json["regimes"] for bound, b in r["bounds"].items()]
        return frame(rows)

    def to_frame(self):
        return self.table

    def to_json(self) -> dict:
        return self.json

    @property
    def latex(self) -> str:
        """The LaTeX table (``regimes --format latex``)."""
        from sabounds.render.regime_tables import latex_table
        return latex_table(self.results)


def regimes(regime: str | None = None, architecture: str = "single_head", bound=None) -> Regimes:
    """The closed-form regime tables for one regime (by name) or all, for the named architecture description;
    ``bound``: a TOML file of your own bound (docs/bounds.md), one more row."""
    from sabounds.render.regime_tables import json_data, markdown
    from sabounds.theory.architecture import ARCHITECTURES
    from sabounds.theory.regimes import REGIMES, table
    if regime is not None and regime not in REGIMES:
        raise InputError(f"unknown regime {regime!r}; choose from {', '.join(REGIMES)}")
    if architecture not in ARCHITECTURES:
        raise InputError(f"unknown architecture {architecture!r}; choose from {', '.join(ARCHITECTURES)}")
    user = user_bound(bound)
    results = table((regime,) if regime else None, ARCHITECTURES[architecture](), (user,) if user else ())
    return Regimes(json_data(results), markdown(results), results)
