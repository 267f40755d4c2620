"""Every built-in family, written in its own tensor names and config: the per-matrix spectra, p_opt and totals
equal an independent computation on the same weights to 1e-9 (relative), and the dict-of-arrays source gives
the same table as the folder.  The independent side forms each QK_h and Vt_h in full and takes its top d_h
singular values (its rank is at most d_h), and writes the proxies' formulas out again in plain numpy."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sabounds.cli import main
from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint
from tests.support.family_files import CONFIGS, LAYERS, independent_matrices, sizes, write_family

GELU, GELU_TANH, SILU = 1.13, 1.128994, 1.09984  # sup|phi'| rounded up at 6 decimals (silu: 1.0998394 -> 1.09984)
ACT = {
    "bert": GELU,
    "distilbert": GELU,
    "mpnet": GELU,
    "vit": GELU,
    "gpt2": GELU_TANH,
    "llama": SILU,
    "mistral": SILU,
    "qwen2": SILU,
}
PRE_LN = {"gpt2", "vit", "llama", "mistral", "qwen2"}
GATED = {"llama", "mistral", "qwen2"}
PUBLISHED = {"bert", "distilbert", "mpnet"}
ROPE = {"llama", "mistral", "qwen2"}
EPS = {"gpt2": 1e-5, "vit": 1e-12, "llama": 1e-6, "mistral": 1e-6, "qwen2": 1e-6}  # Hugging Face's defaults


def _radius(hidden, weight):
    """(max|g|, sqrt(N) max|g|); max|g| = 1 assumed where the fixture stores no norm weight."""
    gain = 1.0 if weight is None else float(np.max(np.abs(weight)))
    return gain, math.sqrt(hidden) * gain


def independent_analysis(name: str, weights, cfg: dict | None = None) -> dict:
    """The proxies of THEORY.md section 6 (published) or of layer_factors' extension, from full matrices."""
    cfg = cfg or CONFIGS[name]
    depth, hidden = sizes(cfg)[:2]
    layers = [independent_matrices(name, weights, i, cfg) for i in range(depth)]
    lact = ACT[name]
    rows, lips = [], []
    for lay in layers:
        d = lay["head_dim"]
        sig = {
            "QK": [np.linalg.svd(m, compute_uv=False)[:d] for m in lay["QK"]],
            "V_tilde": [np.linalg.svd(m, compute_uv=False)[:d] for m in lay["V_tilde"]],
        }
        for t in ("M_in", "M_out", "M_gate"):
            if lay[t] is not None:
                sig[t] = [np.linalg.svd(lay[t], compute_uv=False)]
        n21_qk = None
        if name in ROPE:  # every rotated member: sigma_i <= sigma_i(Wq) sigma_i(Wk) (Horn), written out again
            sig["QK"] = [
                np.linalg.svd(q, compute_uv=False)[:d] * np.linalg.svd(k, compute_uv=False)[:d]
                for q, k in zip(lay["q_heads"], lay["k_heads"])
            ]
            n21_qk = [
                np.linalg.norm(q, 2) * np.sum(np.linalg.norm(k, axis=0)) for q, k in zip(lay["q_heads"], lay["k_heads"])
            ]
        spec = {t: [s[0] for s in v] for t, v in sig.items()}
        g1, b1 = _radius(hidden, lay["attn_norm"])
        g2, r2 = _radius(hidden, lay["norm"])
        pre = name in PRE_LN
        scale = b1**2 / math.sqrt(d) if pre else 1.0
        a = sum(v * (1 + 4 * scale * q) for v, q in zip(spec["V_tilde"], spec["QK"]))
        s_in, s_out = spec["M_in"][0], spec["M_out"][0]
        if name in GATED:
            r = r2
            s_gate = spec["M_gate"][0]
            f = (1 + lact) * r * s_gate * s_in * s_out
            g_mlp = {"M_in": r * s_gate * s_out, "M_out": 1.0, "M_gate": lact * r * s_in * s_out}
        else:
            f = lact * s_in * s_out
            g_mlp = {"M_in": (1.0 if name in PUBLISHED else lact) * s_out, "M_out": 1.0}
        if name in PUBLISHED:
            lip, down = lact * s_in * s_out * a, s_in * s_out
        elif name in PRE_LN:
            lip_ln1, lip_ln2 = g1 / math.sqrt(EPS[name]), g2 / math.sqrt(EPS[name])
            lip, down = (1 + lip_ln1 * a) * (1 + lip_ln2 * f), 1 + lip_ln2 * f
        lips.append(lip)
        full = {t: [lay[t]] if t.startswith("M") else lay[t] for t in sig}
        for t, sigmas in sig.items():
            for h, s in enumerate(sigmas):
                gamma = {"QK": lambda: 2 * scale * spec["V_tilde"][h] * down, "V_tilde": lambda: down}.get(
                    t, lambda: g_mlp[t]
                )()
                w = full[t][h]
                n21 = float(np.sum(np.sqrt(np.sum(w * w, axis=0))))
                rows.append(
                    {
                        "layer": len(lips) - 1,
                        "type": t,
                        "sigma": s,
                        "gamma": gamma,
                        "n21": n21_qk[h] if t == "QK" and n21_qk else n21,
                    }
                )
    alpha = [float(np.prod(lips[l + 1 :])) for l in range(depth)]
    m = math.ceil(depth + math.log(hidden))
    ps = np.arange(2 * m + 1) / m
    ours, edel = math.sqrt(depth), 1.0
    for r in rows:
        s = r["sigma"]
        rank = int(np.sum(s > 1e-10 * len(s) * max(s.max(), 1)))
        s_p = [rank] + [float(np.sum(s**p)) for p in ps[1:]]
        scale = r["gamma"] * alpha[r["layer"]] * depth
        c = [s_p[i] ** (1 / (p + 2)) * scale ** (p / (p + 2)) * hidden ** ((p + 1) / (p + 2)) for i, p in enumerate(ps)]
        r.update(p_opt=float(ps[int(np.argmin(c))]), minimum=min(c), rank=rank)
        ours += min(c)
        ge = r["gamma"] / 2 if r["type"] == "QK" else r["gamma"]
        edel += alpha[r["layer"]] ** (2 / 3) * (ge * r["n21"]) ** (2 / 3)
    return {"rows": rows, "ours": ours, "edelman": edel**1.5}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_family_matches_independent_computation(tmp_path, name):
    weights = write_family(tmp_path, name, seed=3)
    source = open_checkpoint(tmp_path)
    got = analyze_measured(measure_model(source))
    want = independent_analysis(name, weights)
    assert got.proxy == ("published" if name in PUBLISHED else "extension")
    assert len(got.matrices) == len(want["rows"])
    order = {"QK": 0, "V_tilde": 1, "M_in": 2, "M_out": 3, "M_gate": 4}
    want_rows = sorted(want["rows"], key=lambda r: (r["layer"], order[r["type"]]))
    for m, w in zip(got.matrices, want_rows):
        assert (m.layer, m.type) == (w["layer"], w["type"])
        k = len(w["sigma"])
        np.testing.assert_allclose(m.sigma[:k], w["sigma"], rtol=1e-9, atol=1e-12 * w["sigma"][0])
        assert np.all(m.sigma[k:] == 0)
        assert m.rank == w["rank"] and m.p_opt == w["p_opt"]
        assert m.gamma == pytest.approx(w["gamma"], rel=1e-9)
        assert m.norm_21 == pytest.approx(w["n21"], rel=1e-9)
        assert m.min_contribution == pytest.approx(w["minimum"], rel=1e-9)
    assert got.ours == pytest.approx(want["ours"], rel=1e-9)
    assert got.edelman == pytest.approx(want["edelman"], rel=1e-9)


