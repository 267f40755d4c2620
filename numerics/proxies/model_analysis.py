"""The one pipeline from weights to the paper's proxies: open -> measure -> analyse, for every family and source.

``open_checkpoint(source, mapping)`` opens a folder, ONNX file, dict of arrays or torch weights
(``sabounds.numerics.checkpoints``); ``measure_model`` reads one layer at a time (``measure_layer``) and keeps only
singular values and (2,1)-norms (QK_h and Vt_h through their d_h x d_h cores, the MLP matrices through LAPACK);
``analyze_measured`` evaluates the proxies for the first L layers: the published proxy of
``sabounds.numerics.proxies.published`` where the family's layer is the published one (post-LN, GELU, ungated,
one K/V per head), the labelled extension of ``sabounds.numerics.proxies.layer_factors`` elsewhere.  The CLI's
``analyze``, ``scaling`` and ``report`` all go through these functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from sabounds.numerics.certified_spectra import certified_values
from sabounds.numerics.checkpoints.errors import CheckpointError
from sabounds.numerics.checkpoints.architectures import PRE_LN
from sabounds.numerics.checkpoints.source import CheckpointSource, ModelShape, open_source
from sabounds.numerics.checkpoints import rope
from sabounds.numerics.proxies.layer_factors import (TokenNorm, activation_constant, departures, extension_factors,
                                                     extension_notes, premise_for, token_norm)
from sabounds.numerics.norms import norm_11, norm_21, product_norm_11, product_norm_21
from sabounds.numerics.log_real import LogReal, from_ln, ln_of, logsumexp
from sabounds.numerics.expressions.published_compiled import grid_size, log_edelman, minimise_ours, ours_total
from sabounds.numerics.proxies.published import L_PHI, LayerNorms, log_alphas, log_gammas, p_grid
from sabounds.numerics.spectra import (RANK_TOL, log_schatten_grid, numerical_rank, product_singular_values,
                                       singular_values)
from sabounds.numerics.proxies.storage_rank import rounding_thresholds, source_storage

TYPES = ("QK", "V_tilde", "M_in", "M_out")
ALL_TYPES = TYPES + ("M_gate",)
"""Matrix types: ``M_gate`` only in a gated MLP (its up projection is ``M_in``, its down projection ``M_out``)."""
PUBLISHED = "published"



@dataclass(frozen=True)
class LayerSpectra:
    """Singular values (each padded to ``min(d_in, d_out)``) and (2,1)-norms of one layer's matrices;
    ``m_gate`` only for a gated MLP; the pre-LN norms' ``*_gain`` (max|g|) and ``*_radius`` (``sqrt(N) max|g| + ||b||``),
    ``norm_assumed`` (bit 1: pre-attention, bit 2: pre-MLP weight missing, max|g| <= 1 assumed); with RoPE, ``qk``
    holds the family's certified bound ``sigma_i(Wq_h) sigma_i(Wk_g)`` and ``qk_delta0`` the delta = 0 member's norm."""

    index: int
    qk: np.ndarray
    vt: np.ndarray
    m_in: np.ndarray
    m_out: np.ndarray
    qk_21: np.ndarray
    vt_21: np.ndarray
    m_in_21: float
    m_out_21: float
    m_gate: np.ndarray | None = None
    m_gate_21: float | None = None
    mlp_radius: float | None = None
    mlp_gain: float | None = None
    attn_gain: float | None = None
    attn_radius: float | None = None
    norm_assumed: float = 0.0
    qk_delta0: np.ndarray | None = None
    qk_rank: np.ndarray | None = None
    """With RoPE, per head a bound on each member's ``sigma_k`` (``rope.family_rank_spectra``): its S_0."""
    qk_11: np.ndarray | None = None
    vt_11: np.ndarray | None = None
    m_in_11: float | None = None
    m_out_11: float | None = None
    raw_11: float | None = None
    m_gate_11: float | None = None
    """(1,1)-norms (entrywise l1) for the Trauger-Tewari rows: of QK_h (at delta = 0 with RoPE), Vt_h, M_in, M_out, and
    ``raw_11`` the sum over the layer's stored weight factors (q, k, v, o, up, down, gate; each tensor once)."""
    rounding: dict | None = field(default=None, repr=False, compare=False)
    """The storage-aware rank's thresholds ``tau`` per type (numerics/proxies/storage_rank.py), same pass."""

    def token_norms(self) -> tuple[TokenNorm | None, TokenNorm | None]:
        """(pre-attention, pre-MLP) norms as ``layer_factors.TokenNorm`` (None where not measured)."""
        return (TokenNorm.stored(self.attn_gain, self.attn_radius, int(self.norm_assumed) & 1, "pre-attention"),
                TokenNorm.stored(self.mlp_gain, self.mlp_radius, int(self.norm_assumed) & 2, "pre-MLP"))

    def norms(self) -> LayerNorms:
        return LayerNorms(qk_spectral=self.qk[:, 0], vt_spectral=self.vt[:, 0], m_in_spectral=float(self.m_in[0]),
                          m_out_spectral=float(self.m_out[0]), qk_21=self.qk_21, vt_21=self.vt_21,
                          m_in_21=self.m_in_21, m_out_21=self.m_out_21)

    def spectral(self) -> dict:
        """Spectral norms per type (arrays over heads for QK and V_tilde)."""
        out = {"QK": self.qk[:, 0], "V_tilde": self.vt[:, 0], "M_in": float(self.m_in[0]),
               "M_out": float(self.m_out[0])}
        if self.m_gate is not None:
            out["M_gate"] = float(self.m_gate[0])
        return out

    def matrices(self):
        """``(head, type, sigma)`` in table order: QK heads, V_tilde heads, M_in, M_out, M_gate (head -1)."""
        for h, s in enumerate(self.qk):
            yield h, "QK", s
        for h, s in enumerate(self.vt):
            yield h, "V_tilde", s
        yield -1, "M_in", self.m_in
        yield -1, "M_out", self.m_out
        if self.m_gate is not None:
            yield -1, "M_gate", self.m_gate


