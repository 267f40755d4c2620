"""A GGUF file (llama.cpp's format: metadata plus F32/F16/BF16 or block-quantized tensors) as a source of weights.

Read with the ``gguf`` package (llama.cpp's own reader, the ``gguf`` extra), which memory-maps the file; a tensor
is dequantized by ``gguf.quants.dequantize`` only when its layer is read, never the whole file.  Architectures
(``general.architecture``): ``llama`` (SmolLM, LLaMA, Mistral files), ``qwen2``, ``gemma``/``gemma2``/``gemma3``,
``gpt2`` and ``phi3``.  Sizes come from the metadata: ``{arch}.block_count``, ``embedding_length``,
``attention.head_count``, ``attention.head_count_kv``, ``attention.key_length`` (the head size: Gemma's differs
from ``embedding_length / head_count``), ``attention.value_length`` (must equal it) and ``feed_forward_length``.

What llama.cpp's converter did to the weights, and why the paper's matrices are unchanged:

- ``llama``: the rows of Q and K are permuted within each head (for its rotary kernel):
  ``W.reshape(h, 2, d/2, N).swapaxes(1, 2)``, the same permutation ``P`` on ``Wq_h`` and ``Wk_g``, so
  ``QK_h = (P Wq_h)^T (P Wk_g) = Wq_h^T Wk_g``; V and O are not permuted.  ``qwen2``, ``gemma*``, ``phi3``
  are not permuted.
- ``gemma*``: every ``*norm.weight`` is stored as ``1 + w`` (Hugging Face's Gemma RMSNorm multiplies by
  ``1 + w``): the stored value is the gain itself, read as is.
- ``gpt2``: Conv1D weights are stored transposed to ``(out, in)``; ``phi3``: ``ffn_up`` holds gate and up stacked
  (rows ``[gate; up]``), split here.
"""

from __future__ import annotations

import math
import re
import struct
import sys
from pathlib import Path

import numpy as np

from sabounds.numerics.checkpoints.architectures import FAMILIES, PRE_LN, Family
from sabounds.numerics.checkpoints.errors import CheckpointError, one_line, shown
from sabounds.numerics.user_files import require_regular_file

GGUF = "gguf"
_FLOAT_TYPES = {"F32": 2.0**-24, "F16": 2.0**-11, "BF16": 2.0**-8, "F64": 2.0**-53}
_BLOCK_STEP = {"Q8_0": (127, 0.5), "Q4_0": (8, 1.0), "Q5_0": (16, 1.0), "Q4_1": (15, 0.5), "Q5_1": (31, 0.5)}
"""Block formats whose grid step is the block's float16 scale ``d`` (bytes 0-1; ``*_1`` also a float16 offset ``m``
in bytes 2-3): value = d q (+ m).  Per type: the largest ``|q|``, the largest ``|x/d - q|`` of llama.cpp's reference
quantizer (1/2; a whole step for Q4_0/Q5_0, whose ``d = max / -8`` sends ``x = -max`` to ``+8``, clamped to 7)."""
_F16_U, _F16_HALF_SPACING = 2.0**-11, 2.0**-25
_PHI3_SPLIT = ("ffn_up.weight", "ffn_up.gate_half", "ffn_up.up_half")


def _family(arch: str, name: str, activation: str, *, qkv: bool = False, gated: bool = True) -> Family:
    meta = {
        "layers": (f"{arch}.block_count",),
        "hidden": (f"{arch}.embedding_length",),
        "heads": (f"{arch}.attention.head_count",),
        "kv_heads": (f"{arch}.attention.head_count_kv",),
        "head_dim": (f"{arch}.attention.key_length",),
        "intermediate": (f"{arch}.feed_forward_length",),
    }
    split = arch == "phi3"
    return Family(
        name,
        (arch,),
        "blk.{i}.",
        None if qkv else "attn_q.weight",
        None if qkv else "attn_k.weight",
        None if qkv else "attn_v.weight",
        "attn_output.weight",
        _PHI3_SPLIT[2] if split else "ffn_up.weight",
        "ffn_down.weight",
        mlp_gate=(_PHI3_SPLIT[1] if split else "ffn_gate.weight") if gated else None,
        qkv="attn_qkv.weight" if qkv else None,
        mlp_norm="ffn_norm.weight",
        attn_norm="attn_norm.weight",
        norm_eps_fields=(f"{arch}.attention.layer_norm_rms_epsilon", f"{arch}.attention.layer_norm_epsilon"),
        norm_eps_default=1e-5 if arch == "gpt2" else 1e-6,
        rope=arch != "gpt2",
        layout=PRE_LN,
        activation=activation,
        activation_fields=(),
        config=meta,
        note=f"GGUF file of architecture {arch}",
        unmodelled=FAMILIES[name].unmodelled,
    )


