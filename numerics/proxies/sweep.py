"""Sweeps over many checkpoints: per-layer measurement tasks with cached, certified spectra, and one tidy table.

A sweep is planned per checkpoint (one error row for one that cannot be opened), split into one task per layer
(``measure_task``: memory bounded by one layer; runnable on any Dask worker or in-process), and assembled into rows
``(checkpoint, depth)`` with the published totals (``analyze_spectra``) plus the log-log fits of ``scaling`` per
family (``config.json``'s ``model_type``).  Feed-forward spectra use ``certified_singular_values`` (method
``certified``: Gram eigenvalues where proven to 1e-9 relative, else LAPACK) or LAPACK alone (``exact``, what
``sabounds scaling`` computes); the attention cores are ``product_singular_values`` in both.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from sabounds.numerics.cache import SpectraCache, layer_keys
from sabounds.numerics.certified_spectra import GRAM, LAPACK
from sabounds.numerics.checkpoints.reader import CheckpointError
from sabounds.numerics.log_real import LogReal, from_ln, ln_of
from sabounds.numerics.proxies.certified_measure import METHODS, OpenedCheckpoint, measure_layer_spectra, open_for_sweep
from sabounds.numerics.proxies.model_analysis import LayerSpectra, analyze_spectra
from sabounds.numerics.proxies.published_factors import L_PHI
from sabounds.numerics.proxies.scaling import LogLogFit, ScalingPoint, fit_loglog
from sabounds.numerics.proxies.source_lists import GLOB_CHARS, MODEL_FILE_SUFFIXES, SourceListError, expand_sources  # noqa: F401
from sabounds.numerics.spectra import RANK_TOL


@dataclass(frozen=True)
class LayerTask:
    """Measure layer ``layer`` of the checkpoint at ``source`` with ``method``; cache in ``cache_dir`` (None: off)."""

    source: str
    layer: int
    method: str
    cache_dir: str | None


@dataclass(frozen=True)
class LayerResult:
    """One measured layer, the method used per feed-forward matrix (``gram``/``lapack``) and whether it was cached."""

    spectra: LayerSpectra
    ff_methods: tuple[str, ...]
    cached: bool
    seconds: float


def _to_arrays(result: LayerResult) -> dict[str, np.ndarray]:
    """Every field of the layer's spectra that is set (None fields, such as a missing gate, are left out)."""
    arrays = {
        f.name: np.asarray(getattr(result.spectra, f.name))
        for f in fields(result.spectra)
        if getattr(result.spectra, f.name) is not None and f.name != "rounding"
    }
    arrays["ff_methods"] = np.array(result.ff_methods)
    return arrays


def _from_arrays(arrays: dict[str, np.ndarray], layer: int) -> tuple[LayerSpectra, tuple[str, ...]] | None:
    """The cached layer, or None when the entry lacks a field, has the wrong layer or a NaN, inf or negative
    value (treated as corrupt: the layer is measured again)."""
    values = {}
    for f in fields(LayerSpectra):
        if f.name not in arrays:
            continue
        value = arrays[f.name]
        values[f.name] = (
            int(value)
            if f.name == "index"
            else float(value)
            if value.ndim == 0
            else np.asarray(value, dtype=np.float64)
        )
    try:
        spectra = LayerSpectra(**values)
        methods = tuple(str(m) for m in arrays["ff_methods"])
    except (KeyError, TypeError, ValueError):
        return None
    if spectra.index != layer or len(methods) < 2 or not set(methods) <= {GRAM, LAPACK}:
        return None
    numbers = [np.asarray(v, dtype=np.float64) for k, v in values.items() if k != "index"]
    if not all(np.all(np.isfinite(v)) and np.all(v >= 0) for v in numbers):
        return None  # NaN, inf or negative spectra: measured again, never an error row of their own
    return spectra, methods


def task_keys(
    tasks: Sequence[LayerTask], checkpoint: OpenedCheckpoint | None = None, compute: bool = True
) -> list[str | None]:
    """Cache keys of tasks on one checkpoint with one method and cache (safetensors headers and the digest index are
    read once; tensor bytes only when not indexed, and with ``compute=False`` never: None then)."""
    if not tasks or tasks[0].cache_dir is None:
        return [None] * len(tasks)
    first = tasks[0]
    opened = open_for_sweep(first.source) if checkpoint is None else checkpoint
    if not opened.files:
        return [None] * len(tasks)
    keys = layer_keys(
        opened.files,
        opened.config_bytes,
        [t.layer for t in tasks],
        first.method,
        SpectraCache(first.cache_dir),
        compute,
    )
    return [keys[t.layer] for t in tasks]


