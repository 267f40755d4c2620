"""The printed evaluators (``numerics/expressions/generated.py``) are current, agree with the sympy they were printed
from (mpmath at 50 digits, 1e-12 relative) and with the hand-typed numpy oracle (1e-12 relative), and the
``analyze`` path builds no sympy expression."""

from __future__ import annotations

import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from sabounds.numerics.expressions import generate
from sabounds.numerics.expressions import generated as G
from sabounds.numerics.expressions.aggregation import log_catalog
from sabounds.numerics.expressions.published_compiled import grid_size, log_edelman, minimise_ours, ours_total
from sabounds.numerics.proxies.published_factors import LayerNorms, log_alphas, log_gammas, p_grid
from sabounds.theory import symbols as S
from sabounds.theory.catalog import data_bounds
from sabounds.theory.thm31 import grid_m, proxy_post_hoc, proxy_summand
from tests.support import published_reference as ref

REL = 1e-12


def test_the_committed_file_is_what_the_generator_prints():
    assert generate.TARGET.read_text() == generate.source(), (
        f"numerics/expressions/generated.py is stale: run `{generate.COMMAND}` and commit it"
    )


def test_every_data_proxy_but_ours_is_printed():
    keys = {f"{e.id}.{x.name}" for e in data_bounds() for x in e.bound().proxies if not x.over_grid}
    assert set(G.PROXIES) == keys and set(G.BASELINES) < keys
    assert [x.name for e in data_bounds() for x in e.bound().proxies if x.over_grid] == ["ours"]


def test_grid_m_equals_the_exact_ceiling():
    for L in (1, 2, 6, 12, 64):
        for N in (1, 2, 3, 7, 64, 128, 384, 768, 1024, 4096, 10**6):
            assert G.grid_m(L, N) == int(grid_m.subs({S.L: L, S.N: N}))


def _mp(expr, values):
    with mpmath.workdps(50):
        return sp.lambdify(list(values), expr, modules="mpmath")(*(mpmath.mpf(v) for v in values.values()))


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(0, 40), lM=st.floats(-20, 40), lrho=st.floats(-200, 200), L=st.integers(1, 48), N=st.integers(2, 8192)
)
def test_ours_summand_agrees_with_the_sympy_at_50_digits(p, lM, lrho, L, N):
    """``ln proxy_summand`` printed in logs equals the summand evaluated by mpmath at 50 digits, p on a grid of 1/20."""
    pv = p / 20
    at = G.log_ours_summand_at_0 if p == 0 else G.log_ours_summand
    printed = float(at(pv, lM, lrho, L, math.log(N)))
    with mpmath.workdps(50):
        exact = mpmath.log(
            _mp(
                proxy_summand.subs(S.p, sp.Rational(p, 20)),
                {S.M: mpmath.exp(lM), S.rho: mpmath.exp(lrho), S.L: L, S.N: N},
            )
        )
    assert abs(printed - float(exact)) <= REL * max(1.0, abs(float(exact)))
    assert G.ours_post_hoc(L) == pytest.approx(float(proxy_post_hoc.subs(S.L, L)), rel=1e-15)


@settings(max_examples=40, deadline=None)
@given(logs=st.lists(st.tuples(st.floats(-50, 50), st.floats(-50, 50)), min_size=1, max_size=30))
def test_catalog_proxies_agree_with_their_sympy_at_50_digits(logs):
    """Each printed catalog proxy equals ``aggregate(offset + sum_k term_k)`` of its sympy at 50 digits."""
    a, b = (np.array(x) for x in zip(*logs))
    for entry in data_bounds():
        for proxy in entry.bound().proxies:
            if proxy.over_grid:
                continue
            printed = G.PROXIES[f"{entry.id}.{proxy.name}"]
            values = dict(zip(printed.symbols, (a, b)))
            with mpmath.workdps(50):
                total = sum(
                    _mp(proxy.term, {getattr(S, x): mpmath.exp(values[x][k]) for x in printed.symbols})
                    for k in range(len(a))
                )
                exact = mpmath.log(
                    _mp(proxy.value(sp.Symbol("t", positive=True)), {sp.Symbol("t", positive=True): total})
                )
            assert abs(log_catalog(printed, values) - float(exact)) <= REL * max(1.0, abs(float(exact)))