GGUF_FAMILIES = {
    "llama": _family("llama", "llama", "silu"),
    "qwen2": _family("qwen2", "qwen2", "silu"),
    "gemma": _family("gemma", "gemma", "gelu_tanh"),
    "gemma2": _family("gemma2", "gemma2", "gelu_tanh"),
    "gemma3": _family("gemma3", "gemma3", "gelu_tanh"),
    "gpt2": _family("gpt2", "gpt2", "gelu_tanh", qkv=True, gated=False),
    "phi3": _family("phi3", "llama", "silu", qkv=True),
}
"""GGUF architecture -> the family read from it (tensor names under ``blk.{i}.``, sizes from the metadata)."""


def _gguf():
    try:
        import gguf
    except ImportError:
        raise CheckpointError("reading .gguf files needs the gguf package: pip install 'sabounds[gguf]'") from None
    return gguf


def _bounded_reader(gguf, path: Path):
    """``gguf.GGUFReader`` refusing an array whose declared length exceeds the bytes left in the file (each item
    takes at least one): the reader loops over the declared count, so a 100-byte file declaring 2^61 items hung
    and grew without bound."""

    class BoundedReader(gguf.GGUFReader):
        def _get_field_parts(self, orig_offs, raw_type):
            if raw_type == gguf.GGUFValueType.ARRAY:
                count = self._get(orig_offs + 4, np.uint64)
                left = len(self.data) - orig_offs - 12
                if count.size != 1 or int(count[0]) > max(left, 0):
                    raise ValueError(
                        f"an array at byte {orig_offs} declares {int(count[0]) if count.size else '?'} "
                        f"items with {max(left, 0)} bytes left in the file"
                    )
                if int(count[0]) > MAX_DECODED_ITEMS:
                    return _skipped_array(gguf, self, orig_offs, int(count[0]))
            return super()._get_field_parts(orig_offs, raw_type)

    return BoundedReader(str(path), "r")


MAX_DECODED_ITEMS = 4096
"""Metadata arrays longer than this (the tokenizer's vocabulary, merges, scores) are stepped over, not decoded: the
analysis uses only per-layer arrays (one item per block)."""


def _skipped_array(gguf, reader, orig_offs: int, count: int):
    """``_get_field_parts``'s answer for an array stepped over: its size in bytes and no items (``contents()`` is
    ``[]``; :meth:`GGUFStore._scalars` records None).  Strings are walked by their 8-byte lengths."""
    raw_itype = reader._get(orig_offs, np.uint32)
    itype = gguf.GGUFValueType(int(raw_itype[0]))
    start = orig_offs + 12
    nptype = reader.gguf_scalar_to_np.get(itype)
    if nptype is not None:
        end = start + count * np.dtype(nptype).itemsize
    elif itype == gguf.GGUFValueType.STRING:
        order = sys.byteorder if reader.byte_order == "I" else ("big" if sys.byteorder == "little" else "little")
        length = struct.Struct("<Q" if order == "little" else ">Q").unpack_from
        data, end, size = memoryview(reader.data).cast("B"), start, len(reader.data)  # no memmap object per item
        for _ in range(count):
            if end + 8 > size:
                raise ValueError(f"a string array at byte {orig_offs} runs past the end of the file")
            end += 8 + length(data, end)[0]
    else:
        raise ValueError(f"an array of {itype.name} items at byte {orig_offs} ({count} items) is not read")
    if end > len(reader.data):
        raise ValueError(f"an array at byte {orig_offs} runs past the end of the file")
    return end - orig_offs, [raw_itype, reader._get(orig_offs + 4, np.uint64)], [], [gguf.GGUFValueType.ARRAY, itype]


