"""Does a measure order runs by their generalization gap?  Tau per axis and overall, with tests and intervals.

Rows are runs: ``{"config": {axis: value}, "seed": s, "values": {measure: x or None}, "gap": g}``.  One tau
throughout (``TAU``): Jiang et al. (2020)'s eq. 2, tau-a, ``sum_{i<j} sgn(dC) sgn(dg) / pairs``; a pair tied in the
measure or the gap counts 0, and the tied pairs are reported beside it.

* ``overall``: tau over all runs; a two-sided permutation p-value (gaps shuffled over the runs, ``PERMUTATIONS``
  draws, p = (1 + #{|tau*| >= |tau|}) / (1 + draws)); a block bootstrap interval whose blocks are configurations
  (a configuration's seeds resampled together; pairs of copies of one run do not count).
* ``granulated`` (Jiang et al. 2020, eq. 4): for an axis, a block is the runs of one seed at one setting of every
  other axis; psi = the mean over blocks of the tau within the block.  Permutation p-value: gaps shuffled within
  each block.  Interval: blocks resampled with replacement (``BOOTSTRAP`` draws), Hesterberg (2015)'s expanded
  percentile interval (quantiles at Phi(-sqrt(b/(b-1)) t_{b-1}) for b blocks), never narrower than
  psi -+ z_{0.975} sd_0 with sd_0 the standard deviation of psi over the shuffles (with few blocks of discrete
  taus the bootstrap alone excluded 0 in 5.5-7% of null studies, measured once); its false exclusion of 0 under a
  shuffled null is measured by a test.
* ``verdict``: ``tracks`` when the interval lies above 0 and p < ``ALPHA``, ``anti-tracks`` when below 0 and
  p < ``ALPHA``, otherwise ``inconclusive``.
* ``sign_error`` (Dziugaite et al. 2020) with their noise filter: an environment is two configurations differing in
  one axis; it is kept only when its mean gap difference over seeds exceeds ``Z`` standard errors of seed noise
  (sigma = the pooled within-configuration standard deviation of the gap over seeds, se = sigma sqrt(2/k) for k
  seeds); a kept environment's error is the mean over its seeds of (1 - sgn(dC) sgn(mean dg)) / 2 (1/2 when the
  measure ties).  Reported: worst (max) and mean over kept environments, kept and total counts, per axis and pooled.
* ``describe``: the measure's dynamic range (ln units, over all runs and the largest within one architecture) and
  its tau with the training size, so a measure that only follows n is visible.
A measure missing on a run (None) leaves that run out for that measure only.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict

import numpy as np

TAU = "tau-a (Jiang et al. 2020 eq. 2): mean of sgn(dC) sgn(dgap) over pairs; a tied pair counts 0"
PERMUTATIONS = 2000
BOOTSTRAP = 10000
LEVEL = 0.95
ALPHA = 0.05
Z = 1.96
ARCHITECTURE = ("layout", "depth", "width", "heads", "tokens")


def _signs(v: np.ndarray) -> np.ndarray:
    """``sgn(v_i - v_j)`` for every pair i < j (the last axis holds the runs)."""
    i, j = np.triu_indices(v.shape[-1], 1)
    return np.sign(v[..., i] - v[..., j])


def tau_a(x, y) -> float:
    """Jiang et al.'s tau: ``sum_{i<j} sgn(x_i - x_j) sgn(y_i - y_j) / (n (n - 1) / 2)``; nan for fewer than 2."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2:
        return math.nan
    return float(np.mean(_signs(x) * _signs(y)))


def ties(x, y) -> dict:
    """Pairs, and the pairs tied in x and in y (they count 0 in ``tau_a``)."""
    sx, sy = _signs(np.asarray(x, dtype=float)), _signs(np.asarray(y, dtype=float))
    return {"pairs": int(sx.size), "tied_measure": int(np.sum(sx == 0)), "tied_gap": int(np.sum(sy == 0))}


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _p_value(observed: float, null: np.ndarray) -> float:
    return float((1 + np.sum(np.abs(null) >= abs(observed) - 1e-12)) / (1 + len(null)))


def expanded_quantiles(blocks: int, level: float = LEVEL) -> tuple[float, float]:
    """Hesterberg (2015)'s expanded percentile levels for ``blocks`` resampled units."""
    from scipy.stats import norm, t

    tail = norm.cdf(-math.sqrt(blocks / (blocks - 1)) * t.ppf(1 - (1 - level) / 2, blocks - 1))
    return float(tail), float(1 - tail)


