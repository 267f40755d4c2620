"""A storage-aware rank beside the published one: singular values at or below the checkpoint's rounding level
are not counted (issue 10 item 7).  The published rule (``tol = 1e-10``) stays the default.

Bound.  A tensor stored in a binary format with unit roundoff ``u`` (F64 2^-53, F32 2^-24, F16 2^-11, BF16
2^-8) holds ``W~ = W + E`` with ``|E_ij| <= u |W_ij|`` where W_ij is in the normal range and ``|E_ij| <= s``
(the subnormal spacing: F16 2^-24, BF16 2^-133, F32 2^-149, F64 2^-1074) where ``|W~_ij|`` is below the smallest
normal number (subnormal, or flushed to zero), so ``||E||_2 <= ||E||_F <= e(W~) = a ||W~||_F + s sqrt(k) / (1 - u)``
with ``a = u / (1 - u)`` and k the number of such entries.  Weyl's inequality ``sigma_i(W~) <= sigma_i(W) + ||E||_2``
gives, for a matrix ``W`` of rank ``r``, ``sigma_{r+1}(W~) <= tau = e(W~)``: a singular value above tau is certified
real (no matrix of lower rank rounds to W~ with it); one at or below tau is not certified to be rounding, only not
certified real.  For a product of stored factors ``A~ B~`` (QK_h, Vt_h), ``A~ B~ - A B = E_A B~ + A~ E_B - E_A E_B``
and ``tau = e(A~) ||B~||_F + ||A~||_F e(B~) + e(A~) e(B~)`` (``(2a + a^2) ||A~||_F ||B~||_F`` without underflow).
The storage-aware rank is ``#{i : sigma_i > max(tau, published threshold)}``; only ``S_0`` changes, so the new ``p_opt`` and ``ours``
follow from the contribution table by replacing its p = 0 column with ``sqrt(rank_storage N)``.  By the same
Weyl bound each spectral norm is uncertain by ``tau`` (``|sigma_1(W~) - sigma_1(W)| <= tau``); the largest
``tau / sigma_1`` is reported, since alpha and edelman are products of such norms.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sabounds.numerics.norms import EntrywiseSums, entrywise_sums

UNIT_ROUNDOFF = {"F64": 2.0**-53, "F32": 2.0**-24, "F16": 2.0**-11, "BF16": 2.0**-8}
UNDERFLOW = {
    "F64": (2.0**-1022, 2.0**-1074),
    "F32": (2.0**-126, 2.0**-149),
    "F16": (2.0**-14, 2.0**-24),
    "BF16": (2.0**-126, 2.0**-133),
}
"""Per dtype: (smallest normal number, subnormal spacing s)."""
_MAX_HEADER = 100_000_000


def tensor_dtypes(model_dir: str | Path) -> dict[str, str]:
    """Tensor name -> safetensors dtype, from the headers of ``model.safetensors`` or of every shard."""
    model_dir = Path(model_dir)
    files = (
        [model_dir / "model.safetensors"]
        if (model_dir / "model.safetensors").is_file()
        else sorted(model_dir.glob("*.safetensors"))
    )
    out: dict[str, str] = {}
    for path in files:
        out.update(tensor_dtypes_of_file(path))
    return out


def tensor_dtypes_of_file(path: Path) -> dict[str, str]:
    """Tensor name -> dtype from one safetensors header (bounded size; a bad header is a one-line ValueError)."""
    try:
        with open(path, "rb") as fh:
            (length,) = struct.unpack("<Q", fh.read(8))
            if length > _MAX_HEADER:
                raise ValueError(f"header of {length} bytes is larger than {_MAX_HEADER}")
            header = json.loads(fh.read(length))
        return {k: str(v.get("dtype")) for k, v in header.items() if k != "__metadata__" and isinstance(v, dict)}
    except (OSError, struct.error, ValueError, RecursionError, AttributeError) as exc:
        raise ValueError(f"{path}: safetensors header unreadable ({' '.join(str(exc).split())[:200]})") from None


def layer_unit_roundoff(dtypes: dict[str, str], layers: int) -> float:
    """The largest unit roundoff among the encoder layers' weight tensors (the coarsest storage), F64 if unknown."""
    found = [
        UNIT_ROUNDOFF.get(d, UNIT_ROUNDOFF["F64"])
        for name, d in dtypes.items()
        if "encoder.layer." in name
        and name.endswith(".weight")
        and int(name.split("encoder.layer.")[1].split(".")[0]) < layers
    ]
    return max(found, default=UNIT_ROUNDOFF["F64"])


