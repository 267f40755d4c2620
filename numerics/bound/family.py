"""The whole bound's bookkeeping for a layer that departs from BERT's: ``rho_k`` and input norms per slot.

Derivation ``whole_bound.families`` (``sabounds.theory.family_bound``), after the extension of
``sabounds.numerics.proxies.layer_factors``, in mpmath from the dyadic radii.  Pre-LN, with ``D = 1 + Lip_LN2 F``:

    A = sum_h ||Vt_h|| (1 + c B^2 ||QK_h|| / sqrt(d_h)),  F = (1 + L_act) R ||G|| ||U|| ||D|| (gated), L_act ||M_in|| ||M_out||,
    lip = (1 + Lip_LN1 A) D,  gamma: QK_h (c/2) B^2 ||Vt_h|| D / sqrt(d_h), V_tilde_h D, gate L_act R ||U|| ||D||,
    up R ||G|| ||D|| (ungated M_in: L_act ||M_out||), down 1;  inputs B (attention), R (gate, up), R^2 ||G|| ||U|| or
    R ||M_in|| (down).

Post-LN (another activation, one K/V per head): BERT's bookkeeping on tokens of norm ``B_l`` with the family's
``L_act``, which here also enters gamma (``F = L_act ||M_in|| ||M_out||``, as in the extension; BERT's published gamma leaves ``L_phi`` out).  ``B``, ``R`` and the
norms' ``max|g|`` are rounded up to dyadic shells, priced like the spectral radii (step 'norm_shells').
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath

from sabounds.numerics.proxies.layer_factors import NormPremise


@dataclass(frozen=True)
class NormRadii:
    """One pre-LN layer's norms: ``max|g|`` and output radius before attention and before the MLP."""

    attn_gain: float
    attn_radius: float
    mlp_gain: float
    mlp_radius: float

    def values(self) -> tuple[float, float, float, float]:
        return self.attn_gain, self.attn_radius, self.mlp_gain, self.mlp_radius


@dataclass(frozen=True)
class Family:
    """What the bound needs of a family's layer beyond its slots; ``premises`` are printed with the bound (what the
    bookkeeping leaves out is the model's: ``Model.unmodelled``)."""

    name: str
    pre_ln: bool
    gated: bool
    activation: str
    head_dim: int
    premise: NormPremise | None
    norms: tuple[NormRadii, ...]
    premises: tuple[str, ...]
    assumed: tuple[str, ...] = ()
    """Derivation steps the totals rest on that are assumed, not derived (e.g. ``whole_bound.families.rope_cover``)."""

    def norm_cost(self) -> float:
        """The union price of the norms' dyadic shells: ``sum ln(i(i+1))`` over every gain and radius."""
        from sabounds.numerics.bound.slots import shell, shell_cost

        return sum(shell_cost(shell(v)) for n in self.norms for v in n.values())

    def activation_constant(self, variant) -> mpmath.mpf:
        """``L_act``: the variant's ``L_phi`` for GELU, else ``sup |phi'|`` rounded up (an exact rational)."""
        if self.activation == "gelu":
            return variant.lphi_value()
        from sabounds.theory.architecture import activation_lipschitz

        q = activation_lipschitz(self.activation)
        return mpmath.mpf(int(q.p)) / int(q.q)


def _radius(value: float, rounded: bool) -> mpmath.mpf:
    from sabounds.numerics.bound.slots import shell

    return mpmath.ldexp(1, shell(value)) if rounded else mpmath.mpf(value)


def _lip_ln(premise: NormPremise, gain) -> mpmath.mpf:
    floor = mpmath.mpf(premise.rms_floor) ** 2 + mpmath.mpf(premise.eps)
    if floor <= 0:
        premise.lipschitz(1.0)  # raises the one-line error
    return gain / mpmath.sqrt(floor)


def _pre_ln_layer(family: Family, e: dict, norms: NormRadii, c, lact, rounded: bool, edelman: bool) -> tuple:
    """``(lip, gamma, inputs)`` of one pre-LN layer; ``e`` its spectral radii by type (dicts over heads for QK, V_tilde)."""
    b, r = _radius(norms.attn_radius, rounded), _radius(norms.mlp_radius, rounded)
    lip1 = _lip_ln(family.premise, _radius(norms.attn_gain, rounded))
    lip2 = _lip_ln(family.premise, _radius(norms.mlp_gain, rounded))
    scale = b * b / mpmath.sqrt(family.head_dim)
    a = mpmath.fsum(e["V_tilde"][h] * (1 + c * scale * e["QK"][h]) for h in e["QK"])
    if family.gated:
        f = (1 + lact) * r * e["M_gate"] * e["M_in"] * e["M_out"]
        gamma = {"M_gate": lact * r * e["M_in"] * e["M_out"], "M_in": r * e["M_gate"] * e["M_out"]}
        inputs = {"M_gate": r, "M_in": r, "M_out": r * r * e["M_gate"] * e["M_in"]}
    else:
        f = lact * e["M_in"] * e["M_out"]
        gamma, inputs = {"M_in": lact * e["M_out"]}, {"M_in": r, "M_out": r * e["M_in"]}
    d = 1 + lip2 * f
    qk_factor = scale * (1 if edelman else c / 2)
    gamma.update(
        {
            "M_out": mpmath.mpf(1),
            "V_tilde": {h: d for h in e["V_tilde"]},
            "QK": {h: qk_factor * e["V_tilde"][h] * d for h in e["QK"]},
        }
    )
    inputs.update(QK=b, V_tilde=b)
    return (1 + lip1 * a) * d, gamma, inputs


