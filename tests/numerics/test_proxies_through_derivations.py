"""The proxies evaluated through the derivations agree with THEORY.md section 6's direct formulas to 1e-12."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sabounds.numerics.expressions.proxies_via_theory import stack_proxies
from sabounds.numerics.testbeds.random_matrices import FAMILIES, draw
from sabounds.theory.architecture import bert

L_PHI = 1.13


def _direct(layers, width):
    """Section 6 typed from the text, numpy only: ours (min over P_m, first minimiser) + sqrt(L); edelman."""
    L = len(layers)
    m = math.ceil(L + math.log(width))
    grid = np.arange(2 * m + 1) / m
    spec = lambda w: np.linalg.norm(w, 2)
    two_one = lambda w: np.linalg.norm(w, axis=0).sum()
    lip = []
    for lay in layers:
        att = sum(spec(v) * (1 + 4 * spec(q)) for q, v in zip(lay["QK"], lay["Vt"]))
        lip.append(L_PHI * spec(lay["M_in"][0]) * spec(lay["M_out"][0]) * att)
    alpha = [math.prod(lip[i + 1 :]) for i in range(L)]
    ours, edel = 0.0, 0.0
    for i, lay in enumerate(layers):
        so, si = spec(lay["M_out"][0]), spec(lay["M_in"][0])
        mats = [(q, 2 * spec(v) * so * si) for q, v in zip(lay["QK"], lay["Vt"])]
        mats += [(v, so * si) for v in lay["Vt"]] + [(lay["M_in"][0], so), (lay["M_out"][0], 1.0)]
        for w, gamma in mats:
            sig = np.linalg.svd(w, compute_uv=False)
            rank = np.count_nonzero(sig > 1e-10 * sig.size * max(sig.max(), 1.0))
            best = None
            for pv in grid:
                s_p = rank if pv == 0 else np.sum(sig**pv)
                c = s_p ** (1 / (pv + 2)) * (gamma * alpha[i] * L) ** (pv / (pv + 2)) * width ** ((pv + 1) / (pv + 2))
                best = c if best is None or c < best else best
            ours += best
        xi = sum(
            (so * si * spec(v) * two_one(q)) ** (2 / 3) + (so * si * two_one(v)) ** (2 / 3)
            for q, v in zip(lay["QK"], lay["Vt"])
        )
        xi += (so * two_one(lay["M_in"][0])) ** (2 / 3) + two_one(lay["M_out"][0]) ** (2 / 3)
        edel += alpha[i] ** (2 / 3) * xi
    return ours + math.sqrt(L), (1 + edel) ** 1.5


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_layers=st.integers(1, 4), heads=st.integers(1, 3), d_h=st.integers(2, 6))
def test_proxies_agree_with_direct_formulas(seed, n_layers, heads, d_h):
    rng = np.random.default_rng(seed)
    width = heads * d_h
    fam = lambda: FAMILIES[int(rng.integers(len(FAMILIES)))]
    layers = [
        {
            "QK": [draw("low_rank", rng, width, width, rank=min(d_h, width)) for _ in range(heads)],
            "Vt": [draw(fam(), rng, width, width) for _ in range(heads)],
            "M_in": [draw(fam(), rng, width, 4 * width)],
            "M_out": [draw(fam(), rng, 4 * width, width)],
        }
        for _ in range(n_layers)
    ]
    got = stack_proxies(layers, bert(), width)
    ours, edel = _direct(layers, width)
    assert abs(got.ours - ours) <= 1e-12 * abs(ours)
    assert abs(got.edelman - edel) <= 1e-12 * abs(edel)


def test_architecture_variants_are_data_not_edits():
    """A residual connection or another activation constant changes alpha through the description alone."""
    import pytest

    from sabounds.numerics.expressions.proxies_via_theory import StackError
    from sabounds.theory.architecture import L_phi, single_head

    rng = np.random.default_rng(0)
    layers = [{k: [draw("power_law", rng, 6, 6)] for k in ("QK", "V", "FF")} for _ in range(3)]
    plain = stack_proxies(layers, single_head(), 6)
    residual = stack_proxies(layers, single_head().with_residual(), 6)
    relu = stack_proxies(layers, single_head().with_constant(L_phi, 1), 6)
    assert (
        all(r > a for r, a in zip(residual.alpha[:-1], plain.alpha[:-1])) and residual.alpha[-1] == plain.alpha[-1] == 1
    )
    assert all(abs(x / y - (1 / 1.13) ** (2 - i)) < 1e-12 for i, (x, y) in enumerate(zip(relu.alpha, plain.alpha)))
    with pytest.raises(StackError):
        stack_proxies([{"QK": layers[0]["QK"]}], single_head(), 6)
