"""Everything ``sabounds bound`` reports, as numbers: the bounds under each variant of the constants, the n each
needs to reach the target, the break-even factors, and the bounds against n for the figure."""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from sabounds.numerics.bound.slots import PUBLISHED, VARIANTS, Model, Variant, token_norm_record
from sabounds.numerics.bound.solve import BreakEven, NNeeded, n_needed, proxy_break_even, whole_break_even
from sabounds.numerics.bound.whole import BoundInputs, BoundValue, WholeBound, evaluate_model, remembering

NAMES = ("ours_sum", "ours_rss", "edelman")
ACTIVATION_NAMES = {"silu": "SiLU", "gelu_tanh": "GELU-tanh", "relu": "ReLU", "gelu": "GELU"}


@dataclass(frozen=True)
class Curve:
    """The three bounds (primary variant) at log-spaced ``ns``."""

    ns: list
    values: dict


@dataclass(frozen=True)
class BoundAnalysis:
    model: Model
    setting: BoundInputs
    target: mpmath.mpf
    bounds: dict[str, WholeBound]
    needed: dict[str, NNeeded]
    """Under the first variant; ``needed_by_variant`` has every variant's."""
    needed_by_variant: dict[str, dict[str, NNeeded]]
    proxy_break_even: BreakEven
    whole_break_even: BreakEven
    curve: Curve | None

    @property
    def primary(self) -> WholeBound:
        return self.bounds[PUBLISHED.key]

    def label(self, variant: Variant) -> str:
        """The variant's label; for a family whose activation is not GELU, its own ``L_act`` replaces ``L_phi``."""
        family = self.model.family
        if family is None or family.activation == "gelu":
            return variant.label
        name = ACTIVATION_NAMES.get(family.activation, family.activation)
        lact = family.activation_constant(variant)
        return (
            f"{variant.key}: {name} L_act = {mpmath.nstr(lact, 8)} (sup |phi'| rounded up; the GELU constants "
            f"do not enter), attention constant {variant.attention}"
        )

    @property
    def unmodelled(self) -> tuple:
        """The maps of the checkpoint's layers the bookkeeping leaves out (the family's and the stored linear biases)."""
        return self.model.unmodelled

    @property
    def sound(self) -> bool:
        """True when the totals bound the network (every map modelled, under the stated premises); a premise assumed,
        not derived, is named in :attr:`assumed_not_derived`."""
        return not self.unmodelled

    @property
    def assumed_not_derived(self) -> tuple[str, ...]:
        """The derivation steps the totals rest on without a derivation (empty for BERT's layer)."""
        return () if self.model.family is None else self.model.family.assumed

    def to_json(self) -> dict:
        return to_json(self)


def bound_curve(
    model: Model, variant: Variant, setting: BoundInputs, needed: dict[str, NNeeded], points: int = 17
) -> Curve:
    """The bounds at ``points`` values of n, log-spaced from 10 to 100 times the largest n needed."""
    top = max([float(mpmath.log10(r.n)) for r in needed.values() if r.n is not None] or [3]) + 2
    ns = [mpmath.mpf(10) ** x for x in np.linspace(1, max(top, 3), points)]
    at = [evaluate_model(model, variant, setting.at_n(n)) for n in ns]
    return Curve(ns, {name: [getattr(wb, name).total for wb in at] for name in NAMES})


def analyze_bound(
    model: Model, setting: BoundInputs, target=1, variants: tuple[Variant, ...] = VARIANTS, curve_points: int = 0
) -> BoundAnalysis:
    """Bounds under every variant; n needed, break-even and (``curve_points`` > 0) the curve under the first."""
    with mpmath.workdps(setting.dps), remembering():
        target = mpmath.mpf(target)
        bounds = {v.key: evaluate_model(model, v, setting) for v in variants}
        primary = variants[0]
        sound = not model.unmodelled
        needed_by_variant = {
            v.key: {
                name: n_needed(model, v, setting, name, target) if sound else not_a_bound(model, name, target)
                for name in NAMES
            }
            for v in variants
        }
        needed = needed_by_variant[primary.key]
        proxy = proxy_break_even(model, setting.dps)
        whole = whole_break_even(model, primary, setting)
        curve = bound_curve(model, primary, setting, needed, curve_points) if curve_points and sound else None
    return BoundAnalysis(model, setting, target, bounds, needed, needed_by_variant, proxy, whole, curve)


