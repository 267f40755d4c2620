"""A Transformer architecture as data: per-layer slot kinds (one weight matrix each) and Lipschitz factors.

A slot is one matrix ``W_k``.  Its error reaches the output multiplied by ``rho_k = gamma_k alpha^(l)``
(docs/definitions.md), where ``gamma_k`` is the Lipschitz factor downstream of the slot inside its
layer and ``alpha^(l) = prod_{j > l} Lip(layer j)``.  The Edelman et al. (2022) baseline uses its own
in-layer factor ``gamma^E_k`` (section 6: no factor 2 on QK).  Spectral norms are the symbols of
:data:`SPECTRAL`; an architecture is an instance of :class:`Architecture`, so another one (residual
connections, another activation constant, the tight softmax constant) is a new instance, not an edit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import sympy as sp

from sabounds.theory.thm41 import N

H, L_phi, d_h = sp.symbols("H L_phi d_h", positive=True)
s_QK, s_V, s_in, s_out, s_G = sp.symbols("s_QK s_V s_in s_out s_G", positive=True)
SPECTRAL = (s_QK, s_V, s_in, s_out, s_G)
"""Spectral norms ``||QK||_2, ||Vt||_2, ||M_in||_2, ||M_out||_2`` of one layer's matrices (one head's for QK, Vt),
and a gated MLP's gate ``||G||_2``."""

L_PHI_GELU = sp.Rational(113, 100)
"""``L_phi = 1.13`` (published proxy), an upper bound on ``sup GELU' = Phi(sqrt 2) + sqrt 2 phi(sqrt 2)``,
which is 1.1289041... (an older specification's 1.12898 is off in the fifth decimal; ``sabounds conjecture gelu-lipschitz``)."""


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
    per_head: bool = False
    """One copy per attention head (its own spectral norm enters that head's Lipschitz factor), else one per layer."""


@dataclass(frozen=True)
class Architecture:
    """``kinds`` of slot per layer and the Lipschitz constant of one layer as a function of its input,

    ``Lip(layer) = [1 if residual] + per_layer * sum_h per_head(h)``, expressions in :data:`SPECTRAL`
    (a head's own ``s_QK, s_V``) and ``L_phi``; ``alpha^(l)`` is the product over the layers above ``l``.
    ``constants`` binds symbols such as ``L_phi`` and ``H`` to values.
    """

    name: str
    kinds: tuple[SlotKind, ...]
    per_layer: sp.Expr
    per_head: sp.Expr
    heads: sp.Expr = sp.Integer(1)
    residual: bool = False
    constants: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    description: str = ""
    layer_form: sp.Expr | None = None
    """``Lip(layer)`` (all heads alike) where it is not ``[1] + per_layer * sum_h per_head``: a pre-LN layer's
    ``(1 + Lip_LN A)(1 + Lip_LN F)`` (``sabounds.theory.family_architectures``)."""

    @property
    def layer_lipschitz(self) -> sp.Expr:
        """``Lip(layer)`` with all heads alike (``heads * per_head``), as the regimes use it."""
        if self.layer_form is not None:
            return self.layer_form.subs(dict(self.constants))
        return (1 if self.residual else 0) + self.per_layer * self.heads * self.per_head

    def layer_lipschitz_of(self, shared: dict, heads: list[dict]) -> sp.Expr:
        """``Lip(layer)`` for actual heads: ``shared`` binds the one-per-layer norms, each dict in ``heads`` a head's own."""
        if self.layer_form is not None:
            raise ValueError(f"{self.name}: the layer's Lipschitz constant is described for alike heads only")
        c = dict(self.constants)
        total = sp.Add(*(self.per_head.subs(c).subs(shared).subs(h) for h in heads))
        return (1 if self.residual else 0) + self.per_layer.subs(c).subs(shared) * total

    def bind(self) -> Architecture:
        """The architecture with its ``constants`` substituted (e.g. ``L_phi = 113/100``)."""
        c = dict(self.constants)
        kinds = tuple(
            replace(k, count=k.count.subs(c), gamma=k.gamma.subs(c), gamma_edelman=k.gamma_edelman.subs(c))
            for k in self.kinds
        )
        return replace(
            self,
            kinds=kinds,
            per_layer=self.per_layer.subs(c),
            per_head=self.per_head.subs(c),
            heads=self.heads.subs(c),
            constants=(),
            layer_form=None if self.layer_form is None else self.layer_form.subs(c),
        )

    def with_residual(self) -> Architecture:
        """Residual connections ``X -> X + f(X)``: each layer's Lipschitz constant becomes ``1 + Lip(f)``."""
        return replace(self, name=f"{self.name}+residual", residual=True)

    def with_constant(self, symbol: sp.Symbol, value) -> Architecture:
        """Another activation's Lipschitz constant (or any other bound constant)."""
        kept = tuple((s, v) for s, v in self.constants if s != symbol)
        return replace(self, constants=kept + ((symbol, sp.sympify(value)),))


def attention_head(softmax_constant: sp.Expr = 2) -> sp.Expr:
    """``||Vt_h||_2 (1 + 2 c ||QK_h||_2)``, c the softmax l_inf -> l_1 constant (published: c = 2, so 1 + 4 ||QK||)."""
    return s_V * (1 + 2 * softmax_constant * s_QK)


