"""The former BERT-only layer reader, kept as a name: ``read_layer(checkpoint, i)`` is ``checkpoint.layer(i)``
(``sabounds.numerics.checkpoints.layers`` cuts any family's layer into the paper's matrices)."""

from __future__ import annotations

from sabounds.numerics.checkpoints.layers import LayerMatrices  # noqa: F401
from sabounds.numerics.checkpoints.source import CheckpointSource


def read_layer(checkpoint: CheckpointSource, index: int, shape=None) -> LayerMatrices:
    """Layer ``index`` (0-based) cut into the paper's matrices."""
    return checkpoint.layer(index)