_SPLIT_NAME = re.compile(r"^(.*)-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
MAX_PARTS = 10_000


def split_parts(path: Path) -> list[Path]:
    """``[path]``, or every part of a split file given its first part (``name-00001-of-0000N.gguf``, llama.cpp's
    gguf-split naming); one line naming a missing part."""
    match = _SPLIT_NAME.match(path.name)
    if match is None or int(match.group(2)) != 1:
        return [path]
    total = int(match.group(3))
    if not 1 <= total <= MAX_PARTS:
        raise CheckpointError(f"{shown(path)}: a split file of {total} parts is not read (1..{MAX_PARTS})")
    parts = [path.with_name(f"{match.group(1)}-{k:05d}-of-{match.group(3)}.gguf") for k in range(1, total + 1)]
    missing = next((p for p in parts if not p.is_file()), None)
    if missing is not None:
        raise CheckpointError(f"{shown(missing)}: part of the split file {shown(path)} is missing")
    return parts


def gguf_in_folder(path: Path) -> Path:
    """A folder holding no config.json and a single ``.gguf`` (or the split parts of one, ``-00001-of-0000N.gguf``)
    is read as that file (the first part); any other path is returned as given."""
    if not path.is_dir() or (path / "config.json").exists():
        return path
    found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".gguf" and p.is_file())
    if len(found) == 1:
        return found[0]
    parts = {_SPLIT_NAME.match(p.name).group(1) for p in found if _SPLIT_NAME.match(p.name)}
    if found and len(parts) == 1 and all(_SPLIT_NAME.match(p.name) for p in found):
        return found[0]
    if len(found) > 1:
        raise CheckpointError(f"{shown(path)}: holds {len(found)} .gguf files of different models; give one file")
    return path


