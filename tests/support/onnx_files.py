"""A small BERT encoder written as an ONNX graph with ``onnx.helper``, as exporters write it: weights stored
``x @ W`` (in, out), initializers given meaningless names in shuffled order, so only the graph tells their roles."""

from __future__ import annotations

import numpy as np


def write_bert_onnx(path, weights: dict[str, np.ndarray], layers: int, hidden: int, heads: int, seed: int = 0):
    """``weights`` in BERT's names, (out, in); writes the graph and returns {initializer name: BERT name}."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    d = hidden // heads
    nodes, inits, names = [], [], {}
    counter = iter(rng.permutation(10_000))

    def init(array, bert_name=None):
        name = f"onnx::MatMul_{next(counter)}" if bert_name else f"c_{next(counter)}"
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        if bert_name:
            names[name] = bert_name
        return name

    def node(op, inputs, **attrs):
        out = f"t_{len(nodes)}"
        nodes.append(helper.make_node(op, inputs, [out], name=f"n_{len(nodes)}", **attrs))
        return out

    split = init(np.array([0, 0, heads, d], dtype=np.int64))
    merge = init(np.array([0, 0, hidden], dtype=np.int64))
    scale = init(np.array(np.sqrt(d), dtype=np.float32))
    x = "hidden_in"
    for i in range(layers):
        base = f"encoder.layer.{i}."

        def proj(inp, role):
            w = weights[base + role].T.astype(np.float32)  # (in, out)
            return node("Add", [node("MatMul", [inp, init(w, base + role)]), init(np.zeros(w.shape[1], np.float32))])

        q = node("Transpose", [node("Reshape", [proj(x, "attention.self.query.weight"), split])], perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [proj(x, "attention.self.key.weight"), split])], perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [proj(x, "attention.self.value.weight"), split])], perm=[0, 2, 1, 3])
        probs = node("Softmax", [node("Div", [node("MatMul", [q, k]), scale])], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merge])
        h = node("Add", [proj(ctx, "attention.output.dense.weight"), x])
        inner = proj(h, "intermediate.dense.weight")
        gelu = node(
            "Mul",
            [
                inner,
                node("Add", [node("Erf", [node("Div", [inner, init(np.float32(np.sqrt(2)))])]), init(np.float32(1.0))]),
            ],
        )
        x = node("Add", [proj(gelu, "output.dense.weight"), h])
    order = rng.permutation(len(inits))
    graph = helper.make_graph(
        nodes,
        "bert",
        [helper.make_tensor_value_info("hidden_in", TensorProto.FLOAT, [1, 4, hidden])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 4, hidden])],
        [inits[j] for j in order],
    )
    onnx.save(helper.make_model(graph), str(path))
    return names
