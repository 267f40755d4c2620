"""Per-layer measurement recording how each feed-forward spectrum was computed, and many layers on both cores.

``measure_layer_spectra`` is ``layer_measurement.measure_layer`` with the feed-forward spectra from
``certified_singular_values`` (method ``certified``: Gram eigenvalues where proven to 1e-9 relative, else LAPACK) or
LAPACK alone (``exact``), and the method of each; the attention cores are ``product_singular_values`` in both.  ``measure_layers`` runs
layers in threads (one BLAS thread each; LAPACK releases the GIL), one layer's weights resident per thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sabounds.numerics.certified_spectra import LAPACK, certified_singular_values
from sabounds.numerics.proxies.layer_measurement import LayerSpectra, measure_layer
from sabounds.numerics.proxies.model_analysis import open_checkpoint
from sabounds.numerics.spectra import singular_values

METHODS = ("certified", "exact")


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class OpenedCheckpoint:
    """What a sweep needs of an opened checkpoint: the source to measure, its shape, family and weight files
    (``files`` empty unless every weight file is safetensors: only those are cached)."""

    source: object
    shape: object
    family: str
    files: tuple[Path, ...]
    config_bytes: bytes


def open_for_sweep(path: str) -> OpenedCheckpoint:
    """Open a checkpoint folder (config and headers only; the weights stay on disk)."""
    source = open_checkpoint(path)
    config = Path(path) / "config.json"
    config_bytes = config.read_bytes() if config.is_file() else b""
    files = tuple(Path(f) for f in source.files)
    if not files or not all(p.suffix == ".safetensors" for p in files):
        files = ()
    return OpenedCheckpoint(source, source.shape, str(source.shape.family), files, config_bytes)


def measure_layer_spectra(source, index: int, method: str = "certified") -> tuple[LayerSpectra, tuple[str, ...]]:
    """``measure_layer`` with the MLP spectra certified (Gram or LAPACK) or by LAPACK alone, and the method used
    for each MLP matrix in order (M_in, M_out, then M_gate in a gated MLP)."""
    methods: list[str] = []

    def certified(w, top):
        result = certified_singular_values(w, top=top)
        methods.append(result.method)
        return result.values

    def exact(w, top):
        methods.append(LAPACK)
        return singular_values(w)

    spectra = measure_layer(source, index, certified if method == "certified" else exact)
    return spectra, tuple(methods)


def measure_layers(
    checkpoint,
    layers: int,
    method: str = "certified",
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[tuple[LayerSpectra, tuple[str, str]]]:
    """``measure_layer_spectra`` for layers ``0..layers-1`` in order, ``threads`` at a time (default: the cores)."""
    threads = max(1, min(threads or usable_cores(), layers))

    def one(index):
        result = measure_layer_spectra(checkpoint, index, method)
        if progress is not None:
            progress(f"layer {index}")
        return result

    if threads == 1:
        return [one(i) for i in range(layers)]
    pool = ThreadPoolExecutor(threads)
    try:
        return list(pool.map(one, range(layers)))
    finally:  # on Ctrl-C, drop the queued layers: only those already running finish before the process ends
        pool.shutdown(wait=False, cancel_futures=True)
