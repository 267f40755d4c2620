"""User mapping files: describe a model no built-in family covers, in TOML (read with ``tomllib``) or JSON.

A mapping names the tensors of layer ``i`` and the layer's structure; sizes come from its ``[sizes]`` table or,
when absent, from ``config.json`` (BERT's or LLaMA's field names).  Example (``docs/api_example/custom_mapping.toml``)::

    base = "llama"                 # optional: start from a built-in family and override what follows
    layer = "blocks.{i}."          # prefix of layer i's tensors
    orientation = "out_in"         # out_in (nn.Linear) or in_out (Conv1D, stored x @ W)
    layout = "pre_ln"              # post_ln (the published proxy's layer) or pre_ln (residual blocks)
    activation = "silu"            # gelu, gelu_tanh, relu or silu
    rope = true                    # rotary position embeddings on queries and keys (rope_theta etc. from config.json)

    [tensors]                      # names relative to the layer prefix; qkv = one fused tensor instead
    query = "attn.wq.weight"
    key = "attn.wk.weight"
    value = "attn.wv.weight"
    output = "attn.wo.weight"
    mlp_in = "ffn.w3.weight"       # up projection
    mlp_out = "ffn.w2.weight"      # down projection
    mlp_gate = "ffn.w1.weight"     # only for a gated MLP
    attn_norm = "attn_norm.weight" # pre-LN: the norms' weights (and *_bias for a LayerNorm) give the token radius
    mlp_norm = "ffn_norm.weight"

    [sizes]                        # optional; kv_heads and head_dim default to heads and hidden / heads
    layers = 2
    hidden = 16
    heads = 4
    intermediate = 48

``layer`` is a template of its own, not a format string: text with ``{i}`` (the layer index) and no other brace.
The file is read by the one bounded reader (``sabounds.numerics.user_files``) within ``MAPPING_LIMITS``: a regular
file of at most ``MAX_MAPPING_BYTES``, keys of at most 16 dotted parts, 64 levels of brackets, 10 000 items and
keys.  Every problem is one line naming the file and the bad entry or limit.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from sabounds.numerics.checkpoints.architectures import (
    ACTIVATIONS,
    FAMILIES,
    POST_LN,
    PRE_LN,
    SIZE_FIELDS,
    Family,
    canonical_activation,
)
from sabounds.numerics.checkpoints.errors import CheckpointError, shown
from sabounds.numerics.user_files import Limits, read_structured

TENSOR_ROLES = (
    "query",
    "key",
    "value",
    "qkv",
    "output",
    "mlp_in",
    "mlp_out",
    "mlp_gate",
    "mlp_norm",
    "attn_norm",
    "mlp_norm_bias",
    "attn_norm_bias",
)
TOP_KEYS = ("base", "name", "layer", "orientation", "layout", "activation", "prefixes", "tensors", "sizes", "rope")
MAX_MAPPING_BYTES = 2**20
MAPPING_LIMITS = Limits(MAX_MAPPING_BYTES, max_key_parts=16, max_depth=64, max_items=10_000, max_keys=10_000)
MAX_NAME_CHARS = 1024


def load_mapping(path: str | Path) -> tuple[Family, dict[str, int]]:
    """Read and validate a mapping file: the family it describes and the sizes it fixes (possibly none)."""
    data = read_structured(path, "mapping file", MAPPING_LIMITS, CheckpointError)
    return parse_mapping(data, str(path))


def check_template(layer: str, where: str) -> None:
    """A layer template is text with one or more ``{i}`` (the layer index) and no other brace: not a format string,
    so ``{i:>900000000}``, ``{i.foo}`` or ``{i[0]}`` are refused, never evaluated."""
    if len(layer) > MAX_NAME_CHARS:
        raise CheckpointError(f"{where}: entry layer has {len(layer)} characters; at most {MAX_NAME_CHARS}")
    if "{i}" not in layer:
        raise CheckpointError(f"{where}: entry layer {shown(layer)} must contain {{i}} (the layer index)")
    if "{" in layer.replace("{i}", "") or "}" in layer.replace("{i}", ""):
        raise CheckpointError(
            f"{where}: entry layer {shown(layer)} may contain only {{i}} between braces (the "
            "layer index; no format specifications, attributes or indexes)"
        )


def _text(where: str, key: str, value, allowed: tuple[str, ...] | None = None) -> str:
    if not isinstance(value, str) or not value:
        raise CheckpointError(f"{where}: entry {key} must be a non-empty string, got {shown(value)}")
    if allowed is not None and value not in allowed:
        raise CheckpointError(f"{where}: entry {key} is {shown(value)}; expected one of {', '.join(allowed)}")
    return value


def parse_mapping(data, where: str = "mapping") -> tuple[Family, dict[str, int]]:
    """Validate a mapping already parsed into a dict (see the module docstring for its entries)."""
    if not isinstance(data, dict):
        raise CheckpointError(f"{where}: expected a table of entries at the top level")
    for key in data:
        if key not in TOP_KEYS:
            raise CheckpointError(f"{where}: unknown entry {shown(key)}; expected {', '.join(TOP_KEYS)}")
    base = None
    if "base" in data:
        base = FAMILIES.get(_text(where, "base", data["base"], tuple(FAMILIES)))
    layer = data.get("layer", base.layer if base else None)
    layer = _text(where, "layer", layer)
    check_template(layer, where)
    orientation = _text(
        where, "orientation", data.get("orientation", base.orientation if base else "out_in"), ("out_in", "in_out")
    )
    layout = _text(where, "layout", data.get("layout", base.layout if base else POST_LN), (POST_LN, PRE_LN))
    activation = data.get("activation", base.activation if base else "gelu")
    if canonical_activation(activation) not in ACTIVATIONS:
        raise CheckpointError(
            f"{where}: entry activation is {shown(activation)}; expected one of {', '.join(ACTIVATIONS)}"
        )
    prefixes = data.get("prefixes", list(base.prefixes) if base else [""])
    if not isinstance(prefixes, list) or not all(isinstance(p, str) for p in prefixes) or not prefixes:
        raise CheckpointError(f"{where}: entry prefixes must be a non-empty list of strings")
    tensors = data.get("tensors", {})
    if not isinstance(tensors, dict):
        raise CheckpointError(f"{where}: entry tensors must be a table")
    for key, value in tensors.items():
        if key not in TENSOR_ROLES:
            raise CheckpointError(f"{where}: unknown entry tensors.{key}; expected {', '.join(TENSOR_ROLES)}")
        _text(where, f"tensors.{key}", value)
    roles = {r: getattr(base, r) if base else None for r in TENSOR_ROLES}
    roles.update(tensors)
    if "qkv" in tensors:
        roles.update(query=None, key=None, value=None)
    elif any(r in tensors for r in ("query", "key", "value")):
        roles["qkv"] = None
    if not roles["qkv"]:
        for r in ("query", "key", "value"):
            if not roles[r]:
                raise CheckpointError(f"{where}: entry tensors.{r} is missing (or give tensors.qkv for a fused tensor)")
    for r in ("output", "mlp_in", "mlp_out"):
        if not roles[r]:
            raise CheckpointError(f"{where}: entry tensors.{r} is missing")
    rope = data.get("rope", base.rope if base else False)
    if not isinstance(rope, bool):
        raise CheckpointError(
            f"{where}: entry rope must be true or false (rotary position embeddings), got {shown(rope)}"
        )
    template = base or FAMILIES["bert"]
    family = replace(
        template,
        name=_text(where, "name", data.get("name", "custom")),
        model_types=(),
        layer=layer,
        orientation=orientation,
        layout=layout,
        activation=canonical_activation(activation),
        activation_fields=(),
        prefixes=tuple(prefixes),
        note="described by a user mapping file",
        rope=rope,
        **{r: roles[r] for r in TENSOR_ROLES},
    )
    sizes = data.get("sizes", {})
    if not isinstance(sizes, dict):
        raise CheckpointError(f"{where}: entry sizes must be a table")
    for key, value in sizes.items():
        if key not in SIZE_FIELDS:
            raise CheckpointError(f"{where}: unknown entry sizes.{key}; expected {', '.join(SIZE_FIELDS)}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CheckpointError(f"{where}: entry sizes.{key} must be a positive integer, got {shown(value)}")
    return family, dict(sizes)


def mapping_json_example() -> str:
    """The module docstring's example as JSON (what a ``.json`` mapping looks like)."""
    return json.dumps(
        {
            "layer": "blocks.{i}.",
            "layout": "pre_ln",
            "activation": "silu",
            "tensors": {
                "query": "attn.wq.weight",
                "key": "attn.wk.weight",
                "value": "attn.wv.weight",
                "output": "attn.wo.weight",
                "mlp_in": "ffn.w3.weight",
                "mlp_out": "ffn.w2.weight",
                "mlp_gate": "ffn.w1.weight",
            },
            "sizes": {"layers": 2, "hidden": 16, "heads": 4, "intermediate": 48},
        },
        indent=2,
    )
