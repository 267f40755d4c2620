"""What ``sabounds analyze`` reports for a model: one :class:`MatrixResult` per matrix, the section-3 variants
(:class:`VariantTotals`) and the whole :class:`ModelAnalysis` with its JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sabounds.numerics.checkpoints.architectures import PRE_LN
from sabounds.numerics.checkpoints.source import ModelShape
from sabounds.numerics.log_real import LogReal

TYPES = ("QK", "V_tilde", "M_in", "M_out")


ALL_TYPES = TYPES + ("M_gate",)
"""Matrix types: ``M_gate`` only in a gated MLP (its up projection is ``M_in``, its down projection ``M_out``)."""


PUBLISHED = "published"


@dataclass(frozen=True)
class MatrixResult:
    """One matrix's row of the analysis (``layer`` 0-based, ``head`` -1 for the MLP matrices)."""

    layer: int
    head: int
    type: str
    rank: int
    spectral_norm: float
    frobenius_norm: float
    norm_21: float
    stable_rank: float
    alpha: float | LogReal  # a LogReal where the value leaves float64 (numerics/log_real.py)
    gamma: float | LogReal
    scale: float | LogReal
    p_opt: float
    min_contribution: float
    sigma: np.ndarray = field(repr=False)
    contributions: np.ndarray = field(repr=False)
    log_contributions: np.ndarray | None = field(default=None, repr=False)  # ln of the above, finite beyond float64
    norm_11: float | None = None  # entrywise l1 (Trauger-Tewari); None where not measured
    horn_bound: bool = False
    """True for a rotating (RoPE) head's QK: its spectrum is Horn's ``b_i = sigma_i(Wq_h) sigma_i(Wk_g)``, so the
    norms are upper bounds over the offsets' products, not a stored matrix's values (JSON keys ``*_bound``)."""

    def to_json(self) -> dict:
        norms = {
            "spectral_norm": self.spectral_norm,
            "frobenius_norm": self.frobenius_norm,
            "norm_21": self.norm_21,
            "stable_rank": self.stable_rank,
        }
        if self.horn_bound:
            norms = {
                "spectral_bound": self.spectral_norm,
                "frobenius_bound": self.frobenius_norm,
                "norm_21_bound": self.norm_21,
                "stable_rank_of_bounds": self.stable_rank,
            }
        return {
            "layer": self.layer,
            "head": self.head,
            "type": self.type,
            "rank": self.rank,
            **norms,
            "values": "horn_bound" if self.horn_bound else "measured",
            "alpha": self.alpha,
            "gamma": self.gamma,
            "scale": self.scale,
            "p_opt": self.p_opt,
            "min_contribution": self.min_contribution,
        }


@dataclass(frozen=True)
class VariantTotals:
    """The section-3 variants, beside the published totals: L_phi inside gamma; Edelman's QK term with factor 2."""

    ours_lphi_in_gamma: float
    edelman_qk_factor_2: float | LogReal


@dataclass(frozen=True)
class ModelAnalysis:
    """Everything ``sabounds analyze`` reports for an ``L``-layer model (or a depth truncation).

    ``proxy`` is ``"published"`` when the published proxy applies unchanged, else ``"extension"`` and
    ``departures`` lists what departs from the published layer (``sabounds.numerics.proxies.layer_factors``).
    """

    shape: ModelShape
    grid_m: int
    lphi: float
    rank_tol: float
    ps: np.ndarray
    matrices: list[MatrixResult]
    ours: float
    edelman: float | LogReal
    variants: VariantTotals
    proxy: str = PUBLISHED
    departures: tuple[str, ...] = ()
    raw_11: tuple = ()
    """Per layer: the sum of ||.||_{1,1} over its stored weight factors (None where not measured)."""
    baselines: tuple[tuple[str, str, object], ...] = ()
    """The catalog's data bounds on this model: (name, source label, value), e.g. ``trauger_tewari.tt_l1``."""
    layer_factors: tuple[dict, ...] = ()
    """Extension only: per layer ``lip``, ``A``, ``F``, ``Lip_LN`` and, with RoPE, the family bound's ratio to QK_h(0)."""

    @property
    def rank_count(self) -> float:
        """``sum sqrt(rank N) + sqrt(L)``: what ``ours`` equals when every matrix chooses p = 0."""
        n = self.shape.hidden
        return sum(math.sqrt(m.rank * n) for m in self.matrices) + math.sqrt(self.shape.layers)

    def types(self) -> tuple[str, ...]:
        """The matrix types present (``M_gate`` only for a gated MLP)."""
        present = {m.type for m in self.matrices}
        return tuple(t for t in ALL_TYPES if t in present)

    def p_zero_counts(self) -> dict[str, tuple[int, int]]:
        """Per type: (how many matrices chose p = 0, how many there are)."""
        return {
            t: (sum(m.p_opt == 0.0 for m in self.matrices if m.type == t), sum(m.type == t for m in self.matrices))
            for t in self.types()
        }

    def to_json(self) -> dict:
        from sabounds.numerics.proxies.layer_factors import unmodelled

        s = self.shape
        return {
            "model": {
                "L": s.layers,
                "N": s.hidden,
                "heads": s.heads,
                "head_dim": s.head_dim,
                "intermediate": s.intermediate,
                "kv_heads": s.kv_heads,
                "family": s.family,
                "layout": s.layout,
                "activation": s.activation,
                "gated": s.gated,
                **({"norm_eps": s.norm_eps} if s.layout == PRE_LN else {}),
                **({"rope": s.rope.describe()} if s.rope is not None else {}),
            },
            "proxy": self.proxy,
            "departures": list(self.departures),
            "unmodelled": [u.to_json() for u in unmodelled(s)],
            "grid_m": self.grid_m,
            "matrices": [m.to_json() for m in self.matrices],
            "totals": {"ours": self.ours, "edelman": self.edelman},
            "baselines": {name: {"value": v, "source": src} for name, src, v in self.baselines},
            "variants": {
                "ours_lphi_in_gamma": self.variants.ours_lphi_in_gamma,
                "edelman_qk_factor_2": self.variants.edelman_qk_factor_2,
            },
            "layer_factors": list(self.layer_factors),
            "settings": {"lphi": self.lphi, "rank_tol": self.rank_tol},
        }
