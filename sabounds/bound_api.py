"""``sabounds.bound(...)``: the whole bound of a checkpoint as numbers (the library behind ``sabounds bound``)."""

from __future__ import annotations

import json
from pathlib import Path

import sympy as sp

from sabounds.numerics.bound.analysis import BoundAnalysis, analyze_bound
from sabounds.numerics.bound.compiled import constants_key
from sabounds.numerics.bound.slots import VARIANTS
from sabounds.numerics.bound.source import model_from_checkpoint
from sabounds.numerics.bound.whole import Setting

DEFAULT_TOKENS = 512
MAX_TOKENS = 10 ** 15  # far beyond any context length; the bound takes T into float64 arithmetic


def config_tokens(model_dir: str | Path) -> int:
    """``max_position_embeddings`` of the checkpoint's config.json (512 when absent); ValueError above MAX_TOKENS."""
    try:
        value = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8")).get("max_position_embeddings")
    except (OSError, ValueError, AttributeError, TypeError):  # no folder (a dict or ONNX source), no config, not JSON
        return DEFAULT_TOKENS
    if isinstance(value, int) and value > MAX_TOKENS:
        raise ValueError(f"{Path(model_dir) / 'config.json'}: field max_position_embeddings is "
                         f"{'a ' + str(len(str(value))) + '-digit number' if value > 10 ** 30 else value}; at most "
                         f"{MAX_TOKENS} tokens are accepted (pass --tokens T)")
    return value if isinstance(value, int) and value > 0 else DEFAULT_TOKENS


def bound(model_dir: str | Path | None = None, *, n, delta: float, margin: float, input_norm: float = 1.0,
          tokens: int | None = None, target=1, empirical_risk: float = 0.0, constants: dict | None = None,
          precision: int = 30, layers: int | None = None, curve_points: int = 0, allow_pickle: bool = False,
          rms_floor: float | None = None) -> BoundAnalysis:
    """The whole bound (Theorem 3.1, sum and rss aggregation) and Edelman et al.'s on a checkpoint's weights.

    ``constants`` maps names of :data:`sabounds.theory.whole_bound.CONSTANTS` to exact values (numbers or decimal
    strings, taken as exact rationals).  Without ``model_dir`` the bundled all-MiniLM-L6-v2 is used.  A family whose
    layer departs from BERT's (GPT-2, LLaMA, ViT, ...) is bounded under the premises in ``model.family.premises``;
    ``rms_floor`` is the pre-LN normalisation premise (every norm input has rms >= it; default none).
    """
    from sabounds.numerics.checkpoints.reader import default_model_dir
    model_dir = default_model_dir() if model_dir is None else model_dir
    if not (0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    for name, value in (("margin", margin), ("input_norm", input_norm)):
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value}")
    if not 0 <= empirical_risk <= 1:
        raise ValueError(f"empirical_risk must lie in [0, 1], got {empirical_risk}")
    exact = {k: sp.Rational(str(v)) for k, v in (constants or {}).items()}
    for k, v in exact.items():
        if not v > 0:
            raise ValueError(f"constant {k} must be positive, got {v}")
    if tokens is not None and not 0 < tokens <= MAX_TOKENS:
        raise ValueError(f"tokens must lie in 1..{MAX_TOKENS}, got {tokens if tokens < 10 ** 30 else 'more'}")
    model, info = model_from_checkpoint(model_dir, layers, allow_pickle, rms_floor=rms_floor)
    setting = Setting(n=n, delta=delta, margin=margin, input_norm=input_norm,
                      tokens=tokens or config_tokens(info["model_dir"]), empirical=empirical_risk,
                      constants=constants_key(exact), dps=precision)
    return analyze_bound(model, setting, target, VARIANTS, curve_points)
