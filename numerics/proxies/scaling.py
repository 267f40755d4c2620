"""How ``ours`` and ``edelman`` grow with depth L and width N, across checkpoints or depth truncations of one.

Each model directory is read once (up to its largest requested depth); every truncation re-evaluates the
proxies from those spectra as an ``L = depth`` model.  Growth is summarised by the least-squares fit
``log y = c + a log L + b log N`` over the variables that vary among the points (a slope is None otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sabounds.numerics.checkpoints.errors import CheckpointError
from sabounds.numerics.checkpoints.source import CheckpointSource
from sabounds.numerics.log_real import LogReal, ln_of
from sabounds.numerics.proxies.model_analysis import (
    LayerSpectra,
    analyze_spectra,
    measure_model,
    open_checkpoint,
)
from sabounds.numerics.spectra import RANK_TOL


@dataclass(frozen=True)
class ScalingPoint:
    """The totals of one checkpoint at one depth; ``kind`` is ``trained`` at the checkpoint's own depth and
    ``truncation`` below it (its first layers, not a model trained at that depth)."""

    model: str
    layers: int
    hidden: int
    heads: int
    ours: float
    edelman: float | LogReal
    kind: str = "trained"


@dataclass(frozen=True)
class LogLogFit:
    """``log y = intercept + slope_L log L + slope_N log N`` (a slope is None when its variable does not vary)."""

    quantity: str
    slope_L: float | None
    slope_N: float | None
    intercept: float


@dataclass(frozen=True)
class ScalingResult:
    points: list[ScalingPoint]
    fits: list[LogLogFit]

    def to_json(self) -> dict:
        return {"points": [vars(p) for p in self.points], "fits": [vars(f) for f in self.fits]}


def fit_loglog(points: Sequence[ScalingPoint], quantity: str) -> LogLogFit:
    """Least-squares log-log slopes of ``quantity`` ('ours' or 'edelman') in L and N."""
    y = np.array([ln_of(getattr(p, quantity)) for p in points])
    columns = {"L": np.log([p.layers for p in points]), "N": np.log([p.hidden for p in points])}
    varying = [k for k, c in columns.items() if np.ptp(c) > 0]
    design = np.column_stack([np.ones(len(points))] + [columns[k] for k in varying])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    slopes = dict(zip(varying, (float(c) for c in coef[1:])))
    return LogLogFit(quantity, slopes.get("L"), slopes.get("N"), float(coef[0]))


@dataclass(frozen=True)
class ScalingPlan:
    """Opened checkpoints and the depths to evaluate for each; ``layers_to_read`` sizes a progress bar."""

    entries: list[tuple[CheckpointSource, list[int]]]

    @property
    def layers_to_read(self) -> int:
        return sum(wanted[-1] for _, wanted in self.entries)


def plan_scaling(
    model_dirs: Sequence[str | Path],
    depths: Sequence[int] | None = None,
    allow_pickle: bool = False,
    mapping=None,
    architecture=None,
) -> ScalingPlan:
    """Open every model (folder or .onnx file) and check every depth (its full depth when ``depths`` is None)."""
    entries = []
    for model_dir in model_dirs:
        checkpoint = open_checkpoint(model_dir, mapping, architecture=architecture, allow_pickle=allow_pickle)
        full = checkpoint.shape.layers
        wanted = sorted(set(depths)) if depths else [full]
        bad = [d for d in wanted if not 1 <= d <= full]
        if bad:
            raise CheckpointError(
                f"{checkpoint.size_fields.get('layers', checkpoint.label)}: depth {bad[0]} outside 1..{full}"
            )
        entries.append((checkpoint, wanted))
    return ScalingPlan(entries)


def scaling(
    plan: ScalingPlan,
    lphi: float | None = None,
    rank_tol: float = RANK_TOL,
    progress: Callable[[str], None] | None = None,
) -> ScalingResult:
    """Totals for every planned model and depth, with log-log fits (none for a single point)."""
    points = []
    for checkpoint, wanted in plan.entries:
        measured = measure_model(checkpoint, wanted[-1], progress)
        points += truncation_points(checkpoint.label, measured.layers, checkpoint.shape, wanted, lphi, rank_tol)
    return with_fits(points)


def truncation_points(
    model: str,
    spectra: Sequence[LayerSpectra],
    shape,
    depths: Sequence[int],
    lphi: float | None = None,
    rank_tol: float = RANK_TOL,
) -> list[ScalingPoint]:
    """The totals of the depth truncations ``spectra[:d]`` of one measured checkpoint, for each d in ``depths``
    (``shape`` is the checkpoint's full shape: ``d = shape.layers`` is the trained model itself)."""
    points = []
    for depth in depths:
        a = analyze_spectra(spectra[:depth], shape, lphi, None, rank_tol)
        kind = "trained" if depth == shape.layers else "truncation"
        points.append(ScalingPoint(model, depth, a.shape.hidden, a.shape.heads, a.ours, a.edelman, kind))
    return points


def with_fits(points: list[ScalingPoint]) -> ScalingResult:
    """Points and their log-log fits (none for a single point)."""
    return ScalingResult(points, [fit_loglog(points, q) for q in ("ours", "edelman")] if len(points) > 1 else [])
