"""The section-6 proxies on the real all-MiniLM-L6-v2 checkpoint (and its truncations to 2 and 4 layers) equal an
independent implementation typed from THEORY.md sections 2, 3 and 6 to 1e-9 relative.

The independent side shares no code with the package: it loads the whole file with ``safetensors.numpy``, forms
every N x N product, takes full LAPACK SVDs, loops over the p grid in Python and types each formula afresh.
"""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest
from safetensors.numpy import load_file

from sabounds.cli import main
from sabounds.numerics.checkpoints.reader import default_model_dir
from sabounds.numerics.proxies.model_analysis import analyze_model
from tests.support.bert_files import config, random_weights, write_model

REL = 1e-9
LPHI = 1.13


@pytest.fixture(scope="module")
def model_dir():
    try:
        return default_model_dir()
    except Exception as exc:  # the real checkpoint is part of the test environment (Makefile installs it)
        pytest.fail(str(exc))


def _rank(sigma):
    return sum(1 for s in sigma if s > 1e-10 * len(sigma) * max(sigma[0], 1.0))


@functools.cache
def real_analysis(depth):
    return analyze_model(default_model_dir(), layers=depth)


def reference_layers(directory):
    """Per layer: list of (type, head, full-SVD singular values, (2,1)-norm), from the whole file in memory."""
    config = json.loads((directory / "config.json").read_text())
    tensors = load_file(str(directory / "model.safetensors"))
    prefix = "bert." if any(name.startswith("bert.") for name in tensors) else ""
    n, heads = config["hidden_size"], config["num_attention_heads"]
    dh = n // heads
    layers = []
    for l in range(config["num_hidden_layers"]):
        t = {
            name: tensors[f"{prefix}encoder.layer.{l}.{name}.weight"].astype(np.float64)
            for name in (
                "attention.self.query",
                "attention.self.key",
                "attention.self.value",
                "attention.output.dense",
                "intermediate.dense",
                "output.dense",
            )
        }
        q, k, v, o = (
            t["attention.self.query"],
            t["attention.self.key"],
            t["attention.self.value"],
            t["attention.output.dense"],
        )
        mats = []
        for h in range(heads):
            rows = slice(h * dh, (h + 1) * dh)
            mats.append(("QK", h, q[rows, :].T @ k[rows, :]))
        for h in range(heads):
            rows = slice(h * dh, (h + 1) * dh)
            mats.append(("V_tilde", h, v[rows, :].T @ o.T[rows, :]))
        mats.append(("M_in", -1, t["intermediate.dense"].T))
        mats.append(("M_out", -1, t["output.dense"].T))
        layers.append(
            [
                (kind, h, np.linalg.svd(w, compute_uv=False), float(np.sum(np.linalg.norm(w, axis=0))))
                for kind, h, w in mats
            ]
        )
    return n, heads, layers


@pytest.fixture(scope="module")
def real_reference(model_dir):
    return reference_layers(model_dir)


def reference_proxies(n, heads, all_layers, depth, lphi_in_gamma=False, qk_factor=1.0):
    """Section 6 typed from THEORY.md, loops everywhere, for the first ``depth`` layers as an L = depth model;
    ``lphi_in_gamma`` and ``qk_factor = 2`` give the section-3 variants."""
    layers = all_layers[:depth]
    L = depth
    m = math.ceil(L + math.log(n))
    grid = [j / m for j in range(2 * m + 1)]

    def norm(layer, kind, h):
        return next(s for kk, hh, s, _ in layer if kk == kind and hh == h)[0]

    def n21(layer, kind, h):
        return next(d for kk, hh, _, d in layer if kk == kind and hh == h)

    def lip(layer):
        att = sum(norm(layer, "V_tilde", h) * (1 + 4 * norm(layer, "QK", h)) for h in range(heads))
        return LPHI * norm(layer, "M_in", -1) * norm(layer, "M_out", -1) * att

    alpha = []
    for l in range(L):
        a = 1.0
        for k in range(l + 1, L):
            a *= lip(layers[k])
        alpha.append(a)
    rows, ours = [], 0.0
    for l, layer in enumerate(layers):
        for kind, h, sigma, _ in layer:
            if kind == "QK":
                gamma = 2 * norm(layer, "V_tilde", h) * norm(layer, "M_out", -1) * norm(layer, "M_in", -1)
            elif kind == "V_tilde":
                gamma = norm(layer, "M_out", -1) * norm(layer, "M_in", -1)
            elif kind == "M_in":
                gamma = norm(layer, "M_out", -1)
            else:
                gamma = 1.0
            if lphi_in_gamma and kind != "M_out":  # GELU sits between M_in and M_out
                gamma *= LPHI
            scale = gamma * alpha[l] * L
            rank = _rank(sigma)
            best_p, best = None, None
            for p in grid:
                # S_p over the numerically nonzero values: the rest are rounding noise of exact zeros (rank <= d_h)
                s_p = rank if p == 0 else sum(float(s) ** p for s in sigma[:rank])
                c = s_p ** (1 / (p + 2)) * scale ** (p / (p + 2)) * n ** ((p + 1) / (p + 2))
                if best is None or c < best:
                    best_p, best = p, c
            rows.append(
                {
                    "layer": l,
                    "head": h,
                    "type": kind,
                    "rank": rank,
                    "p_opt": best_p,
                    "min_contribution": best,
                    "alpha": alpha[l],
                    "gamma": gamma,
                    "scale": scale,
                    "spectral_norm": float(sigma[0]),
                    "norm_21": n21(layer, kind, h),
                }
            )
            ours += best
    ours += math.sqrt(L)
    inner = 1.0
    for l, layer in enumerate(layers):
        mo, mi = norm(layer, "M_out", -1), norm(layer, "M_in", -1)
        xi = 0.0
        for h in range(heads):
            xi += (qk_factor * mo * mi * norm(layer, "V_tilde", h) * n21(layer, "QK", h)) ** (2 / 3)
            xi += (mo * mi * n21(layer, "V_tilde", h)) ** (2 / 3)
        xi += (mo * n21(layer, "M_in", -1)) ** (2 / 3) + n21(layer, "M_out", -1) ** (2 / 3)
        inner += alpha[l] ** (2 / 3) * xi
    return {"grid_m": m, "rows": rows, "ours": ours, "edelman": inner**1.5}