def not_a_bound(model: Model, which: str, target) -> NNeeded:
    """No n is solved for where the totals are not a bound: the note names what is left out."""
    left_out = "; ".join(u.component for u in model.unmodelled)
    return NNeeded(which, target, None, None, None, None, 0, f"not solved: not a bound (not modelled: {left_out})")


def _num(x):
    """A JSON number (a string of 17 significant digits past float64's range)."""
    if x is None:
        return None
    f = float(x)
    return f if np.isfinite(f) and f != 0 or x == 0 else mpmath.nstr(x, 17)


def _bound_json(b: BoundValue) -> dict:
    out = {
        "label": b.label,
        "source": b.source,
        "total": _num(b.total),
        "vacuous": bool(b.vacuous),
        "terms": [{"key": t.key, "label": t.label, "value": _num(t.value)} for t in b.terms],
        "post_hoc_price": b.cost_parts,
    }
    if b.p_opt is not None:
        out["p_opt"] = [float(x) for x in b.p_opt]
        out["forms"] = list(b.forms)
    return out


def _slot_json(model: Model, i: int) -> dict:
    s = model.slots[i]
    return {"layer": s.layer, "head": s.head, "type": s.type}


def to_json(a: BoundAnalysis) -> dict:
    s = a.setting
    from sabounds.theory.whole_bound import CONSTANTS

    soundness = {
        "sound": a.sound,
        "unmodelled": [u.to_json() for u in a.unmodelled],
        "assumed_not_derived": list(a.assumed_not_derived),
    }
    return {
        **soundness,
        "model": {
            "L": a.model.layers,
            "N": a.model.hidden,
            "heads": a.model.heads,
            "slots": a.model.K,
            "grid_m": a.model.grid_m,
            **(
                {}
                if a.model.family is None
                else {"family": a.model.family.name, "premises": list(a.model.family.premises)}
            ),
            "token_norms": token_norm_record(a.model, s.input_norm),
        },
        "setting": {
            "n": _num(s.n),
            "delta": s.delta,
            "margin": s.margin,
            "input_norm": s.input_norm,
            "input_norm_source": s.input_norm_source,
            "input_norm_radius": a.model.input_radius,
            "tokens": s.tokens,
            "tokens_source": s.tokens_source,
            "empirical_margin_risk": s.empirical,
            "precision_digits": s.dps,
            "target": _num(a.target),
            "constants": {name: str(value) for name, value in s.constants},
            "constant_meanings": {name: c.meaning for name, c in CONSTANTS.items()},
        },
        "variants": {
            key: {
                "label": a.label(wb.variant),
                "status": wb.variant.status,
                **soundness,
                **{
                    name: {**_bound_json(getattr(wb, name)), "n_needed": _num(a.needed_by_variant[key][name].n)}
                    for name in NAMES
                },
            }
            for key, wb in a.bounds.items()
        },
        "n_needed": {
            name: {
                "n": _num(r.n),
                "bound_at_n": _num(r.value),
                "bracket": [_num(r.lo), _num(r.hi)],
                "evaluations": r.evaluations,
                "variant": PUBLISHED.key,
                "source": "reconstructed",
                "note": r.note,
            }
            for name, r in a.needed.items()
        },
        "break_even": {
            kind: {
                "source": be.source,
                "model_factor": _num(be.model_factor),
                "model_slot": None if be.model_slot is None else _slot_json(a.model, be.model_slot),
                "per_matrix": [{**_slot_json(a.model, i), "factor": _num(f)} for i, f in enumerate(be.per_slot)],
            }
            for kind, be in (("proxy", a.proxy_break_even), ("whole_bound", a.whole_break_even))
        },
        "curve": None
        if a.curve is None
        else {"n": [_num(n) for n in a.curve.ns], **{k: [_num(v) for v in vs] for k, vs in a.curve.values.items()}},
    }
