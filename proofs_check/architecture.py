"""Checks of the labelled extensions for families whose layer departs from the published one (``arch.*``).

Every decidable step of ``sabounds.theory.architecture.extension_derivation`` is registered, and four claims are
decided numerically on the objects the analysis uses: the activation constants of
``sabounds.numerics.proxies.layer_factors`` (a conjecture family per activation), the pre-LN layer factor and the
gated-MLP factors of the same module on random layers, and the grouped-query matrices of
``sabounds.numerics.checkpoints.layers.assemble`` against an attention written with Hugging Face's ``repeat_kv``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.checkpoints.layers import assemble
from sabounds.numerics.proxies.layer_factors import activation_constant, extension_factors
from sabounds.proofs_check.conjecture import ConstantFamily, _quiet
from sabounds.proofs_check.deciders import rng_for
from sabounds.proofs_check.derivations import register_derivation
from sabounds.proofs_check.registry import claim
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory.architecture import ACTIVATION_FORMS, DEPARTURES, extension_derivation

for _departure in DEPARTURES:
    register_derivation(extension_derivation(_departure))

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
            critical = [mpmath.findroot(f2, (a, b), solver="bisect")
                        for a, b, va, vb in zip(grid, grid[1:], values, values[1:]) if va * vb < 0]
            slopes = [(abs(f1(c)), c) for c in critical] + [(abs(mpmath.mpf(sp.N(v, dps))), None) for v in limits]
            sup, where = max(slopes, key=lambda t: t[0])
            value = mpmath.mpf(sp.Rational(self.value).p) / sp.Rational(self.value).q
            margin = float((value - sup) / sup)
        detail = (f"{len(critical)} critical points of {self.activation}' on [{SCAN[0]:g}, {SCAN[1]:g}] "
                  f"({points} grid points, {dps} digits): sup |{self.activation}'| = {mpmath.nstr(sup, 20)}"
                  + (f" at x = {mpmath.nstr(where, 15)}" if where is not None else " (a limit)")
                  + f"; limits at +-oo {limits}")
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
    claim(f"arch.{_family.activation}_lipschitz",
          f"the analysis's {_family.activation} constant bounds sup |{_family.activation}'|",
          is_step=True)(_activation_check(_family))


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


@claim("arch.pre_ln_residual_numeric",
       "a pre-LN residual layer x + A(x), then + F(.), is (1 + A)(1 + F)-Lipschitz with layer_factors' lip",
       is_step=True)
def _pre_ln_numeric(settings: Settings) -> Outcome:
    """Random layers with a one-head linear-attention stand-in ``x Vt`` (A = ||Vt||) and a GELU MLP; random pairs of
    inputs at distances 1e-6..1; the empirical ratio must stay below ``extension_factors(...).lip``, and that lip
    must be the derived ``(1 + A)(1 + F)``.  float64; ``samples`` layers, 8 input pairs each."""
    rng = rng_for("arch.pre_ln_residual_numeric", settings)
    worst = 0.0
    for i in range(settings.samples):
        n = int(rng.integers(3, 12))
        vt, m_in, m_out = (rng.standard_normal(s) / np.sqrt(n) for s in ((n, n), (n, 2 * n), (2 * n, n)))
        lip_a, lip_f = _spectral(vt), 1.13 * _spectral(m_in) * _spectral(m_out)
        f = extension_factors({"QK": np.zeros(1), "V_tilde": np.array([lip_a]), "M_in": _spectral(m_in),
                               "M_out": _spectral(m_out)}, _Shape("pre_ln", False), 1.13, None)

        def layer(x):
            y = x + x @ vt
            return y + _gelu(y @ m_in) @ m_out

        for _ in range(8):
            x = rng.standard_normal(n) * rng.uniform(0.1, 5)
            d = rng.standard_normal(n) * 10 ** rng.uniform(-6, 0)
            ratio = np.linalg.norm(layer(x + d) - layer(x)) / np.linalg.norm(d)
            worst = max(worst, ratio / f.lip)
            if ratio > f.lip * (1 + 1e-9):
                return Outcome(Verdict.REFUTED, "random residual layers (float64)", 16, i + 1, 1 - ratio / f.lip,
                               {"n": n, "ratio": float(ratio), "lip": f.lip})
        derived = (1 + lip_a) * (1 + lip_f)
        if abs(f.lip - derived) > 1e-12 * derived:
            return Outcome(Verdict.REFUTED, "layer_factors against the derivation arch.pre_ln", 16, i + 1,
                           (f.lip - derived) / derived, {"n": n, "lip": f.lip, "derived": derived},
                           "layer_factors' lip is not the derived (1 + A)(1 + F)")
    return Outcome(Verdict.VERIFIED, "random residual layers (float64), 8 input pairs each", 16, settings.samples,
                   1 - worst, None, f"largest ratio of empirical to bound {worst:.3g}")


@claim("arch.gated_mlp_numeric",
       "on inputs with ||x|| <= R, (act(xG) * xU) D is F-Lipschitz and gate/up errors are within layer_factors' gamma",
       is_step=True)
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
        f = extension_factors({"QK": np.zeros(1), "V_tilde": np.zeros(1), "M_in": _spectral(u), "M_out": _spectral(d),
                               "M_gate": _spectral(g)}, _Shape("pre_ln", True), lact, radius)
        mlp = f.lip - 1.0  # pre-LN with no attention: lip = (1 + 0)(1 + F)

        def mlp_of(x, gg=g, uu=u):
            return (_silu(x @ gg) * (x @ uu)) @ d

        for _ in range(8):
            x = rng.standard_normal(n)
            x *= radius * rng.uniform(0.5, 1.0) ** (1 / n) / np.linalg.norm(x)
            step = rng.standard_normal(n) * 10 ** rng.uniform(-6, -1) * radius
            x2 = x + step
            if np.linalg.norm(x2) > radius:
                x2 *= radius / np.linalg.norm(x2)
            checks = [(np.linalg.norm(mlp_of(x2) - mlp_of(x)) / np.linalg.norm(x2 - x), mlp, "F")]
            delta = rng.standard_normal((n, inner)) * 1e-3
            checks.append((np.linalg.norm(mlp_of(x, gg=g + delta) - mlp_of(x)) / np.linalg.norm(x @ delta),
                           f.gamma["M_gate"], "gamma_gate"))
            checks.append((np.linalg.norm(mlp_of(x, uu=u + delta) - mlp_of(x)) / np.linalg.norm(x @ delta),
                           f.gamma["M_in"], "gamma_up"))
            for ratio, bound, what in checks:
                worst = max(worst, ratio / bound)
                if ratio > bound * (1 + 1e-9):
                    return Outcome(Verdict.REFUTED, "random SwiGLU maps (float64)", 16, i + 1, 1 - ratio / bound,
                                   {"n": n, "inner": inner, "R": radius, "which": what, "ratio": float(ratio),
                                    "bound": float(bound)})
    return Outcome(Verdict.VERIFIED, "random SwiGLU maps (float64), 8 draws each in the R-ball", 16, settings.samples,
                   1 - worst, None, f"largest ratio of empirical to bound {worst:.3g} (F, gamma_gate, gamma_up)")


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def repeat_kv_attention(x, q, k, v, o, heads: int, kv_heads: int):
    """Per-head scores and the attention output as Hugging Face computes them (``repeat_kv``), from (out, in)
    weights: ``Q_h = x q_h^T``, ``K = repeat(x k^T)``; output ``sum_h softmax(Q_h K_h^T) V_h o_h^T``."""
    t, d = x.shape[0], q.shape[0] // heads
    qs = (x @ q.T).reshape(t, heads, d).transpose(1, 0, 2)
    ks = np.repeat((x @ k.T).reshape(t, kv_heads, d).transpose(1, 0, 2), heads // kv_heads, axis=0)
    vs = np.repeat((x @ v.T).reshape(t, kv_heads, d).transpose(1, 0, 2), heads // kv_heads, axis=0)
    scores = qs @ ks.transpose(0, 2, 1)
    context = _softmax(scores) @ vs
    out = context.transpose(1, 0, 2).reshape(t, heads * d) @ o.T
    return scores, out


@claim("arch.gqa_numeric",
       "with grouped-query attention, x QK_h x^T and sum_h softmax(.) x Vt_h from layers.assemble equal repeat_kv "
       "attention", is_step=True)
def _gqa_numeric(settings: Settings) -> Outcome:
    """Random weights with H query and G key/value heads (G | H, head size d), random tokens; relative error of
    the per-head scores and of the attention output, float64, tolerance 1e-10; ``samples`` draws."""
    rng = rng_for("arch.gqa_numeric", settings)
    worst = 0.0
    for i in range(settings.samples):
        kv = int(rng.choice([1, 2, 3]))
        heads = kv * int(rng.integers(1, 4))
        d, n, t = int(rng.integers(1, 5)), int(rng.integers(2, 10)), int(rng.integers(1, 6))
        q, k, v = (rng.standard_normal((h * d, n)) for h in (heads, kv, kv))
        o = rng.standard_normal((n, heads * d))
        x = rng.standard_normal((t, n))
        layer = assemble(0, q, k, v, o, np.eye(n), np.eye(n), heads, kv)
        scores, out = repeat_kv_attention(x, q, k, v, o, heads, kv)
        ours_scores = np.stack([x @ layer.qk(h) @ x.T for h in range(heads)])
        ours_out = sum(_softmax(ours_scores[h]) @ x @ layer.vt(h) for h in range(heads))
        err = max(np.max(np.abs(ours_scores - scores)) / max(np.max(np.abs(scores)), 1e-300),
                  np.max(np.abs(ours_out - out)) / max(np.max(np.abs(out)), 1e-300))
        worst = max(worst, float(err))
        if err > 1e-10:
            return Outcome(Verdict.REFUTED, "random GQA layers (float64)", 16, i + 1, -float(err),
                           {"heads": heads, "kv_heads": kv, "head_dim": d, "N": n, "T": t})
    return Outcome(Verdict.VERIFIED, "random GQA layers (float64)", 16, settings.samples, -worst, None,
                   f"largest relative error {worst:.2g} (tolerance 1e-10)")
