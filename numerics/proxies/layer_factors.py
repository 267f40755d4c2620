"""Per-family Lipschitz factors of one layer: ``lip`` (the layer's Lipschitz constant, entering alpha) and each
matrix's in-layer factor ``gamma`` (its error's amplification up to the layer output), from spectral norms.

- **published** (post-LN, GELU, ungated): ``sabounds.numerics.proxies.published_factors`` unchanged,
  ``lip = L_phi ||M_in|| ||M_out|| A`` with ``A = sum_h ||Vt_h|| (1 + 4 ||QK_h||)`` (tokens of norm <= 1).
- **extension, attention** (pre-LN, derivation ``arch.token_radius``): attention reads normalised tokens of norm
  ``<= B = sqrt(N) max|g| + ||b||`` and scores ``x Wq^T R_delta Wk x'^T / sqrt(d_h)``; rescaling the published
  factor gives ``A = sum_h ||Vt_h|| (1 + 4 B^2 ||QK_h|| / sqrt(d_h))``, ``||QK_h||`` the RoPE family's certified
  ``||Wq_h||_2 ||Wk_g||_2`` where the family rotates (``arch.rope``).
- **extension, MLP**: ungated ``F = L_act ||M_in|| ||M_out||``; gated (``(act(x G) * (x U)) D``)
  ``F = (1 + L_act) R ||G|| ||U|| ||D||`` for inputs ``||x||_2 <= R``, R the pre-MLP norm's radius.
- **extension, layout** (``arch.pre_ln``): ``lip = (1 + Lip_LN1 A)(1 + Lip_LN2 F)`` with
  ``Lip_LN = max|g| / sqrt(rho^2 + eps)`` under the premise "every norm input has rms >= rho"
  (:class:`NormPremise`; rho = 0 is the eps-based global constant); post-LN ``lip = A F``.
- **extension, gamma**: ``QK_h: 2 B^2 ||Vt_h|| D / sqrt(d_h)``, ``Vt_h: D`` with ``D = F`` (post-LN, B = 1, no
  score scale) or ``1 + Lip_LN2 F`` (pre-LN); ungated ``M_in: L_act ||M_out||``; gated ``M_gate: L_act R ||U|| ||D||``,
  ``M_in (= U): R ||G|| ||D||``; ``M_out: 1``.  Edelman's in-layer factor is the same without the factor 2 on QK.
The derivations and their checks are ``sabounds.theory.architecture`` and ``sabounds.proofs_check.architecture``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from sabounds.numerics.checkpoints.architectures import FAMILIES, PRE_LN
from sabounds.numerics.proxies.published_factors import L_PHI


@cache
def activation_constant(activation: str) -> float:
    """``L_act``: GELU's published 1.13, else ``sup |phi'|`` rounded up (derived by ``sabounds.theory.architecture``)."""
    if activation == "gelu":
        return L_PHI
    from sabounds.theory.architecture import activation_lipschitz

    return float(activation_lipschitz(activation))


DEFAULT_EPS = 1e-5
"""eps assumed (and said) when neither the config nor the family states one: PyTorch's LayerNorm default."""


@dataclass(frozen=True)
class NormPremise:
    """Premise of every pre-LN number: each normalisation's input has rms >= ``rms_floor`` (rho).  Then an RMSNorm or
    LayerNorm of weight g is ``max|g| / sqrt(rho^2 + eps)``-Lipschitz there (``arch.pre_ln.norm_lipschitz``);
    rho = 0 assumes nothing and leaves the global constant ``max|g| / sqrt(eps)``."""

    rms_floor: float
    eps: float
    eps_assumed: bool = False

    def lipschitz(self, gain: float) -> float:
        floor = self.rms_floor**2 + self.eps
        if floor <= 0:
            raise ValueError(
                "the normalisation is not Lipschitz without eps or a floor on its input's rms; give "
                "--rms-floor RHO (a lower bound on the residual stream's rms)"
            )
        return gain / math.sqrt(floor)

    def describe(self) -> str:
        source = (
            "assumed (neither the config nor the family states one)"
            if self.eps_assumed
            else "from the config (the family's default where it states none)"
        )
        if self.rms_floor > 0:
            return (
                f"normalisation premise: every norm input has rms >= {self.rms_floor:g} (a LayerNorm's: its "
                "standard deviation; assumed, not checked "
                f"on data), so Lip_LN = max|g| / sqrt({self.rms_floor:g}^2 + eps), eps = {self.eps:g} {source}"
            )
        return (
            f"normalisation premise: none on the residual stream (no --rms-floor), so Lip_LN is the global "
            f"max|g| / sqrt(eps) with eps = {self.eps:g} {source}; Lip_LN = 1 would be false"
        )


