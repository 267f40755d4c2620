"""ONNX sources, read with the onnx package only (no onnxruntime, no torch): roles come from the graph.

A synthetic export with meaningless, shuffled initializer names gives the same analysis as the safetensors folder
of the same weights; on the real paraphrase-MiniLM-L3-v2 export, the graph-derived roles agree with the exporter's
node names (an independent route), and the proxies equal an independent computation on the extracted weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("onnx", reason="the onnx package is needed to read ONNX models")

from sabounds.cli import main
from sabounds.numerics.checkpoints.errors import CheckpointError
from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint
from tests.support.bert_files import config, random_weights, write_model
from tests.support.onnx_files import write_bert_onnx


@pytest.fixture(scope="module")
def weights():
    return {k: v for k, v in random_weights(seed=11, layers=2).items() if k.endswith(".weight") and "layer" in k}


def test_synthetic_export_maps_by_graph_not_by_name(tmp_path, weights):
    names = write_bert_onnx(tmp_path / "m.onnx", weights, layers=2, hidden=16, heads=4)
    source = open_checkpoint(tmp_path / "m.onnx")
    assert (source.shape.layers, source.shape.hidden, source.shape.heads, source.shape.intermediate) == (2, 16, 4, 64)
    for bert_name in weights:
        assert names[source.store.initializer_of(bert_name)] == bert_name
    folder = write_model(tmp_path / "folder", weights, config())
    a = analyze_measured(measure_model(source)).to_json()
    b = analyze_measured(measure_model(open_checkpoint(folder))).to_json()
    assert _close(a, b)


def _close(a, b, rel=1e-12) -> bool:
    """Equal JSON trees, floats to ``rel`` relative (the ONNX weights are stored transposed, so a norm computed
    with overflow scaling may differ in its last bit)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= rel * max(abs(a), abs(b))
    return a == b


def test_swapped_roles_would_be_seen(tmp_path, weights):
    """Mutant: an export whose query and key are swapped maps query to the tensor that was the key."""
    swapped = dict(weights)
    q, k = "encoder.layer.0.attention.self.query.weight", "encoder.layer.0.attention.self.key.weight"
    swapped[q], swapped[k] = weights[k], weights[q]
    write_bert_onnx(tmp_path / "m.onnx", swapped, layers=2, hidden=16, heads=4)
    source = open_checkpoint(tmp_path / "m.onnx")
    np.testing.assert_array_equal(source.tensor(q, (16, 16)), weights[k].astype(np.float64))


def test_not_an_onnx_file_is_one_line(tmp_path, capsys):
    (tmp_path / "bad.onnx").write_bytes(b"\x08\x07garbage" * 10)
    assert main(["analyze", str(tmp_path / "bad.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.onnx" in err


def _minilm():
    from sabounds.numerics.checkpoints.reader import minilm_l3_onnx

    try:
        return minilm_l3_onnx()
    except CheckpointError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def minilm_source():
    return open_checkpoint(_minilm())


def test_minilm_l3_roles_agree_with_the_exporters_node_names(minilm_source):
    """The exporter named each MatMul node after its module (``.../layer.1/attention/self/query/MatMul``), and the
    Add of its bias likewise (``.../query/Add``): each weight and bias is found in its role."""
    import onnx

    graph = onnx.load(str(_minilm()), load_external_data=False).graph
    module_of = {n.input[1]: n.name for n in graph.node if n.op_type == "MatMul" and len(n.input) == 2}
    module_of.update({x: n.name for n in graph.node if n.op_type == "Add" for x in n.input if x not in module_of})
    path = {
        "attention.self.query": "attention/self/query",
        "attention.self.key": "attention/self/key",
        "attention.self.value": "attention/self/value",
        "attention.output.dense": "attention/output/dense",
        "intermediate.dense": "intermediate/dense",
        "output.dense": "/output/dense",
    }
    assert len(minilm_source.store.names) == 36  # 6 weights and 6 biases per layer
    for name in minilm_source.store.names:
        layer = name.split(".")[2]
        role, kind = name.split(".", 3)[3].rsplit(".", 1)
        node_name = module_of[minilm_source.store.initializer_of(name)]
        assert f"layer.{layer}/" in node_name and path[role] in node_name
        assert node_name.endswith("MatMul" if kind == "weight" else "Add")
        if role == "output.dense":
            assert "attention" not in node_name


def test_minilm_l3_proxies_equal_an_independent_computation(minilm_source):
    from tests.numerics.test_families import independent_analysis

    cfg = {"num_hidden_layers": 3, "hidden_size": 384, "num_attention_heads": 12, "intermediate_size": 1536}
    raw = {"bert." + n: minilm_source.store.read(n) for n in minilm_source.store.names}
    want = independent_analysis("bert", raw, cfg)
    got = analyze_measured(measure_model(minilm_source))
    assert (got.shape.layers, got.shape.hidden, got.shape.heads) == (3, 384, 12)
    assert got.ours == pytest.approx(want["ours"], rel=1e-9)
    assert got.edelman == pytest.approx(want["edelman"], rel=1e-9)
    assert [m.p_opt for m in got.matrices] == [
        r["p_opt"]
        for r in sorted(
            want["rows"], key=lambda r: (r["layer"], {"QK": 0, "V_tilde": 1, "M_in": 2, "M_out": 3}[r["type"]])
        )
    ]


def test_minilm_l3_on_the_command_line(capsys):
    assert main(["analyze", str(_minilm()), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["model"]["L"] == 3 and record["proxy"] == "published"
