"""A checkpoint opened for analysis: where its weights come from, which family it is, and its sizes.

:func:`open_source` accepts a model folder (safetensors, single or sharded; ``pytorch_model.bin`` only with
``allow_pickle``), an ``.onnx`` file, a dict of numpy arrays, a torch ``state_dict`` or ``nn.Module``; the
family comes from ``config.json``'s ``model_type`` (or ``architecture=``), or from a user ``mapping`` file.
:class:`CheckpointSource` then hands out one layer's matrices at a time (``layer(i)``), in float64.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sabounds.numerics.checkpoints.architectures import (
    BIAS_ROLES,
    FAMILIES,
    POST_LN,
    PRE_LN,
    SIZE_FIELDS,
    Family,
    Unmodelled,
    canonical_activation,
    detect,
    supported,
)
from sabounds.numerics.checkpoints.errors import CheckpointError, read_json, shown
from sabounds.numerics.checkpoints.layers import LayerMatrices, assemble
from sabounds.numerics.checkpoints.rope import RopeSpec, rope_from_config
from sabounds.numerics.checkpoints.stores import ArrayStore, TensorStore

_GENERIC_FIELDS = {
    "layers": ("num_hidden_layers", "n_layer", "n_layers"),
    "hidden": ("hidden_size", "n_embd", "dim"),
    "heads": ("num_attention_heads", "n_head", "n_heads"),
    "kv_heads": ("num_key_value_heads",),
    "head_dim": ("head_dim",),
    "intermediate": ("intermediate_size", "n_inner", "hidden_dim"),
}


_EPS_FIELDS = ("rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps")


@dataclass(frozen=True)
class ModelShape:
    """Sizes and structure the analysis needs: ``L`` layers, width ``N``, ``H`` query heads of size ``d_h``
    (``N / H`` unless the config says otherwise), ``G = kv_heads`` key/value heads (grouped-query attention when
    ``G < H``), feed-forward width ``I``, and the family's layout, activation and whether the MLP is gated."""

    layers: int
    hidden: int
    heads: int
    intermediate: int
    kv_heads: int | None = None
    head_dim: int | None = None
    family: str = "bert"
    layout: str = POST_LN
    activation: str = "gelu"
    gated: bool = False
    norm_eps: float | None = None
    rope: RopeSpec | None = None
    """``eps`` of the pre-LN norms (pre-LN families) and the rotary embedding (``numerics/checkpoints/rope.py``)."""
    unmodelled: tuple[Unmodelled, ...] = ()
    """Maps the config adds to the family's layer that the bookkeeping leaves out (relative position embeddings)."""

    def __post_init__(self):
        if self.kv_heads is None:
            object.__setattr__(self, "kv_heads", self.heads)
        if self.head_dim is None:
            object.__setattr__(self, "head_dim", self.hidden // self.heads)

    def truncated(self, layers: int) -> ModelShape:
        """The same model cut to its first ``layers`` layers (an ``L = layers`` model)."""
        return replace(self, layers=layers)

    @property
    def published(self) -> bool:
        """True when the published proxy applies unchanged: a post-LN layer with GELU, ungated, one K/V per head."""
        return self.layout == POST_LN and self.activation == "gelu" and not self.gated and self.kv_heads == self.heads


def _read_sizes(
    config: Mapping, family: Family, where: str, fixed: dict
) -> tuple[dict[str, int | None], dict[str, str]]:
    """Each size of ``SIZE_FIELDS`` from ``fixed`` or the first of the family's config fields that is set (``None`` for
    an optional size that is absent), and the field it came from; one-line error on a missing or bad size."""
    sizes: dict[str, int | None] = {}
    names: dict[str, str] = {}
    for size in SIZE_FIELDS:
        if size in fixed:
            sizes[size], names[size] = fixed[size], f"sizes.{size} of the mapping"
            continue
        fields = family.config.get(size, ()) or (() if family.model_types else _GENERIC_FIELDS[size])
        if not family.model_types:
            fields = tuple(dict.fromkeys(tuple(fields) + _GENERIC_FIELDS[size]))
        value, named = None, fields[0] if fields else size
        for f in fields:
            if config.get(f) is not None:
                value, named = config[f], f
                break
        optional = ("kv_heads", "head_dim") + (("intermediate",) if family.intermediate_default else ())
        if value is None and size in optional:
            sizes[size] = None
            continue
        if value is None and not config:
            raise CheckpointError(
                f"{where}: no sizes; give the {size} size in the mapping's [sizes] table or a "
                "config.json (or config=) with it"
            )
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CheckpointError(f"{where}: field {named} must be a positive integer, got {shown(value)}")
        sizes[size], names[size] = value, named
    return sizes, names


def _activation(config: Mapping, family: Family, where: str) -> str:
    """The family's activation, or the one the config names (refused when it has no derived Lipschitz constant)."""
    activation = family.activation
    for f in family.activation_fields:
        if f in config:
            activation = canonical_activation(config[f])
            if activation is None:
                raise CheckpointError(
                    f"{where}: field {f} is {shown(config[f])}, an activation without a derived "
                    "Lipschitz constant (supported: gelu, gelu_new/gelu_tanh, relu, silu)"
                )
            break
    return activation


def _norm_eps(config: Mapping, family: Family, where: str):
    """The normalisation eps from the config (the family's default otherwise); refused unless a number >= 0.  Every
    eps field the config states is checked, also where the family reads none (a post-LN LayerNorm's output bound
    ``sqrt(N) max|g| + ||b||`` needs eps >= 0 as much as a pre-LN norm's Lipschitz constant)."""
    eps_fields = family.norm_eps_fields or (() if family.model_types else _EPS_FIELDS)
    for name in dict.fromkeys((*eps_fields, *_EPS_FIELDS)):
        value = config.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf
        ):
            raise CheckpointError(
                f"{where}: the normalisation eps (field {name}) must be a finite number >= 0, got {shown(value)[:60]}"
            )
    return next((config[f] for f in eps_fields if config.get(f) is not None), family.norm_eps_default)


