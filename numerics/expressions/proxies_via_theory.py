"""Evaluate the published proxies on a stack of actual weight matrices through the derivations' expressions.

``ours = sum over slots of min_{p in P_m} S_p^{1/(p+2)} (gamma alpha L)^{p/(p+2)} N^{(p+1)/(p+2)} + sqrt(L)`` uses
``sabounds.theory.thm31.proxy_summand``; ``edelman = (1 + sum_k (gamma^E_k alpha^(l) ||W_k||_{2,1})^{2/3})^{3/2}`` uses
``sabounds.theory.edelman``; gamma, gamma^E and the layer Lipschitz constants come from ``sabounds.theory.architecture``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from sabounds.numerics.expressions.evaluate import evaluate_float
from sabounds.numerics.norms import norm_21
from sabounds.numerics.spectra import schatten_grid, singular_values
from sabounds.theory import edelman as edelman_theory
from sabounds.theory.architecture import Architecture
from sabounds.theory.thm31 import L, grid_m, proxy_post_hoc, proxy_summand, rho
from sabounds.theory.thm41 import M, N, p

Layer = Mapping[str, Sequence[np.ndarray]]
"""One layer: slot-kind name -> one matrix per copy (H heads for QK and Vt, one for M_in and M_out)."""


class StackError(ValueError):
    """A stack that does not match its architecture description."""


@dataclass(frozen=True)
class StackProxies:
    ours: float
    edelman: float
    p_opt: tuple[tuple[str, float], ...]
    alpha: tuple[float, ...]


def grid(n_layers: int, width: int) -> np.ndarray:
    """``P_m = {0, 1/m, ..., 2}`` with ``m = ceil(L + ln N)`` (``sabounds.theory.thm31.grid_m``)."""
    m = int(grid_m.subs({L: n_layers, N: width}))
    return np.arange(2 * m + 1, dtype=float) / m


def slot_proxy(sigma: np.ndarray, gamma_alpha: float, n_layers: int, width: int, ps: np.ndarray) -> tuple[float, float]:
    """``(min over ps of the proxy summand, first minimiser)`` for one matrix with singular values ``sigma``."""
    contrib = evaluate_float(
        proxy_summand, {M: schatten_grid(sigma, ps), rho: gamma_alpha, L: n_layers, N: width, p: ps}
    )
    j = int(np.argmin(contrib))
    return float(contrib[j]), float(ps[j])


def proxy_total(slot_values: float, n_layers: int) -> float:
    """``ours = sum of slot minima + sqrt(L)``."""
    return slot_values + float(evaluate_float(proxy_post_hoc, {L: n_layers}))


def _float(expr: sp.Expr) -> float:
    return float(sp.sympify(expr).evalf(30))


def stack_proxies(layers: Sequence[Layer], arch: Architecture, width: int) -> StackProxies:
    """Both published proxies of one stack (``layers[0]`` is the first layer)."""
    n_layers = len(layers)
    if n_layers == 0:
        raise StackError("empty stack")
    shared_kinds = [k for k in arch.kinds if not k.per_head]
    head_kinds = [k for k in arch.kinds if k.per_head]
    const = dict(arch.constants)
    ps = grid(n_layers, width)
    norms = []
    for i, layer in enumerate(layers):
        missing = [k.name for k in arch.kinds if k.name not in layer]
        if missing:
            raise StackError(f"layer {i} lacks {', '.join(missing)}")
        shared = {k.spectral: float(singular_values(layer[k.name][0])[0]) for k in shared_kinds}
        n_heads = len(layer[head_kinds[0].name]) if head_kinds else 1
        heads = [{k.spectral: float(singular_values(layer[k.name][h])[0]) for k in head_kinds} for h in range(n_heads)]
        norms.append((shared, heads))
    lips = [_float(arch.layer_lipschitz_of(shared, heads)) for shared, heads in norms]
    alphas = tuple(math.prod(lips[i + 1 :]) for i in range(n_layers))
    ours, terms, p_opt = 0.0, 0.0, []
    for i, layer in enumerate(layers):
        shared, heads = norms[i]
        for kind in arch.kinds:
            for h, w in enumerate(layer[kind.name]):
                values = {**shared, **(heads[h] if kind.per_head else {})}
                gamma = _float(kind.gamma.subs(const).subs(values))
                gamma_e = _float(kind.gamma_edelman.subs(const).subs(values))
                value, p_best = slot_proxy(singular_values(w), gamma * alphas[i], n_layers, width, ps)
                ours += value
                p_opt.append((f"{i}.{kind.name}.{h}", p_best))
                terms += float(
                    evaluate_float(
                        edelman_theory.slot_term(edelman_theory.rho_1, edelman_theory.w_1),
                        {
                            edelman_theory.rho_1: gamma_e * alphas[i],
                            edelman_theory.w_1: float(norm_21(np.asarray(w, dtype=float))),
                        },
                    )
                )
    return StackProxies(
        proxy_total(ours, n_layers),
        float(evaluate_float(edelman_theory.proxy_form(edelman_theory.xi), {edelman_theory.xi: terms})),
        tuple(p_opt),
        alphas,
    )
