"""Claim 4 on the spectra people meet (issue 29): the break-even scale found by bisection is the scan's, and the
prescribed families and N, r are all there."""

from __future__ import annotations

import math

import numpy as np

from sabounds.proofs_check import claims


def test_the_conditions_cover_four_families_three_widths_three_ranks():
    rows = list(claims.spectra_met())
    assert len(rows) == 54
    assert {w for _, w, _, _ in rows} == {64, 384, 768} and {r for _, _, r, _ in rows} == {4, 16, 64}
    names = {n for n, *_ in rows}
    assert {"flat", "low rank plus tail", "full-rank decay"} <= names and sum(
        n.startswith("power-law") for n in names
    ) == 3


def test_break_even_by_bisection_equals_the_scan_and_flips_the_pick():
    """The tails rise in kappa and the rank cover does not, so p = 0 is picked from one scale on: the bisection's
    scale is the first 2^(k/4) of a scan, and one step below it some p > 0 is picked."""
    for sigma, width in ((np.arange(1, 17) ** -2.0, 64), (np.exp(-np.arange(384) / 16), 384), (np.ones(4), 64)):
        star, _ = claims._break_even(sigma, width, width)
        log_sp = claims._log_schatten(sigma)
        picks = [claims._picked_grid(log_sp, width, width, width, k / 4 * math.log(2))[0] for k in range(-40, 120)]
        first = next(k for k, p in zip(range(-40, 120), picks) if p == 0)
        assert star == 2 ** (first / 4) and all(p == 0 for p in picks[first + 40 :])
        if first > -40:
            assert picks[first + 39] != 0