def _frobenius(x: np.ndarray) -> np.ndarray:
    """Frobenius norms over the last two axes, scaled so that no square overflows."""
    s = np.max(np.abs(x), axis=(-2, -1), keepdims=True)
    s = np.where(s > 0, s, 1.0)
    return np.sqrt(np.sum(np.square(x / s), axis=(-2, -1))) * s[..., 0, 0]


FACTORS = ("qk_left", "qk_right", "vt_left", "vt_right", "m_in", "m_out", "m_gate")
"""The stored matrices of a ``LayerMatrices`` whose entrywise sums the thresholds use."""


def layer_sums(layer, dtype: str | None = None) -> dict[str, EntrywiseSums]:
    """Per stored matrix of the layer (:data:`FACTORS`, ``m_gate`` where present): its :class:`EntrywiseSums`, the
    count below ``dtype``'s smallest normal number included; one buffer per matrix, shared with the (1,1)- and
    (2,1)-norms of the measurement."""
    low = UNDERFLOW.get(dtype or "", (0.0, 0.0))[0]
    return {
        name: entrywise_sums(getattr(layer, name), low) for name in FACTORS if getattr(layer, name, None) is not None
    }


def rounding_thresholds(layer, u: float, dtype: str | None = None, errors=None, sums=None) -> dict[str, np.ndarray]:
    """``tau`` per matrix of one layer (``LayerMatrices`` of numerics/checkpoints/layers.py): per head for QK, Vt;
    ``dtype`` (safetensors name) adds the subnormal term (:func:`underflow_terms`).  ``sums``: the layer's
    :func:`layer_sums` when already computed (for ``dtype``).

    ``errors`` (optional, the same cut of entrywise bounds ``|E_ij| <= e_ij``, e.g. a quantization block's
    error bound) replaces ``a ||W~||_F`` by ``e = ||e_ij||_F`` for each factor: ``tau = e`` for a stored matrix and
    ``e_A ||B~||_F + ||A~||_F e_B + e_A e_B`` for a product ``A~ B~`` (the same Weyl argument)."""
    sums = layer_sums(layer, dtype) if sums is None else sums
    with np.errstate(over="ignore"):  # a threshold beyond float64 is inf: storage_aware keeps the published rank
        return _thresholds(sums, u, dtype, errors)


def _thresholds(sums: dict[str, EntrywiseSums], u: float, dtype: str | None, errors) -> dict[str, np.ndarray]:
    fro = {name: s.frobenius for name, s in sums.items()}
    mlp = [kind for kind in ("M_in", "M_out", "M_gate") if _name(kind) in sums]
    if errors is None:
        a = u / (1.0 - u)
        product = 2.0 * a + a * a
        out = {
            "QK": product * fro["qk_left"] * fro["qk_right"],
            "V_tilde": product * fro["vt_left"] * fro["vt_right"],
            **{kind: np.array([a * float(fro[_name(kind)])]) for kind in mlp},
        }
        out.update(
            QK_left_tau=storage_error(sums["qk_left"], u, dtype), QK_right_tau=storage_error(sums["qk_right"], u, dtype)
        )
        return underflow_terms(out, sums, u, dtype)

    def product(left, right):
        ea, eb = _frobenius(getattr(errors, left)), _frobenius(getattr(errors, right))
        return ea * fro[right] + fro[left] * eb + ea * eb

    out = {
        "QK": product("qk_left", "qk_right"),
        "V_tilde": product("vt_left", "vt_right"),
        **{kind: np.array([float(_frobenius(getattr(errors, _name(kind))))]) for kind in mlp},
    }
    out.update(QK_left_tau=_frobenius(errors.qk_left), QK_right_tau=_frobenius(errors.qk_right))
    return out


