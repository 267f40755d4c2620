"""Trauger and Tewari (2024) as a Bound: regime rows in every regime (exponents in L, N, T), its derivation's
checks and mutants, its source labels."""

from __future__ import annotations

import pytest
import sympy as sp

from sabounds.proofs_check import mutants as MU
from sabounds.theory import regimes as R
from sabounds.theory import trauger_tewari as TT
from sabounds.theory.architecture import single_head

# (regime, alpha) -> (depth power or "exp", width power, width log power): hand-derived from
# w_11 <= sqrt(d_in d_out) ||W||_F, ||W||_F^2 <= S_2 of the regime, ell = c_TT log(1 + 2 sum_k d_in d_out).
EXPECTED_N = {"frobenius": 1, "rank": 1, "spectral": sp.Rational(3, 2), "power_law": 1, "low_rank_tail": 1}


@pytest.mark.parametrize("regime", sorted(R.REGIMES))
@pytest.mark.parametrize("alpha", sorted(R.ALPHAS))
def test_regime_row(regime, alpha):
    row = R.bound_row(TT.bound(), single_head(), R.REGIMES[regime](), R.ALPHAS[alpha])
    assert row.token.best.power == 0 and row.token.best.log_power == 0 and not row.token.best.exponential
    assert row.width.best.power == EXPECTED_N[regime] and row.width.best.log_power == sp.Rational(1, 2)
    if alpha == "bounded":
        assert row.depth.best.power == sp.Rational(3, 2) and not row.depth.best.exponential
    else:
        assert row.depth.best.exponential
    assert row.note.startswith("reconstructed") and "c_TT" in row.note
    assert TT.c_TT in row.expr.free_symbols  # the unknown constant stays symbolic


def test_joint_comparison_includes_tt():
    r = R.named_result("frobenius", "bounded")
    assert "trauger_tewari" in r.bounds and r.joints["trauger_tewari"].baseline == "trauger_tewari"


def test_labels():
    d = TT.derivation()
    sources = {s.name: s.source for s in d}
    assert sources["slot_cover"] == "published" and sources["published_proxy"] == "published proxy"
    assert sources["extension_proxy"] == "extension" and sources["allocation"] == "reconstructed"
    assert [p.source for p in TT.bound().proxies] == ["published proxy", "extension"]


def test_every_mutant_dies():
    results = MU.audit([TT.derivation()], MU.QUICK)
    assert len(results) >= 10 and [m.step for m in results if not m.killed] == []


# --- on all-MiniLM-L6-v2: both TT proxies against an independent hand computation (typed afresh, no package code) ---


def _minilm_reference():
    import json
    import math

    import numpy as np
    from safetensors.numpy import load_file

    from sabounds.numerics.checkpoints.reader import default_model_dir

    d = default_model_dir()
    cfg = json.loads((d / "config.json").read_text())
    t = load_file(str(d / "model.safetensors"))
    pre = "bert." if any(k.startswith("bert.") for k in t) else ""
    n, heads, depth = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    dh = n // heads
    raw, layers = 0.0, []
    for l in range(depth):
        w = {
            k: t[f"{pre}encoder.layer.{l}.{k}.weight"].astype(np.float64)
            for k in (
                "attention.self.query",
                "attention.self.key",
                "attention.self.value",
                "attention.output.dense",
                "intermediate.dense",
                "output.dense",
            )
        }
        raw += sum(float(np.abs(x).sum()) for x in w.values())
        q, k, v, o = (
            w["attention.self.query"],
            w["attention.self.key"],
            w["attention.self.value"],
            w["attention.output.dense"],
        )
        qk = [q[h * dh : (h + 1) * dh].T @ k[h * dh : (h + 1) * dh] for h in range(heads)]
        vt = [v[h * dh : (h + 1) * dh].T @ o.T[h * dh : (h + 1) * dh] for h in range(heads)]
        m_in, m_out = w["intermediate.dense"].T, w["output.dense"].T
        spec = lambda x: float(np.linalg.norm(x, 2))
        layers.append(
            dict(
                qk=[(spec(x), float(np.abs(x).sum())) for x in qk],
                vt=[(spec(x), float(np.abs(x).sum())) for x in vt],
                m_in=(spec(m_in), float(np.abs(m_in).sum())),
                m_out=(spec(m_out), float(np.abs(m_out).sum())),
            )
        )
    lip = [
        1.13 * y["m_in"][0] * y["m_out"][0] * sum(sv * (1 + 4 * sq) for (sq, _), (sv, _) in zip(y["qk"], y["vt"]))
        for y in layers
    ]
    total = 0.0
    for l, y in enumerate(layers):
        alpha = math.prod(lip[l + 1 :])
        ff = y["m_out"][0] * y["m_in"][0]
        xi = sum((ff * sv * q11) ** (2 / 3) + (ff * v11) ** (2 / 3) for (_, q11), (sv, v11) in zip(y["qk"], y["vt"]))
        xi += (y["m_out"][0] * y["m_in"][1]) ** (2 / 3) + y["m_out"][1] ** (2 / 3)
        total += alpha ** (2 / 3) * xi
    return raw, (1 + total) ** 1.5


def test_minilm_values_match_a_hand_computation():
    from sabounds.numerics.checkpoints.reader import default_model_dir
    from sabounds.numerics.proxies.model_analysis import analyze_model

    got = {name: (source, float(v)) for name, source, v in analyze_model(default_model_dir()).baselines}
    raw, tt = _minilm_reference()
    assert got["trauger_tewari.tt_l1"][0] == "published proxy" and got["trauger_tewari.tt"][0] == "extension"
    assert got["trauger_tewari.tt_l1"][1] == pytest.approx(raw, rel=1e-9)
    assert got["trauger_tewari.tt"][1] == pytest.approx(tt, rel=1e-9)


def test_analyze_prints_tt_with_its_label(capsys):
    from sabounds.cli import main

    assert main(["analyze"]) == 0
    out = capsys.readouterr().out
    assert (
        "trauger_tewari.tt_l1 = 485546" in out and "(source: published proxy)" in out and "(source: extension)" in out
    )