def shape_from_config(
    config: Mapping, family: Family, where: str, fixed: Mapping[str, int] | None = None
) -> tuple[ModelShape, dict[str, str]]:
    """Read the sizes of ``family`` from a config dict (``fixed`` sizes win); one-line error naming the field.
    Also returns, per size, the field it came from (for later messages)."""
    sizes, names = _read_sizes(config, family, where, dict(fixed or {}))
    if sizes["intermediate"] is None:
        sizes["intermediate"] = family.intermediate_default * sizes["hidden"]
    heads, kv = sizes["heads"], sizes["kv_heads"] or sizes["heads"]
    if sizes["head_dim"] is None and sizes["hidden"] % heads:
        raise CheckpointError(
            f"{where}: field {names['hidden']} ({sizes['hidden']}) is not divisible by {names['heads']} ({heads})"
        )
    if heads % kv:
        raise CheckpointError(
            f"{where}: field {names['heads']} ({heads}) is not a multiple of {names['kv_heads']} ({kv})"
        )
    activation = _activation(config, family, where)
    head_dim = sizes["head_dim"] or sizes["hidden"] // heads
    if family.layout == PRE_LN and config.get("scale_attn_weights") is False:
        raise CheckpointError(
            f"{where}: field scale_attn_weights is false: scores without the 1/sqrt(d_h) scale "
            "are not described (the pre-LN attention factor divides by sqrt(d_h))"
        )
    eps = _norm_eps(config, family, where)
    try:
        rope = rope_from_config(config, head_dim, where) if family.rope else None
    except ValueError as exc:
        raise CheckpointError(str(exc)) from None
    shape = ModelShape(
        sizes["layers"],
        sizes["hidden"],
        heads,
        sizes["intermediate"],
        kv,
        sizes["head_dim"],
        family.name,
        family.layout,
        activation,
        family.gated,
        None if eps is None else float(eps),
        rope,
        _relative_positions(config, where),
    )
    return shape, {k: f"{where}: field {v}" for k, v in names.items()}


def _relative_positions(config: Mapping, where: str) -> tuple[Unmodelled, ...]:
    """An ``Unmodelled`` entry where ``position_embedding_type`` is not ``absolute`` (BERT's relative_key and
    relative_key_query add position terms to the scores); one line for a value that is not a string."""
    kind = config.get("position_embedding_type")
    if kind is None or kind == "absolute":
        return ()
    if not isinstance(kind, str):
        raise CheckpointError(f"{where}: field position_embedding_type must be a string, got {shown(kind)[:60]}")
    return (
        Unmodelled(
            f"attention: relative position embeddings (position_embedding_type {shown(kind)[:40]})",
            "the scores gain q_i . r_(i-j) (and k_j . r_(i-j)) terms, which vary with the key and which the score map's "
            "Lipschitz constant and the QK slots leave out",
        ),
    )