def test_the_check_fails_on_a_mutant(tmp_path):
    """The independent side is sensitive: swapping LLaMA's key and value projections changes the answer."""
    weights = write_family(tmp_path, "llama", seed=3)
    got = analyze_measured(measure_model(open_checkpoint(tmp_path)))
    swapped = dict(weights)
    for i in range(LAYERS):
        a, b = f"model.layers.{i}.self_attn.k_proj.weight", f"model.layers.{i}.self_attn.v_proj.weight"
        swapped[a], swapped[b] = weights[b], weights[a]
    assert got.edelman != pytest.approx(independent_analysis("llama", swapped)["edelman"], rel=1e-6)


@pytest.mark.parametrize("name", ["gpt2", "llama", "bert"])
def test_dict_of_arrays_gives_the_folder_table(tmp_path, name):
    weights = write_family(tmp_path, name, seed=5)
    folder = analyze_measured(measure_model(open_checkpoint(tmp_path))).to_json()
    as_float32 = {k: v.astype(np.float32) for k, v in weights.items()}
    in_memory = analyze_measured(measure_model(open_checkpoint(as_float32, config=CONFIGS[name]))).to_json()
    assert in_memory == folder


def test_gqa_groups_query_heads_in_blocks(tmp_path):
    """Mistral fixture: 4 query heads share 1 key/value head, head_dim 8 != N / H; QK_h uses Wk of group h // 4."""
    write_family(tmp_path, "mistral", seed=1)
    source = open_checkpoint(tmp_path)
    assert (source.shape.heads, source.shape.kv_heads, source.shape.head_dim) == (4, 1, 8)
    layer = source.layer(0)
    assert layer.qk_left.shape == (4, 16, 8) and layer.qk_right.shape == (4, 8, 16)
    assert all(np.array_equal(layer.qk_right[h], layer.qk_right[0]) for h in range(4))


