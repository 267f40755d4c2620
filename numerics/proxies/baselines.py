"""Data bounds (``sabounds.theory.bound.Bound``) on a measured model: the catalog's (e.g. Trauger-Tewari) through their
printed evaluators (``sabounds.numerics.expressions.generated``), a user's compiled from its sympy at run time
(``sabounds.numerics.expressions.bound_values``)."""

from __future__ import annotations

import math

import numpy as np

from sabounds.numerics.log_real import from_ln


def _dims(kind: str, shape) -> tuple[int, int]:
    n, inner = shape.hidden, shape.intermediate
    return {"QK": (n, n), "V_tilde": (n, n), "M_in": (n, inner), "M_gate": (n, inner), "M_out": (inner, n)}[kind]


def slot_logs(matrices, shape) -> dict[str, np.ndarray]:
    """Natural logs of every per-slot symbol a proxy may use (by symbol name), one entry per matrix:
    ``rho = gamma^E alpha^(l)`` (Edelman's in-layer factor: gamma without QK's factor 2), ``w_11``, ``w_21``, ``F2``,
    ``s``, ``d_in``, ``d_out``; ``w_11`` left out when not measured."""
    from sabounds.numerics.log_real import ln_of

    dims = np.array([_dims(m.type, shape) for m in matrices], dtype=np.float64).reshape(-1, 2)
    with np.errstate(divide="ignore"):
        logs = {
            "rho": np.array(
                [ln_of(m.alpha) + ln_of(m.gamma) - (math.log(2.0) if m.type == "QK" else 0.0) for m in matrices]
            ),
            "w_21": np.log([m.norm_21 for m in matrices]),
            "s": np.log([m.spectral_norm for m in matrices]),
            "F2": 2 * np.log([m.frobenius_norm for m in matrices]),
            "d_in": np.log(dims[:, 0]),
            "d_out": np.log(dims[:, 1]),
        }
        if all(m.norm_11 is not None for m in matrices):
            logs["w_11"] = np.log([m.norm_11 for m in matrices])
    return logs


def _logs_for(tensors: str, used, slots: dict, raw_11, n: int) -> dict | None:
    """The logs one proxy reads (``raw``: each layer's stored weight factors, ``w_11`` = the layer's sum); None when
    its norms were not measured."""
    if tensors == "raw":
        if None in raw_11 or not raw_11:
            return None
        with np.errstate(divide="ignore"):
            return {"w_11": np.log(np.asarray(raw_11, dtype=np.float64))}
    if not set(used) <= set(slots):
        return None
    return {k: slots[k] for k in used} or {"s": np.zeros(n)}


def catalog_values(matrices, raw_11, shape) -> tuple[tuple[str, str, object], ...]:
    """(name, source label, value) of every proxy of ``generated.BASELINES`` (the catalog's data bounds without a
    regime row of their own), through the printed evaluators; a proxy whose norms were not measured is left out."""
    from sabounds.numerics.expressions.aggregation import log_catalog
    from sabounds.numerics.expressions.generated import BASELINES, PROXIES

    slots = slot_logs(matrices, shape)
    out = []
    for key in BASELINES:
        proxy = PROXIES[key]
        logs = _logs_for(proxy.tensors, proxy.symbols, slots, raw_11, len(matrices))
        if logs is not None:
            out.append((key, proxy.source, from_ln(log_catalog(proxy, logs))))
    return tuple(out)


def proxy_values(matrices, raw_11, shape, bounds) -> tuple[tuple[str, str, object], ...]:
    """(name, source label, value) of every proxy of ``bounds`` (a user's), compiled from its sympy at run time; a
    proxy whose norms were not measured is left out."""
    from sabounds.numerics.expressions.bound_values import value
    from sabounds.theory import symbols as S

    slots = slot_logs(matrices, shape)
    out = []
    for bound in bounds:
        for proxy in bound.proxies:
            logs = _logs_for(proxy.tensors, [x.name for x in proxy.term.free_symbols], slots, raw_11, len(matrices))
            if logs is not None:
                out.append(
                    (f"{bound.id}.{proxy.name}", proxy.source, value(proxy, {S.NAMED[k]: v for k, v in logs.items()}))
                )
    return tuple(out)