def measure_layer(source: CheckpointSource, index: int,
                  spectrum: Callable[[np.ndarray], np.ndarray] | None = None) -> LayerSpectra:
    """Read one layer and reduce it to spectra and (2,1)-norms; its weights are dropped on return.  ``spectrum``
    computes the MLP matrices' singular values (default ``certified_values``: Gram eigenvalues where proven to 1e-9
    relative, else LAPACK; ``singular_values`` for LAPACK always)."""
    spectrum = certified_values if spectrum is None else spectrum
    split = getattr(source, "layer_and_bounds", None)
    layer, bounds = split(index) if split is not None else (source.layer(index), None)
    try:
        u, dtype = source_roundoff(source)
        rounding = rounding_thresholds(layer, u, dtype, bounds)
        return _layer_spectra(source, layer, index, spectrum, rounding)
    except ValueError as exc:  # a spectrum or norm beyond float64: name the layer
        raise CheckpointError(f"{source.label}: layer {index}: {exc}") from None


def source_roundoff(source) -> tuple[float, str]:
    """The storage's unit roundoff and float dtype (safetensors headers; F64 otherwise), read once per source."""
    u = getattr(source, "_unit_roundoff", None)
    if u is None:
        u = source_storage(source)
        try:
            source._unit_roundoff = u
        except AttributeError:
            pass
    return u