def _name(kind: str) -> str:
    """``M_in`` -> ``m_in``: the ``LayerMatrices`` field of a type."""
    return kind.lower()


def subnormal_error(sums: EntrywiseSums, u: float, dtype: str | None) -> np.ndarray:
    """``t(W~) = s sqrt(k) / (1 - u)`` over the last two axes: the part of ``||E||_F`` from the k entries below the
    dtype's smallest normal number (``sums.below``), s its subnormal spacing (0 when ``dtype`` is None)."""
    spacing = UNDERFLOW.get(dtype or "", (0.0, 0.0))[1]
    return spacing * np.sqrt(sums.below) / (1.0 - u)


def storage_error(x, u: float, dtype: str | None = None) -> np.ndarray:
    """``e(W~) = a ||W~||_F + t(W~)``: the Frobenius bound on one stored matrix's storage error (``x``: the matrix or
    its :class:`EntrywiseSums` for ``dtype``)."""
    sums = x if isinstance(x, EntrywiseSums) else entrywise_sums(x, UNDERFLOW.get(dtype or "", (0.0, 0.0))[0])
    return u / (1.0 - u) * sums.frobenius + subnormal_error(sums, u, dtype)


def underflow_terms(
    out: dict[str, np.ndarray], sums: dict[str, EntrywiseSums], u: float, dtype: str | None
) -> dict[str, np.ndarray]:
    """Add the subnormal parts to the no-underflow ``tau``: ``t`` for one matrix; for a product
    ``e_A F_B + F_A e_B + e_A e_B - (2a + a^2) F_A F_B = (1 + a)(t_A F_B + F_A t_B) + t_A t_B``."""
    if dtype not in UNDERFLOW:
        return out
    a = u / (1.0 - u)
    for kind, left, right in (("QK", "qk_left", "qk_right"), ("V_tilde", "vt_left", "vt_right")):
        tl, tr = subnormal_error(sums[left], u, dtype), subnormal_error(sums[right], u, dtype)
        out[kind] = out[kind] + (1 + a) * (tl * sums[right].frobenius + sums[left].frobenius * tr) + tl * tr
    for kind in ("M_in", "M_out", "M_gate"):
        if _name(kind) in sums:
            out[kind] = out[kind] + float(subnormal_error(sums[_name(kind)], u, dtype))
    return out


def published_threshold(sigma: np.ndarray, tol: float) -> float:
    return tol * sigma.size * max(float(sigma.max()), 1.0) if sigma.size else 0.0


@dataclass(frozen=True)
class StorageRank:
    """The storage-aware rank beside the published one, for a whole analysis."""

    dtype_roundoff: float | None
    """The stored float dtype's u; None for a GGUF file, whose rounding level is per tensor (``level``)."""
    ranks: list[int]
    between: int
    moved: list[tuple[int, int, str, float, float]]  # (layer, head, type, published p_opt, storage-aware p_opt)
    ours: float
    published_ours: float
    norm_uncertainty: float | None = 0.0
    """max over the known matrices of tau / sigma_1 (the storage's relative effect on ||W||_2); None if none known."""
    level: str = ""  # what the rounding level is, when not one float dtype's u (quantized GGUF tensors)
    unknown: tuple = ()
    """(layer, head, type) of the matrices whose storage error is not known: their rank is None, ours keeps theirs."""
    unknown_why: str = ""

    def summary(self) -> str:
        level = self.level or f"u = {self.dtype_roundoff:.3g}"
        total = len(self.ranks)
        if len(self.unknown) == total:
            return (
                f"storage-aware rank unknown for all {total} matrices: {self.unknown_why}; the published rank "
                "stands, and no resolution of the stored weights is claimed"
            )
        unknown = (
            f"; unknown for {len(self.unknown)} of {total} matrices ({self.unknown_why}), whose published rank is kept"
            if self.unknown
            else ""
        )
        ours = "ours over the known matrices" if self.unknown else "ours"
        return (
            f"storage-aware rank (labelled; published rank stays the default): {self.between} singular values "
            f"lie between the published threshold and the rounding level of the stored weights "
            f"({level}){unknown}; p_opt moves for {len(self.moved)} matrices; {ours} would be "
            f"{self.ours:.8g} instead of {self.published_ours:.8g}. Storage rounding moves each "
            f"{'known ' if self.unknown else ''}spectral norm "
            f"by at most {self.norm_uncertainty:.2g} relative (tau / sigma_1), and the norm products alpha and "
            "edelman accordingly"
        )

    def to_json(self) -> dict:
        return {
            "unit_roundoff": self.dtype_roundoff,
            "rounding_level": self.level or "unit roundoff",
            "between_thresholds": self.between,
            "unknown": [{"layer": l, "head": h, "type": t} for l, h, t in self.unknown],
            "unknown_why": self.unknown_why or None,
            "spectral_norm_relative_uncertainty": self.norm_uncertainty,
            "p_opt_moved": [
                {"layer": l, "head": h, "type": t, "published": a, "storage_aware": b} for l, h, t, a, b in self.moved
            ],
            "ours": self.ours,
            "published_ours": self.published_ours,
        }


