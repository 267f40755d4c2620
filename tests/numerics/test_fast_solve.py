"""The bound's fast solve path gives the straightforward path's results on small models (issue 31 item 6)."""

from __future__ import annotations

import math
from dataclasses import replace

import mpmath
import numpy as np
import pytest

from sabounds.numerics.bound.compiled import compiled
from sabounds.numerics.bound.descent import coordinate_descent, others_log_sum
from sabounds.numerics.bound.slots import PUBLISHED, VARIANTS, shell_cost
from sabounds.numerics.bound.solve import (
    BISECTION_STEPS,
    LOG_FLOAT_MAX,
    MAX_BRACKET_STEPS,
    n_needed,
    proxy_break_even,
    whole_break_even,
)
from sabounds.numerics.bound.whole import (
    BoundInputs,
    _logsumexp,
    choose,
    coordinate_descent_plain,
    log_sum_shares,
    objective_for,
    radii_tables,
    remembering,
    tables,
)
from tests.numerics.test_whole_bound import random_model

SETTING = BoundInputs(n=10**6, delta=0.05, margin=1.0)


def _tables(scale: float, seed: int = 0):
    model = random_model(seed, scale=scale)
    comp = compiled(SETTING.constants)
    return model, comp, tables(model, PUBLISHED, SETTING, comp)


def test_others_log_sum_is_the_log_sum_of_every_other_slot():
    current = np.random.default_rng(0).normal(scale=30, size=23)
    expected = [_logsumexp(np.delete(current, k)) for k in range(len(current))]
    np.testing.assert_allclose(others_log_sum(current), expected, rtol=1e-14)
    assert others_log_sum(np.array([1.5]))[0] == -np.inf


@pytest.mark.parametrize("scale", [1.0, 0.3, 0.1])
@pytest.mark.parametrize("aggregation", ["sum", "rss"])
def test_fast_descent_is_the_plain_descent(scale, aggregation):
    """Same choice and objective from p = 0, each slot's own minimiser and random starts (many moves per sweep)."""
    model, comp, t = _tables(scale)
    log_v = t.log_sum if aggregation == "sum" else t.log_cs
    obj = objective_for(comp, SETTING, aggregation)
    rng = np.random.default_rng(1)
    starts = [np.zeros(model.K, dtype=int), np.argmin(log_v, axis=1)] + [
        rng.integers(0, len(model.ps), model.K) for _ in range(3)
    ]
    for start in starts:
        plain, v_plain = coordinate_descent_plain(log_v, t.cost, t.base_cost, obj, start)
        fast, v_fast = coordinate_descent(log_v, t.cost, t.base_cost, obj, start)
        assert np.array_equal(plain, fast)
        assert v_fast == pytest.approx(v_plain, rel=1e-14)
    assert np.array_equal(
        choose(log_v, t.cost, t.base_cost, obj), choose(log_v, t.cost, t.base_cost, obj, coordinate_descent_plain)
    )


@pytest.mark.parametrize("scale", [1.0, 0.3])
def test_vectorised_radii_tables_are_the_per_slot_loop(scale):
    model = random_model(2, scale=scale)
    lM, cost = radii_tables(model)
    for i, s in enumerate(model.slots):
        for j, p in enumerate(model.ps):
            z = s.schatten_shell(j)
            assert (lM[i, j], cost[i, j]) == (
                (math.log(max(s.rank, 1)), math.log(s.dim)) if p == 0 else (z * math.log(2), shell_cost(z))
            )


def _plain_slot_factor(comp, model, t, obj, choice, k):
    """One slot's whole-bound break-even, the straightforward way: a bracket and bisection of its own."""
    rows = np.arange(model.K)
    chosen = t.log_sum[rows, choice]
    others = np.delete(chosen, k)
    c_other = t.base_cost + t.cost[rows, choice].sum() - t.cost[k, choice[k]]

    def gap(x):
        row = log_sum_shares(comp, model, SETTING, np.array([t.lrho[k] - x]), t.lM[k : k + 1], rows=[k], norms=t.norms)[
            0
        ][0]
        values = obj(
            _logsumexp(np.concatenate([np.broadcast_to(others, (len(row), len(others))), row[:, None]], axis=1)),
            c_other + t.cost[k],
        )
        return float(np.min(values[1:]) - values[0])

    lo, step = 0.0, 1.0
    if gap(lo) < 0:
        return 1.0
    for _ in range(MAX_BRACKET_STEPS):
        if lo >= LOG_FLOAT_MAX:
            return None
        hi = lo + step
        if gap(hi) < 0:
            break
        lo, step = hi, 2 * step
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if gap(mid) < 0 else (mid, hi)
    return math.exp(hi)


@pytest.mark.parametrize("scale", [1.0, 0.3])
def test_lockstep_break_even_is_each_slots_own_bisection(scale):
    """Every slot's factor as its own bracket and bisection finds it, to the bisection's resolution."""
    model, comp, t = _tables(scale)
    obj = objective_for(comp, SETTING, "sum")
    choice = choose(t.log_sum, t.cost, t.base_cost, obj)
    be = whole_break_even(model, PUBLISHED, SETTING, t, choice)
    for k, f in enumerate(be.per_slot):
        if model.ps[choice[k]] > 0:
            assert f == 1
            continue
        plain = _plain_slot_factor(comp, model, t, obj, choice, k)
        assert (f is None) == (plain is None)
        if plain is not None:
            assert float(f) == pytest.approx(plain, rel=1e-10), k
    assert be.model_factor is None or be.model_factor <= min(f for f in be.per_slot if f is not None) * (
        1 + mpmath.mpf("1e-11")
    )


@pytest.mark.parametrize("scale", [1.0, 0.3, 1e-3, 1e3])
@pytest.mark.parametrize("seed", [0, 1])
def test_screened_proxy_break_even_is_the_minimum_over_every_grid_point(seed, scale):
    """The float64 screen leaves the mpmath minimum unchanged, bit for bit (every grid point against the screened)."""
    model = random_model(seed, scale=scale)
    screened, every = proxy_break_even(model), proxy_break_even(model, screen=None)
    assert screened.per_slot == every.per_slot
    assert (screened.model_factor, screened.model_slot) == (every.model_factor, every.model_slot)


@pytest.mark.parametrize("which", ["ours_sum", "ours_rss", "edelman"])
def test_remembered_values_change_no_solve(which):
    """Inside ``remembering`` (rho, B_k, radii tables and W_E kept across n) every solve's numbers are as without."""
    model = random_model(3, scale=0.3)
    fresh = [n_needed(replace(model), variant, SETTING, which) for variant in VARIANTS]
    with remembering():
        kept = [n_needed(model, variant, SETTING, which) for variant in VARIANTS for _ in range(2)]
    assert kept[::2] == fresh and kept[1::2] == fresh
