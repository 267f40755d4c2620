"""Transformer families as data: where the paper's matrices live in a checkpoint, and what a layer looks like.

One :class:`Family` per family says, for layer ``i``, the tensor names of the query, key, value and attention-output
projections (or one fused ``qkv`` tensor), of the feed-forward matrices (``mlp_in`` = up, ``mlp_out`` = down,
``mlp_gate`` for a gated MLP), their storage orientation (``out_in``: ``nn.Linear``, ``in_out``: GPT-2's
``Conv1D``), which ``config.json`` fields hold the sizes, and the layer's structure (post-LN or pre-LN with
residuals, the activation, gated MLP, grouped-query attention).  :func:`detect` picks the family from
``config.json``'s ``model_type``; anything else is described by a mapping file (``sabounds.numerics.checkpoints.mapping``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

POST_LN, PRE_LN = "post_ln", "pre_ln"
ACTIVATIONS = ("gelu", "gelu_tanh", "relu", "silu")
"""Activations whose Lipschitz constant ``sabounds.theory.architecture`` derives (GELU-tanh covers ``gelu_new``)."""

_ACTIVATION_ALIASES = {
    "gelu": "gelu",
    "gelu_python": "gelu",
    "gelu_new": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_tanh": "gelu_tanh",
    "quick_gelu": None,
    "relu": "relu",
    "silu": "silu",
    "swish": "silu",
}


@dataclass(frozen=True)
class Unmodelled:
    """A map of a family's layer that the Lipschitz bookkeeping (lip, alpha, gamma) leaves out, and why: a bound
    computed without it is not a bound on the family's network."""

    component: str
    why: str
    roles: tuple[str, ...] = ()
    """The linear maps whose stored biases this entry names (``query``, ``value``, ...): :func:`bias_unmodelled`
    does not name them again."""

    def describe(self) -> str:
        return f"{self.component}: {self.why}"

    def to_json(self) -> dict:
        return {"component": self.component, "why": self.why}


SIZE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate")


def canonical_activation(name: object) -> str | None:
    """The activation's canonical name (``gelu_new`` -> ``gelu_tanh``, ``swish`` -> ``silu``), None if unknown."""
    return _ACTIVATION_ALIASES.get(str(name).lower()) if isinstance(name, str) else None


@dataclass(frozen=True)
class Family:
    """One family's layout.  Tensor names are relative to ``prefix + layer_name(i)``; ``None`` = absent.

    The pre-LN norms before attention (``attn_norm``) and before the MLP (``mlp_norm``) have weights ``g`` (applied
    as ``norm_offset + g``: Gemma stores ``g - 1``) and, for a LayerNorm, biases; their ``eps`` is read from
    ``norm_eps_fields`` (``norm_eps_default``, Hugging Face's default, when absent).  ``rope``: the family applies
    rotary position embeddings to queries and keys (``sabounds.numerics.checkpoints.rope``).

    ``config`` maps each size (:data:`SIZE_FIELDS`) to the ``config.json`` fields that may hold it, first found
    wins; a missing ``kv_heads`` means ``heads`` (no grouping), a missing ``head_dim`` means ``hidden / heads``,
    a missing ``intermediate`` means ``intermediate_default * hidden`` where that is set (GPT-2's ``n_inner: null``
    is ``4 hidden``) and is an error elsewhere.
    """

    name: str
    model_types: tuple[str, ...]
    layer: str
    query: str | None
    key: str | None
    value: str | None
    output: str
    mlp_in: str
    mlp_out: str
    mlp_gate: str | None = None
    qkv: str | None = None
    mlp_norm: str | None = None
    attn_norm: str | None = None
    mlp_norm_bias: str | None = None
    attn_norm_bias: str | None = None
    norm_offset: float = 0.0
    norm_eps_fields: tuple[str, ...] = ()
    norm_eps_default: float | None = None
    rope: bool = False
    orientation: str = "out_in"
    prefixes: tuple[str, ...] = ("",)
    layout: str = POST_LN
    activation: str = "gelu"
    activation_fields: tuple[str, ...] = ("hidden_act",)
    config: dict = field(default_factory=lambda: dict(_BERT_CONFIG))
    intermediate_default: int | None = None
    note: str = ""
    unmodelled: tuple[Unmodelled, ...] = ()
    """Maps of the family's layer that lip, alpha and gamma leave out: where there is one, no whole bound is claimed."""
    post_norms: tuple[str, str] | None = None
    """Post-LN: the LayerNorm weights after attention (what the MLP reads) and after the MLP (the next layer's input);
    their biases by the same name ending in ``bias``.  Their output bounds cap the whole bound's token norms."""
    embedding_norm: str | None = None
    """Post-LN: the embedding LayerNorm's weight (bias by the same name ending in ``bias``), relative to the prefix:
    layer 1 reads its output, so its output bound is the whole bound's default input norm ``B``."""

    @property
    def gated(self) -> bool:
        return self.mlp_gate is not None

    def layer_tensors(self) -> dict[str, str]:
        """Role -> relative tensor name for every matrix this family stores (fused ``qkv`` or split q, k, v)."""
        roles = {"qkv": self.qkv} if self.qkv else {"query": self.query, "key": self.key, "value": self.value}
        roles.update(output=self.output, mlp_in=self.mlp_in, mlp_out=self.mlp_out)
        if self.mlp_gate:
            roles["mlp_gate"] = self.mlp_gate
        return roles

    def layer_name(self, index: int) -> str:
        """The prefix of layer ``index``'s tensors: the template with each ``{i}`` replaced (no other fields)."""
        return self.layer.replace("{i}", str(index))

    def probe(self) -> str:
        """A tensor name of layer 0 that tells whether (and under which prefix) the family's tensors are present."""
        first = self.qkv or self.query
        return self.layer_name(0) + first


