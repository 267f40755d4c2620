"""One catalog (sabounds.theory.catalog): removing an entry removes it from verify, verify --mutants, derivation,
docs and the regime tables."""

from __future__ import annotations

import pytest

from sabounds.theory import catalog


def _victim() -> str:
    """The last data bound of the catalog (the one a new bound adds), else the Edelman baseline's derivation."""
    data = [e.id for e in catalog.CATALOG if e.bound is not None]
    return data[-1] if data else "edelman"


def _views():
    from sabounds.api import derivations
    from sabounds.proofs_check import mutants as MU
    from sabounds.proofs_check.registry import all_checks
    from sabounds.render.docs_pages import derivations_page
    from sabounds.theory import regimes as R
    from sabounds.theory.regime_models import frobenius

    result = R.regime_result(frobenius(), R.ALPHAS["bounded"])
    page = derivations_page()
    return {
        "verify": {c.id.split(".")[0] for c in all_checks()},
        "mutants": {d.id for d in MU.derivations_audited()},
        "derivation": set(derivations()),
        "docs": {e.id for e in catalog.CATALOG if f"Id `{e.id}`" in page} | {"__page__"},
        "regimes": set(result.bounds) | set(result.joints),
    }


def test_removing_an_entry_removes_it_everywhere(monkeypatch):
    victim = _victim()
    views = ("verify", "mutants", "derivation", "docs") + (("regimes",) if victim != "edelman" else ())
    before = _views()
    assert all(victim in before[v] for v in views), before
    monkeypatch.setattr(catalog, "CATALOG", [e for e in catalog.CATALOG if e.id != victim])
    after = _views()
    assert all(victim not in after[v] for v in views), after
    assert all("thm31" in after[v] for v in ("verify", "mutants", "derivation", "docs"))


def test_tags_select_views():
    data = {e.id for e in catalog.bounds()}
    assert (
        set(catalog.derivations("audited"))
        == {"thm41", "thm31", "edelman", "attention", "whole_bound", "whole_bound.families"} | data
    )
    assert {e.id for e in catalog.CATALOG if "baseline" in e.tags} >= {"edelman"}
    assert all(e.id.startswith("arch.") for e in catalog.tagged("printable") if "audited" not in e.tags)


@pytest.mark.parametrize(
    "module", ["sabounds.proofs_check.registry", "sabounds.proofs_check.mutants", "sabounds.commands.derivation"]
)
def test_no_other_list(module):
    import importlib
    import inspect

    source = inspect.getsource(importlib.import_module(module))
    assert "CHECK_MODULES" not in source and "thm41.derivation()" not in source and "DERIVATIONS" not in source
