"""Rank a user's own runs without training: a table with one row per run, its seed, train and test error, the
hyperparameters as columns, and each measure as a column ``ln_<name>`` (the study's ``runs.csv`` has this form).

The gap is ``test_error - train_error``; a ``status`` column, when present, keeps only the rows marked ``ok``; the
axes are the given hyperparameter columns (default: the study's axes present with two or more values).  The
statistics are the study's own (``statistics.rank_measure``)."""

from __future__ import annotations

import math

from sabounds.training_study.grids import AXES
from sabounds.training_study.statistics import rank_measure

REQUIRED = ("seed", "train_error", "test_error")


def rank_table(frame, axes=None, task: str = "user") -> dict:
    """``{"runs", "used", "axes", "excluded", "rankings": {"gap_error": [...]}}`` of the table's measure columns;
    ValueError (one line) for a missing column, no measure column, an unknown axis or a non-finite number."""
    columns = list(frame.columns)
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise ValueError(f"the runs table lacks the column(s) {', '.join(missing)}")
    measures = [c[3:] for c in columns if c.startswith("ln_")]
    if not measures:
        raise ValueError("the runs table has no measure column (name them ln_<measure>)")
    records = frame.to_dict("records")
    used = [r for r in records if str(r.get("status", "ok")) == "ok"]
    if axes is None:
        axes = [a for a in AXES if a in columns and len({repr(r[a]) for r in used}) > 1]
    unknown = [a for a in axes if a not in columns]
    if unknown:
        raise ValueError(f"no column for the axis {', '.join(unknown)}")
    rows = []
    for r in used:
        numbers = [r["train_error"], r["test_error"], *(r[f"ln_{m}"] for m in measures)]
        if (
            not all(isinstance(v, (int, float)) and (math.isfinite(v) or math.isnan(v)) for v in numbers)
            or math.isnan(r["train_error"])
            or math.isnan(r["test_error"])
        ):
            raise ValueError(
                f"run {len(rows) + 1}: errors and measures must be finite numbers (a missing measure: empty)"
            )
        values = {m: None if math.isnan(r[f"ln_{m}"]) else float(r[f"ln_{m}"]) for m in measures}
        rows.append(
            {
                "config": {a: r[a] for a in axes},
                "seed": r["seed"],
                "values": values,
                "gap": float(r["test_error"] - r["train_error"]),
            }
        )
    return {
        "runs": len(records),
        "used": len(rows),
        "axes": list(axes),
        "excluded": [
            {"label": f"row {i + 1}", "status": str(r["status"])}
            for i, r in enumerate(records)
            if str(r.get("status", "ok")) != "ok"
        ],
        "rankings": {"gap_error": [rank_measure(rows, m, axes) for m in measures]},
        "task": task,
    }