_BERT_CONFIG = {
    "layers": ("num_hidden_layers",),
    "hidden": ("hidden_size",),
    "heads": ("num_attention_heads",),
    "kv_heads": (),
    "head_dim": (),
    "intermediate": ("intermediate_size",),
}

BERT = Family(
    "bert",
    ("bert", "roberta", "xlm-roberta", "camembert", "electra"),
    "encoder.layer.{i}.",
    "attention.self.query.weight",
    "attention.self.key.weight",
    "attention.self.value.weight",
    "attention.output.dense.weight",
    "intermediate.dense.weight",
    "output.dense.weight",
    prefixes=("", "bert.", "roberta.", "electra."),
    layout=POST_LN,
    post_norms=("attention.output.LayerNorm.weight", "output.LayerNorm.weight"),
    embedding_norm="embeddings.LayerNorm.weight",
    note="post-LN encoder with GELU: the layer the published proxy is defined for",
)

DISTILBERT = Family(
    "distilbert",
    ("distilbert",),
    "transformer.layer.{i}.",
    "attention.q_lin.weight",
    "attention.k_lin.weight",
    "attention.v_lin.weight",
    "attention.out_lin.weight",
    "ffn.lin1.weight",
    "ffn.lin2.weight",
    prefixes=("", "distilbert."),
    layout=POST_LN,
    post_norms=("sa_layer_norm.weight", "output_layer_norm.weight"),
    embedding_norm="embeddings.LayerNorm.weight",
    activation_fields=("activation",),
    config={
        "layers": ("n_layers",),
        "hidden": ("dim",),
        "heads": ("n_heads",),
        "kv_heads": (),
        "head_dim": (),
        "intermediate": ("hidden_dim",),
    },
    note="post-LN encoder with GELU, BERT's layer under other names",
)

MPNET = Family(
    "mpnet",
    ("mpnet",),
    "encoder.layer.{i}.",
    "attention.attn.q.weight",
    "attention.attn.k.weight",
    "attention.attn.v.weight",
    "attention.attn.o.weight",
    "intermediate.dense.weight",
    "output.dense.weight",
    prefixes=("", "mpnet."),
    layout=POST_LN,
    post_norms=("attention.LayerNorm.weight", "output.LayerNorm.weight"),
    embedding_norm="embeddings.LayerNorm.weight",
    note="post-LN encoder with GELU; its relative position bias adds to the scores and has no weight matrix "
    "in the paper's objects",
)

GPT2 = Family(
    "gpt2",
    ("gpt2",),
    "h.{i}.",
    None,
    None,
    None,
    "attn.c_proj.weight",
    "mlp.c_fc.weight",
    "mlp.c_proj.weight",
    qkv="attn.c_attn.weight",
    orientation="in_out",
    prefixes=("", "transformer."),
    layout=PRE_LN,
    attn_norm="ln_1.weight",
    attn_norm_bias="ln_1.bias",
    mlp_norm="ln_2.weight",
    mlp_norm_bias="ln_2.bias",
    norm_eps_fields=("layer_norm_epsilon",),
    norm_eps_default=1e-5,
    activation="gelu_tanh",
    activation_fields=("activation_function",),
    config={
        "layers": ("n_layer",),
        "hidden": ("n_embd",),
        "heads": ("n_head",),
        "kv_heads": (),
        "head_dim": (),
        "intermediate": ("n_inner",),
    },
    intermediate_default=4,
    note="pre-LN decoder with residuals; Conv1D weights stored (in, out); fused c_attn split into q, k, v",
)