def _post_ln_layer(e: dict, c, lact, b_in, edelman: bool, unit_tokens: bool, radii=(None, None)) -> tuple:
    """BERT's bookkeeping (docs/definitions.md) with ``L_act`` on tokens of norm ``<= B_l = b_in``:
    ``lip = L_act ||M_in|| ||M_out|| sum_h ||Vt_h|| (1 + c B_l^2 ||QK_h||)``, gamma ``(c/2) B_l^2 ||Vt_h|| F``, ``F``,
    ``L_act ||M_out||``, 1 with ``F = L_act ||M_in|| ||M_out||`` (``unit_tokens``: ``B_l = 1`` there, the published
    proxy); inputs capped by the layer's norm radii ``(R_attn, R_out)`` (whole_bound 'token_norms')."""
    from sabounds.numerics.bound.slots import _capped

    tok2 = mpmath.mpf(1) if unit_tokens else b_in * b_in
    f = lact * e["M_in"] * e["M_out"]
    a = mpmath.fsum(e["V_tilde"][h] * (1 + c * tok2 * e["QK"][h]) for h in e["QK"])
    qk_factor = (1 if edelman else c / 2) * tok2
    gamma = {
        "QK": {h: qk_factor * e["V_tilde"][h] * f for h in e["QK"]},
        "V_tilde": {h: f for h in e["V_tilde"]},
        "M_in": lact * e["M_out"],
        "M_out": mpmath.mpf(1),
    }
    attention = _capped(mpmath.fsum(e["V_tilde"].values()) * b_in, radii[0])
    inputs = {"QK": b_in, "V_tilde": b_in, "M_in": attention, "M_out": e["M_in"] * attention}
    return a * f, gamma, inputs, _capped(e["M_out"] * inputs["M_out"], radii[1])


def layer_factors(model, by_layer: dict, variant, input_norm, rounded: bool, edelman: bool) -> dict[int, tuple]:
    """Per layer ``(lip, gamma, inputs)`` of ``model.family`` from the spectral radii ``by_layer``; ``input_norm``
    None: post-LN attention factors on unit tokens (the published proxy's kappa), inputs from ``B = 1``."""
    from sabounds.numerics.bound.slots import _radius

    family = model.family
    if not family.pre_ln and family.gated:
        raise ValueError(
            f"the whole bound for a post-LN gated MLP ({family.name}) is not derived: the MLP's input "
            "radius is not bounded by a norm; its proxies are in 'sabounds analyze'"
        )
    c, lact = mpmath.mpf(variant.attention), family.activation_constant(variant)
    out, b = {}, mpmath.mpf(1 if input_norm is None else input_norm)
    radii = model.token_radii or ()
    for l in sorted(by_layer):
        if family.pre_ln:
            out[l] = _pre_ln_layer(family, by_layer[l], family.norms[l], c, lact, rounded, edelman)
        else:
            pair = tuple(_radius(r, rounded) for r in radii[l]) if l < len(radii) else (None, None)
            lip, gamma, inputs, b = _post_ln_layer(by_layer[l], c, lact, b, edelman, input_norm is None, pair)
            out[l] = (lip, gamma, inputs)
    return out


def _entry(table: dict, slot):
    value = table[slot.type]
    return value[slot.head] if isinstance(value, dict) else value


def family_rhos(model, by_layer: dict, variant, rounded: bool, edelman: bool, input_norm=None) -> list:
    """``rho_k = gamma_k alpha^(l)``, ``alpha^(l) = prod_{j > l} lip_j`` (mpmath); ``input_norm`` as in
    :func:`~sabounds.numerics.bound.slots.rhos`."""
    per = layer_factors(model, by_layer, variant, input_norm, rounded, edelman)
    alpha = {}
    for l in sorted(per, reverse=True):
        alpha[l] = alpha[l + 1] * per[l + 1][0] if l + 1 in per else mpmath.mpf(1)
    return [_entry(per[s.layer][1], s) * alpha[s.layer] for s in model.slots]


def family_input_norms(model, by_layer: dict, variant, input_norm, rounded: bool) -> list:
    """Each slot's input norm bound ``B_k`` (pre-LN: from the norms' radii, whatever ``input_norm``)."""
    per = layer_factors(model, by_layer, variant, input_norm, rounded, False)
    return [_entry(per[s.layer][2], s) for s in model.slots]
