"""One API vocabulary: ``model=`` names a checkpoint in every call, ``user_bound=`` a user's bound file (no argument
is named like the function ``bound``); the old names still work, each with a DeprecationWarning."""

from __future__ import annotations

import inspect
import warnings

import pytest

import sabounds
from sabounds.api import InputError
from tests.support.family_files import write_family

CHECKPOINT_CALLS = ("analyze", "bound", "report")


def test_every_call_that_takes_a_checkpoint_names_it_model():
    for name in CHECKPOINT_CALLS:
        assert "model" in inspect.signature(getattr(sabounds, name)).parameters, name
    assert "models" in inspect.signature(sabounds.sweep).parameters


def test_no_argument_is_named_like_a_function_of_the_api():
    functions = {n for n in sabounds.__all__ if n[0].islower()}
    for name in functions:
        parameters = set(inspect.signature(getattr(sabounds, name)).parameters)
        assert not parameters & functions, f"{name}({', '.join(sorted(parameters & functions))}=...)"


def test_the_old_names_warn_and_still_work(tmp_path):
    write_family(tmp_path, "bert")
    with pytest.warns(DeprecationWarning, match=r"analyze\(source=...\) is deprecated; use model="):
        old = sabounds.analyze(source=tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = sabounds.analyze(model=tmp_path)
    assert old.table.equals(new.table)
    with pytest.warns(DeprecationWarning, match=r"analysis_depth\(source=...\)"):
        assert sabounds.api._analysis.analysis_depth(source=tmp_path) == new.analysis.shape.layers


def test_regimes_bound_is_user_bound(monkeypatch):
    seen = {}
    monkeypatch.setattr("sabounds.api._regimes.load_user_bound", lambda path: seen.setdefault("path", path))
    monkeypatch.setattr("sabounds.api._regimes._with_user_rows", lambda *a: ())
    with pytest.warns(DeprecationWarning, match=r"regimes\(bound=...\) is deprecated; use user_bound="):
        sabounds.regimes(regime="rank", bound="mine.toml")
    assert seen == {"path": "mine.toml"}


def test_sweep_sources_is_models(monkeypatch):
    with pytest.warns(DeprecationWarning, match=r"sweep\(sources=...\)"), pytest.raises(InputError):
        sabounds.sweep(sources=["a"], workers=1, scheduler="tcp://x:1")


def test_old_and_new_name_at_once_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="give model= only"):
        sabounds.analyze(model=tmp_path, source=tmp_path)