def _layer_spectra(source, layer, index: int, spectrum, rounding=None) -> "LayerSpectra":
    gated = layer.m_gate is not None
    shape = source.shape
    qk = product_singular_values(layer.qk_left, layer.qk_right)
    qk_21 = product_norm_21(layer.qk_left, layer.qk_right)
    norms, qk_delta0 = {}, None
    if shape.layout == PRE_LN:
        attn = token_norm(shape.hidden, layer.attn_norm, layer.attn_norm_bias, "pre-attention")
        mlp = token_norm(shape.hidden, layer.mlp_norm, layer.mlp_norm_bias, "pre-MLP")
        norms = dict(attn_gain=attn.gain, attn_radius=attn.radius, mlp_gain=mlp.gain, mlp_radius=mlp.radius,
                     norm_assumed=float((attn.assumed is not None) + 2 * (mlp.assumed is not None)))
    if shape.rope is not None:
        qk_delta0 = qk[:, 0].copy()
        qk = rope.family_spectra(layer.qk_left, layer.qk_right, shape.rope, qk.shape[1])
        norms["qk_rank"] = rope.family_rank_spectra(layer.qk_left, layer.qk_right, shape.rope, qk.shape[1])
        qk_21 = np.array([np.linalg.norm(layer.qk_left[h], 2) * float(np.sum(np.linalg.norm(layer.qk_right[h], axis=0)))
                          for h in range(qk.shape[0])]) * shape.rope.score_factor
    return LayerSpectra(
        rounding=rounding,
        index=index,
        qk=qk,
        vt=product_singular_values(layer.vt_left, layer.vt_right),
        m_in=spectrum(layer.m_in), m_out=spectrum(layer.m_out),
        qk_21=qk_21, vt_21=product_norm_21(layer.vt_left, layer.vt_right),
        m_in_21=float(norm_21(layer.m_in)), m_out_21=float(norm_21(layer.m_out)),
        m_gate=spectrum(layer.m_gate) if gated else None,
        m_gate_21=float(norm_21(layer.m_gate)) if gated else None,
        qk_delta0=qk_delta0, **norms, **_entrywise_l1(layer, shape))


def _entrywise_l1(layer, shape) -> dict:
    """The (1,1)-norms of :class:`LayerSpectra`; shared key/value heads (GQA) counted once in ``raw_11``."""
    share = shape.kv_heads / shape.heads if shape.kv_heads else 1.0
    factors = (float(np.sum(norm_11(layer.qk_left))) + share * float(np.sum(norm_11(layer.qk_right)))
               + share * float(np.sum(norm_11(layer.vt_left))) + float(np.sum(norm_11(layer.vt_right))))
    mlp = [layer.m_in, layer.m_out] + ([layer.m_gate] if layer.m_gate is not None else [])
    return dict(qk_11=product_norm_11(layer.qk_left, layer.qk_right), vt_11=product_norm_11(layer.vt_left, layer.vt_right),
                m_in_11=float(norm_11(layer.m_in)), m_out_11=float(norm_11(layer.m_out)),
                m_gate_11=float(norm_11(layer.m_gate)) if layer.m_gate is not None else None, raw_11=factors + sum(float(norm_11(w)) for w in mlp))


def measure(checkpoint: CheckpointSource, layers: int, progress: Callable[[str], None] | None = None) -> list[LayerSpectra]:
    """Spectra of the first ``layers`` layers, one layer resident at a time; ``progress(note)`` after each."""
    out = []
    for index in range(layers):
        out.append(measure_layer(checkpoint, index))
        if progress is not None:
            progress(f"layer {index}")
    return out


@dataclass(frozen=True)
class MeasuredModel:
    """The spectra of a model's first ``len(layers)`` layers, with its shape and where it came from."""

    label: str
    shape: ModelShape
    layers: list[LayerSpectra]
    model_dir: Path | None = None

    def truncated(self, depth: int) -> "MeasuredModel":
        """Its first ``depth`` layers (a depth truncation, not a model trained at that depth)."""
        if not 1 <= depth <= len(self.layers):
            raise ValueError(f"depth {depth} outside 1..{len(self.layers)}")
        return MeasuredModel(self.label, self.shape.truncated(depth), self.layers[:depth], self.model_dir)


