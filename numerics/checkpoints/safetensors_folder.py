"""A Hugging Face model folder: ``model.safetensors``, or shards listed by ``model.safetensors.index.json``.

Shards are read through the index: a tensor is read from the shard its ``weight_map`` names, and a tensor name
present in a second shard as well is refused (one line naming both files), since which copy is meant is not
knowable.  Tensors are memory-mapped by the ``safetensors`` library (float32, float16, float64; bfloat16 is
widened from its raw 16 bits).  ``pytorch_model.bin`` is read only when the caller allows it, and then only
through PyTorch's weights-only loader.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
from safetensors import SafetensorError, safe_open

from sabounds.numerics.checkpoints.errors import CheckpointError, one_line, read_json, shown

SAFETENSORS = "model.safetensors"
SHARD_INDEX = "model.safetensors.index.json"
PICKLE = "pytorch_model.bin"
_NUMPY_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16}


def _bfloat16_to_float32(raw: np.ndarray) -> np.ndarray:
    """bfloat16 is the top half of a float32: widen the 16 bits by a 16-bit shift."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


class SafetensorsFile:
    """One safetensors file, memory-mapped by the library; bfloat16 tensors are read from their byte offsets."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self._handle = safe_open(str(path), framework="numpy")
            self.names = set(self._handle.keys())
        except (SafetensorError, OSError, ValueError) as exc:
            raise CheckpointError(f"{shown(path)}: not a readable safetensors file ({one_line(exc)})") from None
        self._header: dict | None = None

    def dtype(self, name: str) -> str:
        return self._handle.get_slice(name).get_dtype()

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self._handle.get_slice(name).get_shape())

    def _offsets(self, name: str) -> tuple[int, int]:
        if self._header is None:  # the library has validated the header already
            with open(self.path, "rb") as fh:
                (length,) = struct.unpack("<Q", fh.read(8))
                self._header = {"start": 8 + length, "entries": json.loads(fh.read(length))}
        begin, end = self._header["entries"][name]["data_offsets"]
        return self._header["start"] + begin, self._header["start"] + end

    def read(self, name: str) -> np.ndarray:
        dtype = self.dtype(name)
        try:
            if dtype == "BF16":
                start, end = self._offsets(name)
                raw = np.memmap(self.path, dtype="<u2", mode="r", offset=start, shape=((end - start) // 2,))
                return _bfloat16_to_float32(np.asarray(raw)).reshape(self.shape(name))
            if dtype not in _NUMPY_DTYPES:
                raise CheckpointError(
                    f"{shown(self.path)}: tensor {shown(name)} has dtype {dtype}; expected F32, F16, BF16 or F64"
                )
            return self._handle.get_tensor(name)
        except (SafetensorError, OSError, ValueError, KeyError) as exc:
            raise CheckpointError(
                f"{shown(self.path)}: tensor {shown(name)} cannot be read ({one_line(exc)})"
            ) from None


class PickleFile:
    """``pytorch_model.bin`` through ``torch.load(weights_only=True)``: used only when explicitly allowed."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            import torch
        except ImportError:
            raise CheckpointError(
                f"{path}: --allow-pickle needs PyTorch for its weights-only loader "
                "(torch.load(weights_only=True)); install torch or convert to safetensors"
            ) from None
        try:
            state = torch.load(str(path), map_location="cpu", weights_only=True)
        except Exception as exc:  # torch raises many types for a bad or unsafe file
            raise CheckpointError(f"{path}: weights-only load failed ({one_line(exc)})") from None
        if not isinstance(state, dict):
            raise CheckpointError(f"{path}: expected a state dict of tensors, found {type(state).__name__}")
        self._state = {k: v for k, v in state.items() if hasattr(v, "float")}
        self.names = set(self._state)

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self._state[name].shape)

    def read(self, name: str) -> np.ndarray:
        """A dense real tensor as float64; a meta, sparse, quantized or complex one is one line naming it."""
        tensor = self._state[name]
        kind = (
            "meta (no data)"
            if getattr(tensor, "is_meta", False)
            else f"sparse ({tensor.layout})"
            if str(getattr(tensor, "layout", "torch.strided")) != "torch.strided"
            else "quantized"
            if getattr(tensor, "is_quantized", False)
            else "complex"
            if tensor.is_complex()
            else None
        )
        if kind is not None:
            raise CheckpointError(
                f"{shown(self.path)}: tensor {shown(name)} is a {kind} tensor, not dense real weights"
            )
        try:
            return tensor.double().numpy()
        except Exception as exc:  # torch raises RuntimeError and others for tensors it cannot convert
            raise CheckpointError(
                f"{shown(self.path)}: tensor {shown(name)} cannot be read ({one_line(exc)})"
            ) from None


