"""Data bounds (``sabounds.theory.bound.Bound``: the catalog's, e.g. Trauger-Tewari, or a user's) on a measured
model, each proxy compiled from its sympy (``sabounds.numerics.expressions.bound_values``)."""

from __future__ import annotations

import math

import numpy as np

from sabounds.numerics.expressions.bound_values import value
from sabounds.theory import symbols as S


def _dims(kind: str, shape) -> tuple[int, int]:
    n, inner = shape.hidden, shape.intermediate
    return {"QK": (n, n), "V_tilde": (n, n), "M_in": (n, inner), "M_gate": (n, inner), "M_out": (inner, n)}[kind]


def slot_logs(matrices, shape) -> dict | None:
    """Natural logs of every per-slot symbol a proxy may use, one entry per matrix: ``rho = gamma^E alpha^(l)``
    (Edelman's in-layer factor: gamma without QK's factor 2), ``w_11``, ``w_21``, ``F2``, ``s``, ``d_in``, ``d_out``;
    ``w_11`` left out when not measured."""
    from sabounds.numerics.log_real import ln_of
    dims = np.array([_dims(m.type, shape) for m in matrices], dtype=np.float64).reshape(-1, 2)
    with np.errstate(divide="ignore"):
        logs = {S.rho: np.array([ln_of(m.alpha) + ln_of(m.gamma) - (math.log(2.0) if m.type == "QK" else 0.0)
                                 for m in matrices]),
                S.w_21: np.log([m.norm_21 for m in matrices]), S.s: np.log([m.spectral_norm for m in matrices]),
                S.F2: 2 * np.log([m.frobenius_norm for m in matrices]), S.d_in: np.log(dims[:, 0]), S.d_out: np.log(dims[:, 1])}
        if all(m.norm_11 is not None for m in matrices):
            logs[S.w_11] = np.log([m.norm_11 for m in matrices])
    return logs


def proxy_values(matrices, raw_11, shape, bounds) -> tuple[tuple[str, str, object], ...]:
    """(name, source label, value) of every proxy of ``bounds``; ``raw`` proxies sum over each layer's stored weight
    factors (``w_11`` = the layer's sum).  A proxy whose norms were not measured is left out."""
    slots = slot_logs(matrices, shape)
    out = []
    for bound in bounds:
        for proxy in bound.proxies:
            if proxy.tensors == "raw":
                if None in raw_11 or not raw_11:
                    continue
                with np.errstate(divide="ignore"):
                    logs = {S.w_11: np.log(np.asarray(raw_11, dtype=np.float64))}
            else:
                used = proxy.term.free_symbols
                if not used <= set(slots):
                    continue
                logs = {k: slots[k] for k in used} or {S.s: np.zeros(len(matrices))}
            out.append((f"{bound.id}.{proxy.name}", proxy.source, value(proxy, logs)))
    return tuple(out)