def cached_results(tasks: Sequence[LayerTask]) -> list[LayerResult | None]:
    """Each task's result from the cache alone (no weights read), or None; tasks grouped by checkpoint."""
    out: list[LayerResult | None] = [None] * len(tasks)
    groups: dict[tuple, list[int]] = {}
    for i, t in enumerate(tasks):
        groups.setdefault((t.source, t.method, t.cache_dir), []).append(i)
    for positions in groups.values():
        group = [tasks[i] for i in positions]
        try:
            keys = task_keys(group, compute=False)
        except Exception:  # the task itself will report what is wrong
            continue
        for i, task, key in zip(positions, group, keys):
            if key is not None:
                start = time.perf_counter()
                out[i] = _lookup(SpectraCache(task.cache_dir), key, task.layer, start)
    return out


def _lookup(cache: SpectraCache, key: str, layer: int, start: float) -> LayerResult | None:
    arrays = cache.get(key)
    found = None if arrays is None else _from_arrays(arrays, layer)
    return None if found is None else LayerResult(found[0], found[1], True, time.perf_counter() - start)


def measure_task(task: LayerTask) -> LayerResult:
    """Run one layer task: from the cache when a verified entry exists, else measured and stored.  A cache that
    cannot be written (read-only folder, full disk) costs the caching, not the result."""
    start = time.perf_counter()
    opened = open_for_sweep(task.source)
    try:
        key = task_keys([task], opened)[0]
    except OSError:
        key = None
    cache = SpectraCache(task.cache_dir) if key is not None else None
    if cache is not None:
        hit = _lookup(cache, key, task.layer, start)
        if hit is not None:
            return hit
    spectra, methods = measure_layer_spectra(opened.source, task.layer, task.method)
    result = LayerResult(spectra, methods, False, time.perf_counter() - start)
    if cache is not None:
        try:
            cache.put(key, _to_arrays(result))
        except OSError:
            pass
    return result


@dataclass(frozen=True)
class PlannedCheckpoint:
    """A checkpoint that opened (``error`` None: its full depth, shape, family and tasks) or its one-line error."""

    source: str
    error: str | None = None
    depth: int = 0
    shape: object = None
    family: str = ""
    depths: tuple[int, ...] = ()
    tasks: tuple[LayerTask, ...] = field(default=())


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if isinstance(exc, (CheckpointError, SourceListError)) else f"{type(exc).__name__}: {text}"