def refuse_pickle(path: Path) -> CheckpointError:
    return CheckpointError(
        f'{path}: refusing to unpickle a PyTorch checkpoint; convert it to safetensors (python -c "import torch; '
        "from safetensors.torch import save_file; save_file(torch.load('pytorch_model.bin', weights_only=True), "
        "'model.safetensors')\") or pass --allow-pickle to use PyTorch's weights-only loader"
    )


def shard_map(index: Path) -> dict[str, str]:
    """The index's ``weight_map`` (tensor name -> shard file name), each shard a plain file in the folder."""
    data = read_json(index, "shard index")
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise CheckpointError(f"{index}: field weight_map is missing or not a non-empty object")
    for tensor, name in weight_map.items():
        if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
            raise CheckpointError(
                f"{index}: field weight_map maps {shown(tensor)} to {shown(name)}, not a file in the model directory"
            )
    for name in sorted(set(weight_map.values())):
        if not (index.parent / name).is_file():
            raise CheckpointError(f"{shown(index.parent / name)}: shard listed in weight_map is missing")
    return weight_map


class SafetensorsFolder:
    """The tensors of a model folder by name, each read from the one file that holds it."""

    def __init__(self, model_dir: Path, allow_pickle: bool = False):
        self.model_dir = Path(model_dir)
        self.label = str(self.model_dir)
        single, index, pickled = (self.model_dir / n for n in (SAFETENSORS, SHARD_INDEX, PICKLE))
        if single.is_file():
            self.files = [SafetensorsFile(single)]
            self._where = {name: self.files[0] for name in self.files[0].names}
        elif index.is_file():
            weight_map = shard_map(index)
            opened = {name: SafetensorsFile(self.model_dir / name) for name in sorted(set(weight_map.values()))}
            self.files = list(opened.values())
            self._where = {}
            for tensor, name in weight_map.items():
                if tensor not in opened[name].names:
                    raise CheckpointError(
                        f"{index}: weight_map puts tensor {shown(tensor)} in {shown(name)}, which does not contain it"
                    )
                self._where[tensor] = opened[name]
            for name, f in opened.items():
                for tensor in sorted(f.names):
                    owner = self._where.get(tensor)
                    if owner is not None and owner is not f:
                        raise CheckpointError(
                            f"{index}: tensor {shown(tensor)} is in shard {shown(owner.path.name)} (as the weight_map "
                            f"says) and also in shard {shown(name)}; remove the duplicate"
                        )
                    if owner is None:  # a tensor the index does not list (e.g. a buffer): taken from its one shard
                        self._where[tensor] = f
        elif pickled.is_file():
            if not allow_pickle:
                raise refuse_pickle(pickled)
            self.files = [PickleFile(pickled)]
            self._where = {name: self.files[0] for name in self.files[0].names}
        else:
            raise CheckpointError(f"{self.model_dir}: no {SAFETENSORS}, {SHARD_INDEX} or {PICKLE}")
        self.names = set(self._where)

    def shape(self, name: str) -> tuple[int, ...]:
        return self._where[name].shape(name)

    def read(self, name: str) -> np.ndarray:
        return self._where[name].read(name)

    def where(self, name: str) -> str:
        f = self._where.get(name)
        return shown(f.path) if f is not None else ", ".join(shown(f.path) for f in self.files)