class GGUFStore:
    """The tensors of one GGUF file by name, dequantized on read (float32; F64 kept), in numpy ``(out, in)`` order."""

    def __init__(self, path: Path):
        gguf = _gguf()
        self.path = Path(path)
        self.label = str(self.path)
        self.parts = split_parts(self.path)
        readers = [self._open(gguf, p) for p in self.parts]
        self._reader = readers[0]
        self._tensors = {}
        for part, reader in zip(self.parts, readers):
            for t in reader.tensors:
                if t.name in self._tensors:
                    raise CheckpointError(f"{shown(part)}: tensor {shown(t.name)} is also in an earlier part")
                self._tensors[t.name] = t
        self.names = set(self._tensors)
        self.metadata = self._scalars()
        self.architecture = self.metadata.get("general.architecture")
        if self.architecture == "phi3":
            self._add_phi3_halves()

    def _scalars(self) -> dict:
        """The metadata values; an array stepped over (:data:`MAX_DECODED_ITEMS`) or undecodable is None."""
        out = {}
        for name, field in self._reader.fields.items():
            if field.types and field.types[0].name == "ARRAY" and not field.data and int(field.parts[1][0]):
                out[name] = None
                continue
            try:
                out[name] = field.contents()
            except (ValueError, IndexError, UnicodeDecodeError, TypeError):
                out[name] = None
        return out

    def _add_phi3_halves(self) -> None:
        for name in [n for n in self.names if n.endswith(_PHI3_SPLIT[0])]:
            base = name[: -len(_PHI3_SPLIT[0])]
            self.names |= {base + _PHI3_SPLIT[1], base + _PHI3_SPLIT[2]}

    def _fused(self, name: str) -> tuple[str, int] | None:
        for half, which in ((_PHI3_SPLIT[1], 0), (_PHI3_SPLIT[2], 1)):
            if name.endswith(half) and name not in self._tensors:
                return name[: -len(half)] + _PHI3_SPLIT[0], which
        return None

    def shape(self, name: str) -> tuple[int, ...]:
        fused = self._fused(name)
        if fused:
            rows, cols = self.shape(fused[0])
            return rows // 2, cols
        return tuple(int(d) for d in reversed(self._tensors[name].shape.tolist()))

    def type_name(self, name: str) -> str:
        """The tensor's GGML type (``F32``, ``Q8_0``, ``Q4_K``, ...)."""
        fused = self._fused(name)
        return self._tensors[fused[0] if fused else name].tensor_type.name

    def read(self, name: str) -> np.ndarray:
        fused = self._fused(name)
        if fused:
            whole = self.read(fused[0])
            half = whole.shape[0] // 2
            return whole[half * fused[1] : half * (fused[1] + 1)]
        tensor = self._tensors[name]
        gguf = _gguf()
        kind = tensor.tensor_type.name
        try:
            if kind == "F64":
                return np.array(tensor.data, dtype=np.float64).reshape(self.shape(name))
            if kind in ("I8", "I16", "I32", "I64"):
                raise CheckpointError(f"{shown(self.path)}: tensor {shown(name)} has integer type {kind}, not weights")
            with np.errstate(all="ignore"):  # a NaN or Inf scale is refused by the caller's finiteness check
                data = np.asarray(tensor.data)
                if not data.flags.aligned:  # a tensor offset not a multiple of its item size: copied, aligned
                    data = data.copy()
                values = gguf.quants.dequantize(data, tensor.tensor_type)
        except NotImplementedError:
            raise CheckpointError(
                f"{shown(self.path)}: tensor {shown(name)} has type {kind}, which gguf cannot dequantize"
            ) from None
        except (ValueError, TypeError) as exc:
            raise CheckpointError(
                f"{shown(self.path)}: tensor {shown(name)} ({kind}) cannot be dequantized ({one_line(exc)[:200]})"
            ) from None
        return values.reshape(self.shape(name))

    @staticmethod
    def _open(gguf, path: Path):
        require_regular_file(path, "GGUF file", CheckpointError)
        try:
            return _bounded_reader(gguf, path)
        except Exception as exc:  # the reader raises ValueError, KeyError, IndexError... for a bad or cut file
            raise CheckpointError(
                f"{shown(path)}: not a readable GGUF file, malformed or truncated "
                f"({type(exc).__name__}: {one_line(exc)[:200]})"
            ) from None

    @property
    def imatrix(self) -> bool:
        """True when the file says it was quantized with an importance matrix (``quantize.imatrix.*`` metadata)."""
        return any(key.startswith("quantize.imatrix") for key in self._reader.fields)

    def storage_unknown(self, name: str) -> str | None:
        """Why no entrywise storage error bound is known for the tensor (None when :meth:`error_bound` gives one)."""
        kind = self.type_name(name)
        if kind in _FLOAT_TYPES:
            return None
        if kind in _BLOCK_STEP and not self.imatrix:
            return None
        if kind in _BLOCK_STEP:
            return (
                f"{kind} quantized with an importance matrix (quantize.imatrix metadata): its scales are chosen by "
                "a weighted search, not llama.cpp's reference rounding, so no entrywise error bound is derived"
            )
        return (
            f"{kind}: scales chosen by search (K-quants: per-sub-block scales and minimums; i-quants: "
            "codebooks), so the storage grid is not uniform and no entrywise error bound is derived"
        )

    def error_bound(self, name: str, values: np.ndarray) -> np.ndarray | None:
        """Entrywise bound on ``|w - w~|`` for a ``w`` that stores as ``w~``: ``u/(1-u) |w~|`` (plus half the
        subnormal spacing) for a float type; for Q8_0/Q4_0/Q4_1/Q5_0/Q5_1 under llama.cpp's reference quantizer
        (``q = round(x / d)`` in float32, clamped; ``d`` and ``m`` then rounded to float16):
        ``|x - q d16 - m16| <= D (c + qmax (u16 + 2^-22)) + qmax 2^-25 + [u16 |m16| / (1 - u16) + 2^-25]`` with
        ``D = |d16| / (1 - u16) + 2^-25`` the float32 scale, ``c`` 1/2 (a whole step where Q4_0/Q5_0 clamp),
        ``2^-22`` the float32 rounding of ``x / d``; the bracket only for ``*_1``.  None for other types (K-quants
        choose scales by search: their error is not derived here) and for block types in an imatrix file
        (:meth:`storage_unknown`)."""
        fused = self._fused(name)
        kind = self.type_name(name)
        if self.storage_unknown(name) is not None:
            return None
        if kind in _FLOAT_TYPES:
            u = _FLOAT_TYPES[kind]
            spacing = {"F16": _F16_HALF_SPACING, "BF16": 2.0**-134, "F32": 2.0**-150}.get(kind, 0.0)
            return np.abs(values) * (u / (1.0 - u)) + spacing
        if kind not in _BLOCK_STEP:
            return None
        gguf = _gguf()
        tensor = self._tensors[fused[0] if fused else name]
        block, size = gguf.GGML_QUANT_SIZES[tensor.tensor_type]
        raw = np.asarray(tensor.data).reshape(-1, size)
        qmax, c = _BLOCK_STEP[kind]
        d = np.abs(raw[:, :2].copy().view(np.float16).astype(np.float64)[:, 0]) / (1 - _F16_U) + _F16_HALF_SPACING
        e = d * (c + qmax * (_F16_U + 2.0**-22)) + qmax * _F16_HALF_SPACING
        if kind.endswith("_1"):
            m = np.abs(raw[:, 2:4].copy().view(np.float16).astype(np.float64)[:, 0])
            e = e + _F16_U * m / (1 - _F16_U) + _F16_HALF_SPACING
        full = np.empty((e.size, block))
        full[:] = e[:, None]  # each block's bound over its entries (np.repeat's values, broadcast: faster)
        full = full.reshape(tuple(int(x) for x in reversed(tensor.shape.tolist())))
        if fused:
            half = full.shape[0] // 2
            full = full[half * fused[1] : half * (fused[1] + 1)]
        return full

    def where(self, name: str) -> str:
        return shown(self.path)


