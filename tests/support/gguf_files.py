"""Small GGUF files written with ``gguf.GGUFWriter`` the way llama.cpp's converter writes them (Q/K rows permuted
within each head for ``llama``, Gemma norm gains stored as ``1 + w``, GPT-2's Conv1D weights transposed), and the
same weights as a Hugging Face safetensors folder.  Quantized files (Q8_0, Q4_0 via ``gguf.quants.quantize``)
are compared with the dequantized weights written to safetensors.  Sizes are multiples of 32 (the block)."""

from __future__ import annotations

import numpy as np

from tests.support.bert_files import write_model

LAYERS, HIDDEN = 2, 64
CONFIGS = {
    "llama": {
        "model_type": "llama",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 96,
        "hidden_act": "silu",
        "rope_theta": 500000.0,
        "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-5,
    },
    "qwen2": {
        "model_type": "qwen2",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "intermediate_size": 96,
        "hidden_act": "silu",
        "rope_theta": 1000000.0,
        "max_position_embeddings": 32768,
        "rms_norm_eps": 1e-6,
    },
    "gemma3": {
        "model_type": "gemma3_text",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 32,
        "intermediate_size": 128,
        "hidden_activation": "gelu_pytorch_tanh",
        "rope_theta": 10000.0,
        "max_position_embeddings": 8192,
        "rms_norm_eps": 1e-6,
    },
    "gpt2": {
        "model_type": "gpt2",
        "n_layer": LAYERS,
        "n_embd": HIDDEN,
        "n_head": 4,
        "n_inner": 128,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5,
    },
}


