"""An ONNX export of a BERT-family encoder, read with the ``onnx`` package only (no onnxruntime, no torch).

Exporters rename weights (``onnx::MatMul_470``) and store them as ``x @ W`` (in, out), so roles are found through
the graph, not by name: every ``MatMul`` (or ``Gemm``) with a 2-D initializer is a projection; following its output
forward through shape-only and elementwise-affine ops (Add, Reshape, Transpose, Mul, Div, Cast, ...) reaches an
activation-by-activation ``MatMul``.  The one whose first input comes from a ``Softmax`` is the context product
``P V``: the projection reaching its second input is the value.  The other is the score product ``Q K^T``: first
input query, second key.  The projection fed (through shape ops) by the context product is the attention output;
the next two projections in graph order are the feed-forward ``M_in`` and ``M_out`` (checked: ``M_out``'s input
depends on ``M_in``'s output).  Layers are numbered in graph order.  The head count is read from the 4-D
``Reshape`` target ``[batch, seq, H, d_h]`` in the query path.  The store presents the weights under BERT's tensor
names in ``nn.Linear``'s (out, in) layout, with a ``config`` of the sizes found, so the BERT family reads it.
A scale folded into a weight by an optimiser cannot be seen in the graph and is not undone.  Weights stored as
external data are read from the ``location`` relative to the ``.onnx`` file's folder (``checkpoints/paths.py``:
never the current folder, never outside the model's folder), at the stated offset and length.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from sabounds.numerics.checkpoints.errors import CheckpointError, one_line, shown
from sabounds.numerics.checkpoints.paths import model_relative, read_range

MAX_ONNX_BYTES = 2**31
_PASS_THROUGH = {
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Reshape",
    "Transpose",
    "Cast",
    "Identity",
    "Squeeze",
    "Unsqueeze",
    "Dropout",
    "Where",
    "Expand",
}
_ROLES = ("query", "key", "value", "output", "mlp_in", "mlp_out")
_BERT_NAMES = {
    "query": "attention.self.query.weight",
    "key": "attention.self.key.weight",
    "value": "attention.self.value.weight",
    "output": "attention.output.dense.weight",
    "mlp_in": "intermediate.dense.weight",
    "mlp_out": "output.dense.weight",
}
MAX_WALK = 64


class OnnxStore:
    """The projections of an ONNX BERT-family graph under BERT's names, (out, in); ``config`` holds the sizes."""

    def __init__(self, path: Path):
        try:
            import onnx
            from onnx import numpy_helper
        except ImportError:
            raise CheckpointError(f"{path}: reading ONNX needs the onnx package (pip install onnx)") from None
        self.path, self.label = Path(path), str(path)
        if self.path.stat().st_size > MAX_ONNX_BYTES:
            raise CheckpointError(f"{path}: larger than {MAX_ONNX_BYTES} bytes")
        try:
            model = onnx.load(str(path), load_external_data=False)
        except Exception as exc:  # protobuf raises DecodeError and others for a broken file
            raise CheckpointError(f"{path}: not a readable ONNX model ({one_line(exc)})") from None
        graph = model.graph
        self._init = {t.name: t for t in graph.initializer}
        self._numpy = numpy_helper.to_array
        self._const = {}
        for node in graph.node:
            if node.op_type == "Constant":
                for attr in node.attribute:
                    if attr.name == "value":
                        self._const[node.output[0]] = self._array(attr.t)
        self._producer = {out: node for node in graph.node for out in node.output}
        self._consumers = defaultdict(list)
        for node in graph.node:
            for slot, name in enumerate(node.input):
                self._consumers[name].append((node, slot))
        self._nodes = list(graph.node)
        self._tensors, self.config = self._map()
        self.names = set(self._tensors)

    # -- tensors ------------------------------------------------------------------------------------------------
    def _array(self, tensor) -> np.ndarray:
        """A tensor's values, external data read relative to the model file; any failure one line naming it."""
        from onnx import TensorProto

        where = f"{self.path} (initializer {shown(tensor.name)})"
        if tensor.data_type == TensorProto.UNDEFINED or tensor.data_type not in TensorProto.DataType.values():
            raise CheckpointError(f"{where}: data type {tensor.data_type} is not a number type")
        if tensor.data_location == TensorProto.EXTERNAL:
            tensor = self._inline(tensor, where)
        try:
            return self._numpy(tensor)
        except Exception as exc:  # onnx raises TypeError, ValueError, ... for a malformed tensor
            raise CheckpointError(f"{where}: cannot be read ({one_line(exc)})") from None

    def _inline(self, tensor, where: str):
        """A copy of ``tensor`` with its external bytes read in (offset and length checked against its size)."""
        from onnx import TensorProto, helper

        info = {entry.key: entry.value for entry in tensor.external_data}
        path = model_relative(self.path.parent, info.get("location"), where, "external data")
        try:
            offset, length = int(info.get("offset", 0)), info.get("length")
            itemsize = helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
        except (ValueError, TypeError, KeyError) as exc:
            raise CheckpointError(f"{where}: malformed external data entry ({one_line(exc)})") from None
        expected = int(np.prod([int(d) for d in tensor.dims], dtype=object)) * itemsize
        if length is not None and str(length).strip().isdigit() and int(length) != expected:
            raise CheckpointError(
                f"{where}: external data length {length} differs from the {expected} bytes its "
                f"shape {list(tensor.dims)} needs"
            )
        if expected > MAX_ONNX_BYTES:
            raise CheckpointError(f"{where}: external data of {expected} bytes exceeds {MAX_ONNX_BYTES}")
        inline = TensorProto()
        inline.CopyFrom(tensor)
        del inline.external_data[:]
        inline.data_location = TensorProto.DEFAULT
        inline.raw_data = read_range(path, offset, expected, where)
        return inline

    # -- graph helpers ------------------------------------------------------------------------------------------
    def _weight_of(self, node) -> tuple[str, bool] | None:
        """``(initializer name, stored_out_in)`` if ``node`` multiplies its activation by a 2-D initializer."""
        if node.op_type == "MatMul" and len(node.input) == 2 and node.input[1] in self._init:
            if len(self._init[node.input[1]].dims) == 2:
                return node.input[1], False
        if node.op_type == "Gemm" and len(node.input) >= 2 and node.input[1] in self._init:
            trans_b = any(a.name == "transB" and a.i == 1 for a in node.attribute)
            return node.input[1], trans_b
        return None

    def _bias_of(self, node) -> tuple[np.ndarray, str] | None:
        """The bias added to a projection's output and its name: a ``Gemm``'s third input, or the other input of an
        ``Add`` right after the ``MatMul`` when it is a constant (an initializer or a ``Constant`` node)."""
        if node.op_type == "Gemm" and len(node.input) >= 3 and node.input[2]:
            name = node.input[2]
            return (self._array(self._init[name]), name) if name in self._init else self._constant_bias(name)
        for consumer, _slot in self._consumers.get(node.output[0], ()):
            if consumer.op_type == "Add":
                for name in consumer.input:
                    if name == node.output[0]:
                        continue
                    if name in self._init:
                        return self._array(self._init[name]), name
                    return self._constant_bias(name)
        return None

    def _constant_bias(self, name: str) -> tuple[np.ndarray, str] | None:
        """A ``Constant`` node's value as a bias, else None (a bias computed at run time is not a stored one)."""
        return (self._const[name], name) if name in self._const else None

    def _forward(self, tensor: str) -> list[tuple[object, int]]:
        """Activation MatMuls reached from ``tensor`` through pass-through ops: (node, input slot)."""
        found, frontier, seen = [], [tensor], set()
        for _ in range(MAX_WALK):
            if not frontier:
                break
            nxt = []
            for name in frontier:
                for node, slot in self._consumers.get(name, ()):
                    if node.op_type == "MatMul" and self._weight_of(node) is None:
                        found.append((node, slot))
                    elif node.op_type in _PASS_THROUGH and node.name + node.output[0] not in seen:
                        seen.add(node.name + node.output[0])
                        nxt.extend(node.output)
            frontier = nxt
        return found

    def _back_to(self, tensor: str, op_types: set[str]):
        """The first node of ``op_types`` reached backwards from ``tensor`` through pass-through ops (data input)."""
        name = tensor
        for _ in range(MAX_WALK):
            node = self._producer.get(name)
            if node is None:
                return None
            if node.op_type in op_types:
                return node
            if node.op_type not in _PASS_THROUGH:
                return None
            name = (
                node.input[0]
                if node.input[0] not in self._init and node.input[0] not in self._const
                else (node.input[1] if len(node.input) > 1 else node.input[0])
            )
        return None

    def _depends_on(self, tensor: str, source: str) -> bool:
        """Whether ``tensor`` is computed from ``source`` (bounded backward search)."""
        stack, seen = [tensor], set()
        while stack and len(seen) < 10_000:
            name = stack.pop()
            if name == source:
                return True
            if name in seen:
                continue
            seen.add(name)
            node = self._producer.get(name)
            if node is not None:
                stack.extend(node.input)
        return False

    def _constant_ints(self, tensor: str) -> list[int | None]:
        """Values of a shape tensor: a constant, or a Concat of constants and unknowns (None)."""
        if tensor in self._const or tensor in self._init:
            value = self._const.get(tensor)
            value = self._array(self._init[tensor]) if value is None else value
            return [int(v) for v in np.ravel(value)]
        node = self._producer.get(tensor)
        if node is not None and node.op_type == "Concat":
            out = []
            for name in node.input:
                part = self._constant_ints(name) if (name in self._const or name in self._init) else [None]
                out.extend(part)
            return out
        return []

    def _heads(self, start: str, hidden: int) -> int | None:
        """H from the 4-D Reshape ``[b, s, H, d_h]`` (``H d_h = N``) following the query projection."""
        frontier = [start]
        for _ in range(MAX_WALK):
            nxt = []
            for name in frontier:
                for node, _slot in self._consumers.get(name, ()):
                    if node.op_type == "Reshape":
                        dims = self._constant_ints(node.input[1])
                        if len(dims) == 4 and dims[2] and dims[3] and dims[2] > 0 and dims[2] * dims[3] == hidden:
                            return dims[2]
                    if node.op_type in _PASS_THROUGH:
                        nxt.extend(node.output)
            frontier = nxt
            if not frontier:
                break
        return None

    # -- the mapping --------------------------------------------------------------------------------------------
    def _map(self):
        projections = [(node, w) for node in self._nodes if (w := self._weight_of(node)) is not None]
        if not projections:
            raise CheckpointError(f"{self.path}: no MatMul or Gemm with a weight initializer; not a Transformer export")
        role_of: dict[int, tuple[int, str]] = {}
        contexts = []
        for i, (node, _w) in enumerate(projections):
            for target, slot in self._forward(node.output[0]):
                is_context = self._back_to(target.input[0], {"Softmax"}) is not None
                if is_context and slot == 1:
                    role_of[i] = (id(target), "value")
                    if target not in contexts:
                        contexts.append(target)
                elif not is_context:
                    role_of[i] = (id(target), "query" if slot == 0 else "key")
        if not contexts:
            raise CheckpointError(f"{self.path}: no attention (softmax(Q K^T) V) found in the graph")
        layer_roles: list[dict[str, int]] = [dict() for _ in contexts]
        score_layer: dict[int, int] = {}
        for i, (target, role) in role_of.items():
            if role == "value":
                layer_roles[[id(c) for c in contexts].index(target)]["value"] = i
        for c_index, context in enumerate(contexts):
            softmax = self._back_to(context.input[0], {"Softmax"})
            score = self._back_to(softmax.input[0], {"MatMul"}) if softmax is not None else None
            scores_id = id(score) if score is not None else None
            for i, (target, role) in role_of.items():
                if role in ("query", "key") and target == scores_id:
                    layer_roles[c_index][role] = i
                    score_layer[i] = c_index
        used = {i for roles in layer_roles for i in roles.values()}
        for c_index, context in enumerate(contexts):
            for i, (node, _w) in enumerate(projections):
                if i not in used and self._back_to(node.input[0], {"MatMul"}) is context:
                    layer_roles[c_index]["output"] = i
                    used.add(i)
                    break
            out = layer_roles[c_index].get("output")
            rest = [i for i in range(len(projections)) if i not in used and out is not None and i > out]
            if len(rest) >= 2 and self._depends_on(projections[rest[1]][0].input[0], projections[rest[0]][0].output[0]):
                layer_roles[c_index].update(mlp_in=rest[0], mlp_out=rest[1])
                used.update(rest[:2])
        tensors, hidden, inner = {}, None, None
        for layer, roles in enumerate(layer_roles):
            missing = [r for r in _ROLES if r not in roles]
            if missing:
                raise CheckpointError(
                    f"{self.path}: layer {layer} of the graph: no {', '.join(missing)} projection "
                    "found; the graph is not a BERT-style encoder (use a safetensors export)"
                )
            for role, i in roles.items():
                name, out_in = projections[i][1]
                weight = self._array(self._init[name])
                tensors[f"encoder.layer.{layer}.{_BERT_NAMES[role]}"] = (weight if out_in else weight.T, name)
                bias = self._bias_of(projections[i][0])
                if bias is not None:
                    tensors[f"encoder.layer.{layer}.{_BERT_NAMES[role][: -len('weight')]}bias"] = bias
            hidden = tensors[f"encoder.layer.{layer}.attention.self.query.weight"][0].shape[1]
            inner = tensors[f"encoder.layer.{layer}.intermediate.dense.weight"][0].shape[0]
        heads = self._heads(projections[layer_roles[0]["query"]][0].output[0], hidden)
        config = {
            "model_type": "bert",
            "num_hidden_layers": len(layer_roles),
            "hidden_size": hidden,
            "intermediate_size": inner,
            "hidden_act": "gelu" if self._has("Erf") else "unknown",
        }
        if heads is not None:
            config["num_attention_heads"] = heads
        return tensors, config

    def _has(self, op_type: str) -> bool:
        return any(node.op_type == op_type for node in self._nodes)

    # -- the store interface ------------------------------------------------------------------------------------
    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self._tensors[name][0].shape)

    def read(self, name: str) -> np.ndarray:
        return np.asarray(self._tensors[name][0])

    def where(self, name: str) -> str:
        entry = self._tensors.get(name)
        return f"{self.path} (initializer {shown(entry[1])})" if entry else str(self.path)

    def initializer_of(self, name: str) -> str:
        """The ONNX initializer a BERT-named tensor was mapped from (for provenance and tests)."""
        return self._tensors[name][1]
