"""A small BERT-style encoder in torch whose weights are the layer the package's proxies read.

Token features -> linear embedding + learned positions -> L layers of H-head self-attention and a GELU MLP
(intermediate width ``MLP_RATIO * N``), post-LN (BERT: ``x = LN(x + f(x))``) or pre-LN (``x = x + f(LN(x))``,
final LN) -> mean over tokens -> linear classifier.  Parameter names follow BERT's
(``encoder.layer.{i}.attention.self.query``, ``attention.output.dense``, ``intermediate.dense``, ``output.dense``)
so that ``export`` hands the package a checkpoint of its ``bert`` family (post-LN) or ``vit`` family (pre-LN,
BERT's layer under ViT's names): QK_h and V_tilde_h per head, M_in and M_out are read by the package's own reader.
The layers' linear maps have no biases (the LayerNorms keep theirs): the paper's layer, which the whole bound's
bookkeeping covers, so the study's ``bound_*`` measures are bounds on the networks it trains.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

MLP_RATIO = 2
LAYOUTS = ("post", "pre")


class SelfAttention(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(width, width, bias=False) for _ in range(3))

    def forward(self, x):
        b, t, n = x.shape
        split = lambda z: z.view(b, t, self.heads, n // self.heads).transpose(1, 2)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(n // self.heads), dim=-1)
        return (scores @ v).transpose(1, 2).reshape(b, t, n)


class Dense(nn.Module):
    """``dense`` followed (in BERT's naming) by its ``LayerNorm``."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.dense = nn.Linear(d_in, d_out, bias=False)
        self.LayerNorm = nn.LayerNorm(d_out)


class Attention(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.self = SelfAttention(width, heads)
        self.output = Dense(width, width)


class Layer(nn.Module):
    def __init__(self, width: int, heads: int, layout: str):
        super().__init__()
        self.layout = layout
        self.attention = Attention(width, heads)
        self.intermediate = nn.Module()
        self.intermediate.dense = nn.Linear(width, MLP_RATIO * width, bias=False)
        self.output = Dense(MLP_RATIO * width, width)
        self.act = nn.GELU()

    def forward(self, x):
        attend = lambda z: self.attention.output.dense(self.attention.self(z))
        mlp = lambda z: self.output.dense(self.act(self.intermediate.dense(z)))
        ln1, ln2 = self.attention.output.LayerNorm, self.output.LayerNorm
        if self.layout == "post":
            x = ln1(x + attend(x))
            return ln2(x + mlp(x))
        x = x + attend(ln1(x))
        return x + mlp(ln2(x))


class Encoder(nn.Module):
    """The classifier; ``config()`` is the checkpoint's config.json."""

    def __init__(self, features: int, tokens: int, classes: int, depth: int, width: int, heads: int, layout: str):
        super().__init__()
        if layout not in LAYOUTS or width % heads:
            raise ValueError(
                f"layout must be one of {LAYOUTS} and heads must divide width, got {layout}, {width}/{heads}"
            )
        self.shape = dict(
            features=features, tokens=tokens, classes=classes, depth=depth, width=width, heads=heads, layout=layout
        )
        self.embed = nn.Linear(features, width)
        self.position = nn.Parameter(0.02 * torch.randn(tokens, width))
        self.encoder = nn.Module()
        self.encoder.layer = nn.ModuleList(Layer(width, heads, layout) for _ in range(depth))
        self.final = nn.LayerNorm(width) if layout == "pre" else nn.Identity()
        self.classifier = nn.Linear(width, classes)

    def forward(self, x):
        h = self.embed(x) + self.position
        for layer in self.encoder.layer:
            h = layer(h)
        return self.classifier(self.final(h).mean(dim=1))

    def config(self) -> dict:
        s = self.shape
        return {
            "model_type": "bert" if s["layout"] == "post" else "vit",
            "hidden_size": s["width"],
            "num_hidden_layers": s["depth"],
            "num_attention_heads": s["heads"],
            "intermediate_size": MLP_RATIO * s["width"],
            "hidden_act": "gelu",
            "max_position_embeddings": s["tokens"],
            "num_labels": s["classes"],
        }


def export(model: Encoder) -> dict[str, np.ndarray]:
    """The encoder's weights as float64 arrays under the family's names (pre-LN: ViT's ``attention.attention.``)."""
    pre = model.shape["layout"] == "pre"
    out = {}
    for name, tensor in model.state_dict().items():
        if pre:
            name = name.replace(".attention.self.", ".attention.attention.")
        out[name] = tensor.detach().to(torch.float64).numpy().copy()
    return out


def matrices(weights: dict[str, np.ndarray], depth: int, layout: str) -> list[np.ndarray]:
    """The paper's weight matrices of every layer (query, key, value, output, M_in, M_out), for norms and distances."""
    attn = "attention.attention." if layout == "pre" else "attention.self."
    names = [
        f"{attn}query",
        f"{attn}key",
        f"{attn}value",
        "attention.output.dense",
        "intermediate.dense",
        "output.dense",
    ]
    return [weights[f"encoder.layer.{i}.{n}.weight"] for i in range(depth) for n in names]


def save_checkpoint(model: Encoder, folder) -> None:
    """A safetensors folder (``model.safetensors`` + ``config.json``) that ``sabounds analyze`` reads."""
    import json
    from pathlib import Path

    from safetensors.numpy import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=False)
    save_file({k: v.astype(np.float32) for k, v in export(model).items()}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(model.config(), indent=2) + "\n", encoding="utf-8")
