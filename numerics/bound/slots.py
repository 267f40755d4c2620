"""A model as the bound sees it: one slot per matrix, with dyadic radii and propagation factors ``rho_k``.

Every radius the bound depends on (spectral norm ``s_k``, ``S_p(W_k)`` for p > 0, ``||W_k||_{2,1}`` for Edelman)
is rounded up to its dyadic shell ``2^z``, ``z = ceil(log2 v)``: the bound holds for the shell, and the union over
shells costs ``ln(i(i+1))``, ``i = 2z`` (z >= 1) or ``1 - 2z`` (z <= 0).  ``rho_k = gamma_k alpha^(l)`` is built
from the rounded spectral norms in mpmath (no overflow), under a :class:`Variant` of the constants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import mpmath
import numpy as np

from sabounds.numerics.bound.family import Family
from sabounds.numerics.log_real import from_ln
from sabounds.numerics.proxies.published_factors import default_grid_m, p_grid
from sabounds.numerics.spectra import RANK_TOL, log_schatten_grid, schatten_grid


def gelu_lipschitz_exact() -> mpmath.mpf:
    """``sup GELU' = Phi(sqrt 2) + sqrt 2 phi(sqrt 2) = 1.1289041...`` at the working precision."""
    r2 = mpmath.sqrt(2)
    return mpmath.ncdf(r2) + r2 * mpmath.npdf(r2)


@dataclass(frozen=True)
class Variant:
    """Constants of the Lipschitz bookkeeping: ``L_phi`` and the attention constant ``c`` (layer factor
    ``sum_h ||Vt_h|| (1 + c ||QK_h||)``, ``gamma_QK = (c/2) ||Vt|| ||M_out|| ||M_in||``); ``status`` says how settled."""

    key: str
    label: str
    lphi: str
    attention: int
    status: str

    def lphi_value(self) -> mpmath.mpf:
        return gelu_lipschitz_exact() if self.lphi == "exact" else mpmath.mpf(self.lphi)


PUBLISHED = Variant(
    "published", "published constants (L_phi = 1.13, attention constant 4)", "1.13", 4, "published proxy"
)
EXACT_GELU = Variant("exact_gelu", "exact GELU constant 1.1289041 (attention constant 4)", "exact", 4, "proved (sympy)")
TIGHT = Variant(
    "exact_gelu_attention_2",
    "exact GELU constant and attention constant 2",
    "exact",
    2,
    "attention constant 2: derivation 'attention' (steps proved by sympy, one cited premise; exact by a tight family)",
)
VARIANTS = (PUBLISHED, EXACT_GELU, TIGHT)


def shell(value: float) -> int:
    """``z`` with ``value`` in ``(2^{z-1}, 2^z]``; 0 for a zero value (radius 1 covers it)."""
    if value <= 0:
        return 0
    mantissa, z = math.frexp(value)  # value = mantissa 2^z exactly, mantissa in [1/2, 1)
    return z - 1 if mantissa == 0.5 else z


def shell_cost(z: int) -> float:
    """``ln(i(i+1))`` with ``i = 2z`` (z >= 1) or ``1 - 2z`` (z <= 0): the weights ``1/(i(i+1))`` sum to 1 over Z."""
    i = 2 * z if z >= 1 else 1 - 2 * z
    return math.log(i * (i + 1))


@dataclass(frozen=True)
class LayerInput:
    """Singular values (descending) and (2,1)-norms of one layer: per head ``qk[h]``, ``vt[h]``; ``m_in`` (N x F),
    ``m_out`` (F x N), ``F = intermediate``."""

    qk: list[np.ndarray]
    vt: list[np.ndarray]
    m_in: np.ndarray
    m_out: np.ndarray
    qk_21: list[float]
    vt_21: list[float]
    m_in_21: float
    m_out_21: float
    intermediate: int
    m_gate: np.ndarray | None = None
    m_gate_21: float | None = None
    """A gated MLP's gate (N x F; ``m_in`` is then its up projection, ``m_out`` its down projection)."""


