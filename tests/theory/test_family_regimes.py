"""Regime tables per architecture with the best tail: GPT-2, LLaMA and ViT layers (``theory/family_architectures``),
BERT's multi-head table, and BERT with its head count held fixed, whose width exponents are the single-head table's."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
import sympy as sp

from sabounds.cli import main

ROUTES = ("ours_sum", "ours_rss", "ours_sum_sharp", "ours_rss_sharp")


def _table(capsys, architecture: str, regime: str) -> list[dict]:
    assert main(["regimes", "--architecture", architecture, "--regime", regime, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["regimes"]


def _power(record: dict) -> tuple:
    """Exponent as an orderable key: exponential growth beyond every power."""
    e = record["exponent"]
    return (1, 0) if e == "exponential" else (0, Fraction(e))


def test_input_norm_folds_into_gamma():
    """Every cover depends on the input norm B and rho_k only through B rho_k, so a slot's input norm B_k is its
    gamma times B_k / B (the family architectures' convention): checked at random points, crude and sharp tails."""
    from sabounds.theory.thm31 import slot_log_cover, slot_log_cover_sharp
    from sabounds.theory.thm41 import B

    d_in, d_out, S, K, rho, x = sp.symbols("d_in_ d_out_ S_ K_ rho_ x_", positive=True)
    rng = random.Random(3)
    for build in (
        lambda r: slot_log_cover(d_in, d_out, S, K, r),
        lambda r: slot_log_cover_sharp(d_in, d_out, S, K, r, sp.Rational(1, 2)),
    ):
        folded = build(rho * x).subs(B, B / x)
        plain = build(rho)
        free = sorted(folded.free_symbols | plain.free_symbols, key=str)
        for _ in range(3):
            point = {s: sp.Rational(rng.randint(2, 50), rng.randint(1, 5)) for s in free}
            point[sp.Symbol("Delta", positive=True)] = sp.Rational(1, 1000)  # a small scale: the log factors positive
            a, b = sp.N(folded.subs(point), 30), sp.N(plain.subs(point), 30)
            assert abs(a - b) <= 1e-25 * abs(b)
        assert abs(sp.N(build(rho * 2).subs(point), 30) - sp.N(plain.subs(point), 30)) > 1e-6 * abs(
            sp.N(plain.subs(point))
        )


# Each architecture's table is computed from scratch (~7 s): one pre-LN family in the quick lane, the rest in `make test`.
@pytest.mark.parametrize(
    "architecture", ["gpt2", *(pytest.param(a, marks=pytest.mark.slow) for a in ("llama", "vit", "bert"))]
)
def test_every_family_table_takes_the_best_tail(architecture, capsys):
    rows = _table(capsys, architecture, "frobenius")
    assert {r["alpha"] for r in rows} == {"bounded", "exponential"}
    for r in rows:
        assert r["architecture"] == architecture
        for var in ("depth", "width"):
            best = _power(r["bounds"]["ours_best_p"][var])
            assert best == min(_power(r["bounds"][k][var]) for k in ROUTES), (r["alpha"], var)
        assert "sharp" in r["bounds"]["ours_best_p"]["note"]


@pytest.mark.slow  # four regime tables computed from scratch (two architectures, two regimes)
def test_bert_with_fixed_heads_has_the_single_head_width_exponents(capsys):
    """BERT's table (H = N/d_h heads, d_h fixed) adds the heads' growth with N; with H fixed (d_h = N/H) every
    width exponent, best tail included, is the single-head table's."""
    for regime in ("frobenius", "power_law"):
        fixed, single = _table(capsys, "bert_fixed_heads", regime), _table(capsys, "single_head", regime)
        for a, b in zip(fixed, single):
            assert a["alpha"] == b["alpha"]
            widths = {
                k: (a["bounds"][k]["width"]["exponent"], b["bounds"][k]["width"]["exponent"]) for k in a["bounds"]
            }
            assert all(x == y for x, y in widths.values()), widths
            assert (
                a["bounds"]["ours_best_p"]["width"]["exponent"] == "1/2"
            )  # the sharp tail's, below the crude 3/4 or 2/3
            assert a["bounds"]["ours_best_p_crude"]["width"]["exponent"] != "1/2"


def test_pre_ln_layer_lipschitz_is_the_extension_composition():
    from sabounds.theory.architecture import ARCHITECTURES
    from sabounds.theory.family_architectures import lam

    arch = ARCHITECTURES["gpt2"]()
    assert arch.layer_lipschitz.subs(lam, 0) == 1  # residual paths only
    assert sp.Poly(sp.expand(arch.layer_lipschitz), lam).degree() == 2  # (1 + lam A)(1 + lam F)
    with pytest.raises(ValueError):
        arch.layer_lipschitz_of({}, [{}])


@pytest.mark.slow  # pdflatex
@pytest.mark.parametrize("architecture", ["gpt2", "llama", "vit", "bert_fixed_heads"])
def test_family_regime_table_typesets(architecture, tmp_path, capsys):
    """The new architectures' LaTeX tables fit the page in docs/preamble.tex like single_head's and bert's."""
    from tests.outputs.test_latex_compiles import MIN_SCALE, compile_problems, pdflatex, table_scales

    if pdflatex is None:
        pytest.skip("no pdflatex here (apt-get install texlive-latex-base)")
    from sabounds.theory.printer import standalone

    assert main(["regimes", "--format", "latex", "--architecture", architecture, "--regime", "frobenius"]) == 0
    body = capsys.readouterr().out
    assert compile_problems(standalone(body), tmp_path) == []
    assert min(table_scales(tmp_path)) >= MIN_SCALE
