"""Check outcomes as plain JSON and back, and the file of results stored with the package (``stored_results.json``
beside this module, written by ``python -m sabounds.full_report.cached_parts``).

Here, below the report and the docs pages, so that both read the stored outcomes without importing each other."""

from __future__ import annotations

import json
from pathlib import Path

from sabounds.numerics.log_real import dumps
from sabounds.numerics.result_cache import library_versions
from sabounds.proofs_check.registry import Check
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict

STORED = Path(__file__).with_name("stored_results.json")


def plain(data):
    """``data`` as plain JSON values (LogReals as ``{"decimal", "log10"}``, numpy scalars as numbers, tuples as lists)."""
    return json.loads(dumps(data))


def outcome_json(check: Check, outcome: Outcome) -> dict:
    return {
        "id": check.id,
        "verdict": outcome.verdict.value,
        "method": outcome.method,
        "precision_digits": outcome.precision_digits,
        "samples": outcome.samples,
        "margin": outcome.margin,
        "witness": plain(dict(outcome.witness)) if outcome.witness else None,
        "detail": outcome.detail,
        "seconds": outcome.seconds,
        "engines": list(outcome.engines),
        "margin_error": outcome.margin_error,
        "scaled_margin": outcome.scaled_margin,
        "exact_forms": dict(outcome.exact_forms),
        "basis": outcome.basis,
    }


def outcome_from_json(data: dict) -> Outcome:
    """The inverse of :func:`outcome_json`, by field name (a new field of ``Outcome`` cannot shift the others)."""
    return Outcome(
        Verdict(data["verdict"]),
        data["method"],
        precision_digits=data["precision_digits"],
        samples=data["samples"],
        margin=data["margin"],
        witness=data["witness"],
        detail=data["detail"],
        seconds=data["seconds"],
        engines=tuple(data["engines"]),
        margin_error=data["margin_error"],
        scaled_margin=data["scaled_margin"],
        exact_forms=data.get("exact_forms", {}),
        basis=data["basis"],
    )


def check_inputs(settings: Settings) -> dict:
    return {
        "part": "checks",
        "settings": {
            "precision": int(settings.precision),
            "samples": int(settings.samples),
            "seed": int(settings.seed),
        },
        "versions": library_versions(),
    }
