"""A user's bound from a TOML file (docs/bounds.md): the worked spectral-norm product's regime row and its
all-MiniLM-L6-v2 number against hand computations; malformed files get one line and exit 2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from sabounds.cli import main
from sabounds.theory import regimes as R
from sabounds.theory.symbols import B, Delta, L, N, T, n, s
from sabounds.user_bound import MAX_BYTES, load_bound

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "bound_example" / "spectral_product.toml"


def test_regime_row_matches_hand_computation():
    """single_head: three N x N slots per layer, each ||W||_2 <= s, so W = s^(3L); ell = log(1 + 2 (3 N^2))."""
    bound = load_bound(EXAMPLE)
    hand = 4 * Delta / n + 12 * s ** (3 * L) * B * sp.sqrt(sp.log(6 * N**2 + 1) / n) * sp.log(n)
    for regime in R.REGIMES:
        for alpha in R.ALPHAS:
            row = R.bound_row(bound, R.single_head(), R.REGIMES[regime](), R.ALPHAS[alpha])
            assert sp.simplify(row.expr - hand) == 0
            c = sp.Symbol("c_s", positive=True)
            assert row.depth.best.exponential and sp.simplify(row.depth.best.rate - 3 * sp.log(1 + c)) == 0
            assert row.width.best.power == 0 and row.width.best.log_power == sp.Rational(1, 2)
            assert row.token.best.power == 0 and row.token.best.log_power == 0
            assert row.note.startswith("user:") and "s > 1" in row.note
    assert T not in hand.free_symbols


def test_regimes_cli_has_the_user_row_in_every_table(capsys):
    assert main(["regimes", "--regime", "rank", "--bound", str(EXAMPLE)]) == 0
    rows = [line.split(" | ")[:3] for line in capsys.readouterr().out.splitlines() if line.startswith("| rank |")]
    alphas = {alpha for _, alpha, _ in rows}
    assert alphas and {alpha for _, alpha, bound in rows if bound == "spectral_product"} == alphas


@pytest.mark.slow  # the JSON record adds the joint comparison's second route (~10 s)
def test_regimes_cli_json_has_the_user_row(capsys):
    assert main(["regimes", "--regime", "rank", "--bound", str(EXAMPLE), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all("spectral_product" in r["bounds"] for r in data["regimes"])


def _minilm_spectral_product():
    """prod over every QK_h, Vt_h, M_in, M_out of ||W||_2: typed afresh from the safetensors file (LAPACK 2-norms)."""
    from safetensors.numpy import load_file

    from sabounds.numerics.checkpoints.reader import default_model_dir

    d = default_model_dir()
    cfg = json.loads((d / "config.json").read_text())
    t = load_file(str(d / "model.safetensors"))
    pre = "bert." if any(k.startswith("bert.") for k in t) else ""
    heads, dh = cfg["num_attention_heads"], cfg["hidden_size"] // cfg["num_attention_heads"]
    log_total = 0.0
    for l in range(cfg["num_hidden_layers"]):
        w = lambda k: t[f"{pre}encoder.layer.{l}.{k}.weight"].astype(np.float64)
        q, k, v, o = (
            w("attention.self.query"),
            w("attention.self.key"),
            w("attention.self.value"),
            w("attention.output.dense"),
        )
        mats = [q[h * dh : (h + 1) * dh].T @ k[h * dh : (h + 1) * dh] for h in range(heads)]
        mats += [v[h * dh : (h + 1) * dh].T @ o.T[h * dh : (h + 1) * dh] for h in range(heads)]
        mats += [w("intermediate.dense").T, w("output.dense").T]
        log_total += sum(math.log(np.linalg.norm(m, 2)) for m in mats)
    return math.exp(log_total)


def test_minilm_number_matches_hand_computation():
    from sabounds import api

    result = api.analyze(_default(), user_bound=str(EXAMPLE))
    got = dict((name, (src, v)) for name, src, v in result.analysis.baselines)
    src, value = got["spectral_product.spectral_product"]
    assert src == "user" and float(value) == pytest.approx(_minilm_spectral_product(), rel=1e-9)


def _default():
    from sabounds.numerics.checkpoints.reader import default_model_dir

    return default_model_dir()


@pytest.mark.parametrize(
    "text, words",
    [
        ('id = "x"\n', "entry term: missing"),
        (
            'id = "x"\nterm = "__import__(1)"\naggregation = "sum"\npropagation = "none"\nlog_factor = "1"\n',
            "entry term: function",
        ),
        ('id = "x"\nterm = "s"\naggregation = "median"\npropagation = "none"\nlog_factor = "1"\n', "entry aggregation"),
        ('id = "x"\nterm = "rho * s"\naggregation = "sum"\npropagation = "none"\nlog_factor = "1"\n', "entry term"),
        (
            'id = "x"\nterm = "s"\naggregation = "sum"\npropagation = "none"\nlog_factor = "1"\ncolour = "red"\n',
            "entry colour",
        ),
        ("id = [1\n", "not valid TOML"),
        ("# " + "x" * (MAX_BYTES + 10) + "\n", "larger than"),
    ],
)
def test_malformed_files_one_line_exit_2(tmp_path, capsys, text, words):
    path = tmp_path / "b.toml"
    path.write_text(text)
    assert main(["regimes", "--bound", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_user_bound_whose_growth_orders_do_not_end_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    """``exp(exp(s))`` sent sympy's growth orders into an endless computation; the user's rows get a time limit."""
    import sabounds.api._regimes as regimes_api

    monkeypatch.setattr(regimes_api, "USER_ROWS_SECONDS", 3)
    path = tmp_path / "tower.toml"
    path.write_text(
        'id = "tower"\ntitle = "t"\nterm = "exp(exp(s))"\naggregation = "exp"\npropagation = "none"\nlog_factor = "1"\n'
    )
    assert main(["regimes", "--regime", "rank", "--bound", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "within 3 s" in err