def premise_for(shape, rms_floor: float | None = None) -> NormPremise | None:
    """The premise of a pre-LN family (``rms_floor`` default 0, eps from the config), None for a post-LN one."""
    if shape.layout != PRE_LN:
        return None
    floor = 0.0 if rms_floor is None else float(rms_floor)
    if not math.isfinite(floor) or floor < 0:
        raise ValueError(f"--rms-floor must be a finite number >= 0, got {rms_floor}")
    if shape.norm_eps is None:
        return NormPremise(floor, DEFAULT_EPS, eps_assumed=True)
    return NormPremise(floor, shape.norm_eps)


@dataclass(frozen=True)
class TokenNorm:
    """One pre-LN norm: ``gain = max|g|`` and the radius ``sqrt(N) max|g| + ||b||_2`` of its outputs; ``assumed``
    names the assumption made when the checkpoint has no weight for it (then ``max|g| <= 1`` is assumed)."""

    gain: float
    radius: float
    assumed: str | None = None

    @staticmethod
    def stored(gain: float | None, radius: float | None, assumed: int, which: str) -> TokenNorm | None:
        """From the numbers a LayerSpectra keeps (None when the norm was not measured)."""
        if radius is None:
            return None
        note = f"{which} norm weight not in the checkpoint: max|g| <= 1 assumed" if assumed else None
        return TokenNorm(gain if gain is not None else 1.0, radius, note)


def token_norm(hidden: int, weight: np.ndarray | None, bias: np.ndarray | None, which: str) -> TokenNorm:
    """``R = sqrt(N) max|g| + ||b||`` (RMSNorm: ``||h / rms(h)|| <= sqrt(N)``; LayerNorm likewise after centring);
    without the weight ``max|g| <= 1`` is assumed and said (``assumed``)."""
    root = math.sqrt(hidden)
    shift = float(np.linalg.norm(bias)) if bias is not None else 0.0
    if weight is None:
        return TokenNorm(
            1.0,
            root + shift,
            f"{which} norm weight not in the checkpoint: max|g| <= 1 assumed, R = sqrt(N) = {root:.4g}",
        )
    gain = float(np.max(np.abs(weight)))
    return TokenNorm(gain, root * gain + shift)


def departures(
    shape, premise: NormPremise | None = None, notes: tuple[str, ...] = (), with_unmodelled: bool = True
) -> list[str]:
    """How the family's layer departs from the published proxy's (post-LN, GELU, ungated, one K/V per head, no
    RoPE), the normalisation premise of a pre-LN family, the maps left out (:func:`unmodelled`, unless
    ``with_unmodelled`` is False) and ``notes`` (assumptions made while measuring)."""
    out = []
    if shape.layout == PRE_LN:
        out.append(
            "pre-LN with residuals: lip = (1 + Lip_LN A)(1 + Lip_LN F), attention on tokens of norm "
            "B = sqrt(N) max|g| + ||b||, scores / sqrt(d_h)"
        )
        out.append((premise or premise_for(shape)).describe())
    if getattr(shape, "rope", None) is not None:
        out.append(
            f"{shape.rope.describe()}: QK_h is the family Wq_h^T R_delta Wk_g over offsets delta, bounded "
            "uniformly, cited: ||.||_2 <= ||Wq_h|| ||Wk_g||; the product inequality prod_{i<=k} sigma_i <= "
            "prod_{i<=k} sigma_i(Wq_h) sigma_i(Wk_g) (so S_p, p > 0, is at most that of b_i = sigma_i(Wq_h) "
            "sigma_i(Wk_g)); Horn's sigma_{i+j-1} <= sigma_i(Wq_h) sigma_j(Wk_g) for each sigma_k (the rank); "
            "rank <= d_h; a joint cover over offsets is not derived"
        )
    if shape.gated:
        out.append("gated MLP: F = (1 + L_act) R ||G|| ||U|| ||D||, inputs ||x|| <= R")
    if shape.kv_heads != shape.heads:
        out.append(f"grouped-query attention: {shape.heads} query heads share {shape.kv_heads} key/value heads")
    if shape.activation != "gelu":
        out.append(f"activation {shape.activation}: L_act = {activation_constant(shape.activation):.6g}")
    out += [f"NOT MODELLED, {u.describe()}" for u in (unmodelled(shape) if with_unmodelled else ())]
    return out + list(dict.fromkeys(notes))


def unmodelled(shape) -> tuple:
    """The :class:`~sabounds.numerics.checkpoints.architectures.Unmodelled` maps of the family's layer: where there
    is one, lip, alpha, ours and edelman do not bound the network."""
    family = FAMILIES.get(shape.family)
    return (*(family.unmodelled if family is not None else ()), *shape.unmodelled)


@dataclass(frozen=True)
class ExtensionFactors:
    """One layer's ``lip`` and per-type ``gamma`` (arrays over heads for QK and V_tilde) under the extension."""

    lip: float
    gamma: dict
    radius: float | None
    attention: float = 0.0
    mlp: float = 0.0


