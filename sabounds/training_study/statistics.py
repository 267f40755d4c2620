"""Does a measure order runs by their generalization gap?  Kendall's tau, granulated tau and the sign-error.

Rows are runs: ``{"config": {axis: value}, "seed": s, "values": {measure: x or None}, "gap": g}``.

* ``kendall``: Kendall's tau-b of (measure, gap) over the rows (scipy), with a percentile bootstrap interval: runs
  resampled with replacement ``BOOTSTRAP`` times from a fixed seed; resamples where tau is undefined are skipped.
* ``granulated`` (Jiang et al. 2020, eq. 4): for axis i, the runs are grouped by the values of every other axis and
  the seed; psi_i = the mean over groups (in which axis i takes at least two values) of Jiang's tau within the group,
  eq. 2: the mean of sgn(dC) sgn(dg) over its ordered pairs (tau-a: a tie counts 0, so a measure constant along an
  axis scores 0 there, not a skipped group); Psi = the mean of psi_i over the axes that have a group.
* ``sign_error`` (Dziugaite et al. 2020): a one-axis pair is two runs of the same seed differing in exactly one axis;
  its error is (1 - sgn(dC) sgn(dg)) / 2 (1/2 on a tie); an environment is the pair of configurations (seeds
  pooled), its error the mean over its seeds; reported are the worst case (max over environments) and the mean.
A measure missing on a run (None) leaves that run out for that measure only.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

BOOTSTRAP = 1000
LEVEL = 0.95


def kendall(x, y) -> float:
    """Kendall's tau-b; nan when fewer than two runs or either side is constant."""
    from scipy.stats import kendalltau
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(kendalltau(x, y).statistic)


def jiang_tau(x, y) -> float:
    """Jiang et al. (2020) eq. 2: ``sum_{i != j} sgn(x_i - x_j) sgn(y_i - y_j) / (n (n - 1))`` (tau-a; ties count 0)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2:
        return math.nan
    signs = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    return float(signs.sum() / (len(x) * (len(x) - 1)))


def bootstrap_interval(x, y, draws: int = BOOTSTRAP, seed: int = 0, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of tau over ``draws`` resamples of the runs (nan, nan when none is defined)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    rng = np.random.default_rng(seed)
    taus = [kendall(x[i], y[i]) for i in (rng.integers(0, len(x), len(x)) for _ in range(draws))] if len(x) else []
    taus = np.array([t for t in taus if not math.isnan(t)])
    if not taus.size:
        return math.nan, math.nan
    tail = (1 - level) / 2
    return float(np.quantile(taus, tail)), float(np.quantile(taus, 1 - tail))


def _usable(rows, measure: str) -> list[dict]:
    return [r for r in rows if r["values"].get(measure) is not None]


def _groups(rows, axis: str) -> dict:
    """Rows grouped by the seed and every axis but ``axis``."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["seed"], tuple(sorted((a, v) for a, v in r["config"].items() if a != axis)))].append(r)
    return groups


def granulated(rows, measure: str, axes) -> dict:
    """``{"per_axis": {axis: psi_i or None}, "Psi": mean of the psi_i (None if none)}``."""
    rows = _usable(rows, measure)
    per_axis = {}
    for axis in axes:
        taus = []
        for group in _groups(rows, axis).values():
            if len({r["config"][axis] for r in group}) > 1:
                taus.append(jiang_tau([r["values"][measure] for r in group], [r["gap"] for r in group]))
        per_axis[axis] = float(np.mean(taus)) if taus else None
    known = [v for v in per_axis.values() if v is not None]
    return {"per_axis": per_axis, "Psi": float(np.mean(known)) if known else None}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def sign_error(rows, measure: str, axes) -> dict:
    """``{"worst", "mean", "environments", "pairs"}`` of the sign-error over one-axis pairs (None when no pair)."""
    rows = _usable(rows, measure)
    environments = defaultdict(list)
    for axis in axes:
        for group in _groups(rows, axis).values():
            for i, a in enumerate(group):
                for b in group[i + 1:]:
                    if a["config"][axis] == b["config"][axis]:
                        continue
                    a_, b_ = sorted((a, b), key=lambda r: repr(r["config"][axis]))
                    s = _sign(b_["values"][measure] - a_["values"][measure]) * _sign(b_["gap"] - a_["gap"])
                    env = (axis, repr(a_["config"][axis]), repr(b_["config"][axis]),
                           tuple(sorted((k, repr(v)) for k, v in a_["config"].items() if k != axis)))
                    environments[env].append(0.5 if s == 0 else (1 - s) / 2)
    if not environments:
        return {"worst": None, "mean": None, "environments": 0, "pairs": 0}
    errors = [float(np.mean(v)) for v in environments.values()]
    return {"worst": max(errors), "mean": float(np.mean(errors)), "environments": len(errors),
            "pairs": sum(len(v) for v in environments.values())}


def rank_measure(rows, measure: str, axes, seed: int = 0) -> dict:
    """Tau with its bootstrap interval, granulated tau and sign-error of one measure against the rows' gap."""
    usable = _usable(rows, measure)
    x, y = [r["values"][measure] for r in usable], [r["gap"] for r in usable]
    low, high = bootstrap_interval(x, y, seed=seed)
    return {"measure": measure, "runs": len(usable), "tau": kendall(x, y), "tau_low": low, "tau_high": high,
            "granulated": granulated(usable, measure, axes), "sign_error": sign_error(usable, measure, axes)}
