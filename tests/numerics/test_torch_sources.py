"""Checkpoints written by Hugging Face's own ``save_pretrained`` (tensor names are the library's, not ours), and
torch sources: a ``state_dict`` and an ``nn.Module`` give the folder's table.  Skipped without torch and
transformers (an optional extra: ``pip install sabounds[torch] transformers``)."""

from __future__ import annotations

import json

import pytest

transformers = pytest.importorskip("transformers", reason="transformers is needed to write save_pretrained fixtures")
torch = pytest.importorskip("torch", reason="torch is an optional extra; these tests need it")

from safetensors.numpy import load_file  # noqa: E402

from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint  # noqa: E402
from tests.numerics.test_families import independent_analysis  # noqa: E402


def _model(name: str):
    torch.manual_seed(0)
    if name == "gpt2":
        cfg = transformers.GPT2Config(n_layer=2, n_embd=16, n_head=4, vocab_size=40, n_positions=32)
        return transformers.GPT2LMHeadModel(cfg)
    cfg = transformers.LlamaConfig(
        num_hidden_layers=2,
        hidden_size=16,
        num_attention_heads=4,
        num_key_value_heads=2,
        intermediate_size=40,
        vocab_size=40,
        max_position_embeddings=32,
    )
    model = transformers.LlamaForCausalLM(cfg)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.post_attention_layernorm.weight.uniform_(0.5, 1.5)
    return model


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_save_pretrained_checkpoint_matches_independent_computation(tmp_path, name):
    model = _model(name)
    model.save_pretrained(tmp_path, safe_serialization=True)
    raw = load_file(str(tmp_path / "model.safetensors"))
    cfg = json.loads((tmp_path / "config.json").read_text())
    got = analyze_measured(measure_model(open_checkpoint(tmp_path)))
    want = independent_analysis(name, raw, cfg)
    assert got.ours == pytest.approx(want["ours"], rel=1e-9)
    assert got.edelman == pytest.approx(want["edelman"], rel=1e-9)
    assert got.proxy == "extension"


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_state_dict_and_module_give_the_folder_table(tmp_path, name):
    model = _model(name)
    model.save_pretrained(tmp_path, safe_serialization=True)
    folder = analyze_measured(measure_model(open_checkpoint(tmp_path))).to_json()
    cfg = json.loads((tmp_path / "config.json").read_text())
    from_state = analyze_measured(measure_model(open_checkpoint(model.state_dict(), config=cfg))).to_json()
    from_module = analyze_measured(measure_model(open_checkpoint(model))).to_json()
    assert from_state == folder and from_module == folder


def test_pickle_is_read_only_with_permission(tmp_path):
    model = _model("gpt2")
    model.config.to_json_file(str(tmp_path / "config.json"))
    torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")
    from sabounds.numerics.checkpoints.errors import CheckpointError

    with pytest.raises(CheckpointError, match="refusing to unpickle"):
        open_checkpoint(tmp_path)
    a = analyze_measured(measure_model(open_checkpoint(tmp_path, allow_pickle=True))).to_json()
    assert a == analyze_measured(measure_model(open_checkpoint(model))).to_json()