def verdict(low, high, p) -> str:
    """``tracks`` / ``anti-tracks`` when the interval excludes 0 on that side and p < ALPHA; else ``inconclusive``."""
    if low is None or high is None or p is None or not p < ALPHA:
        return "inconclusive"
    return "tracks" if low > 0 else "anti-tracks" if high < 0 else "inconclusive"


def block_interval(
    block_taus: np.ndarray, draws: int = BOOTSTRAP, rng=None, level: float = LEVEL, null_sd: float = 0.0
):
    """Expanded percentile interval of the mean of ``block_taus`` over ``draws`` block resamples, widened to at least
    mean -+ z sd_0 (``null_sd``) and clipped to tau's range [-1, 1]; None below 3 blocks."""
    from scipy.stats import norm

    b = len(block_taus)
    if b < 3:
        return None, None
    rng = rng if rng is not None else np.random.default_rng(0)
    means = block_taus[rng.integers(0, b, (draws, b))].mean(axis=1)
    lo, hi = expanded_quantiles(b, level)
    centre, half = float(block_taus.mean()), float(norm.ppf(1 - (1 - level) / 2)) * null_sd
    return (
        max(-1.0, min(float(np.quantile(means, lo)), centre - half)),
        min(1.0, max(float(np.quantile(means, hi)), centre + half)),
    )


def _usable(rows, measure: str) -> list[dict]:
    return [r for r in rows if r["values"].get(measure) is not None]