def forced_family(arch: str, name: str, path) -> Family:
    """The GGUF tensor names and ``{arch}.*`` metadata read as family ``name`` (``--architecture``): its layer
    (activation, gate, fused qkv) with the file's own metadata keys."""
    layers = {}
    for f in GGUF_FAMILIES.values():  # phi3 reads as llama's layer; llama's own names come first
        layers.setdefault(f.name, f)
    if name not in layers:
        raise CheckpointError(
            f"{shown(path)}: --architecture {shown(name)} has no GGUF layout; for a .gguf file "
            f"give one of: {', '.join(layers)}"
        )
    like = layers[name]
    return _family(arch, name, like.activation, qkv=like.qkv is not None, gated=like.gated)


def gguf_config(store: GGUFStore, architecture: str | None = None) -> tuple[Family, dict]:
    """The family of ``general.architecture`` (or the forced ``architecture``, read with the file's keys) and the
    metadata as a config (sizes checked by the caller); one line naming the field when the architecture is missing
    or not supported, or a size is per layer."""
    arch = store.architecture
    if not isinstance(arch, str) or not arch or len(arch) > 64:
        raise CheckpointError(
            f"{shown(store.path)}: field general.architecture must be a short string, got {shown(arch)[:80]}"
        )
    if architecture is None and arch not in GGUF_FAMILIES:
        raise CheckpointError(
            f"{shown(store.path)}: field general.architecture is {shown(arch)}; supported GGUF "
            f"architectures: {', '.join(GGUF_FAMILIES)} (or --architecture FAMILY to read it as one)"
        )
    family = GGUF_FAMILIES[arch] if architecture is None else forced_family(arch, architecture, store.path)
    config = dict(store.metadata)
    _check_values(config, arch, store.path)
    for key in (f"{arch}.attention.head_count", f"{arch}.attention.head_count_kv", f"{arch}.feed_forward_length"):
        value = config.get(key)
        if isinstance(value, list):
            if not value or len(set(value)) != 1:
                raise CheckpointError(
                    f"{shown(store.path)}: field {key} differs between layers ({value[:8]}); "
                    "one value for every layer is needed"
                )
            config[key] = value[0]
    key_length, value_length = config.get(f"{arch}.attention.key_length"), config.get(f"{arch}.attention.value_length")
    if value_length is not None and key_length is not None and value_length != key_length:
        raise CheckpointError(
            f"{shown(store.path)}: field {arch}.attention.value_length ({value_length}) differs "
            f"from {arch}.attention.key_length ({key_length}); one head size is needed"
        )
    for key, value in config.items():
        if isinstance(value, float) and math.isfinite(value) and value == int(value) and key.endswith("_count"):
            config[key] = int(value)
        elif isinstance(value, float) and math.isfinite(value) and value == float(np.float32(value)):
            config[key] = float(str(np.float32(value)))  # the shortest decimal of a float32 field: the config's value
    config.update(_rope_fields(config, arch))
    return family, config


