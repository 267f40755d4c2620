"""The study's statistics against values computed by hand on toy tables (no torch needed): Kendall's tau-b, its
bootstrap interval, granulated tau (Jiang et al. 2020) and the sign-error over one-axis pairs (Dziugaite et al.
2020), and the exclusion rule of the summary."""

import math

import pytest

pytest.importorskip("scipy", reason="the study's statistics use scipy (the `study` extra)")

from sabounds.training_study.statistics import bootstrap_interval, granulated, kendall, rank_measure, sign_error  # noqa: E402


def _row(a, b, c, g, seed=0):
    return {"config": {"a": a, "b": b}, "seed": seed, "values": {"m": c}, "gap": g}


# C rises 1..4; the gaps 0.1, 0.3, 0.2, 0.25 make 4 concordant and 2 discordant pairs:
# (1,2)+ (1,3)+ (1,4)+ (2,3)- (2,4)- (3,4)+  ->  tau = (4 - 2) / 6 = 1/3.
TOY = [_row(0, 0, 1.0, 0.10), _row(1, 0, 2.0, 0.30), _row(0, 1, 3.0, 0.20), _row(1, 1, 4.0, 0.25)]


def test_kendall_tau_by_hand():
    assert kendall([r["values"]["m"] for r in TOY], [r["gap"] for r in TOY]) == pytest.approx(1 / 3, abs=1e-15)
    # a tie in y: nc = 2, nd = 0, n0 = 3, ties in y = 1: tau_b = 2 / sqrt(3 * 2)
    assert kendall([1, 2, 3], [1, 1, 2]) == pytest.approx(2 / math.sqrt(6), abs=1e-15)
    assert math.isnan(kendall([1, 1, 1], [1, 2, 3])) and math.isnan(kendall([1], [2]))


def test_granulated_tau_by_hand():
    # axis a, grouped by b: b=0 {(1,.1),(2,.3)} tau 1; b=1 {(3,.2),(4,.25)} tau 1 -> psi_a = 1
    # axis b, grouped by a: a=0 {(1,.1),(3,.2)} tau 1; a=1 {(2,.3),(4,.25)} tau -1 -> psi_b = 0; Psi = 1/2
    out = granulated(TOY, "m", ["a", "b"])
    assert out == {"per_axis": {"a": 1.0, "b": 0.0}, "Psi": 0.5}


def test_sign_error_by_hand():
    # four environments: a at b=0 (0), a at b=1 (0), b at a=0 (0), b at a=1 (1): worst 1, mean 1/4
    assert sign_error(TOY, "m", ["a", "b"]) == {"worst": 1.0, "mean": 0.25, "environments": 4, "pairs": 4}


def test_sign_error_pools_seeds_per_environment_and_counts_a_tie_as_half():
    rows = [_row(0, 0, 1.0, 0.1, 0), _row(1, 0, 2.0, 0.0, 0),  # discordant: 1
            _row(0, 0, 1.0, 0.1, 1), _row(1, 0, 2.0, 0.2, 1),  # concordant: 0
            _row(0, 0, 1.0, 0.1, 2), _row(1, 0, 1.0, 0.2, 2)]  # measure tied: 1/2
    out = sign_error(rows, "m", ["a", "b"])
    assert out == {"worst": 0.5, "mean": 0.5, "environments": 1, "pairs": 3}


def test_runs_differing_in_two_axes_or_seeds_are_not_pairs():
    rows = [_row(0, 0, 1.0, 0.1, 0), _row(1, 1, 2.0, 0.0, 0), _row(1, 0, 2.0, 0.0, 1)]
    assert sign_error(rows, "m", ["a", "b"])["pairs"] == 0
    assert granulated(rows, "m", ["a", "b"]) == {"per_axis": {"a": None, "b": None}, "Psi": None}


def test_bootstrap_interval_is_reproducible_and_brackets_a_monotone_tau():
    x, y = list(range(10)), [v * v for v in range(10)]
    assert bootstrap_interval(x, y) == pytest.approx((1.0, 1.0), abs=1e-12)
    noisy = [0.3, 0.1, 0.4, 0.15, 0.5, 0.9, 0.2, 0.6, 0.55, 0.8]
    first, second = bootstrap_interval(x, noisy, seed=3), bootstrap_interval(x, noisy, seed=3)
    assert first == second and first[0] <= kendall(x, noisy) <= first[1]


def test_a_missing_measure_leaves_that_run_out_for_that_measure_only():
    rows = [*TOY, {"config": {"a": 0, "b": 0}, "seed": 1, "values": {"m": None}, "gap": 0.9}]
    out = rank_measure(rows, "m", ["a", "b"])
    assert out["runs"] == 4 and out["tau"] == pytest.approx(1 / 3, abs=1e-15)


def test_non_converged_and_failed_runs_are_listed_and_excluded():
    from sabounds.training_study.grids import BASE
    from sabounds.training_study.summary import rank_tasks, run_rows
    from dataclasses import replace
    specs = [replace(BASE["digits"], seed=s) for s in range(3)]
    measures = {m: float(i) for i, m in enumerate(__import__("sabounds.training_study.measures", fromlist=["x"]).MEASURES)}
    ok = {"record": {"converged": True, "gap_error": 0.1, "gap_loss": 0.2}, "measures": measures, "p_profile": {}}
    bad = {"record": {"converged": False, "gap_error": 0.5, "gap_loss": 0.2}, "measures": measures, "p_profile": {}}
    rows = run_rows(specs, [{"spec": specs[0].to_json(), **ok}, {"spec": specs[1].to_json(), **bad},
                            ValueError("boom\nsecond line")])
    assert [r["status"] for r in rows] == ["ok", "not converged", "error: ValueError: boom second line"]
    task = rank_tasks(rows)["digits"]
    assert task["runs"] == 3 and task["used"] == 1 and len(task["excluded"]) == 2
    assert all(r["runs"] == 1 for r in task["rankings"]["gap_error"])


def test_granulated_tau_counts_a_measure_constant_along_an_axis_as_zero():
    # Jiang et al. (2020) eq. 2/4: tau within a group is the mean of sgn(dC) sgn(dg) (a tie counts 0), so a measure
    # that ignores axis b (a parameter count along the learning rate) has psi_b = 0, and Psi averages it in; skipping
    # those groups gave psi_b = None and Psi = 1 (the measure looked perfect).
    rows = [_row(0, 0, 1.0, 0.1), _row(1, 0, 2.0, 0.3), _row(0, 1, 1.0, 0.2), _row(1, 1, 2.0, 0.4)]
    out = granulated(rows, "m", ["a", "b"])
    assert out == {"per_axis": {"a": 1.0, "b": 0.0}, "Psi": 0.5}
    # three values along a with a tie in the measure: pairs (+, +, 0) -> tau = 2/3 (tau-b would give 2/sqrt(6))
    rows = [_row(0, 0, 1.0, 0.1), _row(1, 0, 2.0, 0.2), _row(2, 0, 2.0, 0.3)]
    assert granulated(rows, "m", ["a"])["per_axis"]["a"] == pytest.approx(2 / 3, abs=1e-15)