def test_unknown_architecture_is_one_line_naming_families_and_mapping(tmp_path, capsys):
    write_family(tmp_path, "bert")
    cfg = dict(CONFIGS["bert"], model_type="t5")
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert main(["analyze", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t5" in err and "--mapping" in err
    assert all(f in err for f in ("bert", "distilbert", "mpnet", "gpt2", "llama", "mistral", "qwen2", "vit"))


def test_published_families_report_no_departures_and_others_do(tmp_path):
    for name in ("distilbert", "gpt2", "llama"):
        write_family(tmp_path / name, name)
        a = analyze_measured(measure_model(open_checkpoint(tmp_path / name)))
        if name == "distilbert":
            assert a.proxy == "published" and a.departures == ()
        else:
            assert a.proxy == "extension" and any("pre-LN" in d for d in a.departures)
    assert any("grouped-query" in d for d in a.departures) and any("gated" in d for d in a.departures)


def test_qwen2_names_its_query_key_value_biases_among_the_departures(tmp_path):
    """Qwen2 is LLaMA's layer plus q/k/v biases, which the bound leaves out: said among the departures (and not
    for LLaMA itself), from a folder and from a GGUF file of architecture qwen2."""
    for name in ("llama", "qwen2"):
        write_family(tmp_path / name, name)
        a = analyze_measured(measure_model(open_checkpoint(tmp_path / name)))
        said = [d for d in a.departures if "biases" in d]
        assert (said != []) == (name == "qwen2"), a.departures
    assert "||b_q|| ||Wk|| + ||b_k|| ||Wq||" in said[0]
    from sabounds.numerics.checkpoints.gguf_file import GGUF_FAMILIES

    assert GGUF_FAMILIES["qwen2"].name == "qwen2" and GGUF_FAMILIES["llama"].name == "llama"


def test_gemma_norm_offset_rope_and_activation():
    """Gemma stores its RMSNorm weight as g - 1 and uses a GELU-tanh gate: radius sqrt(N) max|1 + g|, RoPE read."""
    from tests.support.family_files import raw_weights

    weights = raw_weights("llama", seed=4)
    cfg = dict(
        CONFIGS["llama"],
        model_type="gemma",
        hidden_activation="gelu_pytorch_tanh",
        rope_theta=500.0,
        partial_rotary_factor=0.5,
    )
    cfg.pop("hidden_act")
    for k in list(weights):
        if k.endswith("layernorm.weight"):
            weights[k] = weights[k] - 1.0
    source = open_checkpoint(weights, config=cfg)
    assert source.shape.activation == "gelu_tanh" and source.shape.rope.theta == 500.0
    assert source.shape.rope.rotary_dim == 2
    layer = source.layer(0)
    assert np.allclose(layer.mlp_norm, weights["model.layers.0.post_attention_layernorm.weight"] + 1.0)


@pytest.mark.parametrize(
    "field, value",
    [
        ("rope_theta", -1),
        ("rope_theta", "big"),
        ("rope_scaling", [1]),
        ("partial_rotary_factor", 0.01),
        ("rms_norm_eps", -1.0),
    ],
)
def test_bad_rope_or_eps_fields_are_one_line_errors(tmp_path, capsys, field, value):
    write_family(tmp_path, "llama")
    cfg = dict(CONFIGS["llama"], **{field: value})
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert main(["analyze", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and (field in err or "eps" in err)


@pytest.mark.parametrize("family, value", [("bert", -1.0), ("distilbert", "small"), ("bert", True)])
def test_a_post_ln_familys_bad_eps_is_refused_too(tmp_path, capsys, family, value):
    """A post-LN family reads no eps, but its LayerNorms' output bound needs eps >= 0: a stated bad one is refused."""
    write_family(tmp_path, family)
    cfg = dict(CONFIGS[family], layer_norm_eps=value)
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert main(["bound", str(tmp_path), "--n", "1e6", "--delta", "0.05", "--margin", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "field layer_norm_eps" in err and ">= 0" in err


def test_gpt2_without_the_score_scale_is_refused(tmp_path, capsys):
    """GPT-2's scale_attn_weights = false drops 1/sqrt(d_h) from the scores; the pre-LN attention factor divides
    by sqrt(d_h), so it would understate the factor by sqrt(d_h): one-line error, exit 2."""
    write_family(tmp_path, "gpt2")
    (tmp_path / "config.json").write_text(json.dumps(dict(CONFIGS["gpt2"], scale_attn_weights=False)))
    assert main(["analyze", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "scale_attn_weights" in err
    (tmp_path / "config.json").write_text(json.dumps(dict(CONFIGS["gpt2"], scale_attn_weights=True)))
    assert main(["analyze", str(tmp_path)]) == 0


def test_a_mapping_pointing_at_a_layernorm_takes_its_bias(tmp_path):
    """mlp_norm = a LayerNorm's weight: its bias (same name, .bias) enters the radius sqrt(N) max|g| + ||b||."""
    from sabounds.numerics.proxies.layer_factors import token_norm

    weights = raw_weights_with_bias = __import__("tests.support.family_files", fromlist=["raw_weights"]).raw_weights(
        "llama", seed=1
    )
    bias = np.full(16, 0.5, np.float32)
    raw_weights_with_bias["model.layers.0.post_attention_layernorm.bias"] = bias
    source = open_checkpoint(weights, config=CONFIGS["llama"])
    layer = source.layer(0)
    assert np.array_equal(layer.mlp_norm_bias, bias.astype(np.float64))
    assert token_norm(16, layer.mlp_norm, layer.mlp_norm_bias, "x").radius == pytest.approx(
        4 * float(np.max(np.abs(layer.mlp_norm))) + 2.0
    )