def bert(softmax_constant: sp.Expr = 2) -> Architecture:
    """The BERT-adapted multi-head model of docs/definitions.md: per layer H QK, H Vt, M_in (N x 4N), M_out (4N x N)."""
    c = sp.sympify(softmax_constant)
    kinds = (
        SlotKind("QK", H, N, N, c * s_V * s_out * s_in, s_V * s_out * s_in, s_QK, per_head=True),
        SlotKind("Vt", H, N, N, s_out * s_in, s_out * s_in, s_V, per_head=True),
        SlotKind("M_in", sp.Integer(1), N, 4 * N, s_out, s_out, s_in),
        SlotKind("M_out", sp.Integer(1), 4 * N, N, sp.Integer(1), sp.Integer(1), s_out),
    )
    return Architecture(
        "bert",
        kinds,
        L_phi * s_in * s_out,
        attention_head(c),
        H,
        constants=((L_phi, L_PHI_GELU), (H, N / d_h)),
        description="BERT-adapted: H = N/d_h heads, GELU feed-forward N -> 4N -> N (published proxy)",
    )


def single_head(softmax_constant: sp.Expr = 2) -> Architecture:
    """The theory's model (section 2): one head, three matrices per layer: W_QK, W_V, one feed-forward W_FF (N x N)."""
    c = sp.sympify(softmax_constant)
    kinds = (
        SlotKind("QK", sp.Integer(1), N, N, c * s_V * s_out, s_V * s_out, s_QK, per_head=True),
        SlotKind("V", sp.Integer(1), N, N, s_out, s_out, s_V, per_head=True),
        SlotKind("FF", sp.Integer(1), N, N, sp.Integer(1), sp.Integer(1), s_out),
    )
    return Architecture(
        "single_head",
        kinds,
        L_phi * s_out,
        attention_head(c),
        constants=((L_phi, L_PHI_GELU),),
        description="the theory's model: one head, W_QK, W_V and one feed-forward matrix per layer",
    )


def bert_fixed_heads(softmax_constant: sp.Expr = 2, heads: int = 12) -> Architecture:
    """BERT's layer with the head count held fixed (``d_h = N / H`` grows with N): the width exponents of the
    single-head model, where ``bert`` (H = N/d_h heads, d_h fixed) adds the heads' growth with N."""
    arch = bert(softmax_constant).with_constant(H, heads)
    return replace(
        arch, name="bert_fixed_heads", description=f"BERT-adapted with H = {heads} heads of width d_h = N/{heads}"
    )


def _family(name: str):
    def build() -> Architecture:
        from sabounds.theory.family_architectures import FAMILY_ARCHITECTURES

        return FAMILY_ARCHITECTURES[name]()

    build.__name__ = name
    return build


ARCHITECTURES = {
    "single_head": single_head,
    "bert": bert,
    "bert_fixed_heads": bert_fixed_heads,
    **{name: _family(name) for name in ("gpt2", "llama", "vit")},
}
"""Every described layer the regime tables cover (``sabounds regimes --architecture NAME``)."""


# --- Departures of other families from the published layer (issue 11): activation constants -----------------

_x = sp.Symbol("x", real=True)
ACTIVATION_FORMS = {
    "gelu": _x * (1 + sp.erf(_x / sp.sqrt(2))) / 2,
    "gelu_tanh": _x / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (_x + sp.Rational(44715, 1000000) * _x**3))),
    "silu": _x / (1 + sp.exp(-_x)),
    "relu": sp.Max(0, _x),
}
"""Each activation as a sympy function of ``x`` (GELU-tanh is Hugging Face's ``gelu_new``, SiLU = swish)."""

_CRITICAL_GUESS = {"gelu": 1.4, "gelu_tanh": 1.4, "silu": 2.4}


def activation_sup_slope(name: str, digits: int = 30) -> tuple[sp.Expr, sp.Expr]:
    """``(sup |phi'|, maximiser)``: phi'' = 0 solved by ``sympy.nsolve`` at ``digits`` digits from a bracketing guess
    (ReLU: ``phi' in {0, 1}``, so 1 at any x > 0).  The supremum is ``phi'`` at that critical point, since
    ``phi' -> 1`` at +oo and ``-> 0`` at -oo and the other critical point (at -x*) has ``|phi'| < 1``;
    ``sabounds.proofs_check.architecture`` checks each of these facts (checks ``arch.*_lipschitz``)."""
    if name == "relu":
        return sp.Integer(1), sp.Integer(1)
    phi = ACTIVATION_FORMS[name]
    d1, d2 = sp.diff(phi, _x), sp.diff(phi, _x, 2)
    root = sp.nsolve(d2, _x, _CRITICAL_GUESS[name], prec=digits)
    return sp.N(d1.subs(_x, root), digits), root


@cache
def activation_lipschitz(name: str, decimals: int = 6) -> sp.Rational:
    """The activation's Lipschitz constant used by the analysis: ``sup |phi'|`` rounded *up* to ``decimals``
    (GELU: the published ``L_phi = 1.13`` instead, an upper bound on its 1.1289041...).  Cached: a pure function
    of its arguments that ``sabounds bound`` asks for at every n it tries (an nsolve each time otherwise)."""
    if name == "gelu":
        return L_PHI_GELU
    sup, _ = activation_sup_slope(name)
    scale = 10**decimals
    return sp.Rational(int(sp.ceiling(sup * scale)), scale)


# --- Labelled extensions, one derivation per departure (sabounds.theory.extensions) ------------------------------

DEPARTURES = ("pre_ln", "token_radius", "rope", "gated_mlp", "gqa", "activation")
"""Where a family's layer departs from the published one (post-LN, GELU, ungated, one K/V per head, no RoPE)."""


def extension_derivation(departure: str):
    """The labelled extension for one departure (:data:`DEPARTURES`), as a derivation whose steps are checked."""
    from sabounds.theory.extensions import BUILDERS

    if departure not in BUILDERS:
        raise ValueError(f"unknown departure {departure!r}; choose from {', '.join(DEPARTURES)}")
    return BUILDERS[departure]()
