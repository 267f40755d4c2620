"""A study's result: every run with its status, and per task the ranking of every measure against the gap.

Exclusion rule (stated, applied before any statistic): a run that raised is reported with its one-line error; a run
that did not reach the stopping cross-entropy ``STOP_LOSS`` within its epoch cap is reported as not converged; both
are counted and left out of every statistic of their task.  A measure the package cannot compute on a run (the
whole bound on a pre-LN run) leaves that run out for that measure only.  The gap is test minus train error (``gap_error``); the same statistics against
test minus train cross-entropy (``gap_loss``) are in the JSON.
"""

from __future__ import annotations

import math

from sabounds.training_study.grids import AXES, RunSpec
from sabounds.training_study.measures import MEASURES
from sabounds.training_study.statistics import rank_measure
from sabounds.training_study.tasks import TASKS

GAPS = ("gap_error", "gap_loss")


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]


def run_rows(specs: list[RunSpec], outcomes: list) -> list[dict]:
    """One row per run: spec, status (``ok``, ``not converged``, ``error: ...``), record, measures, p profile."""
    rows = []
    for spec, outcome in zip(specs, outcomes):
        if isinstance(outcome, BaseException):
            rows.append(
                {
                    "spec": spec.to_json(),
                    "label": spec.label(),
                    "status": f"error: {_one_line(outcome)}",
                    "record": None,
                    "measures": None,
                    "p_profile": None,
                }
            )
            continue
        status = "ok" if outcome["record"]["converged"] else "not converged"
        rows.append({"label": spec.label(), "status": status, **outcome})
    return rows


def _stat_rows(rows: list[dict], gap: str) -> list[dict]:
    return [
        {
            "config": {a: r["spec"][a] for a in AXES},
            "seed": r["spec"]["seed"],
            "values": r["measures"],
            "gap": r["record"][gap],
        }
        for r in rows
        if r["status"] == "ok"
    ]


def rank_tasks(rows: list[dict]) -> dict:
    """Per task present: counts, excluded runs (label and status) and the rankings against each gap."""
    out = {}
    for task in TASKS:
        mine = [r for r in rows if r["spec"]["task"] == task]
        if not mine:
            continue
        axes = [a for a in AXES if len({repr(r["spec"][a]) for r in mine}) > 1]
        rankings = {gap: [rank_measure(_stat_rows(mine, gap), m, axes) for m in MEASURES] for gap in GAPS}
        out[task] = {
            "runs": len(mine),
            "used": sum(r["status"] == "ok" for r in mine),
            "axes": axes,
            "excluded": [{"label": r["label"], "status": r["status"]} for r in mine if r["status"] != "ok"],
            "rankings": rankings,
        }
    return out


def clean(value):
    """NaN and infinities as None, recursively: the JSON is standard JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value