def attention_factor(qk, vt, radius: float = 1.0, head_dim: int | None = None) -> float:
    """``A = sum_h ||Vt_h|| (1 + 4 B^2 ||QK_h|| / sqrt(d_h))`` (``head_dim`` None: no score scale, B = 1: published)."""
    scale = radius**2 / (math.sqrt(head_dim) if head_dim else 1.0)
    return float(np.sum(np.asarray(vt) * (1.0 + 4.0 * scale * np.asarray(qk))))


def extension_factors(
    spectral: dict,
    shape,
    lact: float,
    mlp: TokenNorm | float | None = None,
    attn: TokenNorm | None = None,
    premise: NormPremise | None = None,
) -> ExtensionFactors:
    """``spectral``: ``QK`` (the RoPE family's bound where the family rotates), ``V_tilde`` (per head), ``M_in``,
    ``M_out``, ``M_gate`` (gated) spectral norms; ``mlp``/``attn`` the pre-MLP/pre-attention norms (pre-LN; a
    missing one is taken as max|g| <= 1, radius sqrt(N), the assumption ``token_norm`` states); ``premise``
    defaults to :func:`premise_for` (rho = 0, the config's eps)."""
    qk, vt = np.asarray(spectral["QK"]), np.asarray(spectral["V_tilde"])
    mlp = TokenNorm(1.0, float(mlp)) if isinstance(mlp, (int, float)) else mlp
    radius = mlp.radius if mlp is not None else None
    s_in, s_out = spectral["M_in"], spectral["M_out"]
    if shape.gated:
        s_gate = spectral["M_gate"]
        f_mlp = (1.0 + lact) * radius * s_gate * s_in * s_out
        gamma = {"M_gate": lact * radius * s_in * s_out, "M_in": radius * s_gate * s_out, "M_out": 1.0}
    else:
        f_mlp = lact * s_in * s_out
        gamma = {"M_in": lact * s_out, "M_out": 1.0}
    if shape.layout != PRE_LN:
        a = attention_factor(qk, vt)
        gamma.update(QK=2.0 * vt * f_mlp, V_tilde=np.full_like(vt, f_mlp))
        return ExtensionFactors(a * f_mlp, gamma, radius, a, f_mlp)
    premise = premise or premise_for(shape)
    attn = attn or TokenNorm(1.0, math.sqrt(shape.hidden))
    lip_ln1 = premise.lipschitz(attn.gain)
    lip_ln2 = premise.lipschitz(mlp.gain if mlp is not None else 1.0)
    b, d = attn.radius, shape.head_dim
    a = attention_factor(qk, vt, b, d)
    downstream = 1.0 + lip_ln2 * f_mlp
    gamma.update(QK=2.0 * b * b / math.sqrt(d) * vt * downstream, V_tilde=np.full_like(vt, downstream))
    return ExtensionFactors((1.0 + lip_ln1 * a) * downstream, gamma, radius, a, f_mlp)


def _layer_summary(s, f, premise) -> dict:
    out = {"layer": s.index, "lip": f.lip, "attention": f.attention, "mlp": f.mlp}
    attn, mlp = s.token_norms()
    if premise is not None:
        out.update(
            lip_ln_attention=premise.lipschitz(attn.gain if attn else 1.0),
            lip_ln_mlp=premise.lipschitz(mlp.gain if mlp else 1.0),
            token_radius=attn.radius if attn else None,
        )
    if s.qk_delta0 is not None:
        out.update(rope_qk_bound=float(np.max(s.qk[:, 0])), rope_qk_delta0=float(np.max(s.qk_delta0)))
    return out


def extension_notes(spectra, shape, factors, premise) -> tuple[tuple[dict, ...], list[str]]:
    """Per layer ``lip``, ``A``, ``F``, ``Lip_LN`` and the RoPE bound's ratio to QK_h(0) (``spectra``: the analysis's
    LayerSpectra), and the assumptions made while measuring, for the output."""
    notes = [n.assumed for s in spectra for n in s.token_norms() if n is not None and n.assumed]
    summaries = tuple(_layer_summary(s, f, premise) for s, f in zip(spectra, factors))
    if shape.rope is not None:
        ratio = max(float(np.max(s.qk[:, 0] / np.maximum(s.qk_delta0, 1e-300))) for s in spectra)
        notes.append(f"RoPE: the family bound ||Wq_h|| ||Wk_g|| is up to {ratio:.4g} x ||QK_h(delta = 0)||")
    if premise is not None:
        lips = [(d["lip_ln_attention"], d["lip_ln_mlp"]) for d in summaries]
        notes.append(
            f"Lip_LN used: {min(min(l) for l in lips):.4g}-{max(max(l) for l in lips):.4g}; token radius "
            f"B = {max(d['token_radius'] or 0 for d in summaries):.4g}"
        )
    return summaries, notes


def mlp_radius(shape, norm_weight: np.ndarray | None, bias: np.ndarray | None = None) -> float:
    """``R = sqrt(N) max|g| + ||b||`` for the norm before the MLP (``max|g| <= 1`` assumed without its weight)."""
    return token_norm(shape.hidden, norm_weight, bias, "pre-MLP").radius