def _stored_factor_rank(layer_thresholds: dict, m, tol: float) -> float | None:
    """A rotating head's storage-aware rank bound from stored values only: ``min(#{sigma_i(Wq_h) > tau_q},
    #{sigma_i(Wk_g) > tau_k})`` (every member ``Wq_h^T R Wk_g`` has rank at most both factors'), each count above
    its factor's own storage error and the published threshold; NaN when a factor's error is unknown; None for any
    other matrix."""
    if m.type != "QK" or "QK_left_sigma" not in layer_thresholds:
        return None
    h = max(m.head, 0)
    counts = []
    for side in ("left", "right"):
        sigma = np.asarray(layer_thresholds[f"QK_{side}_sigma"][h])
        tau = float(layer_thresholds[f"QK_{side}_tau"][h])
        if math.isnan(tau):
            return math.nan
        counts.append(int(np.count_nonzero(sigma > max(tau, published_threshold(sigma, tol)))))
    return float(min(counts))


def storage_aware(analysis, thresholds: list[dict[str, np.ndarray]], u: float, why: str = "") -> StorageRank:
    """Re-count each matrix's rank above ``max(tau, published threshold)`` and re-minimise over p; a NaN tau (the
    storage error of a factor is not known, ``why``) leaves the rank unknown and the published row in place."""
    n = analysis.shape.hidden
    ranks, between, moved, minima, worst, beyond, unknown = [], 0, [], [], 0.0, 0, []
    for m in analysis.matrices:
        tau = float(thresholds[m.layer][m.type][max(m.head, 0)])
        stored = _stored_factor_rank(thresholds[m.layer], m, analysis.rank_tol)
        if stored is not None:  # a rotating head: Horn's b_i are no stored matrix's values; its factors are
            tau = math.nan if math.isnan(stored) else 0.0
        if math.isnan(tau):
            unknown.append((m.layer, m.head, m.type))
            ranks.append(None)
            minima.append(float(np.min(np.asarray(m.contributions, dtype=np.float64))))
            continue
        if not math.isfinite(tau):
            tau, beyond = 0.0, beyond + 1
        if m.spectral_norm > 0:
            worst = max(worst, tau / m.spectral_norm)
        published = published_threshold(m.sigma, analysis.rank_tol)
        rank = min(int(stored), m.rank) if stored is not None else int(np.count_nonzero(m.sigma > max(tau, published)))
        between += m.rank - rank
        ranks.append(rank)
        row = np.array(m.contributions, dtype=np.float64)
        row[0] = math.sqrt(rank * n)
        best = int(np.argmin(row))
        minima.append(float(row[best]))
        if float(analysis.ps[best]) != m.p_opt:
            moved.append((m.layer, m.head, m.type, m.p_opt, float(analysis.ps[best])))
    level = (
        f"u = {u:.3g}; the threshold is beyond float64 for {beyond} matrices, whose published rank is kept"
        if beyond
        else ""
    )
    known = len(unknown) < len(analysis.matrices)
    return StorageRank(
        u,
        ranks,
        between,
        moved,
        float(np.sum(minima)) + math.sqrt(analysis.shape.layers),
        analysis.ours,
        worst if known else None,
        level,
        tuple(unknown),
        why if unknown else "",
    )


