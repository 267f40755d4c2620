"""GGUF inputs (issues 31 and 34): a folder holding one .gguf (or its split parts) read like the file,
``--architecture`` on a GGUF, metadata values checked by type and range with one-line errors, and long metadata
arrays (a tokenizer's vocabulary) stepped over without decoding."""

from __future__ import annotations

import json
import shutil
import time

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from sabounds.cli import main  # noqa: E402
from sabounds.numerics.checkpoints.gguf_file import GGUFStore  # noqa: E402
from sabounds.numerics.proxies.model_analysis import open_checkpoint  # noqa: E402
from tests.support.gguf_files import write_kquant_llama, write_pair  # noqa: E402


def _analyze(capsys, *args):
    code = main(["analyze", *map(str, args), "--json"])
    out = capsys.readouterr()
    return code, out


def _one_line_error(capsys, *args, needle=""):
    code, out = _analyze(capsys, *args)
    err = out.err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err and needle in err, err
    return err


def test_a_folder_with_one_gguf_reads_like_the_file(tmp_path, capsys):
    path, _ = write_pair(tmp_path, "llama")
    folder = tmp_path / "only"
    folder.mkdir()
    shutil.copy(path, folder / "model-Q8.gguf")
    code, a = _analyze(capsys, path)
    code2, b = _analyze(capsys, folder)
    assert code == code2 == 0
    assert json.loads(a.out)["totals"] == json.loads(b.out)["totals"]
    shutil.copy(path, folder / "other.gguf")
    _one_line_error(capsys, folder, needle="2 .gguf files")


def test_split_parts_are_read_as_one_file(tmp_path, capsys):
    """Two parts, the tensors divided between them (the metadata in the first, as gguf-split writes it): the same
    numbers as the whole file; a missing part is one line naming it."""
    whole = tmp_path / "whole.gguf"
    write_kquant_llama(whole, "Q8_0")
    reader = gguf.GGUFReader(str(whole))
    folder = tmp_path / "split"
    folder.mkdir()
    names = [t.name for t in reader.tensors]
    for k, chosen in enumerate((names[:4], names[4:]), start=1):
        writer = gguf.GGUFWriter(str(folder / f"m-{k:05d}-of-00002.gguf"), "llama")
        if k == 1:
            for field in reader.fields.values():
                if field.name.startswith("llama.") or field.name.startswith("quantize."):
                    value = field.contents()
                    kind = field.types[0]
                    writer.add_key_value(field.name, value, kind)
        for t in reader.tensors:
            if t.name in chosen:
                writer.add_tensor(
                    t.name,
                    np.asarray(t.data),
                    raw_shape=None if t.tensor_type.name == "F32" else np.asarray(t.data).shape,
                    raw_dtype=t.tensor_type,
                )
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
    code, a = _analyze(capsys, whole)
    code2, b = _analyze(capsys, folder)
    assert code == code2 == 0, b.err
    assert json.loads(a.out)["totals"] == json.loads(b.out)["totals"]
    assert len(open_checkpoint(folder).files) == 2
    (folder / "m-00002-of-00002.gguf").unlink()
    _one_line_error(capsys, folder / "m-00001-of-00002.gguf", needle="m-00002-of-00002.gguf")


def test_architecture_works_on_a_gguf(tmp_path, capsys):
    """``--architecture llama`` reads the file's own keys and tensor names as LLaMA's layer (the same numbers as
    the file's declared architecture); a family without a GGUF layout is one line naming those that have one."""
    path, _ = write_pair(tmp_path, "llama")
    code, plain = _analyze(capsys, path)
    code2, forced = _analyze(capsys, path, "--architecture", "llama")
    assert code == code2 == 0
    assert json.loads(plain.out)["totals"] == json.loads(forced.out)["totals"]
    code3, as_qwen = _analyze(capsys, path, "--architecture", "qwen2")
    assert code3 == 0 and json.loads(as_qwen.out)["model"]["family"] == "qwen2"
    _one_line_error(capsys, path, "--architecture", "bert", needle="gemma3")


def _with_metadata(tmp_path, **fields):
    path = tmp_path / "m.gguf"
    write_kquant_llama(path, "Q8_0", metadata=fields)
    return path