CONTEXT_FIELDS = ("max_position_embeddings", "n_positions", "n_ctx")
"""config.json fields that may hold the context length (GPT-2 names it ``n_positions``)."""


def context_length(config: Mapping, where: str, fields: tuple[str, ...] = CONTEXT_FIELDS) -> tuple[int | None, str]:
    """The checkpoint's own context length and where it was read (``None, ""`` when it states none); one line
    naming the field when it is not a positive integer."""
    for name in fields:
        value = config.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            got = "a number <= 0" if isinstance(value, int) and not isinstance(value, bool) else shown(value)[:60]
            raise CheckpointError(f"{where}: field {name} must be a positive integer (the context length), got {got}")
        return value, f"{where}: field {name}"
    return None, ""


class CheckpointSource:
    """Tensors of one model under one family's names: ``tensor(name, shape)`` and ``layer(i)``, in float64;
    ``context`` the checkpoint's own context length and its source (``(None, "")`` when it states none)."""

    def __init__(
        self,
        store: TensorStore,
        family: Family,
        shape: tuple[ModelShape, dict[str, str]],
        label: str,
        model_dir: Path | None = None,
        files: tuple[Path, ...] = (),
        context: tuple[int | None, str] = (None, ""),
    ):
        self.shape, self.size_fields = shape
        self.store, self.family, self.label = store, family, label
        self.model_dir, self.files, self.context = model_dir, files, context
        probe = family.probe()
        self.prefix = next((p for p in family.prefixes if p + probe in store.names), family.prefixes[0])

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """The tensor ``prefix + name`` as float64, checked for shape and for NaN or Inf entries."""
        full = self.prefix + name
        if full not in self.store.names:
            raise CheckpointError(f"{self.store.where(full)}: missing tensor {shown(full)} ({self.family.name} family)")
        found = tuple(self.store.shape(full))
        if found != tuple(shape):
            raise CheckpointError(
                f"{self.store.where(full)}: tensor {shown(full)} has shape {list(found)}, expected {list(shape)}"
            )
        raw = self.store.read(full)
        values = np.asarray(raw, dtype=np.float64)
        narrow = raw if isinstance(raw, np.ndarray) and raw.dtype.kind == "f" and raw.itemsize <= 8 else values
        if not np.isfinite(narrow).all():
            raise CheckpointError(f"{self.store.where(full)}: tensor {shown(full)} has NaN or Inf entries")
        return values

    def _linear(self, role_name: str, out: int, inp: int, read=None) -> np.ndarray:
        """A projection in ``(out, in)`` layout, whatever the family's storage orientation."""
        read = read or self.tensor
        if self.family.orientation == "in_out":
            return read(role_name, (inp, out)).T
        return read(role_name, (out, inp))

    def layer_names(self, index: int) -> list[str]:
        """The full names of the tensors layer ``index`` needs (the optional MLP norm left out)."""
        f, base = self.family, self.family.layer_name(index)
        roles = [f.qkv] if f.qkv else [f.query, f.key, f.value]
        roles += [f.output, f.mlp_in, f.mlp_out] + ([f.mlp_gate] if f.mlp_gate else [])
        return [self.prefix + base + r for r in roles]

    def check_layers_exist(self, layers: int | None = None) -> None:
        """One line naming the first missing tensor of layers ``0..layers-1`` (default: all the config claims).
        Each layer's names are distinct, so at most ``len(names) + 1`` layers are looked at before one is
        missing: a config claiming 10^9 layers over 2 costs three layers' lookups, not 10^9 of anything."""
        layers = self.shape.layers if layers is None else layers
        for index in range(min(layers, len(self.store.names) + 1)):
            for name in self.layer_names(index):
                if name not in self.store.names:
                    raise CheckpointError(
                        f"{self.store.where(name)}: missing tensor {shown(name)} of layer {index} "
                        f"({self.family.name} family; the config claims {layers} layers)"
                    )

    def layer(self, index: int) -> LayerMatrices:
        """Layer ``index`` (0-based) cut into the paper's matrices (``sabounds.numerics.checkpoints.layers``)."""
        return self._assemble(index, self.tensor)

    def layer_and_bounds(self, index: int) -> tuple[LayerMatrices, LayerMatrices | None]:
        """Layer ``index``, and the same cut of the store's entrywise storage error bounds (``GGUFStore.error_bound``
        at each stored value) where the store gives them (GGUF), else None.  A tensor whose error is not known (a
        K-quant, an imatrix file) contributes NaN bounds: the matrices built from it get an unknown threshold."""
        bound_of = getattr(self.store, "error_bound", None)
        bounds: dict[str, np.ndarray] = {}

        def read(name, shape):
            values = self.tensor(name, shape)
            if bound_of is not None:
                known = bound_of(self.prefix + name, values)
                bounds[name] = np.full_like(values, np.nan) if known is None else known
            return values

        layer = self._assemble(index, read)
        if bound_of is None:
            return layer, None
        return layer, self._assemble(index, lambda name, shape: bounds[name])

    def _assemble(self, index: int, read) -> LayerMatrices:
        s, f = self.shape, self.family
        n, inner, dq, dkv = s.hidden, s.intermediate, s.heads * s.head_dim, s.kv_heads * s.head_dim
        base = f.layer_name(index)
        if f.qkv:
            fused = self._linear(base + f.qkv, dq + 2 * dkv, n, read)
            q, k, v = fused[:dq], fused[dq : dq + dkv], fused[dq + dkv :]
        else:
            q = self._linear(base + f.query, dq, n, read)
            k = self._linear(base + f.key, dkv, n, read)
            v = self._linear(base + f.value, dkv, n, read)
        o = self._linear(base + f.output, n, dq, read)
        up = self._linear(base + f.mlp_in, inner, n, read)
        down = self._linear(base + f.mlp_out, n, inner, read)
        gate = self._linear(base + f.mlp_gate, inner, n, read) if f.mlp_gate else None
        norms = {}
        for role in ("attn_norm", "mlp_norm"):
            weight = getattr(f, role)
            bias = getattr(f, role + "_bias") or (_bias_name(weight) if weight and weight.endswith(".weight") else None)
            norms[role] = self._optional(base, weight, n, f.norm_offset)
            norms[role + "_bias"] = self._optional(base, bias, n, 0.0)
        if f.post_norms:
            norms["post_norms"] = tuple(
                (self._optional(base, w, n, 0.0), self._optional(base, _bias_name(w), n, 0.0)) for w in f.post_norms
            )
        return assemble(index, q, k, v, o, up, down, s.heads, s.kv_heads, gate, **norms)

    def embedding_norm(self) -> tuple[np.ndarray | None, np.ndarray | None, str]:
        """The embedding LayerNorm's ``(weight, bias, "")`` (bias None if absent), or ``(None, None, why)`` where the
        family names none, the checkpoint lacks it, or its width is not the layers' (a projection follows it)."""
        f, n = self.family, self.shape.hidden
        if not f.embedding_norm:
            return None, None, f"the {f.name} family names no embedding LayerNorm"
        name = self.prefix + f.embedding_norm
        if name not in self.store.names:
            return None, None, f"the checkpoint has no {shown(name)}"
        width = tuple(self.store.shape(name))
        if width != (n,):
            return (
                None,
                None,
                (
                    f"{shown(name)} has shape {list(width)}, not [{n}]: a projection follows it, so layer 1 "
                    "does not read its output"
                ),
            )
        return (
            self.tensor(f.embedding_norm, (n,)),
            self._optional("", _bias_name(f.embedding_norm), n, 0.0),
            "",
        )

    def linear_biases(self, layers: int) -> dict[str, float]:
        """Per linear map (``BIAS_ROLES``; a fused ``qkv`` bias split into query, key and value; ``other`` for any
        other stored ``*bias`` of the layer that is not a norm's) the largest ``||b||`` over layers ``0..layers-1``,
        for the maps whose bias has a nonzero entry.  A bias is the weight's name with its last part replaced by
        ``bias`` (``q_proj.weight`` -> ``q_proj.bias``, ``ffn_up.up_half`` -> ``ffn_up.bias``).  Its shape is checked
        before it is read (1-D, of the map's output size, or twice it for a fused gate and up); a NaN or Inf entry is
        refused like a weight's."""
        f, s = self.family, self.shape
        head_dim, kv_heads = s.head_dim or 0, s.kv_heads or 0  # set by ModelShape.__post_init__
        dq, dkv, n, inner = s.heads * head_dim, kv_heads * head_dim, s.hidden, s.intermediate
        sizes = {
            "query": {dq},
            "key": {dkv},
            "value": {dkv},
            "qkv": {dq + 2 * dkv},
            "output": {n},
            "mlp_in": {inner, 2 * inner},
            "mlp_gate": {inner, 2 * inner},
            "mlp_out": {n},
        }
        largest = max(n, inner, dq + 2 * dkv)
        roles = {role: getattr(f, role) for role in BIAS_ROLES if role not in ("query", "key", "value")}
        roles.update({"qkv": f.qkv} if f.qkv else {"query": f.query, "key": f.key, "value": f.value})
        norms = [f.attn_norm, f.mlp_norm, *(f.post_norms or ())]
        norm_biases = {_bias_name(w) for w in norms if w} | {b for b in (f.attn_norm_bias, f.mlp_norm_bias) if b}
        found: dict[str, float] = {}
        for index in range(layers):
            base = self.prefix + f.layer_name(index)
            placed = {role: base + b for role, w in roles.items() if w and (b := _bias_name(w))}
            known = set(placed.values()) | {base + b for b in norm_biases if b}
            others = sorted(x for x in self.store.names if x.startswith(base) and x.endswith("bias") and x not in known)
            for role, name in [*placed.items(), *(("other", x) for x in others)]:
                if name not in self.store.names:
                    continue
                shape = tuple(self.store.shape(name))
                if role == "other" and len(shape) != 1:
                    continue  # a buffer, not a map's bias (GPT-2's causal mask ``attn.bias``, ``attn.masked_bias``)
                fits = len(shape) == 1 and (shape[0] <= 2 * largest if role == "other" else shape[0] in sizes[role])
                if not fits:
                    wanted = "this layer" if role == "other" else f"size {min(sizes[role])}"
                    raise CheckpointError(
                        f"{self.store.where(name)}: tensor {shown(name)} has shape {list(shape)}, not a bias of {wanted}"
                    )
                values = np.asarray(self.store.read(name), dtype=np.float64).ravel()
                if not np.isfinite(values).all():
                    raise CheckpointError(f"{self.store.where(name)}: tensor {shown(name)} has NaN or Inf entries")
                parts = {role: values}
                if role == "qkv":
                    parts = dict(
                        zip(("query", "key", "value"), (values[:dq], values[dq : dq + dkv], values[dq + dkv :]))
                    )
                for r, v in parts.items():
                    if v.any():
                        found[r] = max(found.get(r, 0.0), float(np.linalg.norm(v)))
        return found

    def _optional(self, base: str, name: str | None, n: int, offset: float) -> np.ndarray | None:
        """A norm's weight (plus the family's offset) or bias where the checkpoint has it, else None."""
        if name and self.prefix + base + name in self.store.names:
            return self.tensor(base + name, (n,)) + offset
        return None