def source_storage(source) -> tuple[float, str]:
    """``(u, dtype)`` of an opened checkpoint: the coarsest float dtype in its safetensors headers (F64 when it has
    none; a mix of F16 and BF16 takes BF16's u, and its subnormal spacing, F16's being counted only where F16 is
    the coarsest)."""
    files = [f for f in getattr(source, "files", ()) if str(f).endswith(".safetensors")]
    dtypes: dict[str, str] = {}
    for f in files:
        dtypes.update(tensor_dtypes_of_file(Path(f)))
    known = [d for d in dtypes.values() if d in UNIT_ROUNDOFF]
    dtype = max(known, key=lambda d: (UNIT_ROUNDOFF[d], UNDERFLOW[d][1])) if known else "F64"
    return UNIT_ROUNDOFF[dtype], dtype


def source_unit_roundoff(source) -> float:
    """``u`` of an opened checkpoint (:func:`source_storage`)."""
    return source_storage(source)[0]


def storage_rank_of(source, analysis, measured=None) -> StorageRank:
    """The storage-aware rank.  The thresholds come from the measured layers (``measured.layers[i].rounding``,
    computed in the same pass that read the weights); only when absent are the analysed layers read again."""
    u, dtype = source_storage(source)
    layers = getattr(measured, "layers", None) or []
    if len(layers) >= analysis.shape.layers and all(getattr(s, "rounding", None) is not None for s in layers):
        thresholds = [s.rounding for s in layers[: analysis.shape.layers]]
    else:
        thresholds = [_thresholds_of(source, i, u, dtype) for i in range(analysis.shape.layers)]
    storage = storage_aware(analysis, thresholds, u, unknown_storage(source, analysis.shape.layers))
    quantized = quantized_level(source, analysis.shape.layers)
    gguf_u = None if quantized else storage.dtype_roundoff  # a GGUF's level is per tensor, not one dtype's u
    return replace(storage, dtype_roundoff=gguf_u, level="; ".join(x for x in (quantized, storage.level) if x))


def _thresholds_of(source, index: int, u: float, dtype: str) -> dict[str, np.ndarray]:
    split = getattr(source, "layer_and_bounds", None)
    layer, bounds = split(index) if split is not None else (source.layer(index), None)
    return rounding_thresholds(layer, u, dtype, bounds)


def unknown_storage(source, layers: int) -> str:
    """Why some analysed tensors' storage error is not known (one reason per GGUF type; "" when all are known)."""
    why = getattr(source.store, "storage_unknown", None)
    if why is None:
        return ""
    reasons = {}
    for index in range(layers):
        for name in source.layer_names(index):
            reason = why(name) if name in source.store.names else None
            if reason is not None:
                reasons.setdefault(source.store.type_name(name), reason)
    return "; ".join(reasons.values())


def quantized_level(source, layers: int) -> str:
    """The label of a GGUF file's rounding level: each block's error bound under llama.cpp's reference quantizer
    (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1: half a step, a whole one where Q4_0/Q5_0 clamp, plus the float16 rounding of the
    scale and offset; ``GGUFStore.error_bound``), float rounding of F32/F16/BF16 tensors; for other types
    (K-quants, i-quants) and block types in an imatrix file the error is unknown (:func:`unknown_storage`)."""
    from sabounds.numerics.checkpoints.gguf_file import quantization_steps_known
    from sabounds.numerics.checkpoints.storage_info import storage_info

    info = storage_info(source, layers)
    if info["format"] != "gguf":
        return ""
    types = ", ".join(info["tensor_types"])
    imatrix = getattr(source.store, "imatrix", False)
    known = [t for t in info["tensor_types"] if t in UNIT_ROUNDOFF or quantization_steps_known([t]) and not imatrix]
    if not known:
        return f"GGUF {types}: no entrywise error bound for these types (see unknown_why)"
    return (
        f"GGUF {types}: entrywise the block's quantization error bound (half a step, a whole step where "
        "Q4_0/Q5_0 clamp, plus the float16 rounding of scale and offset), or u |w| for float tensors, under "
        "llama.cpp's reference quantizer (no importance matrix); types without one are unknown"
    )