@dataclass(frozen=True)
class Slot:
    """One matrix: where it sits, its sizes, ``rank``, ``log2`` of its rounded radii and the ``S_p`` grid."""

    layer: int
    head: int
    type: str
    d_in: int
    d_out: int
    rank: int
    spectral_norm: float
    s_shell: int
    norm_21: float
    w_shell: int
    schatten: np.ndarray
    log_schatten: np.ndarray

    @property
    def dim(self) -> int:
        return min(self.d_in, self.d_out)

    def schatten_shell(self, j: int) -> int:
        """:func:`shell` of ``S_p`` at grid point ``j``: from the float when finite, else from ``ln S_p`` rounded
        up by a relative ``1e-12`` (far above the logsumexp error), so ``2^z >= S_p`` holds beyond float64 too."""
        value = float(self.schatten[j])
        if math.isfinite(value):
            return shell(value)
        return math.ceil(float(self.log_schatten[j]) / math.log(2) * (1 + 1e-12))

    def schatten_mp(self, j: int):
        """``S_p`` at grid point ``j`` as an mpmath number (from its logarithm when beyond float64)."""
        value = float(self.schatten[j])
        return mpmath.mpf(value) if math.isfinite(value) else mpmath.exp(mpmath.mpf(float(self.log_schatten[j])))


@dataclass(frozen=True)
class Model:
    """The slots of an ``L``-layer model of width ``N`` and the grid ``P_m`` the bound chooses p from."""

    layers: int
    hidden: int
    heads: int
    slots: tuple[Slot, ...]
    grid_m: int
    ps: np.ndarray
    family: Family | None = None
    """None: the BERT layer; else the family's layer (``sabounds.numerics.bound.family``)."""
    token_radii: tuple[tuple[float | None, float | None], ...] | None = None
    """Post-LN: per layer the output bounds ``sqrt(N) max|g| + ||b||`` of the attention's LayerNorm (what M_in reads)
    and of the layer's output LayerNorm (the next layer's input); None where the checkpoint has no such weight."""
    unmodelled: tuple = ()
    """The maps of the checkpoint's layers the bookkeeping leaves out (the family's, and the stored linear biases:
    ``architectures.bias_unmodelled``): where there is one, the totals are not a bound on the network."""
    input_radius: float | None = None
    """The embedding LayerNorm's output bound ``sqrt(N) max|g| + ||b||`` where the setting's ``input_norm`` (``B_1``) is
    its dyadic shell (the default, ``checkpoint_inputs.default_input_norm``): priced with the other norm radii."""

    @property
    def K(self) -> int:
        return len(self.slots)

    def norm_cost(self) -> float:
        """The union price of the norm radii: the family's, or the post-LN radii's dyadic shells (``ln(i(i+1))`` each),
        and the embedding LayerNorm's where it gives ``B_1``."""
        own = 0.0 if self.input_radius is None else shell_cost(shell(self.input_radius))
        if self.family is not None:
            return self.family.norm_cost() + own
        return own + sum(shell_cost(shell(r)) for pair in self.token_radii or () for r in pair if r is not None)


