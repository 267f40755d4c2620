"""Stored linear biases the whole bound leaves out make it say it is not a bound (``sound: false``, ``unmodelled``).

The bookkeeping (lip, gamma, the covering radii, the token norms) is that of maps without biases; a checkpoint whose
attention or MLP stores a nonzero bias gets an ``unmodelled`` entry per kind, except a key bias without RoPE, which
the softmax cancels (it adds the same ``(Wq x_i + b_q)^T b_k`` to every score of query ``i``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from sabounds.cli import main
from tests.support.bert_files import write_model
from tests.support.family_files import CONFIGS, raw_weights

ARGS = ["--n", "1e6", "--delta", "0.05", "--margin", "1", "--json"]
BERT = "bert.encoder.layer.1."
LLAMA = "model.layers.0."
GPT2 = "transformer.h.1."


def _bound(tmp_path, capsys, family: str, biases: dict[str, np.ndarray]) -> dict:
    weights = raw_weights(family)
    weights.update({k: v.astype(np.float32) for k, v in biases.items()})
    directory = write_model(tmp_path / family, weights, CONFIGS[family])
    assert main(["bound", str(directory), *ARGS]) == 0
    return json.loads(capsys.readouterr().out)


def _ones(size: int, value: float = 0.5) -> np.ndarray:
    return np.full(size, value)


def _hidden(family: str) -> tuple[int, int]:
    weights = raw_weights(family)
    if family == "gpt2":
        return weights[GPT2 + "attn.c_proj.weight"].shape[0], weights[GPT2 + "mlp.c_fc.weight"].shape[1]
    if family == "bert":
        return weights[BERT + "attention.self.query.weight"].shape[0], weights[
            BERT + "intermediate.dense.weight"
        ].shape[0]
    q = weights[LLAMA + "self_attn.q_proj.weight"].shape[0]
    return weights[LLAMA + "self_attn.k_proj.weight"].shape[0], q


def test_zero_biases_and_a_key_bias_without_rope_are_bounds(tmp_path, capsys):
    n, _ = _hidden("bert")
    record = _bound(tmp_path, capsys, "bert", {BERT + "attention.self.key.bias": _ones(n)})
    assert record["sound"] is True and record["unmodelled"] == []
    assert record["n_needed"]["ours_sum"]["n"] is not None


@pytest.mark.parametrize(
    "family, name, size, component",
    [
        ("bert", BERT + "attention.self.query.bias", 0, "attention: query bias b_q"),
        ("bert", BERT + "attention.output.dense.bias", 0, "attention: value and output biases b_v, b_o"),
        ("bert", BERT + "intermediate.dense.bias", 1, "MLP: inner biases b_in (and b_gate)"),
        ("bert", BERT + "output.dense.bias", 0, "MLP: output bias b_out"),
        ("llama", LLAMA + "self_attn.k_proj.bias", 0, "attention: key bias b_k, rotated with the keys (RoPE)"),
        ("llama", LLAMA + "self_attn.o_proj.bias", 1, "attention: value and output biases b_v, b_o"),
    ],
)
def test_a_nonzero_bias_makes_it_not_a_bound(tmp_path, capsys, family, name, size, component):
    bias = _ones(_hidden(family)[size])
    record = _bound(tmp_path, capsys, family, {name: bias})
    assert record["sound"] is False
    assert [u["component"] for u in record["unmodelled"]] == [component]
    assert f"| up to {np.linalg.norm(bias):.4g})" in record["unmodelled"][0]["why"]  # its largest norm, said
    assert all(r["n"] is None and "not a bound" in r["note"] for r in record["n_needed"].values())


def test_gpt2s_fused_bias_is_split_into_query_key_and_value(tmp_path, capsys):
    """GPT-2 stores one ``c_attn`` bias for q, k and v: a nonzero key part alone is cancelled, a query part is not."""
    n, inner = _hidden("gpt2")
    key_only = np.concatenate([np.zeros(n), _ones(n), np.zeros(n)])
    assert _bound(tmp_path / "k", capsys, "gpt2", {GPT2 + "attn.c_attn.bias": key_only})["sound"] is True
    query = np.concatenate([_ones(n), np.zeros(2 * n)])
    record = _bound(
        tmp_path / "q", capsys, "gpt2", {GPT2 + "attn.c_attn.bias": query, GPT2 + "mlp.c_fc.bias": _ones(inner)}
    )
    assert [u["component"] for u in record["unmodelled"]] == [
        "attention: query bias b_q",
        "MLP: inner biases b_in (and b_gate)",
    ]
    assert f"||b_q|| up to {np.linalg.norm(query):.4g}" in record["unmodelled"][0]["why"]


def test_a_nan_bias_is_refused_in_one_line(tmp_path, capsys):
    n, _ = _hidden("bert")
    weights = raw_weights("bert")
    weights[BERT + "attention.self.query.bias"] = np.full(n, np.nan, np.float32)
    directory = write_model(tmp_path / "nan", weights, CONFIGS["bert"])
    assert main(["bound", str(directory), *ARGS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "query.bias" in err and "NaN" in err


def test_an_onnx_graphs_biases_are_read_too(capsys):
    """The bundled paraphrase-MiniLM-L3-v2 ONNX graph adds its biases after each MatMul: found, so not a bound."""
    from sabounds.numerics.checkpoints.reader import minilm_l3_onnx

    assert main(["bound", str(minilm_l3_onnx()), *ARGS]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["sound"] is False
    assert [u["component"] for u in record["unmodelled"]] == [
        "attention: query bias b_q",
        "attention: value and output biases b_v, b_o",
        "MLP: inner biases b_in (and b_gate)",
        "MLP: output bias b_out",
    ]


def test_an_unplaced_bias_is_unmodelled_and_a_mask_buffer_is_not_a_bias(tmp_path, capsys):
    n, _ = _hidden("bert")
    other = _bound(tmp_path / "other", capsys, "bert", {BERT + "attention.self.extra.bias": _ones(n)})
    assert [u["component"] for u in other["unmodelled"]] == ["layer: other stored biases"]
    mask = _bound(tmp_path / "mask", capsys, "gpt2", {GPT2 + "attn.bias": np.ones((1, 1, 4, 4))})
    assert mask["sound"] is True


@pytest.mark.parametrize("shape", [(), (0,), (3, 5), (2**20,)])
def test_a_bias_of_the_wrong_shape_is_one_line(tmp_path, capsys, shape):
    weights = raw_weights("bert")
    weights[BERT + "attention.self.query.bias"] = np.ones(shape, np.float32)
    directory = write_model(tmp_path / "bad", weights, CONFIGS["bert"])
    assert main(["bound", str(directory), *ARGS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "query.bias" in err and "not a bias of size" in err


def test_relative_position_embeddings_are_unmodelled(tmp_path, capsys):
    """BERT's relative_key_query adds k_j . r_(i-j) to the scores: not in the bookkeeping (and a key bias no longer
    cancels there); ``absolute`` is the layer the bound covers."""
    directory = write_model(
        tmp_path / "rel", raw_weights("bert"), dict(CONFIGS["bert"], position_embedding_type="relative_key_query")
    )
    assert main(["bound", str(directory), *ARGS]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["sound"] is False and "relative position embeddings" in record["unmodelled"][0]["component"]
    assert main(["analyze", str(directory), "--json"]) == 0
    assert "relative position" in json.loads(capsys.readouterr().out)["unmodelled"][0]["component"]
