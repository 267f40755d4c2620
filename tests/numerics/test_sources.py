"""Sources of weights and their hostile inputs (issue 10 item 4, issue 11 items 2 and 4): a sharded checkpoint is
read through its index and a duplicate tensor in another shard is refused; JSON is depth- and size-bounded; a
shard name with a newline keeps the error on one line; mapping files describe any model, and a malformed one
names the bad entry."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sabounds.cli import main
from sabounds.numerics.checkpoints.errors import CheckpointError, json_depth
from sabounds.numerics.checkpoints.mapping import load_mapping, parse_mapping
from sabounds.numerics.proxies.model_analysis import analyze_model, open_checkpoint
from tests.support.bert_files import config, random_weights, write_model, write_safetensors
from tests.support.family_files import CONFIGS, raw_weights, write_family

QUERY = "encoder.layer.1.attention.self.query.weight"


def _cli(args, capsys):
    rc = main(args)
    err = capsys.readouterr().err
    return rc, err


def _sharded(tmp_path, weights):
    model = write_model(tmp_path / "m", weights, config(), shards=2)
    index = json.loads((model / "model.safetensors.index.json").read_text())
    return model, index


def test_index_names_the_shard_a_tensor_is_read_from(tmp_path):
    """A stale copy of QUERY in the other shard, with the index pointing at the right one: refused, not guessed."""
    weights = random_weights(seed=7, layers=2)
    model, index = _sharded(tmp_path, weights)
    home = index["weight_map"][QUERY]
    other = next(f for f in set(index["weight_map"].values()) if f != home)
    part = {k: weights[k] for k, f in index["weight_map"].items() if f == other}
    part[QUERY] = -weights[QUERY]
    write_safetensors(model / other, part)
    with pytest.raises(CheckpointError, match="also in shard") as err:
        open_checkpoint(model)
    assert home in str(err.value) and other in str(err.value)


def test_index_pointing_to_a_shard_without_the_tensor_is_refused(tmp_path):
    weights = random_weights(seed=7, layers=2)
    model, index = _sharded(tmp_path, weights)
    files = sorted(set(index["weight_map"].values()))
    home = index["weight_map"][QUERY]
    index["weight_map"][QUERY] = next(f for f in files if f != home)
    (model / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match="does not contain it"):
        open_checkpoint(model)


def test_tensors_are_read_from_the_indexed_shard(tmp_path):
    """Shards in reverse file-name order of the tensors: the index, not the file order, decides."""
    weights = random_weights(seed=7, layers=2)
    model, _ = _sharded(tmp_path, weights)
    plain = write_model(tmp_path / "plain", weights, config())
    assert analyze_model(model).to_json() == analyze_model(plain).to_json()


@pytest.mark.parametrize("target", ["config.json", "model.safetensors.index.json"])
def test_deep_json_is_one_line_not_a_recursion_error(tmp_path, capsys, target):
    model, _ = _sharded(tmp_path, random_weights(seed=7, layers=2))
    (model / target).write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    rc, err = _cli(["analyze", str(model)], capsys)
    assert rc == 2 and err.count("\n") == 1 and "nests" in err and target in err


def test_json_depth_ignores_brackets_inside_strings():
    assert json_depth(b'{"a": "[[[[{{{{", "b": [[1]]}') == 3
    assert json_depth(b'{"a": "\\"[[[["}') == 1


def test_shard_name_with_a_newline_stays_on_one_line(tmp_path, capsys):
    weights = random_weights(seed=7, layers=2)
    model, index = _sharded(tmp_path, weights)
    bad = "evil\nname.safetensors"
    index["weight_map"][QUERY] = bad
    (model / "model.safetensors.index.json").write_text(json.dumps(index))
    rc, err = _cli(["analyze", str(model)], capsys)
    assert rc == 2 and err.count("\n") == 1 and "evil\\nname" in err


def test_shard_name_outside_the_folder_is_refused(tmp_path):
    weights = random_weights(seed=7, layers=2)
    model, index = _sharded(tmp_path, weights)
    index["weight_map"][QUERY] = "../x.safetensors"
    (model / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match="not a file in the model directory"):
        open_checkpoint(model)


MAPPING = """
layer = "blocks.{i}."
layout = "pre_ln"
activation = "silu"
rope = true

[tensors]
query = "attn.wq.weight"
key = "attn.wk.weight"
value = "attn.wv.weight"
output = "attn.wo.weight"
mlp_in = "ffn.w3.weight"
mlp_out = "ffn.w2.weight"
mlp_gate = "ffn.w1.weight"
mlp_norm = "ffn_norm.weight"
attn_norm = "attn_norm.weight"