def build_model(
    layers: list[LayerInput],
    hidden: int,
    grid_m: int | None = None,
    rank_tol: float = RANK_TOL,
    family: Family | None = None,
    token_radii=None,
) -> Model:
    """Slots in table order (per layer: QK heads, V_tilde heads, M_in, M_out, M_gate if gated) from per-layer spectra."""
    depth = len(layers)
    m = default_grid_m(depth, hidden) if grid_m is None else grid_m
    ps = p_grid(m)
    slots = []
    for l, layer in enumerate(layers):
        entries = [(h, "QK", s, w, hidden, hidden) for h, (s, w) in enumerate(zip(layer.qk, layer.qk_21))]
        entries += [(h, "V_tilde", s, w, hidden, hidden) for h, (s, w) in enumerate(zip(layer.vt, layer.vt_21))]
        entries += [
            (-1, "M_in", layer.m_in, layer.m_in_21, hidden, layer.intermediate),
            (-1, "M_out", layer.m_out, layer.m_out_21, layer.intermediate, hidden),
        ]
        if layer.m_gate is not None:
            entries.append((-1, "M_gate", layer.m_gate, layer.m_gate_21, hidden, layer.intermediate))
        for head, kind, sigma, w21, d_in, d_out in entries:
            sigma = np.asarray(sigma, dtype=np.float64)
            with np.errstate(over="ignore"):
                sp_grid = schatten_grid(sigma, ps, rank_tol)
            top = float(sigma[0]) if sigma.size else 0.0
            slots.append(
                Slot(
                    l,
                    head,
                    kind,
                    d_in,
                    d_out,
                    int(sp_grid[0]),
                    top,
                    shell(top),
                    float(w21),
                    shell(float(w21)),
                    sp_grid,
                    log_schatten_grid(sigma, ps, rank_tol),
                )
            )
    return Model(
        depth,
        hidden,
        len(layers[0].qk),
        tuple(slots),
        m,
        ps,
        family,
        None if token_radii is None else tuple(tuple(pair or (None, None)) for pair in token_radii),
    )


def _by_layer(model: Model, rounded: bool) -> dict[int, dict]:
    """Per layer the spectral radii: ``{"QK": {head: r}, "V_tilde": {head: r}, "M_in": r, "M_out": r}`` (mpmath)."""
    radius = [mpmath.ldexp(1, s.s_shell) if rounded else mpmath.mpf(s.spectral_norm) for s in model.slots]
    by_layer: dict[int, dict] = {}
    for s, r in zip(model.slots, radius):
        entry = by_layer.setdefault(s.layer, {"QK": {}, "V_tilde": {}})
        if s.type in ("QK", "V_tilde"):
            entry[s.type][s.head] = r
        else:
            entry[s.type] = r
    return by_layer


def token_norms(model: Model, input_norm, rounded: bool = True) -> dict[int, dict]:
    """Per layer each slot type's token bound ``B_k`` in the layer without normalisation (step 'input_norms'), each
    capped by the output bound of the LayerNorm it reads where the checkpoint has one (step 'token_norms'): QK and
    V_tilde see the layer input ``B_l`` (``B_1 = B``), M_in the attention output ``sum_h ||Vt_h|| B_l`` (or the
    attention's norm ``R_attn``), M_out ``||M_in||`` times M_in's bound (``|GELU(u)| <= |u|``), and ``B_{l+1}`` is
    ``||M_out||`` times M_out's bound (or the output norm ``R_out``); radii rounded up to dyadic shells (``rounded``)."""
    by_layer = _by_layer(model, rounded)
    radii = model.token_radii or ()
    seen, b = {}, mpmath.mpf(input_norm)
    for l in sorted(by_layer):
        e = by_layer[l]
        attn_radius, out_radius = (_radius(r, rounded) for r in radii[l]) if l < len(radii) else (None, None)
        m_in = _capped(mpmath.fsum(e["V_tilde"].values()) * b, attn_radius)
        seen[l] = {"QK": b, "V_tilde": b, "M_in": m_in, "M_out": e["M_in"] * m_in}
        b = _capped(e["M_out"] * seen[l]["M_out"], out_radius)
    return seen


def _radius(value, rounded: bool):
    if value is None:
        return None
    return mpmath.ldexp(1, shell(value)) if rounded else mpmath.mpf(value)


def _capped(propagated, radius):
    """The smaller of the propagated bound and the norm's output bound (None: no norm measured)."""
    return propagated if radius is None else min(propagated, radius)


TOKEN_PREMISE = (
    "post-LN token norms: the attention of layer l reads tokens of norm <= B_l, the smaller of the bound "
    "propagated through the layer from B_1 (--input-norm, by default the embedding LayerNorm's output "
    "bound) and the previous layer's output LayerNorm's sqrt(N) max|g| + ||b|| (M_in: the attention's LayerNorm), radii rounded up to dyadic shells and "
    "priced; the head factor is ||Vt_h|| (1 + c B_l^2 ||QK_h||), QK's gamma (c/2) B_l^2 ||Vt_h|| "
    "||M_out|| ||M_in|| (steps whole_bound.token_attention_factor, token_gamma_qk, token_norms)"
)


