"""Small BERT checkpoints the tests write themselves, byte by byte (the safetensors layout: an 8-byte
little-endian header length, a JSON header of dtype, shape and data_offsets, then the raw data)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

LAYER_TENSORS = {
    "attention.self.query": "NN",
    "attention.self.key": "NN",
    "attention.self.value": "NN",
    "attention.output.dense": "NN",
    "intermediate.dense": "IN",
    "output.dense": "NI",
}


def encode(values: np.ndarray, dtype: str) -> bytes:
    """Raw little-endian bytes of ``values`` in a safetensors dtype (BF16: the top 16 bits of float32)."""
    if dtype == "BF16":
        return (np.ascontiguousarray(values, dtype="<f4").view("<u4") >> 16).astype("<u2").tobytes()
    return np.ascontiguousarray(values, dtype={"F32": "<f4", "F16": "<f2", "F64": "<f8"}[dtype]).tobytes()


def decoded(values: np.ndarray, dtype: str) -> np.ndarray:
    """What a faithful reader must return for ``values`` stored as ``dtype``, in float64."""
    if dtype == "BF16":
        return (np.asarray(values, dtype="<f4").view("<u4") & np.uint32(0xFFFF0000)).view("<f4").astype(np.float64)
    return (
        np.asarray(values).astype({"F32": np.float32, "F16": np.float16, "F64": np.float64}[dtype]).astype(np.float64)
    )


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], dtype: str = "F32") -> None:
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, values in tensors.items():
        blob = encode(values, dtype)
        header[name] = {"dtype": dtype, "shape": list(values.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def config(layers=2, hidden=16, heads=4, intermediate=64, **overrides) -> dict:
    base = {
        "model_type": "bert",
        "architectures": ["BertModel"],
        "num_hidden_layers": layers,
        "hidden_size": hidden,
        "num_attention_heads": heads,
        "intermediate_size": intermediate,
        "hidden_act": "gelu",
    }
    base.update(overrides)
    return base


def random_weights(seed=0, layers=2, hidden=16, heads=4, intermediate=64, scale=0.3) -> dict[str, np.ndarray]:
    """HF-named float32 weights (out, in) of the encoder layers, plus an embedding to look realistic."""
    rng = np.random.default_rng(seed)
    sizes = {"N": hidden, "I": intermediate}
    out = {"embeddings.word_embeddings.weight": rng.standard_normal((30, hidden)).astype(np.float32)}
    for l in range(layers):
        for name, (rows, cols) in LAYER_TENSORS.items():
            w = scale * rng.standard_normal((sizes[rows], sizes[cols])) / np.sqrt(sizes[cols])
            out[f"encoder.layer.{l}.{name}.weight"] = w.astype(np.float32)
            out[f"encoder.layer.{l}.{name}.bias"] = np.zeros(sizes[rows], dtype=np.float32)
    return out


def write_model(
    directory: Path, weights: dict[str, np.ndarray], cfg: dict, dtype: str = "F32", prefix: str = "", shards: int = 1
) -> Path:
    """A model directory: config.json and one safetensors file, or ``shards`` files with an index."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(cfg))
    named = {prefix + k: v for k, v in weights.items()}
    if shards == 1:
        write_safetensors(directory / "model.safetensors", named, dtype)
        return directory
    names = list(named)
    weight_map = {}
    for i in range(shards):
        file = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        part = names[i::shards]
        write_safetensors(directory / file, {k: named[k] for k in part}, dtype)
        weight_map.update({k: file for k in part})
    (directory / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return directory


def without_linear_biases(source: Path, target: Path) -> Path:
    """A copy of the checkpoint folder ``source`` (config.json and model.safetensors) whose linear maps store no bias:
    every ``*.bias`` beside a 2-D ``*.weight`` dropped, the norms' biases kept.  The network with the same matrices
    and no biases, which the whole bound's bookkeeping covers (the bundled MiniLM's biases it leaves out)."""
    import shutil

    from safetensors.numpy import load_file, save_file

    weights = load_file(str(Path(source) / "model.safetensors"))
    linear = {k for k in weights if k.endswith(".bias") and getattr(weights.get(k[:-4] + "weight"), "ndim", 0) == 2}
    target.mkdir(parents=True)
    shutil.copy(Path(source) / "config.json", target / "config.json")
    save_file({k: v for k, v in weights.items() if k not in linear}, str(target / "model.safetensors"))
    return target