def _groups(rows, axis: str) -> list[list[dict]]:
    """Blocks of ``axis``: rows of one seed at one setting of every other axis, where ``axis`` takes 2+ values."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["seed"], tuple(sorted((a, repr(v)) for a, v in r["config"].items() if a != axis)))].append(r)
    return [g for g in groups.values() if len({repr(r["config"][axis]) for r in g}) > 1]


def _block_taus_null(x: np.ndarray, y: np.ndarray, draws: int, rng) -> np.ndarray:
    """Tau of one block for ``draws`` shuffles of its gaps."""
    shuffled = rng.permuted(np.tile(y, (draws, 1)), axis=1)
    return np.mean(_signs(x)[None, :] * _signs(shuffled), axis=1)


def granulated(rows, measure: str, axes, draws: int = PERMUTATIONS, boot: int = BOOTSTRAP) -> dict:
    """Per axis ``{psi, low, high, p, blocks, verdict}`` (None entries when the axis has no block) and Psi."""
    rows = _usable(rows, measure)
    per_axis = {}
    for axis in axes:
        blocks = [
            (np.array([r["values"][measure] for r in g], float), np.array([r["gap"] for r in g], float))
            for g in _groups(rows, axis)
        ]
        if not blocks:
            per_axis[axis] = {"psi": None, "low": None, "high": None, "p": None, "blocks": 0, "verdict": "inconclusive"}
            continue
        rng = _rng(measure, axis)
        taus = np.array([tau_a(x, y) for x, y in blocks])
        psi = float(taus.mean())
        null = np.mean([_block_taus_null(x, y, draws, rng) for x, y in blocks], axis=0)
        p = _p_value(psi, null)
        low, high = block_interval(taus, boot, rng, null_sd=float(np.std(null)))
        per_axis[axis] = {
            "psi": psi,
            "low": low,
            "high": high,
            "p": p,
            "blocks": len(blocks),
            "verdict": verdict(low, high, p),
        }
    known = [v["psi"] for v in per_axis.values() if v["psi"] is not None]
    return {"per_axis": per_axis, "Psi": float(np.mean(known)) if known else None}


def overall(rows, measure: str, draws: int = PERMUTATIONS, boot: int = BOOTSTRAP) -> dict:
    """Tau over all runs with its permutation p-value, block bootstrap interval (blocks: configurations), ties."""
    rows = _usable(rows, measure)
    x, y = np.array([r["values"][measure] for r in rows], float), np.array([r["gap"] for r in rows], float)
    if len(x) < 2:
        return {"tau": None, "low": None, "high": None, "p": None, "verdict": "inconclusive", **ties(x, y)}
    rng = _rng(measure, "overall")
    tau = tau_a(x, y)
    sx = _signs(x)
    null = np.array([np.mean(sx * _signs(rng.permutation(y))) for _ in range(draws)])
    p = _p_value(tau, null)
    configs = defaultdict(list)
    for k, r in enumerate(rows):
        configs[repr(sorted(r["config"].items()))].append(k)
    blocks = list(configs.values())
    low = high = None
    if len(blocks) >= 3:
        product = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
        member = np.zeros((len(blocks), len(x)))
        for b, idx in enumerate(blocks):
            member[b, idx] = 1.0
        picked = rng.integers(0, len(blocks), (boot, len(blocks)))
        weight = np.stack([np.bincount(row, minlength=len(blocks)) for row in picked]) @ member
        pairs = weight.sum(axis=1) ** 2 - np.sum(weight**2, axis=1)
        stats = np.einsum("bi,ij,bj->b", weight, product, weight) / np.where(pairs > 0, pairs, 1.0)
        lo, hi = expanded_quantiles(len(blocks))
        low, high = float(np.quantile(stats, lo)), float(np.quantile(stats, hi))
    return {"tau": tau, "low": low, "high": high, "p": p, "verdict": verdict(low, high, p), **ties(x, y)}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def seed_noise(rows) -> float | None:
    """Pooled within-configuration standard deviation of the gap over seeds (None without replicated configs)."""
    by_config = defaultdict(list)
    for r in rows:
        by_config[repr(sorted(r["config"].items()))].append(r["gap"])
    dof = sum(len(g) - 1 for g in by_config.values())
    if dof == 0:
        return None
    return math.sqrt(sum(float(np.sum((np.array(g) - np.mean(g)) ** 2)) for g in by_config.values()) / dof)


def _environments(rows, measure: str, axes) -> dict:
    """One-axis environments ``(axis, low value, high value, rest) -> [(seed, dC, dg)]`` (runs of the same seed)."""
    environments = defaultdict(list)
    for axis in axes:
        for group in _groups(rows, axis):
            for i, a in enumerate(group):
                for b in group[i + 1 :]:
                    if a["config"][axis] == b["config"][axis]:
                        continue
                    a_, b_ = sorted((a, b), key=lambda r: r["config"][axis])
                    env = (
                        axis,
                        repr(a_["config"][axis]),
                        repr(b_["config"][axis]),
                        tuple(sorted((k, repr(v)) for k, v in a_["config"].items() if k != axis)),
                    )
                    environments[env].append(
                        (a["seed"], b_["values"][measure] - a_["values"][measure], b_["gap"] - a_["gap"])
                    )
    return environments


def sign_error(rows, measure: str, axes, z: float = Z, sigma: float | None = None) -> dict:
    """Noise-filtered sign-error: pooled and per axis ``{worst, mean, kept, environments}``; ``sigma`` the seed noise
    (default ``seed_noise(rows)``; with none, nothing can be told from noise and no environment is kept)."""
    rows = _usable(rows, measure)
    sigma = seed_noise(rows) if sigma is None else sigma
    errors, totals = defaultdict(list), defaultdict(int)
    for env, items in _environments(rows, measure, axes).items():
        totals[env[0]] += 1
        dg = float(np.mean([g for _, _, g in items]))
        if sigma is None or abs(dg) <= z * sigma * math.sqrt(2 / len(items)):
            continue
        errors[env[0]].append(
            float(np.mean([0.5 if _sign(c) == 0 else (1 - _sign(c) * _sign(dg)) / 2 for _, c, _ in items]))
        )

    def summary(errs, total):
        return {
            "worst": max(errs) if errs else None,
            "mean": float(np.mean(errs)) if errs else None,
            "kept": len(errs),
            "environments": total,
        }

    out = summary([e for v in errors.values() for e in v], sum(totals.values()))
    out["per_axis"] = {a: summary(errors.get(a, []), totals.get(a, 0)) for a in axes}
    out["seed_noise"], out["z"] = sigma, z
    return out


def describe(rows, measure: str) -> dict:
    """Dynamic range of the (ln) measure over the runs and within one architecture, and its tau with the size."""
    rows = _usable(rows, measure)
    values = np.array([r["values"][measure] for r in rows], float)
    if not len(values):
        return {"range": None, "range_within_architecture": None, "tau_with_size": None}
    arch = defaultdict(list)
    for r, v in zip(rows, values):
        arch[tuple(repr(r["config"].get(a)) for a in ARCHITECTURE)].append(v)
    sizes = [r["config"].get("size") for r in rows]
    return {
        "range": float(np.ptp(values)),
        "range_within_architecture": max(float(np.ptp(v)) for v in arch.values()),
        "tau_with_size": None if None in sizes or len(set(sizes)) < 2 else tau_a(values, sizes),
    }


def rank_measure(rows, measure: str, axes) -> dict:
    """Everything above for one measure against the rows' gap."""
    usable = _usable(rows, measure)
    return {
        "measure": measure,
        "runs": len(usable),
        "overall": overall(usable, measure),
        "granulated": granulated(usable, measure, axes),
        "sign_error": sign_error(usable, measure, axes),
        "describe": describe(usable, measure),
    }
