"""The interface every source of weights provides, and the in-memory one (a dict of arrays or a torch state_dict).

A store maps tensor names to arrays: ``names``, ``shape(name)``, ``read(name)`` (any float dtype; the caller
widens to float64), ``where(name)`` (the file or object to name in an error) and ``label``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import numpy as np

from sabounds.numerics.checkpoints.errors import CheckpointError, shown


class TensorStore(Protocol):
    names: set[str]
    label: str

    def shape(self, name: str) -> tuple[int, ...]: ...

    def read(self, name: str) -> np.ndarray: ...

    def where(self, name: str) -> str: ...


def _as_numpy(value) -> np.ndarray | None:
    """A numpy view of an array-like (numpy array or torch tensor, detached and widened on the CPU), else None."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor; torch itself is never imported here
        tensor = value.detach().cpu()
        if tensor.is_floating_point():
            tensor = tensor.double()
        return tensor.numpy()
    return None


class ArrayStore:
    """Tensors held in memory: a ``dict`` of numpy arrays, or a torch ``state_dict`` (tensors converted lazily)."""

    def __init__(self, tensors: Mapping, label: str = "dict of arrays"):
        self.label = label
        self._tensors = {}
        for name, value in tensors.items():
            if not isinstance(name, str):
                raise CheckpointError(f"{label}: key {shown(name)} is not a tensor name (str)")
            if _as_numpy(value) is None and not isinstance(value, (list, tuple)):
                continue  # buffers such as step counters and non-tensor metadata are not weights
            self._tensors[name] = value
        self.names = set(self._tensors)

    def shape(self, name: str) -> tuple[int, ...]:
        value = self._tensors[name]
        return tuple(value.shape) if hasattr(value, "shape") else np.shape(value)

    def read(self, name: str) -> np.ndarray:
        value = self._tensors[name]
        array = _as_numpy(value)
        array = np.asarray(value if array is None else array)
        if not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
            raise CheckpointError(f"{self.label}: tensor {shown(name)} has dtype {array.dtype}, not a real number type")
        return array

    def where(self, name: str) -> str:
        return self.label
