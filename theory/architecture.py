"""A Transformer architecture as data: per-layer slot kinds (one weight matrix each) and Lipschitz factors.

A slot is one matrix ``W_k``.  Its error reaches the output multiplied by ``rho_k = gamma_k alpha^(l)``
(THEORY.md section 5), where ``gamma_k`` is the Lipschitz factor downstream of the slot inside its
layer and ``alpha^(l) = prod_{j > l} Lip(layer j)``.  The Edelman et al. (2022) baseline uses its own
in-layer factor ``gamma^E_k`` (section 6: no factor 2 on QK).  Spectral norms are the symbols of
:data:`SPECTRAL`; an architecture is an instance of :class:`Architecture`, so another one (residual
connections, another activation constant, the tight softmax constant) is a new instance, not an edit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from theory.thm41 import N

H, L_phi, d_h = sp.symbols("H L_phi d_h", positive=True)
s_QK, s_V, s_in, s_out = sp.symbols("s_QK s_V s_in s_out", positive=True)
SPECTRAL = (s_QK, s_V, s_in, s_out)
"""Spectral norms ``||QK||_2, ||Vt||_2, ||M_in||_2, ||M_out||_2`` of one layer's matrices (one head's for QK, Vt)."""

L_PHI_GELU = sp.Rational(113, 100)
"""``L_phi = 1.13`` (published proxy), an upper bound on ``sup GELU' = 1.12898...``."""


@dataclass(frozen=True)
class SlotKind:
    """One matrix type of a layer: ``count`` copies per layer (e.g. H heads), shape ``d_in x d_out``.

    ``gamma`` and ``gamma_edelman`` are expressions in the spectral-norm symbols of :data:`SPECTRAL`.
    """

    name: str
    count: sp.Expr
    d_in: sp.Expr
    d_out: sp.Expr
    gamma: sp.Expr
    gamma_edelman: sp.Expr
    spectral: sp.Symbol

    @property
    def min_dim(self) -> sp.Expr:
        return sp.Min(self.d_in, self.d_out)


@dataclass(frozen=True)
class Architecture:
    """``kinds`` of slot per layer and the Lipschitz constant of one layer as a function of its input.

    ``layer_lipschitz`` is an expression in :data:`SPECTRAL` (and ``L_phi``, ``H``); ``alpha^(l)`` is the
    product of it over the layers above ``l``.  ``constants`` binds symbols such as ``L_phi`` to values.
    """

    name: str
    kinds: tuple[SlotKind, ...]
    layer_lipschitz: sp.Expr
    constants: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    description: str = ""

    @property
    def slots_per_layer(self) -> sp.Expr:
        return sp.Add(*(kind.count for kind in self.kinds))

    def kind(self, name: str) -> SlotKind:
        for kind in self.kinds:
            if kind.name == name:
                return kind
        raise KeyError(f"{self.name} has no slot kind {name!r}")

    def bind(self) -> "Architecture":
        """The architecture with its ``constants`` substituted (e.g. ``L_phi = 113/100``)."""
        c = dict(self.constants)
        kinds = tuple(replace(k, count=k.count.subs(c), gamma=k.gamma.subs(c), gamma_edelman=k.gamma_edelman.subs(c))
                      for k in self.kinds)
        return replace(self, kinds=kinds, layer_lipschitz=self.layer_lipschitz.subs(c), constants=())

    def with_residual(self) -> "Architecture":
        """Residual connections ``X -> X + f(X)``: each layer's Lipschitz constant becomes ``1 + Lip(f)``."""
        return replace(self, name=f"{self.name}+residual", layer_lipschitz=1 + self.layer_lipschitz)

    def with_constant(self, symbol: sp.Symbol, value) -> "Architecture":
        """Another activation's Lipschitz constant (or any other bound constant)."""
        kept = tuple((s, v) for s, v in self.constants if s != symbol)
        return replace(self, constants=kept + ((symbol, sp.sympify(value)),))


def attention_lipschitz(heads: sp.Expr, softmax_constant: sp.Expr = 2) -> sp.Expr:
    """``sum_h ||Vt_h||_2 (1 + 2 c ||QK_h||_2)`` with ``c`` the softmax l_inf -> l_1 constant (published: c = 2)."""
    return heads * s_V * (1 + 2 * softmax_constant * s_QK)


def bert(softmax_constant: sp.Expr = 2) -> Architecture:
    """The BERT-adapted multi-head model of THEORY.md sections 2-3: per layer H QK, H Vt, M_in (N x 4N), M_out (4N x N)."""
    c = sp.sympify(softmax_constant)
    kinds = (
        SlotKind("QK", H, N, N, c * s_V * s_out * s_in, s_V * s_out * s_in, s_QK),
        SlotKind("Vt", H, N, N, s_out * s_in, s_out * s_in, s_V),
        SlotKind("M_in", sp.Integer(1), N, 4 * N, s_out, s_out, s_in),
        SlotKind("M_out", sp.Integer(1), 4 * N, N, sp.Integer(1), sp.Integer(1), s_out),
    )
    return Architecture("bert", kinds, L_phi * s_in * s_out * attention_lipschitz(H, c),
                        constants=((L_phi, L_PHI_GELU), (H, N / d_h)),
                        description="BERT-adapted: H = N/d_h heads, GELU feed-forward N -> 4N -> N (published proxy)")


def single_head(softmax_constant: sp.Expr = 2) -> Architecture:
    """The theory's model (section 2): one head, three matrices per layer: W_QK, W_V, one feed-forward W_FF (N x N)."""
    c = sp.sympify(softmax_constant)
    kinds = (
        SlotKind("QK", sp.Integer(1), N, N, c * s_V * s_out, s_V * s_out, s_QK),
        SlotKind("V", sp.Integer(1), N, N, s_out, s_out, s_V),
        SlotKind("FF", sp.Integer(1), N, N, sp.Integer(1), sp.Integer(1), s_out),
    )
    return Architecture("single_head", kinds, L_phi * s_out * attention_lipschitz(1, c),
                        constants=((L_phi, L_PHI_GELU),),
                        description="the theory's model: one head, W_QK, W_V and one feed-forward matrix per layer")


ARCHITECTURES = {"single_head": single_head, "bert": bert}
