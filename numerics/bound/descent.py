"""Coordinate descent over the grid of p, one slot at a time, without re-summing the other slots per candidate.

The same Gauss-Seidel descent as :func:`sabounds.numerics.bound.whole.coordinate_descent_plain` (slots in order,
each moved to the grid point that minimises the objective given the others, sweeps until no slot moves), found
faster: the others' log-sum of slot k is ``logaddexp(prefix_k, suffix_k)`` (running log-sums of the current
shares), and the slots are scanned in blocks, numpy over a block of slots and every grid point at once; a block
is kept up to its first slot that moves, which is then moved, and the scan resumes after it (a slot before the
first mover sees exactly the state the plain descent shows it).  Cost per sweep: O(K P) plus O(block P) per move,
against the plain descent's O(K^2 P).  The sums differ from the plain descent's by rounding only (a few units in
the last place of a float64 logarithm), so the choices agree unless two grid points tie to that accuracy.
"""

from __future__ import annotations

import numpy as np

from sabounds.numerics.log_real import logsumexp

MAX_SWEEPS = 50
FIRST_BLOCK = 16
"""Slots scanned at once after a move (doubled while no slot moves): many moves cost O(block P) each."""


def others_log_sum(current: np.ndarray) -> np.ndarray:
    """Per slot k, ``ln sum_{i != k} exp(current_i)`` (``-inf`` for a single slot), by running log-sums."""
    k = len(current)
    prefix = np.full(k, -np.inf)
    suffix = np.full(k, -np.inf)
    if k > 1:
        prefix[1:] = np.logaddexp.accumulate(current[:-1])
        suffix[:-1] = np.logaddexp.accumulate(current[::-1][:-1])[::-1]
    return np.logaddexp(prefix, suffix)


def coordinate_descent(
    log_v: np.ndarray, cost: np.ndarray, base_cost: float, objective, start: np.ndarray
) -> tuple[np.ndarray, float]:
    """Per slot, the grid index that minimises the objective given the others; sweeps until no slot moves.

    ``log_v``, ``cost``: K x P shares (float64 logs) and union prices; ``objective(log_shares_total, cost_total)``
    element-wise.  Returns the choice and its objective value."""
    choice = np.array(start, dtype=int)
    n_slots = log_v.shape[0]
    rows = np.arange(n_slots)
    best = float(objective(logsumexp(log_v[rows, choice]), base_cost + cost[rows, choice].sum()))
    with np.errstate(invalid="ignore"):
        for _ in range(MAX_SWEEPS):
            moved = False
            k, block = 0, n_slots
            while k < n_slots:
                current = log_v[rows, choice]
                chosen_cost = cost[rows, choice]
                stop = min(n_slots, k + block)
                others = others_log_sum(current)[k:stop]
                c_other = (base_cost + chosen_cost.sum()) - chosen_cost[k:stop]
                values = objective(np.logaddexp(others[:, None], log_v[k:stop]), c_other[:, None] + cost[k:stop])
                local = np.arange(stop - k)
                j = np.argmin(values, axis=1)
                top = values[local, j]
                movers = np.flatnonzero((top < values[local, choice[k:stop]]) & (top < best))
                if movers.size == 0:
                    k, block = stop, 2 * block
                    continue
                i = int(movers[0])
                choice[k + i], best, moved = int(j[i]), float(top[i]), True
                k, block = k + i + 1, FIRST_BLOCK
            if not moved:
                break
    return choice, best