_LLAMA_CONFIG = {
    "layers": ("num_hidden_layers",),
    "hidden": ("hidden_size",),
    "heads": ("num_attention_heads",),
    "kv_heads": ("num_key_value_heads",),
    "head_dim": ("head_dim",),
    "intermediate": ("intermediate_size",),
}

LLAMA = Family(
    "llama",
    ("llama", "mistral"),
    "layers.{i}.",
    "self_attn.q_proj.weight",
    "self_attn.k_proj.weight",
    "self_attn.v_proj.weight",
    "self_attn.o_proj.weight",
    "mlp.up_proj.weight",
    "mlp.down_proj.weight",
    mlp_gate="mlp.gate_proj.weight",
    mlp_norm="post_attention_layernorm.weight",
    attn_norm="input_layernorm.weight",
    norm_eps_fields=("rms_norm_eps",),
    norm_eps_default=1e-6,
    rope=True,
    prefixes=("model.", ""),
    layout=PRE_LN,
    activation="silu",
    config=dict(_LLAMA_CONFIG),
    note="pre-RMSNorm decoder with residuals, rotary position embeddings, grouped-query attention and a SwiGLU MLP",
)

QWEN2 = replace(
    LLAMA,
    name="qwen2",
    model_types=("qwen2",),
    note="LLaMA's layer with biases on the query, key and value projections",
    unmodelled=(
        Unmodelled(
            "attention: query and key biases b_q, b_k (every layer)",
            "the scores (Wq x + b_q)^T (Wk x' + b_k) add ||b_q|| ||Wk|| + ||b_k|| ||Wq|| to the score "
            "map's Lipschitz constant, which lip and gamma leave out",
            ("query", "key"),
        ),
        Unmodelled(
            "attention: value bias b_v (every layer)",
            "shifts each head's output by Wo b_v, which the token radius of the next norm leaves out",
            ("value",),
        ),
    ),
)

GEMMA = Family(
    "gemma",
    ("gemma",),
    "layers.{i}.",
    "self_attn.q_proj.weight",
    "self_attn.k_proj.weight",
    "self_attn.v_proj.weight",
    "self_attn.o_proj.weight",
    "mlp.up_proj.weight",
    "mlp.down_proj.weight",
    mlp_gate="mlp.gate_proj.weight",
    mlp_norm="post_attention_layernorm.weight",
    attn_norm="input_layernorm.weight",
    norm_offset=1.0,
    norm_eps_fields=("rms_norm_eps",),
    norm_eps_default=1e-6,
    rope=True,
    prefixes=("model.", ""),
    layout=PRE_LN,
    activation="gelu_tanh",
    activation_fields=("hidden_activation", "hidden_act"),
    config=dict(_LLAMA_CONFIG),
    note="pre-RMSNorm decoder (weight applied as 1 + g) with rotary position embeddings and a GELU-tanh gated MLP",
)

VIT = Family(
    "vit",
    ("vit",),
    "encoder.layer.{i}.",
    "attention.attention.query.weight",
    "attention.attention.key.weight",
    "attention.attention.value.weight",
    "attention.output.dense.weight",
    "intermediate.dense.weight",
    "output.dense.weight",
    prefixes=("", "vit."),
    layout=PRE_LN,
    attn_norm="layernorm_before.weight",
    attn_norm_bias="layernorm_before.bias",
    mlp_norm="layernorm_after.weight",
    mlp_norm_bias="layernorm_after.bias",
    norm_eps_fields=("layer_norm_eps",),
    norm_eps_default=1e-12,
    note="pre-LN encoder with residuals and GELU",
)

_GEMMA2_POST_NORMS = (
    Unmodelled(
        "attention: post-attention RMSNorm (every layer)",
        "multiplies the attention branch's Lipschitz constant by up to max|g| / sqrt(eps); lip and gamma leave it out",
    ),
    Unmodelled(
        "MLP: post-feedforward RMSNorm (every layer)",
        "multiplies the MLP branch's Lipschitz constant by up to max|g| / sqrt(eps); lip and gamma leave it out",
    ),
)

GEMMA2 = replace(
    GEMMA,
    name="gemma2",
    model_types=("gemma2",),
    mlp_norm="pre_feedforward_layernorm.weight",
    note="Gemma 2: pre- and post-RMSNorms around attention and MLP, rotary embeddings, GeGLU, gains 1 + weight",
    unmodelled=_GEMMA2_POST_NORMS,
)

