"""Per-family Lipschitz factors of one layer: ``lip`` (the layer's Lipschitz constant, entering alpha) and each
matrix's in-layer factor ``gamma`` (its error's amplification up to the layer output), from spectral norms.

With ``A = sum_h ||Vt_h||_2 (1 + 4 ||QK_h||_2)`` (attention; unchanged under grouped-query attention, where
``QK_h = Wq_h^T Wk_{g(h)}`` and ``Vt_h = Wv_{g(h)}^T Wo_h`` are still one product per query head) and ``F`` the MLP's
Lipschitz constant:

- **published** (post-LN, GELU, ungated): ``sabounds.numerics.proxies.published`` unchanged, ``lip = L_phi ||M_in|| ||M_out|| A``.
- **extension, MLP**: ungated ``F = L_act ||M_in|| ||M_out||``; gated (SwiGLU, ``(act(x G) * (x U)) D``)
  ``F = (1 + L_act) R ||G|| ||U|| ||D||`` for inputs with ``||x||_2 <= R`` (uses ``|act(z)| <= |z|``);
  ``R = sqrt(N) max|g|`` after an RMSNorm of weight ``g`` (exact: its output has norm ``sqrt(N)`` before ``g``),
  ``sqrt(N)`` when the norm's weight is not in the checkpoint.
- **extension, layout**: post-LN ``lip = A F`` (as published); pre-LN with residuals ``lip = (1 + A)(1 + F)``
  (normalisations taken as 1-Lipschitz, as the published proxy does).
- **extension, gamma**: ``QK_h: 2 ||Vt_h|| D``, ``Vt_h: D`` with ``D = F`` (post-LN) or ``1 + F`` (pre-LN);
  ungated ``M_in: L_act ||M_out||``; gated ``M_gate: L_act R ||U|| ||D||``, ``M_in (= U): R ||G|| ||D||``; ``M_out: 1``.
  Edelman's in-layer factor is the same without the factor 2 on QK.
The derivations and their checks are ``sabounds.theory.architecture`` and ``sabounds.proofs_check.architecture``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from sabounds.numerics.checkpoints.architectures import PRE_LN
from sabounds.numerics.proxies.published import L_PHI


@lru_cache(maxsize=None)
def activation_constant(activation: str) -> float:
    """``L_act``: GELU's published 1.13, else ``sup |phi'|`` rounded up (derived by ``sabounds.theory.architecture``)."""
    if activation == "gelu":
        return L_PHI
    from sabounds.theory.architecture import activation_lipschitz
    return float(activation_lipschitz(activation))


def departures(shape) -> list[str]:
    """How the family's layer departs from the published proxy's (post-LN, GELU, ungated, one K/V per head)."""
    out = []
    if shape.layout == PRE_LN:
        out.append("pre-LN with residuals: lip = (1 + A)(1 + F)")
    if shape.gated:
        out.append("gated MLP: F = (1 + L_act) R ||G|| ||U|| ||D||, inputs ||x|| <= R")
    if shape.kv_heads != shape.heads:
        out.append(f"grouped-query attention: {shape.heads} query heads share {shape.kv_heads} key/value heads")
    if shape.activation != "gelu":
        out.append(f"activation {shape.activation}: L_act = {activation_constant(shape.activation):.6g}")
    return out


@dataclass(frozen=True)
class ExtensionFactors:
    """One layer's ``lip`` and per-type ``gamma`` (arrays over heads for QK and V_tilde) under the extension."""

    lip: float
    gamma: dict
    radius: float | None


def extension_factors(spectral: dict, shape, lact: float, radius: float | None) -> ExtensionFactors:
    """``spectral``: ``QK``, ``V_tilde`` (per head), ``M_in``, ``M_out``, ``M_gate`` (gated) spectral norms."""
    qk, vt = np.asarray(spectral["QK"]), np.asarray(spectral["V_tilde"])
    attention = float(np.sum(vt * (1.0 + 4.0 * qk)))
    s_in, s_out = spectral["M_in"], spectral["M_out"]
    if shape.gated:
        s_gate = spectral["M_gate"]
        mlp = (1.0 + lact) * radius * s_gate * s_in * s_out
        gamma = {"M_gate": lact * radius * s_in * s_out, "M_in": radius * s_gate * s_out, "M_out": 1.0}
    else:
        mlp = lact * s_in * s_out
        gamma = {"M_in": lact * s_out, "M_out": 1.0}
    pre = shape.layout == PRE_LN
    downstream = 1.0 + mlp if pre else mlp
    lip = (1.0 + attention) * (1.0 + mlp) if pre else attention * mlp
    gamma.update(QK=2.0 * vt * downstream, V_tilde=np.full_like(vt, downstream))
    return ExtensionFactors(lip, gamma, radius)


def mlp_radius(shape, norm_weight: np.ndarray | None) -> float:
    """``R = sqrt(N) max|g|`` for an RMSNorm of weight ``g`` before the MLP; ``sqrt(N)`` without its weight."""
    root = math.sqrt(shape.hidden)
    return root * float(np.max(np.abs(norm_weight))) if norm_weight is not None else root