def _sizes(c: dict) -> tuple[int, int, int, int]:
    heads = c.get("num_attention_heads", c.get("n_head"))
    kv = c.get("num_key_value_heads", heads)
    return heads, kv, c.get("head_dim", HIDDEN // heads), c.get("intermediate_size", c.get("n_inner"))


def permute(w: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's ``LlamaModel.permute``: rows of each head reordered (pairs for its rotary kernel)."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def hf_weights(name: str, seed: int = 0, qtype: str | None = None) -> dict[str, np.ndarray]:
    """Random float32 weights under Hugging Face names; with ``qtype`` every matrix is replaced by its
    quantize-dequantize round trip (what the GGUF file will hold).  Gemma norm weights are dyadic (k/64), so that
    ``1 + w`` is exact in float32 as the converter stores it."""
    rng = np.random.default_rng(seed)
    heads, kv, d, inner = _sizes(CONFIGS[name])
    n = HIDDEN

    def w(rows, cols):
        m = (0.3 * rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)
        return m if qtype is None else _round_trip(m, qtype)

    out = {}
    for i in range(LAYERS):
        if name == "gpt2":
            base = f"h.{i}."
            out[base + "attn.c_attn.weight"] = w(3 * n, n).T.copy()  # Conv1D: (in, out)
            out[base + "attn.c_proj.weight"] = w(n, n).T.copy()
            out[base + "mlp.c_fc.weight"] = w(inner, n).T.copy()
            out[base + "mlp.c_proj.weight"] = w(n, inner).T.copy()
            out[base + "ln_1.weight"] = np.ones(n, np.float32)
            out[base + "ln_2.weight"] = (1 + rng.integers(0, 16, n) / 64.0).astype(np.float32)
            out[base + "ln_1.bias"] = (rng.integers(-8, 8, n) / 64.0).astype(np.float32)
            out[base + "ln_2.bias"] = (rng.integers(-8, 8, n) / 64.0).astype(np.float32)
            continue
        base = f"model.layers.{i}."
        for role, rows, cols in (("q", heads * d, n), ("k", kv * d, n), ("v", kv * d, n), ("o", n, heads * d)):
            out[f"{base}self_attn.{role}_proj.weight"] = w(rows, cols)
        out[base + "mlp.gate_proj.weight"] = w(inner, n)
        out[base + "mlp.up_proj.weight"] = w(inner, n)
        out[base + "mlp.down_proj.weight"] = w(n, inner)
        norm = (
            (rng.integers(0, 32, n) / 64.0).astype(np.float32)
            if name == "gemma3"
            else (1 + 0.5 * rng.random(n)).astype(np.float32)
        )
        out[base + ("pre_feedforward_layernorm.weight" if name == "gemma3" else "post_attention_layernorm.weight")] = (
            norm
        )
        out[base + "input_layernorm.weight"] = np.zeros(n, np.float32) if name == "gemma3" else np.ones(n, np.float32)
    return out


def _round_trip(m: np.ndarray, qtype: str) -> np.ndarray:
    import gguf

    kind = gguf.GGMLQuantizationType[qtype]
    return gguf.quants.dequantize(gguf.quants.quantize(m, kind), kind).astype(np.float32)


def gguf_tensors(name: str, weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The converter's GGUF names and transformations of :func:`hf_weights` (float32, numpy (out, in) order)."""
    heads, kv, _, _ = _sizes(CONFIGS[name])
    out = {}
    for i in range(LAYERS):
        b = f"blk.{i}."
        if name == "gpt2":
            h = f"h.{i}."
            out[b + "attn_qkv.weight"] = weights[h + "attn.c_attn.weight"].T.copy()
            out[b + "attn_output.weight"] = weights[h + "attn.c_proj.weight"].T.copy()
            out[b + "ffn_up.weight"] = weights[h + "mlp.c_fc.weight"].T.copy()
            out[b + "ffn_down.weight"] = weights[h + "mlp.c_proj.weight"].T.copy()
            out[b + "attn_norm.weight"] = weights[h + "ln_1.weight"]
            out[b + "attn_norm.bias"] = weights[h + "ln_1.bias"]
            out[b + "ffn_norm.weight"] = weights[h + "ln_2.weight"]
            out[b + "ffn_norm.bias"] = weights[h + "ln_2.bias"]
            continue
        h = f"model.layers.{i}."
        q, k = weights[h + "self_attn.q_proj.weight"], weights[h + "self_attn.k_proj.weight"]
        if name == "llama":
            q, k = permute(q, heads), permute(k, kv)
        out.update(
            {
                b + "attn_q.weight": q,
                b + "attn_k.weight": k,
                b + "attn_v.weight": weights[h + "self_attn.v_proj.weight"],
                b + "attn_output.weight": weights[h + "self_attn.o_proj.weight"],
                b + "ffn_gate.weight": weights[h + "mlp.gate_proj.weight"],
                b + "ffn_up.weight": weights[h + "mlp.up_proj.weight"],
                b + "ffn_down.weight": weights[h + "mlp.down_proj.weight"],
            }
        )
        shift = 1.0 if name == "gemma3" else 0.0
        norm = "pre_feedforward_layernorm.weight" if name == "gemma3" else "post_attention_layernorm.weight"
        out[b + "ffn_norm.weight"] = (weights[h + norm] + np.float32(shift)).astype(np.float32)
        out[b + "attn_norm.weight"] = (weights[h + "input_layernorm.weight"] + np.float32(shift)).astype(np.float32)
    return out


def write_gguf(
    path, name: str, weights: dict[str, np.ndarray], qtype: str | None = None, metadata: dict | None = None
) -> None:
    """Write the GGUF file of ``weights`` (Hugging Face names), matrices as ``qtype`` (None: F32)."""
    import gguf

    arch = "gemma3" if name == "gemma3" else name
    c = CONFIGS[name]
    heads, kv, d, inner = _sizes(c)
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_block_count(LAYERS)
    writer.add_embedding_length(HIDDEN)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv)
    writer.add_key_length(d)
    writer.add_value_length(d)
    writer.add_feed_forward_length(inner)
    if name == "gpt2":
        writer.add_layer_norm_eps(c["layer_norm_epsilon"])
    else:
        writer.add_layer_norm_rms_eps(c["rms_norm_eps"])
        writer.add_rope_freq_base(c["rope_theta"])
        writer.add_context_length(c["max_position_embeddings"])
    for key, value in (metadata or {}).items():
        writer.add_uint32(key, value)
    for tensor_name, array in gguf_tensors(name, weights).items():
        if qtype is not None and array.ndim == 2:
            kind = gguf.GGMLQuantizationType[qtype]
            writer.add_tensor(tensor_name, gguf.quants.quantize(array, kind), raw_dtype=kind)
        else:
            writer.add_tensor(tensor_name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_pair(tmp_path, name: str, qtype: str | None = None, seed: int = 0):
    """``(gguf path, safetensors folder)`` holding the same weights."""
    weights = hf_weights(name, seed, qtype)
    folder = tmp_path / f"{name}-hf"
    write_model(folder, weights, CONFIGS[name])
    path = tmp_path / f"{name}-{qtype or 'F32'}.gguf"
    write_gguf(path, name, weights, qtype)
    return path, folder


def write_kquant_llama(
    path, qtype: str = "Q4_K", seed: int = 0, imatrix: bool = False, metadata: dict | None = None
) -> None:
    """A one-layer ``llama`` GGUF of width 256 (a K-quant block is 256 values) whose matrices are ``qtype`` blocks
    with random sub-block scales and quants (float16 ``d = 2^-7``, ``dmin = 2^-10``; what llama.cpp would store for
    some weights), for the paths a K-quant takes; ``imatrix`` adds llama.cpp's ``quantize.imatrix.file`` key;
    ``metadata`` (key -> (kind, value)) adds or overrides fields, e.g. ``{"llama.context_length": ("uint32", 0)}``."""
    import gguf

    rng = np.random.default_rng(seed)
    n, heads, inner = 256, 2, 256
    kind = gguf.GGMLQuantizationType[qtype]
    block, size = gguf.GGML_QUANT_SIZES[kind]
    writer = gguf.GGUFWriter(str(path), "llama")
    fields = {
        "llama.block_count": ("uint32", 1),
        "llama.embedding_length": ("uint32", n),
        "llama.attention.head_count": ("uint32", heads),
        "llama.attention.head_count_kv": ("uint32", heads),
        "llama.feed_forward_length": ("uint32", inner),
        "llama.attention.layer_norm_rms_epsilon": ("float32", 1e-5),
        "llama.rope.freq_base": ("float32", 10000.0),
        "llama.context_length": ("uint32", 2048),
    }
    if imatrix:
        fields["quantize.imatrix.file"] = ("string", "imatrix.dat")
    fields.update(metadata or {})
    for key, (how, value) in fields.items():
        getattr(writer, f"add_{how}")(key, value)

    def blocks(rows, cols):
        raw = rng.integers(0, 256, (rows, cols // block, size), dtype=np.uint8)
        d, dmin = (np.frombuffer(np.float16(x).tobytes(), np.uint8) for x in (2.0**-7, 2.0**-10))
        if qtype == "Q6_K":  # ql, qh, scales, then d
            raw[:, :, -2:] = d
        else:  # Q8_0, Q4_0: d first; Q4_K, Q5_K: d, dmin first
            raw[:, :, 0:2] = d
            if qtype in ("Q4_K", "Q5_K"):
                raw[:, :, 2:4] = dmin
        return raw.reshape(rows, cols // block * size)

    for name, rows, cols in (
        ("attn_q", n, n),
        ("attn_k", n, n),
        ("attn_v", n, n),
        ("attn_output", n, n),
        ("ffn_gate", inner, n),
        ("ffn_up", inner, n),
        ("ffn_down", n, inner),
    ):
        writer.add_tensor(f"blk.0.{name}.weight", blocks(rows, cols), raw_dtype=kind)
    for name in ("attn_norm", "ffn_norm"):
        writer.add_tensor(f"blk.0.{name}.weight", np.ones(n, np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