def token_norm_record(model: Model, input_norm) -> dict | None:
    """The layer token bounds ``B_l`` the attention factors use, propagated and capped (None for a pre-LN family)."""
    if model.family is not None and model.family.pre_ln:
        return None
    capped = token_norms(model, input_norm)
    propagated = token_norms(replace(model, token_radii=None), input_norm)
    return {
        "premise": TOKEN_PREMISE,
        "capped_by_norms": model.token_radii is not None,
        "layer_token_norm": [_plain(capped[l]["QK"]) for l in sorted(capped)],
        "layer_token_norm_propagated": [_plain(propagated[l]["QK"]) for l in sorted(propagated)],
        "norm_radii": None if model.token_radii is None else [list(pair) for pair in model.token_radii],
    }


def _plain(value):
    """A positive mpmath bound as a float, or a LogReal beyond float64 (never ``inf`` in the JSON)."""
    return from_ln(float(mpmath.log(value))) if value > 0 else 0.0


def input_norms(model: Model, input_norm, rounded: bool = True) -> list[mpmath.mpf]:
    """Each slot's input norm bound ``B_k`` (:func:`token_norms`; a family's layer by its own bookkeeping)."""
    if model.family is not None:
        from sabounds.numerics.bound.family import family_input_norms

        return family_input_norms(model, _by_layer(model, rounded), PUBLISHED, input_norm, rounded)
    seen = token_norms(model, input_norm, rounded)
    return [seen[s.layer][s.type] for s in model.slots]


def rhos(
    model: Model, variant: Variant, rounded: bool = True, edelman: bool = False, input_norm=None
) -> list[mpmath.mpf]:
    """``rho_k = gamma_k alpha^(l(k))`` from the dyadic spectral radii (``rounded``) or the norms themselves, in mpmath.

    ``input_norm``: tokens of layer l have norm ``<= B_l`` (:func:`token_norms` from ``B_1 = input_norm``), so the head
    factor is ``||Vt_h|| (1 + c B_l^2 ||QK_h||)`` and QK's gamma carries ``B_l^2`` (steps 'token_attention_factor',
    'token_gamma_qk'); None: unit tokens, the published proxy's ``kappa``.  ``edelman``: Edelman's ``gamma^E``
    (docs/definitions.md), without the attention constant's factor ``c/2`` on QK."""
    c = mpmath.mpf(variant.attention)
    lphi = variant.lphi_value()
    by_layer = _by_layer(model, rounded)
    if model.family is not None:
        from sabounds.numerics.bound.family import family_rhos

        return family_rhos(model, by_layer, variant, rounded, edelman, input_norm)
    tokens = (
        {l: mpmath.mpf(1) for l in by_layer}
        if input_norm is None
        else {l: e["QK"] for l, e in token_norms(model, input_norm, rounded).items()}
    )
    lip = {
        l: lphi
        * e["M_in"]
        * e["M_out"]
        * mpmath.fsum(e["V_tilde"][h] * (1 + c * tokens[l] ** 2 * e["QK"][h]) for h in e["QK"])
        for l, e in by_layer.items()
    }
    alpha = {}
    for l in sorted(by_layer, reverse=True):
        alpha[l] = alpha[l + 1] * lip[l + 1] if l + 1 in by_layer else mpmath.mpf(1)
    out = []
    for s in model.slots:
        e = by_layer[s.layer]
        gamma = {
            "QK": (1 if edelman else c / 2)
            * tokens[s.layer] ** 2
            * e["V_tilde"].get(s.head, 0)
            * e["M_out"]
            * e["M_in"],
            "V_tilde": e["M_out"] * e["M_in"],
            "M_in": e["M_out"],
            "M_out": mpmath.mpf(1),
        }[s.type]
        out.append(gamma * alpha[s.layer])
    return out