def measure_model(source: CheckpointSource, layers: int | None = None,
                  progress: Callable[[str], None] | None = None) -> MeasuredModel:
    """Measure the first ``layers`` layers (all by default) of an opened checkpoint."""
    depth = check_depth(source, layers)
    return MeasuredModel(source.label, source.shape.truncated(depth), measure(source, depth, progress),
                         source.model_dir)


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

    def to_json(self) -> dict:
        return {"layer": self.layer, "head": self.head, "type": self.type, "rank": self.rank,
                "spectral_norm": self.spectral_norm, "frobenius_norm": self.frobenius_norm, "norm_21": self.norm_21,
                "stable_rank": self.stable_rank, "alpha": self.alpha, "gamma": self.gamma, "scale": self.scale,
                "p_opt": self.p_opt, "min_contribution": self.min_contribution}


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
        return {t: (sum(m.p_opt == 0.0 for m in self.matrices if m.type == t),
                    sum(m.type == t for m in self.matrices)) for t in self.types()}

    def to_json(self) -> dict:
        s = self.shape
        return {"model": {"L": s.layers, "N": s.hidden, "heads": s.heads, "head_dim": s.head_dim,
                          "intermediate": s.intermediate, "kv_heads": s.kv_heads, "family": s.family,
                          "layout": s.layout, "activation": s.activation, "gated": s.gated,
                          **({"norm_eps": s.norm_eps} if s.layout == PRE_LN else {}),
                          **({"rope": s.rope.describe()} if s.rope is not None else {})},
                "proxy": self.proxy, "departures": list(self.departures),
                "grid_m": self.grid_m,
                "matrices": [m.to_json() for m in self.matrices],
                "totals": {"ours": self.ours, "edelman": self.edelman},
                "baselines": {name: {"value": v, "source": src} for name, src, v in self.baselines},
                "variants": {"ours_lphi_in_gamma": self.variants.ours_lphi_in_gamma,
                             "edelman_qk_factor_2": self.variants.edelman_qk_factor_2},
                "layer_factors": list(self.layer_factors),
                "settings": {"lphi": self.lphi, "rank_tol": self.rank_tol}}


def _factors(spectra: list[LayerSpectra], shape: ModelShape, lphi: float, premise=None):
    """Per layer: ln alpha, and per matrix (in ``matrices()`` order) ln gamma and ln of gamma's variant.  Natural
    logs throughout: alpha and gamma are products of many norms and can leave float64 (numerics/log_real.py)."""
    if shape.published:
        norms = [s.norms() for s in spectra]
        alpha = log_alphas(norms, lphi)
        per_layer = []
        for s, nl in zip(spectra, norms):
            pub, var = log_gammas(nl), log_gammas(nl, lphi_in_gamma=lphi)
            by = {"QK": (pub.qk, var.qk), "V_tilde": (pub.vt, var.vt), "M_in": ([pub.m_in], [var.m_in]),
                  "M_out": ([pub.m_out], [var.m_out])}
            per_layer.append([(float(by[k][0][max(h, 0)]), float(by[k][1][max(h, 0)])) for h, k, _ in s.matrices()])
        return alpha, per_layer, norms
    factors = []
    for s in spectra:
        attn, mlp = s.token_norms()
        if mlp is None and s.mlp_radius is not None:
            mlp = TokenNorm(s.mlp_radius / math.sqrt(shape.hidden), s.mlp_radius)
        factors.append(extension_factors(s.spectral(), shape, lphi, mlp, attn, premise))
    alpha = np.zeros(len(spectra))
    for l in range(len(spectra) - 2, -1, -1):
        alpha[l] = alpha[l + 1] + _log(factors[l + 1].lip)
    per_layer = []
    for s, f in zip(spectra, factors):
        rows = []
        for h, k, _ in s.matrices():
            g = f.gamma[k]
            g = _log(float(g[h]) if h >= 0 else float(g))
            rows.append((g, g))
        per_layer.append(rows)
    return alpha, per_layer, factors


def _log(x: float) -> float:
    if not np.isfinite(x):
        raise ValueError("a layer factor overflows float64; the extension's factors are not representable")
    return math.log(x) if x > 0 else -math.inf


def _norm_21_of(s: LayerSpectra, head: int, kind: str) -> float:
    return float({"QK": lambda: s.qk_21[head], "V_tilde": lambda: s.vt_21[head], "M_in": lambda: s.m_in_21,
                  "M_out": lambda: s.m_out_21, "M_gate": lambda: s.m_gate_21}[kind]())