GEMMA3 = replace(
    GEMMA2,
    name="gemma3",
    model_types=("gemma3", "gemma3_text"),
    note="Gemma 3: Gemma 2's layer, and each head's queries and keys RMS-normalised before the scores",
    unmodelled=(
        *_GEMMA2_POST_NORMS,
        Unmodelled(
            "attention: per-head query and key RMSNorms (every layer)",
            "the scores are RMSNorm(Wq x)^T R RMSNorm(Wk x'), not x Wq^T R Wk x': QK_h "
            "is not the score matrix, so its spectrum does not enter the bound as "
            "derived",
        ),
    ),
)

BIAS_ROLES = ("query", "key", "value", "output", "mlp_in", "mlp_gate", "mlp_out")
"""The linear maps of a layer that may store a bias (named as ``Family`` names their weights)."""
_BIAS_SYMBOLS = dict(zip(BIAS_ROLES, ("b_q", "b_k", "b_v", "b_o", "b_in", "b_gate", "b_out")))


def bias_unmodelled(norms: dict[str, float], rope: bool, named: tuple[Unmodelled, ...] = ()) -> tuple[Unmodelled, ...]:
    """The stored linear biases the whole bound's bookkeeping leaves out, from ``norms`` (role -> the largest ``||b||``
    over the layers, nonzero biases only), less the roles ``named`` already names.  A key bias without RoPE is left
    out of this list because the softmax cancels it: it adds ``(Wq x_i + b_q)^T b_k`` to every score of query ``i``
    alike.  Every other bias changes what the Lipschitz constants, covering radii or token norms are computed from."""
    covered = {role for u in named for role in u.roles}
    found = {role: v for role, v in norms.items() if v > 0 and role not in covered and (rope or role != "key")}

    def largest(*roles: str) -> str:
        return ", ".join(f"||{_BIAS_SYMBOLS[r]}|| up to {found[r]:.4g}" for r in roles if r in found)

    out = []
    if "query" in found:
        out.append(
            Unmodelled(
                "attention: query bias b_q",
                "the scores (Wq x + b_q)^T Wk x' add ||b_q|| ||Wk|| to the score map's Lipschitz constant and to the "
                f"covering radii of the QK slots, which lip, gamma and the radii leave out ({largest('query')})",
                ("query",),
            )
        )
    if "key" in found:
        out.append(
            Unmodelled(
                "attention: key bias b_k, rotated with the keys (RoPE)",
                "the scores gain (Wq x + b_q)^T R_delta b_k, which depends on the offset delta and does not cancel "
                f"in the softmax; lip and gamma leave it out ({largest('key')})",
                ("key",),
            )
        )
    if found.keys() & {"value", "output"}:
        out.append(
            Unmodelled(
                "attention: value and output biases b_v, b_o",
                "shift every token's attention output by Wo b_v + b_o (the softmax's rows sum to 1), which the "
                f"token-norm propagation leaves out ({largest('value', 'output')})",
                ("value", "output"),
            )
        )
    if found.keys() & {"mlp_in", "mlp_gate"}:
        out.append(
            Unmodelled(
                "MLP: inner biases b_in (and b_gate)",
                "the outer matrix reads phi(M_in y + b_in), not phi(M_in y): its input radius, and with it its "
                f"covering radius, leaves ||b_in|| out ({largest('mlp_in', 'mlp_gate')})",
                ("mlp_in", "mlp_gate"),
            )
        )
    if "mlp_out" in found:
        out.append(
            Unmodelled(
                "MLP: output bias b_out",
                f"shifts the block's output by b_out, which the token-norm propagation leaves out ({largest('mlp_out')})",
                ("mlp_out",),
            )
        )
    if "other" in found:
        out.append(
            Unmodelled(
                "layer: other stored biases",
                "a stored bias the layout does not place (not a projection's, not a norm's), which the bookkeeping "
                f"leaves out (largest norm {found['other']:.4g})",
                ("other",),
            )
        )
    return tuple(out)


FAMILIES: dict[str, Family] = {
    f.name: f for f in (BERT, DISTILBERT, MPNET, GPT2, LLAMA, QWEN2, GEMMA, GEMMA2, GEMMA3, VIT)
}
"""Built-in families by name."""


def supported() -> str:
    """``bert (bert, roberta, ...), distilbert, ...``: the families and the model_type values each accepts."""
    return "; ".join(f"{f.name} ({', '.join(f.model_types)})" for f in FAMILIES.values())


def detect(model_type: object) -> Family | None:
    """The built-in family whose ``model_types`` contains ``config.json``'s ``model_type``, if any."""
    for family in FAMILIES.values():
        if model_type in family.model_types:
            return family
    return None