def plan_sweep(
    sources: Sequence[str], method: str = "certified", cache_dir: str | None = None, depths: Sequence[int] | None = None
) -> list[PlannedCheckpoint]:
    """Open every checkpoint (config and headers only) and list its layer tasks; failures become error entries."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    planned = []
    for source in sources:
        try:
            opened = open_for_sweep(source)
            full = opened.shape.layers
            wanted = sorted(set(depths)) if depths else [full]
            bad = [d for d in wanted if not 1 <= d <= full]
            if bad:
                raise CheckpointError(
                    f"{Path(source) / 'config.json'}: depth {bad[0]} outside 1..{full} (field num_hidden_layers)"
                )
            opened.source.check_layers_exist(wanted[-1])  # before one task per claimed layer is made
            tasks = tuple(LayerTask(str(source), i, method, cache_dir) for i in range(wanted[-1]))
            planned.append(
                PlannedCheckpoint(str(source), None, full, opened.shape, opened.family, tuple(wanted), tasks)
            )
        except Exception as exc:  # any failure to open is this checkpoint's error row, not the sweep's
            planned.append(PlannedCheckpoint(str(source), one_line(exc)))
    return planned


LARGE = ("ours", "edelman", "ours_lphi_in_gamma", "edelman_qk_factor_2")  # may leave float64 (log_real.py)
ROW_COLUMNS = (
    "source",
    "family",
    "status",
    "error",
    "L",
    "L_full",
    "N",
    "heads",
    "intermediate",
    "grid_m",
    *(c for q in LARGE for c in (q, f"{q}_log10")),
    "rank_count",
    "ff_gram",
    "ff_lapack",
    "layers_cached",
    "layers_measured",
    "method",
)


def float_and_log10(value) -> tuple[float | None, float | None]:
    """A table's two columns for a quantity that may leave float64: the value as a float64 (None beyond its
    range) and its log10 (always finite; None for 0).  JSON, CSV and Parquet carry both; fits use the log10."""
    ln = ln_of(value)
    if ln == -math.inf:
        return 0.0, None
    return (float(value) if not isinstance(value, LogReal) else None), ln / math.log(10)


def _large_columns(**values) -> dict:
    out = {}
    for name, value in values.items():
        out[name], out[f"{name}_log10"] = float_and_log10(value)
    return out


def checkpoint_rows(
    plan: PlannedCheckpoint,
    results: Sequence[LayerResult] | None,
    error: str | None,
    lphi: float = L_PHI,
    grid_m: int | None = None,
    rank_tol: float = RANK_TOL,
    method: str = "certified",
) -> list[dict]:
    """The table rows of one checkpoint: one per depth, or one error row (its one-line message)."""
    blank = {c: None for c in ROW_COLUMNS}
    message = plan.error or error
    if message is None:
        try:
            spectra = [r.spectra for r in sorted(results, key=lambda r: r.spectra.index)]
            rows = []
            for depth in plan.depths:
                a = analyze_spectra(spectra[:depth], plan.shape, lphi, grid_m, rank_tol)
                used = [m for r in results if r.spectra.index < depth for m in r.ff_methods]
                rows.append(
                    {
                        **blank,
                        "source": plan.source,
                        "family": plan.family,
                        "status": "ok",
                        "error": "",
                        "L": depth,
                        "L_full": plan.depth,
                        "N": a.shape.hidden,
                        "heads": a.shape.heads,
                        "intermediate": a.shape.intermediate,
                        "grid_m": a.grid_m,
                        **_large_columns(
                            ours=a.ours,
                            edelman=a.edelman,
                            ours_lphi_in_gamma=a.variants.ours_lphi_in_gamma,
                            edelman_qk_factor_2=a.variants.edelman_qk_factor_2,
                        ),
                        "rank_count": a.rank_count,
                        "ff_gram": used.count(GRAM),
                        "ff_lapack": used.count(LAPACK),
                        "layers_cached": sum(r.cached for r in results if r.spectra.index < depth),
                        "layers_measured": sum(not r.cached for r in results if r.spectra.index < depth),
                        "method": method,
                    }
                )
            return rows
        except (ValueError, ArithmeticError) as exc:
            message = one_line(exc)
    return [
        {**blank, "source": plan.source, "family": plan.family, "status": "error", "error": message, "method": method}
    ]


FF_TYPES = ("M_in", "M_out", "M_gate")
METHOD_COLUMNS = ("source", "layer", "type", "method", "cached")


def method_rows(plan: PlannedCheckpoint, results: Sequence[LayerResult | BaseException]) -> list[dict]:
    """Per feed-forward matrix of a checkpoint: how its spectrum was computed (``gram`` or ``lapack``)."""
    return [
        {"source": plan.source, "layer": r.spectra.index, "type": kind, "method": method, "cached": r.cached}
        for r in results
        if isinstance(r, LayerResult)
        for kind, method in zip(FF_TYPES, r.ff_methods)
    ]


def family_fits(rows: Sequence[dict]) -> list[tuple[str, LogLogFit]]:
    """Per family, the log-log fits of ``ours`` and ``edelman`` in L and N over its ok rows (two points at least),
    from the log10 columns, so values beyond float64 are fitted like any other."""
    out = []
    for family in sorted({r["family"] for r in rows if r["status"] == "ok"}):
        mine = [r for r in rows if r["status"] == "ok" and r["family"] == family]
        if any(r["ours_log10"] is None or r["edelman_log10"] is None for r in mine):
            continue  # a zero total has no logarithm to fit
        points = [
            ScalingPoint(
                r["source"],
                r["L"],
                r["N"],
                r["heads"],
                from_ln(r["ours_log10"] * math.log(10)),
                from_ln(r["edelman_log10"] * math.log(10)),
            )
            for r in mine
        ]
        if len(points) > 1:
            out += [(family, fit_loglog(points, q)) for q in ("ours", "edelman")]
    return out