def _baselines(spectra, matrices, shape):
    from sabounds.numerics.proxies.baselines import proxy_values
    from sabounds.theory.catalog import bounds
    return proxy_values(matrices, [s.raw_11 for s in spectra], shape, [e.bound() for e in bounds()])


def _norm_11_of(s: LayerSpectra, head: int, kind: str) -> float | None:
    values = {"QK": s.qk_11, "V_tilde": s.vt_11, "M_in": s.m_in_11, "M_out": s.m_out_11, "M_gate": s.m_gate_11}[kind]
    return None if values is None else float(values[head] if kind in ("QK", "V_tilde") else values)


def analyze_measured(measured: MeasuredModel, *, layers: int | None = None, lphi: float | None = None,
                     grid_m: int | None = None, rank_tol: float = RANK_TOL,
                     rms_floor: float | None = None) -> ModelAnalysis:
    """The section-6 proxies of the first ``layers`` measured layers (all by default) as an ``L = layers`` model.

    ``lphi`` defaults to the activation's constant (GELU: the published 1.13).  The published proxy where the
    family's layer is the published one, the labelled extension (``layer_factors``) elsewhere; ``rms_floor`` is the
    pre-LN normalisation premise (a lower bound on every norm input's rms; default 0: the eps-based constant).
    """
    spectra = measured.layers if layers is None else measured.truncated(layers).layers
    return analyze_spectra(spectra, measured.shape, lphi, grid_m, rank_tol, rms_floor)


def analyze_spectra(spectra: list[LayerSpectra], shape: ModelShape, lphi: float | None = L_PHI,
                    grid_m: int | None = None, rank_tol: float = RANK_TOL,
                    rms_floor: float | None = None) -> ModelAnalysis:
    """The section-6 proxies of the model made of ``spectra`` (its ``L = len(spectra)`` first layers)."""
    shape = shape.truncated(len(spectra))
    lphi = activation_constant(shape.activation) if lphi is None else lphi
    depth, n = shape.layers, shape.hidden
    m = grid_size(depth, n) if grid_m is None else grid_m
    ps = p_grid(m)
    premise = None if shape.published else premise_for(shape, rms_floor)
    alpha, per_layer, norms = _factors(spectra, shape, lphi, premise)
    rows, gamma_pub, gamma_var, sigmas, norm21, norm11, rank_sigmas = [], [], [], [], [], [], []
    for s, a, layer_gammas in zip(spectra, alpha, per_layer):
        for (head, kind, sigma), (g_pub, g_var) in zip(s.matrices(), layer_gammas):
            rows.append((s.index, head, kind, float(a)))
            gamma_pub.append(g_pub)
            gamma_var.append(g_var)
            norm21.append(_norm_21_of(s, max(head, 0), kind))
            norm11.append(_norm_11_of(s, max(head, 0), kind))
            sigmas.append(sigma)
            rank_sigmas.append(s.qk_rank[head] if kind == "QK" and s.qk_rank is not None else None)
    log_s_p = np.array([log_schatten_grid(sg, ps, rank_tol) for sg in sigmas])
    for i, c in enumerate(rank_sigmas):  # a rotating head's S_0 bounds every member's rank (Horn's b does not)
        if c is not None:
            with np.errstate(divide="ignore"):
                log_s_p[i, ps == 0] = np.log(float(max(numerical_rank(c, rank_tol), numerical_rank(sigmas[i], rank_tol))))
    layer_alpha = np.array([r[3] for r in rows])
    scale = np.array(gamma_pub) + layer_alpha + math.log(depth)
    table, best, minima = minimise_ours(log_s_p, ps, np.array(gamma_pub) + layer_alpha, depth, n)
    _, _, minima_var = minimise_ours(log_s_p, ps, np.array(gamma_var) + layer_alpha, depth, n)
    log_table = table
    with np.errstate(over="ignore"):
        table = np.exp(table)  # for figures only; beyond float64 the figure draws log_table instead
    matrices = []
    for i, (layer, head, kind, a) in enumerate(rows):
        sg = np.asarray(sigmas[i])
        spectral = float(sg[0])
        relative = float(math.sqrt(np.sum(np.square(sg / spectral)))) if spectral > 0 else 0.0
        matrices.append(MatrixResult(
            layer=layer, head=head, type=kind, rank=int(round(math.exp(log_s_p[i, 0]))), spectral_norm=spectral,
            frobenius_norm=_finite(spectral * relative, "Frobenius norm", layer, kind), norm_21=norm21[i],
            stable_rank=relative ** 2, alpha=from_ln(a), gamma=from_ln(gamma_pub[i]), scale=from_ln(scale[i]),
            p_opt=float(ps[best[i]]), min_contribution=float(minima[i]), sigma=sg, contributions=table[i],
            log_contributions=log_table[i], norm_11=norm11[i]))
    ours = ours_total(minima, depth)
    is_qk = np.array([r[2] == "QK" for r in rows])
    norm21 = np.array(norm21)

    def edelman(qk_factor: float):  # gamma^E = gamma, except QK's factor 2 replaced by qk_factor
        return from_ln(log_edelman(layer_alpha + np.array(gamma_pub) + np.where(is_qk, math.log(qk_factor / 2), 0.0), norm21))
    if shape.published:
        return ModelAnalysis(shape=shape, grid_m=m, lphi=lphi, rank_tol=rank_tol, ps=ps, matrices=matrices,
                             ours=ours, edelman=edelman(1.0), raw_11=tuple(s.raw_11 for s in spectra), baselines=_baselines(spectra, matrices, shape),
                             variants=VariantTotals(ours_lphi_in_gamma=ours_total(minima_var, depth), edelman_qk_factor_2=edelman(2.0)))
    summaries, notes = extension_notes(spectra, shape, norms, premise)
    return ModelAnalysis(shape=shape, grid_m=m, lphi=lphi, rank_tol=rank_tol, ps=ps, matrices=matrices, ours=ours,
                         edelman=edelman(1.0), proxy="extension", raw_11=tuple(s.raw_11 for s in spectra), baselines=_baselines(spectra, matrices, shape),
                         departures=tuple(departures(shape, premise, notes)), layer_factors=summaries,
                         variants=VariantTotals(ours_lphi_in_gamma=ours, edelman_qk_factor_2=edelman(2.0)))