@pytest.mark.parametrize("depth", [2, 4, 6])
def test_proxies_equal_independent_implementation(model_dir, real_reference, depth):
    got = real_analysis(depth)
    _assert_agree(got, reference_proxies(*real_reference, depth))
    assert got.variants.ours_lphi_in_gamma == pytest.approx(
        reference_proxies(*real_reference, depth, lphi_in_gamma=True)["ours"], rel=REL
    )
    assert got.variants.edelman_qk_factor_2 == pytest.approx(
        reference_proxies(*real_reference, depth, qk_factor=2.0)["edelman"], rel=REL
    )


@pytest.mark.parametrize("scale", [0.4, 0.45, 1.0])
def test_independent_agreement_where_p_opt_is_interior(tmp_path, scale):
    """Small random checkpoints whose weights are scaled so that p_opt takes interior grid values."""
    write_model(tmp_path, random_weights(seed=3, layers=3, scale=scale), config(layers=3), prefix="bert.")
    got = analyze_model(tmp_path)
    reference = reference_layers(tmp_path)
    _assert_agree(got, reference_proxies(*reference, 3))
    assert got.variants.ours_lphi_in_gamma == pytest.approx(
        reference_proxies(*reference, 3, lphi_in_gamma=True)["ours"], rel=REL
    )
    if scale < 1:
        assert any(0 < m.p_opt < 2 for m in got.matrices)


def _assert_agree(got, ref):
    depth = got.shape.layers
    heads = got.shape.heads
    assert got.grid_m == ref["grid_m"]
    assert len(got.matrices) == len(ref["rows"]) == depth * (2 * heads + 2)
    for mine, theirs in zip(got.matrices, ref["rows"]):
        assert (mine.layer, mine.head, mine.type) == (theirs["layer"], theirs["head"], theirs["type"])
        assert mine.rank == theirs["rank"]
        assert mine.p_opt == theirs["p_opt"]
        for key in ("min_contribution", "alpha", "gamma", "scale", "spectral_norm", "norm_21"):
            assert getattr(mine, key) == pytest.approx(theirs[key], rel=REL), key
    assert got.ours == pytest.approx(ref["ours"], rel=REL)
    assert got.edelman == pytest.approx(ref["edelman"], rel=REL)


def test_cli_json_matches_api(model_dir, capsys):
    assert main(["analyze", str(model_dir), "--layers", "2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    api = real_analysis(2).to_json()
    assert record["model"] == {
        "L": 2,
        "N": 384,
        "heads": 12,
        "head_dim": 32,
        "intermediate": 1536,
        "kv_heads": 12,
        "family": "bert",
        "layout": "post_ln",
        "activation": "gelu",
        "gated": False,
    }
    assert record["proxy"] == "published" and record["departures"] == []
    assert record["totals"] == api["totals"]
    assert set(record["matrices"][0]) == {
        "layer",
        "head",
        "type",
        "rank",
        "spectral_norm",
        "frobenius_norm",
        "norm_21",
        "stable_rank",
        "values",
        "alpha",
        "gamma",
        "scale",
        "p_opt",
        "min_contribution",
    }
    assert {m["values"] for m in record["matrices"]} == {"measured"}
    assert {m["type"] for m in record["matrices"]} == {"QK", "V_tilde", "M_in", "M_out"}
    assert all(m["head"] == -1 for m in record["matrices"] if m["type"] in ("M_in", "M_out"))


def test_every_matrix_chooses_p_zero_and_ours_is_the_rank_count(model_dir):
    """On this checkpoint alpha is huge, so p = 0 wins everywhere and ours = sum sqrt(rank N) + sqrt(L)."""
    got = real_analysis(6)
    assert all(m.p_opt == 0.0 for m in got.matrices)
    assert got.ours == pytest.approx(got.rank_count, rel=1e-12)
    assert {m.rank for m in got.matrices if m.type in ("QK", "V_tilde")} == {32}


def test_variants_are_labelled_and_move_the_right_way(model_dir):
    got = real_analysis(2)
    assert got.variants.edelman_qk_factor_2 > got.edelman
    assert got.variants.ours_lphi_in_gamma >= got.ours - 1e-9 * got.ours


def test_human_summary_states_the_reduction(model_dir, capsys):
    assert main(["analyze", str(model_dir), "--layers", "2"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "p_opt = 0 chosen by: QK 24/24, V_tilde 24/24, M_in 2/2, M_out 2/2" in out
    assert "rank count" in out and "alpha" in out


def test_scaling_over_truncations(model_dir, capsys):
    assert main(["scaling", str(model_dir), "--depths", "1,2,4", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [p["layers"] for p in record["points"]] == [1, 2, 4]
    for depth, point in zip((1, 2, 4), record["points"]):
        assert point["ours"] == pytest.approx(real_analysis(depth).ours, rel=1e-12)
    ours_fit = next(f for f in record["fits"] if f["quantity"] == "ours")
    assert ours_fit["slope_N"] is None
    ys = [math.log(p["ours"]) for p in record["points"]]
    xs = [math.log(p["layers"]) for p in record["points"]]
    assert ours_fit["slope_L"] == pytest.approx(np.polyfit(xs, ys, 1)[0], rel=1e-9)
