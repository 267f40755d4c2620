"""Small random checkpoints of every built-in family, in that family's own tensor names and config.json fields
(names as Hugging Face's ``save_pretrained`` writes them for the usual head classes), and an independent
reading of the paper's matrices from the raw weights (plain numpy, none of the package's code)."""

from __future__ import annotations

import numpy as np

from tests.support.bert_files import write_model

HIDDEN, HEADS, LAYERS = 16, 4, 2

CONFIGS = {
    "bert": {
        "model_type": "bert",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "intermediate_size": 64,
        "hidden_act": "gelu",
    },
    "distilbert": {
        "model_type": "distilbert",
        "n_layers": LAYERS,
        "dim": HIDDEN,
        "n_heads": HEADS,
        "hidden_dim": 64,
        "activation": "gelu",
    },
    "mpnet": {
        "model_type": "mpnet",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "intermediate_size": 64,
        "hidden_act": "gelu",
    },
    "gpt2": {
        "model_type": "gpt2",
        "n_layer": LAYERS,
        "n_embd": HIDDEN,
        "n_head": HEADS,
        "n_inner": None,
        "activation_function": "gelu_new",
    },
    "llama": {
        "model_type": "llama",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_key_value_heads": 2,
        "intermediate_size": 40,
        "hidden_act": "silu",
    },
    "mistral": {
        "model_type": "mistral",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_key_value_heads": 1,
        "head_dim": 8,
        "intermediate_size": 40,
        "hidden_act": "silu",
    },
    "qwen2": {
        "model_type": "qwen2",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_key_value_heads": 4,
        "intermediate_size": 24,
        "hidden_act": "silu",
    },
    "vit": {
        "model_type": "vit",
        "num_hidden_layers": LAYERS,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "intermediate_size": 64,
        "hidden_act": "gelu",
    },
}