def _bias_name(weight: str) -> str | None:
    """The bias stored beside a weight: its name with the last dotted part replaced by ``bias``."""
    return weight.rsplit(".", 1)[0] + ".bias" if "." in weight else None


def _unknown(where: str, model_type) -> CheckpointError:
    return CheckpointError(
        f"{where}: field model_type is {shown(model_type)}, not a supported family ({supported()}); "
        "describe the model with a mapping file (--mapping FILE, TOML or JSON; see "
        "docs/api_example/custom_mapping.toml)"
    )


def _family_for(config: Mapping, where: str, architecture, mapping) -> tuple[Family, dict]:
    from sabounds.numerics.checkpoints.mapping import load_mapping, parse_mapping

    if mapping is not None:
        if isinstance(mapping, Family):
            return mapping, {}
        return parse_mapping(mapping, "mapping") if isinstance(mapping, Mapping) else load_mapping(mapping)
    if isinstance(architecture, Family):
        return architecture, {}
    if architecture is not None:
        if architecture not in FAMILIES:
            raise CheckpointError(f"architecture {shown(architecture)} is not a supported family ({supported()})")
        return FAMILIES[architecture], {}
    family = detect(config.get("model_type"))
    if family is None:
        raise _unknown(where, config.get("model_type"))
    return family, {}


