"""GPT-2-, LLaMA- and ViT-shaped layers as :class:`~sabounds.theory.architecture.Architecture` data, for the regimes.

The slots and factors are those of the whole bound's derivation ``whole_bound.families`` (all spectral norms of a
kind alike): pre-LN with ``Lip_LN = lambda`` (premise: ``max|g| / sqrt(rho^2 + eps)``, a constant), tokens of norm
``B_t = sqrt(N) g`` into attention and the MLP (``g = max|g|``), ``D = 1 + lambda F``:

    QK_h: c B_t^2 s_V D / sqrt(d_h);  V_h: D;  ungated M_in: L_act s_out, M_out: 1 (F = L_act s_in s_out);
    gated gate: L_act B_t s_U s_D, up: B_t s_G s_D, down: 1 (F = (1 + L_act) B_t s_G s_U s_D);
    Lip(layer) = (1 + lambda A)(1 + lambda F),  A = H s_V (1 + 2 c B_t^2 s_QK / sqrt(d_h)).

A slot whose input norm ``B_k`` differs from the table's ``B`` carries ``B_k / B`` in its ``gamma``: every cover
depends on ``B`` and ``rho_k`` only through ``B rho_k`` (checked by tests/theory/test_family_regimes.py), so this is the
cover at input norm ``B_k``.  Grouped-query attention keeps one QK and one V slot per query head.  A residual layer has ``Lip(layer) > 1``, so
``alpha^(l) <= 1`` (the 'bounded' alpha model) holds for these layers only in the limit ``lambda -> 0``.
"""

from __future__ import annotations

import sympy as sp

from sabounds.theory.architecture import (
    L_PHI_GELU,
    Architecture,
    H,
    SlotKind,
    activation_lipschitz,
    d_h,
    s_G,
    s_in,
    s_out,
    s_QK,
    s_V,
)
from sabounds.theory.thm41 import B, N

lam, g_max, L_act = sp.symbols("lambda_LN g L_act", positive=True)
s_gate = s_G
B_t = sp.sqrt(N) * g_max
"""The token radius of a pre-LN norm (``sqrt(N) max|g|``, no bias)."""


def _attention(c: sp.Expr, downstream: sp.Expr) -> tuple[SlotKind, SlotKind]:
    ratio = B_t / B
    return (
        SlotKind(
            "QK",
            H,
            N,
            N,
            c * B_t**2 * s_V * downstream / sp.sqrt(d_h) * ratio,
            B_t**2 * s_V * downstream / sp.sqrt(d_h) * ratio,
            s_QK,
            per_head=True,
        ),
        SlotKind("V", H, N, N, downstream * ratio, downstream * ratio, s_V, per_head=True),
    )


def pre_ln(name: str, activation: str, ffn: sp.Expr, gated: bool, softmax_constant: sp.Expr = 2) -> Architecture:
    """A pre-LN family: H = N/d_h heads, feed-forward width ``ffn``, gated (gate, up, down) or not (in, out)."""
    c = sp.sympify(softmax_constant)
    if gated:
        f = (1 + L_act) * B_t * s_gate * s_in * s_out
        mlp = (
            SlotKind(
                "M_gate",
                sp.Integer(1),
                N,
                ffn,
                L_act * B_t * s_in * s_out * B_t / B,
                L_act * B_t * s_in * s_out * B_t / B,
                s_gate,
            ),
            SlotKind(
                "M_in", sp.Integer(1), N, ffn, B_t * s_gate * s_out * B_t / B, B_t * s_gate * s_out * B_t / B, s_in
            ),
            SlotKind("M_out", sp.Integer(1), ffn, N, B_t**2 * s_gate * s_in / B, B_t**2 * s_gate * s_in / B, s_out),
        )
    else:
        f = L_act * s_in * s_out
        mlp = (
            SlotKind("M_in", sp.Integer(1), N, ffn, L_act * s_out * B_t / B, L_act * s_out * B_t / B, s_in),
            SlotKind("M_out", sp.Integer(1), ffn, N, B_t * s_in / B, B_t * s_in / B, s_out),
        )
    downstream = 1 + lam * f
    head = s_V * (1 + 2 * c * B_t**2 * s_QK / sp.sqrt(d_h))
    lact = L_PHI_GELU if activation == "gelu" else activation_lipschitz(activation)
    return Architecture(
        name,
        (*_attention(c, downstream), *mlp),
        sp.Integer(1),
        head,
        H,
        constants=((L_act, lact), (H, N / d_h)),
        description=f"{name}-shaped pre-LN layer ({activation}, {'gated' if gated else 'ungated'} MLP "
        f"N -> {ffn} -> N, H = N/d_h heads): derivation whole_bound.families; its "
        "Lip(layer) > 1, so the 'bounded' alpha rows hold only as the C -> 1 limit",
        layer_form=(1 + lam * H * head) * downstream,
    )


def gpt2() -> Architecture:
    """GPT-2: pre-LN, GELU-tanh, MLP N -> 4N -> N."""
    return pre_ln("gpt2", "gelu_tanh", 4 * N, gated=False)


def llama() -> Architecture:
    """LLaMA: pre-LN (RMSNorm), SwiGLU (gate, up, down) N -> 8N/3 -> N, one QK and V slot per query head (GQA), RoPE
    through the family bound (the QK slot's spectrum is the family's uniform bound)."""
    return pre_ln("llama", "silu", sp.Rational(8, 3) * N, gated=True)


def vit() -> Architecture:
    """ViT: pre-LN, GELU, MLP N -> 4N -> N."""
    return pre_ln("vit", "gelu", 4 * N, gated=False)


FAMILY_ARCHITECTURES = {"gpt2": gpt2, "llama": llama, "vit": vit}
