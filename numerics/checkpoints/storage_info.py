"""What the weights were stored as and how they were read: source format, tensor types, dequantization.

``storage_info(source, layers)`` describes the analysed layers' weight matrices: the format (``safetensors``,
``gguf``, ``onnx``, ``pytorch``, ``arrays``), how many matrices of each stored type (``F32``, ``BF16``,
``Q8_0``, ``Q4_K``, ...) and how stored values became float64 (widening, or ``gguf.quants.dequantize``).
Read from headers and metadata only: no tensor data.
"""

from __future__ import annotations

from pathlib import Path

_WIDEN = "none: float values widened to float64 (bfloat16 by a 16-bit shift)"


def _matrix_names(source, layers: int) -> list[str]:
    family = source.family
    return [
        source.prefix + family.layer.format(i=i) + rel
        for i in range(layers)
        for rel in family.layer_tensors().values()
        if rel
    ]


def storage_info(source, layers: int | None = None) -> dict:
    """``{"format", "tensor_types", "dequantization"}`` (plus ``file_type`` for GGUF) of the first ``layers``."""
    layers = source.shape.layers if layers is None else layers
    names = _matrix_names(source, layers)
    store = source.store
    if hasattr(store, "type_name"):  # a GGUF file
        from sabounds.numerics.checkpoints.gguf_file import storage_summary

        return storage_summary(store, names)
    files = [Path(f) for f in getattr(source, "files", ())]
    if files and all(f.suffix == ".safetensors" for f in files):
        from sabounds.numerics.proxies.storage_rank import tensor_dtypes_of_file

        dtypes: dict[str, str] = {}
        for f in files:
            dtypes.update(tensor_dtypes_of_file(f))
        counts: dict[str, int] = {}
        for name in names:
            if name in dtypes:
                counts[dtypes[name]] = counts.get(dtypes[name], 0) + 1
        return {"format": "safetensors", "tensor_types": counts, "dequantization": _WIDEN}
    kind = "onnx" if files and files[0].suffix.lower() == ".onnx" else "pytorch" if files else "arrays"
    return {"format": kind, "tensor_types": {}, "dequantization": "none: values widened to float64"}


def storage_line(info: dict) -> str:
    """One line for the terminal report: ``source: gguf; matrices Q8_0 14, F32 2; dequantized by ...``."""
    types = ", ".join(f"{k} {v}" for k, v in info["tensor_types"].items()) or "types not recorded"
    return f"source: {info['format']}; weight matrices {types}; dequantization: {info['dequantization']}"