def _config_of(config, where: str) -> dict:
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    path = Path(config)
    data = read_json(path, "config")
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: expected a JSON object")
    return data


def open_source(
    source, mapping=None, *, config=None, architecture=None, allow_pickle: bool = False
) -> CheckpointSource:
    """Open ``source`` (folder, ``.onnx`` file, dict of arrays, torch state_dict or module) as a CheckpointSource.

    ``config`` (a dict or a path to ``config.json``) supplies the sizes when the source has none of its own;
    ``architecture`` forces a built-in family; ``mapping`` (a path, dict or Family) describes any other model.
    """
    model_dir, files = None, ()
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        from sabounds.numerics.checkpoints.gguf_file import gguf_in_folder

        path = gguf_in_folder(path)
        if path.is_file() and path.suffix.lower() == ".gguf":
            from sabounds.numerics.checkpoints.gguf_file import GGUFStore, gguf_config

            store = GGUFStore(path)
            family, cfg = gguf_config(store, architecture if isinstance(architecture, str) else None)
            if mapping is not None or isinstance(architecture, Family):
                family, _ = _family_for(cfg, str(path), architecture, mapping)
            context = context_length(store.metadata, str(path), (f"{store.architecture}.context_length",))
            return CheckpointSource(
                store, family, shape_from_config(cfg, family, str(path)), str(path), None, tuple(store.parts), context
            )
        if path.is_file() and path.suffix.lower() == ".onnx":
            from sabounds.numerics.checkpoints.onnx_model import OnnxStore

            store = OnnxStore(path)
            cfg = {**store.config, **_config_of(config, str(path))}
            if "num_attention_heads" not in cfg and mapping is None:
                raise CheckpointError(
                    f"{path}: the number of attention heads is not readable from the graph (no "
                    "[batch, seq, H, d_h] reshape); pass config={'num_attention_heads': H}"
                )
            where, label, files = str(path), str(path), (path,)
        elif path.is_dir():
            from sabounds.numerics.checkpoints.safetensors_folder import SafetensorsFolder

            config_path = path / "config.json"
            if config is None and not config_path.is_file() and mapping is None:
                raise CheckpointError(
                    f"{config_path}: no such file (a Hugging Face model directory needs config.json, "
                    "or pass a mapping file with its sizes)"
                )
            cfg = _config_of(
                config if config is not None else (config_path if config_path.is_file() else None), str(config_path)
            )
            where = str(config_path)
            family, fixed = _family_for(cfg, where, architecture, mapping)
            store = SafetensorsFolder(path, allow_pickle)
            model_dir, label, files = path, str(path), tuple(f.path for f in store.files)
            return CheckpointSource(
                store,
                family,
                shape_from_config(cfg, family, where, fixed),
                label,
                model_dir,
                files,
                context_length(cfg, where),
            )
        elif not path.exists():
            raise CheckpointError(f"{shown(path)}: no such file or directory")
        else:
            raise CheckpointError(f"{shown(path)}: not a model directory, an .onnx or a .gguf file")
    elif isinstance(source, Mapping):
        store = ArrayStore(source)
        cfg, where, label = _config_of(config, "config"), "config", "dict of arrays"
    elif hasattr(source, "state_dict") and callable(source.state_dict):  # a torch nn.Module
        store = ArrayStore(source.state_dict(), label=type(source).__name__)
        own = getattr(source, "config", None)
        own = own.to_dict() if hasattr(own, "to_dict") else {}
        cfg, where, label = {**own, **_config_of(config, "config")}, f"{type(source).__name__}.config", store.label
    else:
        raise CheckpointError(
            f"cannot read weights from a {type(source).__name__}; expected a model folder, an .onnx "
            "file, a dict of arrays, a torch state_dict or an nn.Module"
        )
    if not cfg and mapping is None:
        raise CheckpointError(f"{label}: no sizes; pass config= (a config.json dict or path) or a mapping with [sizes]")
    family, fixed = _family_for(cfg, where, architecture, mapping)
    return CheckpointSource(
        store, family, shape_from_config(cfg, family, where, fixed), label, model_dir, files, context_length(cfg, where)
    )