@pytest.mark.parametrize(
    "key, field, needle",
    [
        ("llama.attention.layer_norm_rms_epsilon", ("float32", float("inf")), "layer_norm_rms_epsilon"),
        ("llama.attention.layer_norm_rms_epsilon", ("float32", 0.0), "layer_norm_rms_epsilon"),
        ("llama.attention.layer_norm_rms_epsilon", ("float32", float("nan")), "layer_norm_rms_epsilon"),
        ("llama.rope.freq_base", ("float32", -1.0), "rope.freq_base"),
        ("llama.block_count", ("uint32", 0), "block_count"),
        ("llama.embedding_length", ("uint64", 2**63), "embedding_length"),
        ("llama.context_length", ("string", "4096"), "context_length"),
    ],
)
def test_metadata_values_are_checked_by_type_and_range(tmp_path, capsys, key, field, needle):
    path = _with_metadata(tmp_path, **{key: field})
    _one_line_error(capsys, path, needle=needle)


def test_an_architecture_that_is_not_a_string_is_one_line(tmp_path, capsys):
    path = tmp_path / "a.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.kv_data[0].pop("general.architecture", None)
    writer.add_array("general.architecture", ["llama", "llama"])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    _one_line_error(capsys, path, needle="general.architecture")


def test_an_unsupported_architecture_names_the_supported_ones(tmp_path, capsys):
    path = tmp_path / "u.gguf"
    writer = gguf.GGUFWriter(str(path), "mamba")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    err = _one_line_error(capsys, path, needle="supported GGUF architectures")
    assert all(name in err for name in ("llama", "qwen2", "gemma3", "gpt2"))


def test_a_long_vocabulary_is_stepped_over_not_decoded(tmp_path):
    """200k tokenizer strings: the file opens in well under the time decoding them took (28 s), the array reads as
    None (not an empty list), and the numbers are unchanged."""
    vocab = [f"tok{i}" for i in range(200_000)]
    path = _with_metadata(tmp_path, **{"tokenizer.ggml.tokens": ("array", vocab)})
    start = time.perf_counter()
    store = GGUFStore(path)
    took = time.perf_counter() - start
    assert store.metadata["tokenizer.ggml.tokens"] is None
    assert store.metadata["llama.block_count"] == 1
    assert took < 5.0, took  # decoding took tens of seconds; stepping over is a fraction of one (under load)


def _write_llama(path, weights, unaligned: bool) -> None:
    """``weights`` (Hugging Face names) as a float32 llama GGUF; ``unaligned``: alignment 1 and a 3-byte tensor
    first, so every float tensor after it starts 3 bytes off its item size."""
    from tests.support.gguf_files import gguf_tensors

    writer = gguf.GGUFWriter(str(path), "llama")
    for add, value in (
        (writer.add_block_count, 2),
        (writer.add_embedding_length, 64),
        (writer.add_head_count, 4),
        (writer.add_head_count_kv, 2),
        (writer.add_feed_forward_length, 96),
        (writer.add_layer_norm_rms_eps, 1e-5),
        (writer.add_rope_freq_base, 500000.0),
        (writer.add_context_length, 4096),
    ):
        add(value)
    if unaligned:
        writer.add_custom_alignment(1)
        writer.add_tensor("odd", np.zeros(3, np.int8))
    for name, array in gguf_tensors("llama", weights).items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_unaligned_tensor_data_reads_like_aligned(tmp_path, capsys):
    """Tensors 3 bytes off their item size give the numbers of the aligned file, without a warning."""
    import warnings

    from tests.support.gguf_files import hf_weights

    weights = hf_weights("llama")
    aligned, unaligned = tmp_path / "a.gguf", tmp_path / "u.gguf"
    _write_llama(aligned, weights, False)
    _write_llama(unaligned, weights, True)
    store = GGUFStore(unaligned)
    assert not np.asarray(store._tensors["blk.0.attn_q.weight"].data).flags.aligned
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, a = _analyze(capsys, aligned)
        code2, b = _analyze(capsys, unaligned)
    assert code == code2 == 0 and b.err == ""
    assert json.loads(a.out)["totals"] == json.loads(b.out)["totals"]