def _finite(value: float, what: str, layer: int, kind: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"layer {layer} {kind}: {what} exceeds the float64 range")
    return value


def check_depth(source: CheckpointSource, layers: int | None) -> int:
    """``layers`` (all by default), refused in one line unless ``1 <= layers <= L``."""
    total = source.shape.layers
    depth = total if layers is None else layers
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= total:
        raise CheckpointError(f"{source.size_fields.get('layers', source.label)}: --layers {layers} outside 1..{total}")
    return depth


def open_checkpoint(source, mapping=None, *, config=None, architecture=None,
                    allow_pickle: bool = False) -> CheckpointSource:
    """Open a model folder, ``.onnx`` file, dict of arrays, torch state_dict or module (see ``open_source``)."""
    return open_source(source, mapping, config=config, architecture=architecture, allow_pickle=allow_pickle)


def analyze_model(model_dir, layers: int | None = None, lphi: float | None = None, grid_m: int | None = None,
                  rank_tol: float = RANK_TOL, progress: Callable[[str], None] | None = None,
                  allow_pickle: bool = False, mapping=None, architecture=None, config=None) -> ModelAnalysis:
    """open -> measure -> analyse in one call: the first ``layers`` layers (all by default) as an ``L = layers`` model."""
    source = open_checkpoint(model_dir, mapping, config=config, architecture=architecture, allow_pickle=allow_pickle)
    return analyze_measured(measure_model(source, layers, progress), lphi=lphi, grid_m=grid_m, rank_tol=rank_tol)


BertShape = ModelShape
"""Backwards-compatible name of :class:`ModelShape`."""
layer_spectra = measure_layer
"""Backwards-compatible name of :func:`measure_layer`."""