def _layer(rng, heads, scale):
    return LayerNorms(
        *(scale * rng.uniform(0.1, 3, heads) for _ in range(2)),
        *(scale * rng.uniform(0.1, 3, 2)),
        *(scale * rng.uniform(1, 50, heads) for _ in range(2)),
        *(scale * rng.uniform(1, 50, 2)),
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    depth=st.integers(1, 8),
    heads=st.integers(1, 4),
    width=st.integers(8, 1024),
    scale=st.sampled_from([0.3, 1.0, 4.0]),
)
def test_compiled_proxies_agree_with_the_numpy_reference(seed, depth, heads, width, scale):
    """ours (every slot's minimum over P_m, its first minimiser, the total) and edelman, both variants, from the
    printed evaluators equal the hand-typed numpy of tests/support/published_reference.py to 1e-12 relative."""
    rng = np.random.default_rng(seed)
    layers = [_layer(rng, heads, scale) for _ in range(depth)]
    alpha = log_alphas(layers)
    m = grid_size(depth, width)
    assert m == ref.default_grid_m(depth, width)
    ps = p_grid(m)
    log_rho, gammas_e, norm_21 = [], [], []
    for a, n in zip(alpha, layers):
        g = log_gammas(n)
        log_rho += [*(a + g.qk), *(a + g.vt), a + g.m_in, a + g.m_out]
        gammas_e += [*(a + g.qk - math.log(2)), *(a + g.vt), a + g.m_in, a + g.m_out]
        norm_21 += [*n.qk_21, *n.vt_21, n.m_in_21, n.m_out_21]
    sigmas = [np.sort(rng.uniform(0, 5, 6))[::-1] * rng.choice([0, 1], 6, p=[0.3, 0.7]) for _ in log_rho]
    s_p = np.array([[np.sum(s[s > 0] ** q) if q > 0 else np.count_nonzero(s) for q in ps] for s in sigmas])
    s_p[:, 0] = np.maximum(s_p[:, 0], 1)
    with np.errstate(divide="ignore"):
        _, best, minima = minimise_ours(np.log(s_p), ps, np.array(log_rho), depth, width)
    _, ref_best, ref_minima = ref.minimise(s_p, ps, np.exp(np.array(log_rho)) * depth, width)
    np.testing.assert_allclose(minima, ref_minima, rtol=REL)
    assert ours_total(minima, depth) == pytest.approx(float(np.sum(ref_minima)) + math.sqrt(depth), rel=REL)
    for qk_factor in (1.0, 2.0):
        shifted = np.array(gammas_e) + np.array(
            [math.log(qk_factor) if i % (2 * heads + 2) < heads else 0.0 for i in range(len(gammas_e))]
        )
        assert log_edelman(shifted, np.array(norm_21)) == pytest.approx(
            ref.log_edelman(layers, alpha, qk_factor), rel=REL
        )


def test_the_analyze_path_builds_no_sympy_expression(tmp_path):
    """Work counted, not timed: after ``sabounds analyze --json`` on the bundled model, sympy was never imported."""
    code = (
        "import sys, io, contextlib\nfrom sabounds.cli import main\nsys.argv = ['sabounds', 'analyze', '--json']\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    try:\n        main()\n    except SystemExit as e:\n"
        "        assert not e.code, e.code\n"
        "print(sorted(m for m in sys.modules if m == 'sympy' or m.startswith(('sympy.', 'sabounds.theory'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", out.stdout


def test_theorem_31_derives_its_dudley_integrals_on_first_use_not_at_import():
    code = (
        "import sabounds.theory.thm31 as t\nbefore = t._dudley_constants.cache_info().currsize\n"
        "value = t.dudley_constant\nprint(before, t._dudley_constants.cache_info().currsize, value)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[:2] == ["0", "1"], out.stdout


def test_the_generator_takes_no_arguments(capsys):
    assert generate.main(["--out", "x"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
