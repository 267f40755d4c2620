"""Where the bound's inputs come from: a checkpoint directory, through the package's measurement of its layers.

The one place that knows the measurement's interface; families whose layer departs from BERT's are refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from sabounds.numerics.bound.slots import LayerInput, Model, build_model
from sabounds.numerics.proxies.layer_factors import departures
from sabounds.numerics.proxies.model_analysis import measure_model, open_checkpoint
from sabounds.numerics.spectra import RANK_TOL


def layer_inputs(spectra, intermediate: int) -> list[LayerInput]:
    """``LayerInput`` per measured layer (singular values and (2,1)-norms only; no weights kept)."""
    return [LayerInput(qk=list(s.qk), vt=list(s.vt), m_in=s.m_in, m_out=s.m_out, qk_21=[float(x) for x in s.qk_21],
                       vt_21=[float(x) for x in s.vt_21], m_in_21=float(s.m_in_21), m_out_21=float(s.m_out_21),
                       intermediate=intermediate) for s in spectra]


def require_published_layer(shape) -> None:
    """The whole bound is reconstructed for the published layer only (post-LN, GELU, ungated, one K/V per head):
    refuse, in one line, a family whose layer departs from it rather than apply BERT's bookkeeping to it."""
    if not shape.published:
        raise ValueError(f"the whole bound is reconstructed for the BERT layer only; this {shape.family} model departs from "
                         f"it ({'; '.join(departures(shape))}); its proxies are in 'sabounds analyze'")


def model_from_checkpoint(model_dir: str | Path, layers: int | None = None, allow_pickle: bool = False,
                          grid_m: int | None = None, rank_tol: float = RANK_TOL,
                          progress: Callable[[str], None] | None = None) -> tuple[Model, dict]:
    """The bound's :class:`Model` of a checkpoint's first ``layers`` layers, and its ``config.json`` fields used."""
    checkpoint = open_checkpoint(model_dir, allow_pickle=allow_pickle)
    shape = checkpoint.shape
    require_published_layer(shape)
    spectra = measure_model(checkpoint, layers, progress).layers
    return build_model(layer_inputs(spectra, shape.intermediate), shape.hidden, grid_m, rank_tol), {"model_dir": str(checkpoint.model_dir)}