[sizes]
layers = 2
hidden = 16
heads = 4
kv_heads = 2
intermediate = 40
"""

RENAME = {
    "self_attn.q_proj": "attn.wq",
    "self_attn.k_proj": "attn.wk",
    "self_attn.v_proj": "attn.wv",
    "self_attn.o_proj": "attn.wo",
    "mlp.up_proj": "ffn.w3",
    "mlp.down_proj": "ffn.w2",
    "mlp.gate_proj": "ffn.w1",
    "post_attention_layernorm": "ffn_norm",
    "input_layernorm": "attn_norm",
}


def _renamed_llama():
    out = {}
    for k, v in raw_weights("llama", seed=2).items():
        for a, b in RENAME.items():
            k = k.replace(a, b)
        out[k.replace("model.layers.", "blocks.")] = v
    return out


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_mapping_file_describes_a_renamed_model_exactly(tmp_path, suffix):
    import tomllib

    path = tmp_path / f"m{suffix}"
    path.write_text(MAPPING if suffix == ".toml" else json.dumps(tomllib.loads(MAPPING)))
    write_model(tmp_path / "renamed", _renamed_llama(), {"model_type": "my-llama", "rms_norm_eps": 1e-6})
    write_model(tmp_path / "llama", raw_weights("llama", seed=2), CONFIGS["llama"])
    ours = analyze_model(tmp_path / "renamed", mapping=path).to_json()
    ref = analyze_model(tmp_path / "llama").to_json()
    ours["model"]["family"] = ref["model"]["family"]
    assert ours == ref


def test_mapping_on_the_command_line(tmp_path, capsys):
    (tmp_path / "m.toml").write_text(MAPPING)
    write_model(tmp_path / "renamed", _renamed_llama(), {"model_type": "my-llama", "rms_norm_eps": 1e-6})
    assert main(["analyze", str(tmp_path / "renamed"), "--mapping", str(tmp_path / "m.toml"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["proxy"] == "extension"


BAD_MAPPINGS = [
    ("layer = 3\n[tensors]\n", "layer"),
    ('layer = "blocks."\n', "layer"),
    ('layer = "b.{i}."\nwhat = 1\n', "what"),
    ('layer = "b.{i}."\n[tensors]\nquery = "q"\n', "tensors.key"),
    ('layer = "b.{i}."\nlayout = "sideways"\n', "layout"),
    ('layer = "b.{i}."\nactivation = "tanh"\n', "activation"),
    (
        'layer = "b.{i}."\n[tensors]\nqkv = "a"\noutput = "o"\nmlp_in = "i"\nmlp_out = "o2"\n[sizes]\nheads = 0\n',
        "sizes.heads",
    ),
    ('layer = "b.{i}."\n[tensors]\nqkv = "a"\nbogus = "x"\n', "tensors.bogus"),
    ('base = "t5"\n', "base"),
    ("layer = [unclosed\n", "not valid TOML"),
]


@pytest.mark.parametrize("text, entry", BAD_MAPPINGS)
def test_malformed_mapping_names_the_bad_entry(tmp_path, capsys, text, entry):
    write_family(tmp_path / "model", "bert")
    (tmp_path / "m.toml").write_text(text)
    rc, err = _cli(["analyze", str(tmp_path / "model"), "--mapping", str(tmp_path / "m.toml")], capsys)
    assert rc == 2 and err.count("\n") == 1 and entry in err and "m.toml" in err


def test_mapping_base_family_overrides_only_what_it_names():
    family, sizes = parse_mapping({"base": "gpt2", "layer": "blocks.{i}."})
    assert family.qkv == "attn.c_attn.weight" and family.orientation == "in_out" and family.layer == "blocks.{i}."
    assert sizes == {}


def test_missing_mapping_file_is_one_line(tmp_path):
    with pytest.raises(CheckpointError, match="mapping file not found"):
        load_mapping(tmp_path / "nope.toml")


def test_dict_without_sizes_is_refused():
    with pytest.raises(CheckpointError, match="no sizes"):
        open_checkpoint({"w": np.zeros((2, 2))})


def test_gpt2_conv1d_orientation_matters(tmp_path):
    """Reading GPT-2's Conv1D weights as nn.Linear ones is a shape error for c_fc (16 x 64 vs 64 x 16)."""
    write_family(tmp_path, "gpt2")
    with pytest.raises(CheckpointError, match="has shape"):
        open_checkpoint(tmp_path, {"base": "gpt2", "orientation": "out_in"}).layer(0)


def test_mapping_without_sizes_and_no_config_says_what_is_missing(tmp_path):
    write_model(tmp_path / "renamed", _renamed_llama(), {})
    (tmp_path / "renamed" / "config.json").unlink()
    text = MAPPING.split("[sizes]")[0]
    (tmp_path / "m.toml").write_text(text)
    with pytest.raises(CheckpointError, match=r"no sizes; give the layers size in the mapping's \[sizes\]"):
        open_checkpoint(tmp_path / "renamed", tmp_path / "m.toml")
    (tmp_path / "m.toml").write_text(MAPPING)
    assert open_checkpoint(tmp_path / "renamed", tmp_path / "m.toml").shape.kv_heads == 2