def sizes(c: dict) -> tuple[int, int, int, int, int, int]:
    """(layers, hidden, heads, kv_heads, head_dim, intermediate) of a config, read independently of the package."""
    layers = c.get("num_hidden_layers", c.get("n_layers", c.get("n_layer")))
    hidden = c.get("hidden_size", c.get("dim", c.get("n_embd")))
    heads = c.get("num_attention_heads", c.get("n_heads", c.get("n_head")))
    kv = c.get("num_key_value_heads", heads)
    d = c.get("head_dim", hidden // heads)
    inner = c.get("intermediate_size", c.get("hidden_dim")) or 4 * hidden
    return layers, hidden, heads, kv, d, inner


def _sizes(name):
    return sizes(CONFIGS[name])[2:]


def raw_weights(name: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Random float32 weights named as the family stores them (with biases, norms and embeddings beside)."""
    rng = np.random.default_rng(seed)
    heads, kv, d, inner = _sizes(name)
    n = HIDDEN

    def w(rows, cols):
        return (0.3 * rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)

    out = {}
    for i in range(LAYERS):
        if name in ("bert", "mpnet", "vit"):
            base = {
                "bert": f"bert.encoder.layer.{i}.",
                "mpnet": f"mpnet.encoder.layer.{i}.",
                "vit": f"vit.encoder.layer.{i}.",
            }[name]
            attn = {"bert": "attention.self.", "mpnet": "attention.attn.", "vit": "attention.attention."}[name]
            names = {"bert": ("query", "key", "value"), "mpnet": ("q", "k", "v"), "vit": ("query", "key", "value")}[
                name
            ]
            for role in names:
                out[f"{base}{attn}{role}.weight"] = w(n, n)
                out[f"{base}{attn}{role}.bias"] = np.zeros(n, np.float32)
            out[base + ("attention.attn.o.weight" if name == "mpnet" else "attention.output.dense.weight")] = w(n, n)
            out[base + "intermediate.dense.weight"] = w(inner, n)
            out[base + "output.dense.weight"] = w(n, inner)
            out[base + "output.LayerNorm.weight"] = np.ones(n, np.float32)
        elif name == "distilbert":
            base = f"distilbert.transformer.layer.{i}."
            for role in ("q_lin", "k_lin", "v_lin", "out_lin"):
                out[f"{base}attention.{role}.weight"] = w(n, n)
            out[base + "ffn.lin1.weight"] = w(inner, n)
            out[base + "ffn.lin2.weight"] = w(n, inner)
            out[base + "sa_layer_norm.weight"] = np.ones(n, np.float32)
        elif name == "gpt2":
            base = f"transformer.h.{i}."
            out[base + "attn.c_attn.weight"] = w(n, 3 * n)  # Conv1D: (in, out)
            out[base + "attn.c_attn.bias"] = np.zeros(3 * n, np.float32)
            out[base + "attn.c_proj.weight"] = w(n, n)
            out[base + "mlp.c_fc.weight"] = w(n, inner)
            out[base + "mlp.c_proj.weight"] = w(inner, n)
            out[base + "ln_1.weight"] = np.ones(n, np.float32)
        else:
            base = f"model.layers.{i}."
            out[base + "self_attn.q_proj.weight"] = w(heads * d, n)
            out[base + "self_attn.k_proj.weight"] = w(kv * d, n)
            out[base + "self_attn.v_proj.weight"] = w(kv * d, n)
            out[base + "self_attn.o_proj.weight"] = w(n, heads * d)
            out[base + "mlp.gate_proj.weight"] = w(inner, n)
            out[base + "mlp.up_proj.weight"] = w(inner, n)
            out[base + "mlp.down_proj.weight"] = w(n, inner)
            out[base + "post_attention_layernorm.weight"] = (1 + 0.5 * rng.random(n)).astype(np.float32)
            out[base + "input_layernorm.weight"] = np.ones(n, np.float32)
    out["embeddings.weight"] = w(30, n)
    return out


def write_family(directory, name: str, seed: int = 0, shards: int = 1):
    """Write the family's checkpoint folder; returns its raw weights."""
    weights = raw_weights(name, seed)
    write_model(directory, weights, CONFIGS[name], shards=shards)
    return weights


def independent_matrices(name: str, weights: dict[str, np.ndarray], layer: int, cfg: dict | None = None) -> dict:
    """The paper's matrices of one layer, formed in full from the raw weights: QK_h, Vt_h (lists over heads),
    M_in, M_out, M_gate (None unless gated) and the pre-MLP RMSNorm weight (None unless present)."""
    _, hidden, heads, kv, d, inner = sizes(cfg or CONFIGS[name])
    g = {k: v.astype(np.float64) for k, v in weights.items()}
    if name == "gpt2":
        base = f"transformer.h.{layer}."
        fused = g[base + "attn.c_attn.weight"].T
        q, k, v = fused[:hidden], fused[hidden : 2 * hidden], fused[2 * hidden :]
        o = g[base + "attn.c_proj.weight"].T
        up, down, gate = g[base + "mlp.c_fc.weight"].T, g[base + "mlp.c_proj.weight"].T, None
        norm, attn_norm = None, g[base + "ln_1.weight"]
    elif name in ("llama", "mistral", "qwen2"):
        base = f"model.layers.{layer}.self_attn."
        q, k, v, o = (g[base + f"{r}_proj.weight"] for r in "qkvo")
        mlp = f"model.layers.{layer}.mlp."
        up, down, gate = g[mlp + "up_proj.weight"], g[mlp + "down_proj.weight"], g[mlp + "gate_proj.weight"]
        norm = g[f"model.layers.{layer}.post_attention_layernorm.weight"]
        attn_norm = g[f"model.layers.{layer}.input_layernorm.weight"]
    elif name == "distilbert":
        base = f"distilbert.transformer.layer.{layer}."
        q, k, v, o = (g[base + f"attention.{r}.weight"] for r in ("q_lin", "k_lin", "v_lin", "out_lin"))
        up, down, gate, norm = g[base + "ffn.lin1.weight"], g[base + "ffn.lin2.weight"], None, None
    else:
        base = {
            "bert": f"bert.encoder.layer.{layer}.",
            "mpnet": f"mpnet.encoder.layer.{layer}.",
            "vit": f"vit.encoder.layer.{layer}.",
        }[name]
        if name == "mpnet":
            q, k, v, o = (g[base + f"attention.attn.{r}.weight"] for r in "qkvo")
        else:
            attn = "attention.self." if name == "bert" else "attention.attention."
            q, k, v = (g[base + attn + r + ".weight"] for r in ("query", "key", "value"))
            o = g[base + "attention.output.dense.weight"]
        up, down, gate, norm = g[base + "intermediate.dense.weight"], g[base + "output.dense.weight"], None, None
    attn_norm = locals().get("attn_norm")
    group = heads // kv
    q_heads = [q[h * d : (h + 1) * d] for h in range(heads)]
    k_heads = [k[(h // group) * d : (h // group + 1) * d] for h in range(heads)]
    qk = [q[h * d : (h + 1) * d].T @ k[(h // group) * d : (h // group + 1) * d] for h in range(heads)]
    vt = [v[(h // group) * d : (h // group + 1) * d].T @ o[:, h * d : (h + 1) * d].T for h in range(heads)]
    return {
        "QK": qk,
        "V_tilde": vt,
        "M_in": up.T,
        "M_out": down.T,
        "M_gate": None if gate is None else gate.T,
        "norm": norm,
        "attn_norm": attn_norm,
        "q_heads": q_heads,
        "k_heads": k_heads,
        "head_dim": d,
        "hidden": hidden,
    }