MAX_COUNT = 2**31
"""Largest size or count accepted from a GGUF's metadata (block count, widths, heads, context length)."""
_COUNT_KEYS = (
    "block_count",
    "embedding_length",
    "attention.head_count",
    "attention.head_count_kv",
    "attention.key_length",
    "attention.value_length",
    "feed_forward_length",
    "context_length",
    "rope.dimension_count",
)
_POSITIVE_KEYS = (
    "attention.layer_norm_rms_epsilon",
    "attention.layer_norm_epsilon",
    "rope.freq_base",
    "rope.scaling.factor",
)


def _check_values(meta: dict, arch: str, path) -> None:
    """Each metadata value the analysis reads, checked by type and range where it enters: counts integers in
    ``1..MAX_COUNT`` (one, or one per layer), eps, the rotary base and scaling factor finite and positive."""
    for key in (f"{arch}.{k}" for k in _COUNT_KEYS if f"{arch}.{k}" in meta):
        value = meta[key]
        for item in value if isinstance(value, list) and value else [value]:
            if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= MAX_COUNT:
                got = (
                    "an integer outside that range"
                    if isinstance(item, int) and not isinstance(item, bool)
                    else shown(item)[:60]
                )
                raise CheckpointError(
                    f"{shown(path)}: field {key} must be an integer in 1..{MAX_COUNT} (one, or one "
                    f"per layer), got {got}"
                )
    for key in (f"{arch}.{k}" for k in _POSITIVE_KEYS if f"{arch}.{k}" in meta):
        value = meta[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise CheckpointError(
                f"{shown(path)}: field {key} must be a finite positive number, got {shown(value)[:60]}"
            )


def _rope_fields(meta: dict, arch: str) -> dict:
    """The GGUF rotary metadata under the ``config.json`` names ``rope_from_config`` reads: ``rope.freq_base`` ->
    ``rope_theta``, ``context_length`` -> ``max_position_embeddings``, ``rope.dimension_count`` over the head size ->
    ``partial_rotary_factor``, ``rope.scaling.type`` / ``.factor`` -> ``rope_scaling``."""
    out = {}
    for gguf_key, name in (("rope.freq_base", "rope_theta"), ("context_length", "max_position_embeddings")):
        if meta.get(f"{arch}.{gguf_key}") is not None:
            out[name] = meta[f"{arch}.{gguf_key}"]
    rotated, head = meta.get(f"{arch}.rope.dimension_count"), meta.get(f"{arch}.attention.key_length")
    if head is None and meta.get(f"{arch}.embedding_length") and meta.get(f"{arch}.attention.head_count"):
        head = meta[f"{arch}.embedding_length"] // meta[f"{arch}.attention.head_count"]
    if isinstance(rotated, int) and isinstance(head, int) and head > 0:
        out["partial_rotary_factor"] = rotated / head
    kind = meta.get(f"{arch}.rope.scaling.type")
    if isinstance(kind, str) and kind != "none":
        out["rope_scaling"] = {"rope_type": kind, "factor": meta.get(f"{arch}.rope.scaling.factor", 1.0)}
    return out


def quantization_steps_known(types) -> bool:
    """True when every type's grid step is derived here (float types, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1)."""
    return all(t in _FLOAT_TYPES or t in _BLOCK_STEP for t in types)


def storage_summary(store: GGUFStore, names: list[str]) -> dict:
    """Counts of GGML types among ``names`` (the analysed weight matrices) and the file's ``general.file_type``."""
    counts: dict[str, int] = {}
    for name in names:
        if name in store.names:
            kind = store.type_name(name)
            counts[kind] = counts.get(kind, 0) + 1
    gguf = _gguf()
    return {
        "format": GGUF,
        "tensor_types": counts,
        "file_type": store.metadata.get("general.file_type"),
        "dequantization": f"gguf.quants.dequantize (gguf {getattr(gguf, '__version__', _version())}) to "
        "float32, widened to float64",
    }


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gguf")
    except PackageNotFoundError:
        return "unknown"
