"""The report's numbers: every check, the regime tables, the model analysis, its depth scaling and the whole bound,
computed once into a :class:`ReportData` (no formatting).  The numbers come from the same functions as the
individual commands."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sabounds.checkpoint_names import checkpoint_label
from sabounds.numerics.checkpoints.storage_info import storage_info
from sabounds.numerics.proxies.model_analysis import ModelAnalysis, analyze_measured, measure_model, open_checkpoint
from sabounds.numerics.proxies.scaling import ScalingResult, truncation_points, with_fits

if TYPE_CHECKING:
    from sabounds.numerics.bound.analysis import BoundAnalysis
from sabounds.outputs.provenance import checkpoint_digests, package_versions, platform_line
from sabounds.proofs_check.registry import Check, all_checks
from sabounds.proofs_check.verdict import Outcome, Settings
from sabounds.version import installed_version

Advance = Callable[[str], None]


@dataclass(frozen=True)
class ReportData:
    """Everything the report states, as computed (no formatting)."""

    checks: list[tuple[Check, Outcome]]
    regimes: dict
    regimes_markdown: str
    analysis: ModelAnalysis
    scaling: ScalingResult
    model_dir: Path
    settings: Settings
    digests: dict[str, str]
    versions: dict[str, str]
    seconds: float
    bound: BoundAnalysis | None = None
    """The whole bound (``sabounds.numerics.bound.analysis.BoundAnalysis``) at ``BOUND_SETTING``."""
    source: dict | None = None
    """Source format, stored tensor types and dequantization (``numerics.checkpoints.storage_info``)."""
    figures: object = None
    """The ``sabounds.render.plots.FigureOptions`` asked for (None: the defaults), repeated in the Reproduce command."""
    origins: tuple[str, ...] = ()
    """Where the cached parts came from (``cached_parts.origin_line``): stored with the package, the user's cache or
    computed in this run."""


def stage_sizes(model_dir: Path) -> dict[str, int]:
    """How many progress steps each stage takes: one per check, one for the regimes, one per layer read."""
    second = second_trained_model(model_dir)
    return {
        "checks": len(all_checks()),
        "regimes": 1,
        "bound": 1,
        "layers": open_checkpoint(model_dir).shape.layers
        + (open_checkpoint(second).shape.layers if second is not None else 0),
    }


def second_trained_model(model_dir: Path) -> Path | None:
    """paraphrase-MiniLM-L3-v2 (ONNX) beside the bundled all-MiniLM-L6-v2, when both are the ones in use and installed:
    the scaling study then shows two models trained at different depths beside the truncations."""
    from sabounds.numerics.checkpoints.reader import CheckpointError, default_model_dir, minilm_l3_onnx

    try:
        if Path(model_dir).resolve() != default_model_dir().resolve():
            return None
        return minilm_l3_onnx()
    except CheckpointError:
        return None


def compute(model_dir: Path, settings: Settings, advance: Advance) -> ReportData:
    """Run every stage; ``advance(note)`` is called once per progress step of :func:`stage_sizes`."""
    from sabounds.full_report import cached_parts

    start = time.perf_counter()
    checks, checks_record = cached_parts.checks(settings, lambda c: advance(c.id))
    regimes, table_md, regimes_record = cached_parts.regimes()
    advance("regime tables")
    checkpoint = open_checkpoint(model_dir)
    measured = measure_model(checkpoint, None, lambda note: advance(f"reading {note}"))
    analysis = analyze_measured(measured)
    depth = checkpoint.shape.layers
    depth_scaling = with_fits(
        truncation_points(checkpoint_label(model_dir), measured.layers, checkpoint.shape, range(1, depth + 1))
    )
    second = second_trained_model(model_dir)
    if second is not None:  # fits stay those of the main model's truncations; the second model's points sit beside
        other = open_checkpoint(second)
        spectra = measure_model(other, None, lambda note: advance(f"reading {second.stem} {note}")).layers
        extra = truncation_points(checkpoint_label(second), spectra, other.shape, range(1, other.shape.layers + 1))
        depth_scaling = ScalingResult(depth_scaling.points + extra, depth_scaling.fits)
    whole = whole_bound(measured.layers, checkpoint)
    advance("whole bound")
    return ReportData(
        checks,
        regimes,
        table_md,
        analysis,
        depth_scaling,
        Path(model_dir),
        settings,
        checkpoint_digests(model_dir),
        package_versions(),
        time.perf_counter() - start,
        whole,
        source=storage_info(checkpoint),
        origins=(
            cached_parts.origin_line("checks", checks_record),
            cached_parts.origin_line("regime tables", regimes_record),
        ),
    )


BOUND_SETTING = {"n": 10**9, "delta": 0.05, "margin": 1.0}
"""The report's whole bound: n = 1e9 samples, delta = 0.05, margin 1, T = max_position_embeddings and B the
command's default (the embedding LayerNorm's output bound where the checkpoint has one)."""


def whole_bound(spectra, checkpoint):
    """The whole bound of the measured layers (the same numbers as ``sabounds bound`` with ``BOUND_SETTING``);
    None for a post-LN layer with a gated MLP, for which it is not derived."""
    from sabounds.numerics.bound.analysis import analyze_bound
    from sabounds.numerics.bound.checkpoint_inputs import model_from_measurement
    from sabounds.numerics.bound.context_tokens import checkpoint_tokens
    from sabounds.numerics.bound.whole import BoundInputs
    from sabounds.numerics.checkpoints.architectures import PRE_LN

    if checkpoint.shape.gated and checkpoint.shape.layout != PRE_LN:
        return None
    measured, info = model_from_measurement(checkpoint, spectra)
    b = info["input_norm"]
    model = b.apply(measured)
    tokens, source = checkpoint_tokens(checkpoint.context, None)
    return analyze_bound(
        model,
        BoundInputs(
            **BOUND_SETTING, input_norm=b.value, input_norm_source=b.source, tokens=tokens, tokens_source=source
        ),
        curve_points=17,
    )


def provenance(data: ReportData) -> dict:
    return {
        "sabounds": installed_version(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "platform": platform_line(),
        "versions": data.versions,
        "model": checkpoint_label(data.model_dir),
        "checkpoint_sha256": data.digests,
        "source": getattr(data, "source", None),
        "settings": {
            "precision_digits": data.settings.precision,
            "samples": data.settings.samples,
            "seed": data.settings.seed,
            "lphi": data.analysis.lphi,
            "grid_m": data.analysis.grid_m,
            "rank_tol": data.analysis.rank_tol,
        },
        "seconds": round(data.seconds, 1),
        "parts": list(data.origins),
    }
