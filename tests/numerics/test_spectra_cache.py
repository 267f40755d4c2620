"""The spectra cache: entries round-trip, a flipped byte is detected (never trusted), concurrent writers of one key
leave a valid entry, keys follow the tensor bytes and the method, and a rerun computes keys without reading
tensor bytes."""

import multiprocessing
import os

import numpy as np
import pytest

from sabounds.numerics import cache as cache_module
from sabounds.numerics.cache import SpectraCache, default_cache_dir, digest, layer_key, layer_number
from tests.support.bert_files import config, random_weights, write_model

KEY = digest("a key")


def test_round_trip(tmp_path):
    c = SpectraCache(tmp_path)
    arrays = {"x": np.arange(5.0), "m": np.array(["gram", "lapack"]), "i": np.array(3)}
    c.put(KEY, arrays)
    got = c.get(KEY)
    assert set(got) == set(arrays) and all(np.array_equal(got[k], v) for k, v in arrays.items())
    assert c.get(digest("another key")) is None


@pytest.mark.parametrize("where", [0, 5, 20, 40, -1])
def test_flipped_byte_is_detected(tmp_path, where):
    c = SpectraCache(tmp_path)
    c.put(KEY, {"x": np.linspace(0, 1, 100)})
    path = c._entry(KEY)
    raw = bytearray(path.read_bytes())
    raw[where] ^= 0x01
    path.write_bytes(bytes(raw))
    assert c.get(KEY) is None and c.corrupt_seen == 1


def test_truncated_entry_is_detected(tmp_path):
    c = SpectraCache(tmp_path)
    c.put(KEY, {"x": np.linspace(0, 1, 100)})
    path = c._entry(KEY)
    path.write_bytes(path.read_bytes()[:50])
    assert c.get(KEY) is None


def test_bad_key_is_refused(tmp_path):
    with pytest.raises(ValueError, match="SHA-256"):
        SpectraCache(tmp_path).put("../../etc/passwd", {"x": np.zeros(1)})


def _writer(root, seed):
    c = SpectraCache(root)
    for _ in range(30):
        c.put(KEY, {"x": np.arange(1000.0)})


def test_concurrent_writers_of_one_key(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), s)) for s in range(2)]
    for p in procs:
        p.start()
    reads = [SpectraCache(tmp_path).get(KEY) for _ in range(50)]
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert all(r is None or np.array_equal(r["x"], np.arange(1000.0)) for r in reads)
    assert np.array_equal(SpectraCache(tmp_path).get(KEY)["x"], np.arange(1000.0))
    leftovers = [p for p in (tmp_path / "entries").rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_cache_folder_is_overridable(monkeypatch, tmp_path):
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.setenv("SABOUNDS_CACHE_DIR", "off")
    assert default_cache_dir() is None
    monkeypatch.delenv("SABOUNDS_CACHE_DIR")
    assert default_cache_dir().name == "sabounds"


def test_layer_number():
    assert layer_number("encoder.layer.3.attention.self.query.weight") == 3
    assert layer_number("model.layers.12.mlp.up_proj.weight") == 12
    assert layer_number("embeddings.word_embeddings.weight") is None


def _keys(model, c, compute=True):
    files = [model / "model.safetensors"]
    cfg = (model / "config.json").read_bytes()
    return [layer_key(files, cfg, i, "certified", c, compute) for i in range(2)]


def test_keys_follow_the_tensor_bytes_and_the_method(tmp_path):
    c = SpectraCache(tmp_path / "cache")
    weights = random_weights(layers=2)
    model = write_model(tmp_path / "m", weights, config(layers=2))
    first = _keys(model, c)
    assert first == _keys(model, c) and first[0] != first[1]
    cfg = (model / "config.json").read_bytes()
    assert layer_key([model / "model.safetensors"], cfg, 0, "exact", c) != first[0]
    weights["encoder.layer.1.output.dense.weight"][0, 0] += 1.0  # one entry of layer 1
    write_model(model, weights, config(layers=2))
    second = _keys(model, c)
    assert second[0] == first[0] and second[1] != first[1]


def test_rerun_reads_no_tensor_bytes(tmp_path, monkeypatch):
    c = SpectraCache(tmp_path / "cache")
    model = write_model(tmp_path / "m", random_weights(layers=2), config(layers=2))
    assert _keys(model, c, compute=False) == [None, None]  # nothing indexed yet: no key without hashing
    first = _keys(model, c)

    def refuse(*args, **kwargs):
        raise AssertionError("tensor bytes were read")

    monkeypatch.setattr(cache_module.mmap, "mmap", refuse)
    assert _keys(model, c, compute=False) == first
    assert _keys(model, c) == first
    os.utime(model / "model.safetensors")  # a touched file is hashed again
    monkeypatch.undo()
    assert _keys(model, c, compute=False) == [None, None]
    assert _keys(model, c) == first


def test_keys_follow_the_measuring_code(tmp_path, monkeypatch):
    c = SpectraCache(tmp_path / "cache")
    model = write_model(tmp_path / "m", random_weights(layers=2), config(layers=2))
    first = _keys(model, c)
    assert len(cache_module.code_digest()) == 64
    monkeypatch.setattr(cache_module, "code_digest", lambda: digest("another version of the code"))
    assert all(a != b for a, b in zip(first, _keys(model, c)))
