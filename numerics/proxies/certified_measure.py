"""Per-layer measurement with certified feed-forward spectra, and a measurement of many layers on both cores.

``measure_layer_spectra`` is ``model_analysis.measure_layer`` with the feed-forward spectra from
``certified_singular_values`` (method ``certified``: Gram eigenvalues where proven to 1e-9 relative, else LAPACK) or
LAPACK alone (``exact``); the attention cores are ``product_singular_values`` in both.  ``measure_layers`` runs
layers in threads (one BLAS thread each; LAPACK releases the GIL), one layer's weights resident per thread.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from sabounds.numerics.certified_spectra import LAPACK, certified_singular_values
from sabounds.numerics.checkpoints.bert import read_layer
from sabounds.numerics.norms import norm_21, product_norm_21
from sabounds.numerics.proxies.model_analysis import LayerSpectra, open_checkpoint
from sabounds.numerics.spectra import product_singular_values, singular_values

METHODS = ("certified", "exact")


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
    checkpoint, _ = open_checkpoint(path)
    config_bytes = (Path(path) / "config.json").read_bytes()
    family = json.loads(config_bytes).get("model_type", "")
    files = tuple(Path(f.path) for f in getattr(checkpoint, "_files", []))
    if not all(p.suffix == ".safetensors" for p in files):
        files = ()
    return OpenedCheckpoint(checkpoint, checkpoint.shape, str(family), files, config_bytes)


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def measure_layer_spectra(checkpoint, index: int, method: str = "certified") -> tuple[LayerSpectra, tuple[str, str]]:
    """One layer's spectra and (2,1)-norms; feed-forward spectra certified (Gram or LAPACK) or LAPACK alone."""
    layer = read_layer(checkpoint, index)
    if method == "certified":
        ff = [certified_singular_values(w) for w in (layer.m_in, layer.m_out)]
        m_in, m_out, methods = ff[0].values, ff[1].values, (ff[0].method, ff[1].method)
    else:
        m_in, m_out, methods = singular_values(layer.m_in), singular_values(layer.m_out), (LAPACK, LAPACK)
    spectra = LayerSpectra(
        index=index, qk=product_singular_values(layer.qk_left, layer.qk_right),
        vt=product_singular_values(layer.vt_left, layer.vt_right), m_in=m_in, m_out=m_out,
        qk_21=product_norm_21(layer.qk_left, layer.qk_right), vt_21=product_norm_21(layer.vt_left, layer.vt_right),
        m_in_21=float(norm_21(layer.m_in)), m_out_21=float(norm_21(layer.m_out)))
    return spectra, methods


def measure_layers(checkpoint, layers: int, method: str = "certified", threads: int | None = None,
                   progress: Callable[[str], None] | None = None) -> list[tuple[LayerSpectra, tuple[str, str]]]:
    """``measure_layer_spectra`` for layers ``0..layers-1`` in order, ``threads`` at a time (default: the cores)."""
    threads = max(1, min(threads or usable_cores(), layers))

    def one(index):
        result = measure_layer_spectra(checkpoint, index, method)
        if progress is not None:
            progress(f"layer {index}")
        return result
    if threads == 1:
        return [one(i) for i in range(layers)]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, range(layers)))
