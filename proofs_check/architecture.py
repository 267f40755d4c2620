"""Checks of the labelled extensions for families whose layer departs from the published one (``arch.*``).

Every decidable step of ``sabounds.theory.architecture.extension_derivation`` is decided from the catalog; claims are decided
numerically on the objects the analysis uses: the activation constants of ``sabounds.numerics.proxies.layer_factors``
(a conjecture family per activation), the gated-MLP factors and Jacobian on random SwiGLU maps, and the
grouped-query matrices of ``sabounds.numerics.checkpoints.layers.assemble`` with RoPE against Hugging Face's
attention (``repeat_kv``, ``rotate_half``); the real pre-LN blocks are checked in ``.architecture_block``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.checkpoints.layers import assemble
from sabounds.numerics.proxies.layer_factors import activation_constant, extension_factors
from sabounds.proofs_check.conjecture.base import ConstantFamily
from sabounds.proofs_check.conjecture.base import quiet as _quiet
from sabounds.proofs_check.registry import claim
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory.architecture import ACTIVATION_FORMS

SCAN = (-40.0, 40.0)


@dataclass(frozen=True)
class ActivationLipschitz(ConstantFamily):
    """Claim: the activation is ``value``-Lipschitz on R, i.e. ``sup |phi'| <= value``.

    Method: phi'' is scanned for sign changes on a grid of ``max(200, samples)`` points over [-40, 40] at
    ``settings.precision`` digits and each change refined by ``mpmath.findroot`` (bisection); ``sup |phi'|`` is
    the largest of |phi'| at those critical points and the limits of phi' at +-oo (``sympy.limit``: 1 and 0).
    Verdict ``verified``, not proved: a critical point between two grid points with no sign change between
    them (a double root) would be missed; beyond [-40, 40] phi' is within 1e-15 of its limits.
    ``refuted`` with witness x when |phi'(x)| > value at a critical point.  Cost: well under a second.
    """

    activation: ClassVar[str] = ""

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        x = sp.Symbol("x", real=True)
        phi = ACTIVATION_FORMS[self.activation].subs(sp.Symbol("x", real=True), x)
        d1, d2 = sp.diff(phi, x), sp.diff(phi, x, 2)
        limits = [sp.limit(d1, x, end) for end in (sp.oo, -sp.oo)]
        dps = settings.precision
        points = max(200, settings.samples)
        with mpmath.workdps(dps):
            f1, f2 = sp.lambdify(x, d1, "mpmath"), sp.lambdify(x, d2, "mpmath")
            grid = [mpmath.mpf(SCAN[0]) + (SCAN[1] - SCAN[0]) * mpmath.mpf(i) / (points - 1) for i in range(points)]
            values = [f2(t) for t in grid]
            critical = [
                mpmath.findroot(f2, (a, b), solver="bisect")
                for a, b, va, vb in zip(grid, grid[1:], values, values[1:])
                if va * vb < 0
            ]
            slopes = [(abs(f1(c)), c) for c in critical] + [(abs(mpmath.mpf(sp.N(v, dps))), None) for v in limits]
            sup, where = max(slopes, key=lambda t: t[0])
            value = mpmath.mpf(sp.Rational(self.value).p) / sp.Rational(self.value).q
            margin = float((value - sup) / sup)
        detail = (
            f"{len(critical)} critical points of {self.activation}' on [{SCAN[0]:g}, {SCAN[1]:g}] "
            f"({points} grid points, {dps} digits): sup |{self.activation}'| = {mpmath.nstr(sup, 20)}"
            + (f" at x = {mpmath.nstr(where, 15)}" if where is not None else " (a limit)")
            + f"; limits at +-oo {limits}"
        )
        witness = {"x": float(where)} if where is not None else None
        method = "sign changes of phi'' on a grid, bisection, limits at +-oo (sympy)"
        if margin < 0:
            return Outcome(Verdict.REFUTED, method, dps, points, margin, witness, detail)
        return Outcome(Verdict.VERIFIED, method, dps, points, margin, witness, detail)


@dataclass(frozen=True)
class SiluLipschitz(ActivationLipschitz):
    name: ClassVar[str] = "silu-lipschitz"
    activation: ClassVar[str] = "silu"
    claim_template: ClassVar[str] = "|SiLU(x) - SiLU(y)| <= {value} |x - y| for all real x, y"


@dataclass(frozen=True)
class GeluTanhLipschitz(ActivationLipschitz):
    name: ClassVar[str] = "gelu-tanh-lipschitz"
    activation: ClassVar[str] = "gelu_tanh"
    claim_template: ClassVar[str] = "|GELU_tanh(x) - GELU_tanh(y)| <= {value} |x - y| for all real x, y"


ACTIVATION_FAMILIES = {cls.name: cls for cls in (SiluLipschitz, GeluTanhLipschitz)}


def _activation_check(family: type[ActivationLipschitz]):
    def decide(settings: Settings) -> Outcome:
        used = sp.nsimplify(activation_constant(family.activation), rational=True)
        return family(used).decide(settings)

    return decide


for _family in ACTIVATION_FAMILIES.values():
    claim(
        f"arch.{_family.activation}_lipschitz",
        f"the analysis's {_family.activation} constant bounds sup |{_family.activation}'|",
        is_step=True,
    )(_activation_check(_family))


def _gelu(z):
    from math import erf, sqrt

    return z * 0.5 * (1.0 + np.vectorize(erf)(z / sqrt(2.0)))


def _silu(z):
    return z / (1.0 + np.exp(-z))


def _spectral(w) -> float:
    return float(np.linalg.norm(w, 2))


class _Shape:
    """The few fields of a ModelShape that ``extension_factors`` reads."""

    def __init__(self, layout: str, gated: bool):
        self.layout, self.gated = layout, gated


def _jacobian(g, u, d, x):
    """``J = G diag(act'(xG) * xU) D + U diag(act(xG)) D`` (row vectors: df = dx J) for SiLU."""
    z = x @ g
    sig = 1.0 / (1.0 + np.exp(-z))
    return (g * (sig * (1 + z * (1 - sig)) * (x @ u))) @ d + (u * _silu(z)) @ d


@claim(
    "arch.gated_mlp_numeric",
    "on inputs with ||x|| <= R, (act(xG) * xU) D is F-Lipschitz and gate/up errors are within layer_factors' gamma",
    is_step=True,
)
def _gated_numeric(settings: Settings) -> Outcome:
    """Random SwiGLU maps (SiLU, L_act from layer_factors), inputs drawn in and on the sphere of radius R, nearby
    pairs inside the ball; perturbed G and U for the per-matrix factors.  float64; ``samples`` maps, 8 draws each."""
    rng = rng_for("arch.gated_mlp_numeric", settings)
    lact = activation_constant("silu")
    worst = 0.0
    for i in range(settings.samples):
        n, inner = int(rng.integers(3, 10)), int(rng.integers(3, 16))
        g, u = rng.standard_normal((n, inner)), rng.standard_normal((n, inner))
        d = rng.standard_normal((inner, n))
        radius = float(rng.uniform(0.2, 4))
        f = extension_factors(
            {
                "QK": np.zeros(1),
                "V_tilde": np.zeros(1),
                "M_in": _spectral(u),
                "M_out": _spectral(d),
                "M_gate": _spectral(g),
            },
            _Shape("post_ln", True),
            lact,
            radius,
        )
        mlp = f.mlp

        def mlp_of(x, gg=g, uu=u):
            return (_silu(x @ gg) * (x @ uu)) @ d

        for _ in range(8):
            x = rng.standard_normal(n)
            x *= radius * rng.uniform(0.5, 1.0) ** (1 / n) / np.linalg.norm(x)
            step = rng.standard_normal(n) * 10 ** rng.uniform(-6, -1) * radius
            x2 = x + step
            if np.linalg.norm(x2) > radius:
                x2 *= radius / np.linalg.norm(x2)
            jac = _jacobian(g, u, d, x)
            fd = np.array([(mlp_of(x + e * 1e-6) - mlp_of(x - e * 1e-6)) / 2e-6 for e in np.eye(n)])
            if np.max(np.abs(fd - jac)) > 1e-5 * max(np.max(np.abs(jac)), 1e-300):
                return Outcome(
                    Verdict.REFUTED,
                    "the Jacobian formula against central differences",
                    16,
                    i + 1,
                    -1.0,
                    {"n": n, "inner": inner},
                    "J of arch.gated_mlp.jacobian is not the map's",
                )
            checks = [
                (np.linalg.norm(mlp_of(x2) - mlp_of(x)) / np.linalg.norm(x2 - x), mlp, "F"),
                (float(np.linalg.norm(jac, 2)), mlp, "||J(x)||_2"),
            ]
            delta = rng.standard_normal((n, inner)) * 1e-3
            checks.append(
                (
                    np.linalg.norm(mlp_of(x, gg=g + delta) - mlp_of(x)) / np.linalg.norm(x @ delta),
                    f.gamma["M_gate"],
                    "gamma_gate",
                )
            )
            checks.append(
                (
                    np.linalg.norm(mlp_of(x, uu=u + delta) - mlp_of(x)) / np.linalg.norm(x @ delta),
                    f.gamma["M_in"],
                    "gamma_up",
                )
            )
            for ratio, bound, what in checks:
                worst = max(worst, ratio / bound)
                if ratio > bound * (1 + 1e-9):
                    return Outcome(
                        Verdict.REFUTED,
                        "random SwiGLU maps (float64)",
                        16,
                        i + 1,
                        1 - ratio / bound,
                        {
                            "n": n,
                            "inner": inner,
                            "R": radius,
                            "which": what,
                            "ratio": float(ratio),
                            "bound": float(bound),
                        },
                    )
    return Outcome(
        Verdict.VERIFIED,
        "random SwiGLU maps (float64), 8 draws each in the R-ball",
        16,
        settings.samples,
        1 - worst,
        None,
        f"largest ratio of empirical to bound {worst:.3g} (F, ||J||, gamma_gate, gamma_up); "
        "the Jacobian formula equals central differences to 1e-5",
    )


@claim(
    "arch.gqa_numeric",
    "with grouped-query attention and RoPE, the scores x_i Wq_h^T R_(j-i) Wk_g(h) x_j^T / sqrt(d_h) and the "
    "causal softmax output from layers.assemble equal Hugging Face's attention (repeat_kv, rotate_half)",
    is_step=True,
)
def _gqa_numeric(settings: Settings) -> Outcome:
    """Random weights with H query and G key/value heads (G | H, head size d even), partial rotary, theta in
    10..1e6, random tokens; relative error of the scores and of the output, float64, tolerance 1e-10."""
    from sabounds.numerics.checkpoints.rope import RopeSpec, family_member
    from sabounds.proofs_check.architecture_block import hf_attention

    rng = rng_for("arch.gqa_numeric", settings)
    worst = 0.0
    for i in range(settings.samples):
        kv = int(rng.choice([1, 2, 3]))
        heads = kv * int(rng.integers(1, 4))
        d, n, t = 2 * int(rng.integers(1, 4)), int(rng.integers(2, 10)), int(rng.integers(1, 7))
        rotary, theta = 2 * int(rng.integers(1, d // 2 + 1)), float(10 ** rng.uniform(1, 6))
        q, k, v = (rng.standard_normal((h * d, n)) for h in (heads, kv, kv))
        o = rng.standard_normal((n, heads * d))
        x = rng.standard_normal((t, n))
        layer = assemble(0, q, k, v, o, np.eye(n), np.eye(n), heads, kv)
        spec = RopeSpec(theta, d, rotary, 64)
        scores, out = hf_attention(x, q, k, v, o, heads, kv, theta, rotary)
        ours = np.full((heads, t, t), -np.inf)
        for h in range(heads):
            for a in range(t):
                for b in range(a + 1):
                    ours[h, a, b] = (
                        x[a] @ family_member(layer.qk_left[h], layer.qk_right[h], spec, b - a) @ x[b] / np.sqrt(d)
                    )
        ours_out = sum(_softmax(ours[h]) @ x @ layer.vt(h) for h in range(heads))
        mask = np.isfinite(scores)
        err = max(
            np.max(np.abs(ours[mask] - scores[mask])) / max(np.max(np.abs(scores[mask])), 1e-300),
            np.max(np.abs(ours_out - out)) / max(np.max(np.abs(out)), 1e-300),
        )
        worst = max(worst, float(err))
        if err > 1e-10 or not np.array_equal(mask, np.isfinite(ours)):
            return Outcome(
                Verdict.REFUTED,
                "random GQA layers with RoPE (float64)",
                16,
                i + 1,
                -float(err),
                {"heads": heads, "kv_heads": kv, "head_dim": d, "rotary": rotary, "N": n, "T": t},
            )
    return Outcome(
        Verdict.VERIFIED,
        "random GQA layers with RoPE (float64)",
        16,
        settings.samples,
        -worst,
        None,
        f"largest relative error {worst:.2g} (tolerance 1e-10)",
    )


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


import sabounds.proofs_check.architecture_block  # noqa: E402,F401  (registers the arch.*_numeric checks of real blocks)
