"""Decide a proposed sharper constant or a user's scalar inequality: ``refuted`` (with a witness), ``proved``,
``verified`` (numeric evidence: precision, samples, smallest margin) or ``unresolved``.

Each built-in family is a small frozen dataclass holding the proposed ``value`` with a ``decide(settings)``
method; its docstring states the claim, the method, its cost and when it fails.  ``FreeForm`` decides a
relation parsed by ``sabounds.theory.expression`` over a box of scalar variables.  Sympy goes first where it can
decide; otherwise an adversarial search (random starts, then local optimisation) at mpmath precision.
A refutation found in float64 is re-evaluated at mpmath precision before it is reported.
"""

from __future__ import annotations

import math

from dataclasses import dataclass, replace
from typing import Callable, ClassVar, Mapping

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.attention import (attention_ratio, attention_ratio_mp, into_unit_rows, norm_2_inf,
                                softmax_ratio, softmax_ratio_mp, spectral_norm_mp)
from sabounds.numerics.expressions.matrix_atoms import substitute_atoms
from sabounds.proofs_check import deciders
from sabounds.proofs_check.deciders import rng_for
from sabounds.proofs_check.free_form import FreeForm, declare  # noqa: F401  (the CLI's entry points, re-exported)
from sabounds.proofs_check.number_text import exact_str as _exact_str
from sabounds.proofs_check.number_text import exact_text
from sabounds.proofs_check.search import adversarial_max_vector, adversarial_min
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import thm41
from sabounds.theory.checks import Interval
from sabounds.theory.matrix_atoms import W, X


def _quiet(note: str = "") -> None:
    """The default progress callback: ``decide(settings, advance)`` calls ``advance`` once per stage."""


def _num(v, digits: int = 17) -> float:
    return float(mpmath.mpf(v)) if not isinstance(v, sp.Basic) else float(sp.N(v, digits))


def _digits_to_separate(value: sp.Expr, other: sp.Expr, floor: int) -> int:
    """Working digits that tell ``value`` from ``other``: at least ``floor``, plus the digits their gap needs (+20)."""
    gap = abs(sp.Rational(value) - sp.Rational(other))
    if gap == 0:
        return floor
    return max(floor, int(mpmath.ceil(-mpmath.log10(mpmath.mpf(gap.p) / gap.q))) + 20)


def _matrix(a: np.ndarray) -> list:
    return [[float(v) for v in row] for row in np.atleast_2d(a)]


@dataclass(frozen=True)
class ConstantFamily:
    """A built-in family: one proposed constant ``value``; subclasses set ``name``, ``claim_template`` and ``decide``."""

    value: sp.Rational
    name: ClassVar[str] = ""
    claim_template: ClassVar[str] = "{value}"
    stages: ClassVar[int] = 1

    @property
    def claim(self) -> str:
        return self.claim_template.format(value=exact_text(self.value))

    @classmethod
    def build(cls, value: sp.Rational, ranges: Mapping[str, Interval]) -> "ConstantFamily":
        """The family for ``value``; ``ranges`` restrict the family's parameters (none by default)."""
        if ranges:
            raise ValueError(f"family {cls.name} takes no --var")
        return cls(value)


@dataclass(frozen=True)
class GeluLipschitz(ConstantFamily):
    """Claim: GELU(x) = x Phi(x) is ``value``-Lipschitz on R, i.e. ``sup |GELU'| <= value``.

    Method (sympy, exact): GELU'' = -phi(x) (x^2 - 2) vanishes only at x = +-sqrt 2 (``sympy.solve``), and
    GELU' tends to 1 and 0 at +-oo (``sympy.limit``), so ``sup |GELU'|`` is the largest of |GELU'(+-sqrt 2)|
    and those limits: ``Phi(sqrt 2) + sqrt 2 phi(sqrt 2) = 1/2 + erf(1)/2 + e^{-1}/sqrt(pi) = 1.1289041...``.
    The sign of ``value - sup`` is decided by sympy's evalf-based sign test.  A refutation's witness is the
    maximiser x = sqrt 2 (pairs x, x + h with h small then violate the Lipschitz bound).  A numeric scan of
    GELU' on [-8, 8] at ``settings.precision`` digits cross-checks the supremum.  Cost: under a second.
    Fails (unresolved) only if sympy cannot order ``value`` and the supremum (``value`` equal to it).
    """

    name: ClassVar[str] = "gelu-lipschitz"
    claim_template: ClassVar[str] = "|GELU(x) - GELU(y)| <= {value} |x - y| for all real x, y"

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        x = sp.Symbol("x", real=True)
        gelu = x * (1 + sp.erf(x / sp.sqrt(2))) / 2
        d1 = sp.diff(gelu, x)
        d2 = sp.factor(sp.simplify(sp.diff(gelu, x, 2)))
        critical = sp.solve(sp.Eq(d2, 0), x)
        candidates = [(sp.Abs(sp.simplify(d1.subs(x, c))), c) for c in critical]
        candidates += [(sp.Abs(sp.limit(d1, x, end)), end) for end in (sp.oo, -sp.oo)]
        sup, where = max(candidates, key=lambda t: sp.N(t[0], 30))
        sup = sp.simplify(sup)
        gap = sp.Rational(self.value) - sup
        dps = settings.precision
        margin = float(sp.N(gap / sup, 20))
        scan = self._numeric_sup(settings)
        detail = (f"GELU'' = {d2}; critical points {critical}; sup |GELU'| = {sup} = {sp.N(sup, 15)} at x = {where}; "
                  f"numeric scan of |GELU'| on [-8, 8] ({scan[2]} evaluations, {dps} digits): max {mpmath.nstr(scan[0], 15)} "
                  f"at x = {mpmath.nstr(scan[1], 12)}")
        method = "sympy: GELU'' = 0 solved exactly, limits at +-oo, sign of value - sup"
        if gap.is_negative:
            return Outcome(Verdict.REFUTED, method, None, None, margin, {"x": _num(where)}, detail)
        if gap.is_nonnegative:
            return Outcome(Verdict.PROVED, method, None, None, margin, {"x": _num(where)}, detail)
        return Outcome.unresolved(method, "sympy could not order the value and the supremum; " + detail)

    @staticmethod
    def _numeric_sup(settings: Settings):
        dps = settings.precision
        xs = sp.Symbol("x")
        with mpmath.workdps(dps):
            def neg_slope(pt):
                t = pt[xs]
                return -abs(mpmath.ncdf(t) + t * mpmath.npdf(t))
            found = adversarial_min(neg_slope, {xs: Interval(-8, 8)}, max(20, settings.samples // 4),
                                    rng_for("gelu-lipschitz", settings), refine=2, iterations=200)
        return -found.value, found.point[xs], found.evaluations


@dataclass(frozen=True)
class SoftmaxLinfL1(ConstantFamily):
    """Claim: ``||softmax(u) - softmax(u')||_1 <= value ||u - u'||_inf`` for every length T and all u, u'.

    Method: by the mean value theorem the best constant is the sup over s of ``||J||_{inf->1}``,
    ``J = diag(s) - s s^T``; for a sign vector v with + on a set A of softmax mass t, ``(J v)_i`` is
    ``2 s_i (1 - t)`` on A and ``-2 s_i t`` off A, so ``||J v||_1 = 4 t (1 - t)`` (derivation by hand).
    Sympy proves ``max_{t in [0,1]} 4 t (1 - t) = 1``, so the claim holds iff ``value >= 1``.  Independently an
    adversarial search (random u, direction and step, T = 2..6, then a (1+1) evolution strategy in float64,
    the best ratio re-evaluated at mpmath precision) reports the largest ratio found; if it ever exceeds a value
    >= 1 the verdict is unresolved (the reduction would be wrong).  For ``value < 1`` the witness is the
    searched pair, or the explicit pair u = (0, 0), u' = (h, -h) with tanh(h)/h > value.  Cost: ~1-3 s.
    """

    name: ClassVar[str] = "softmax-linf-l1"
    claim_template: ClassVar[str] = "||softmax(u) - softmax(u')||_1 <= {value} ||u - u'||_inf for all u, u' in R^T"

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        t = sp.Symbol("t", real=True)
        tight = sp.maximum(4 * t * (1 - t), t, sp.Interval(0, 1))
        value = sp.Rational(self.value)
        dps = _digits_to_separate(value, tight, settings.precision)
        rng = rng_for(self.name, settings)
        best, best_pair, evaluations = mpmath.mpf(-1), None, 0
        for size in range(2, 7):
            def decode(v, size=size):
                return v[:size], v[:size] + np.exp(np.clip(v[-1], -14, 2)) * v[size:2 * size]

            def draw(g, size=size):
                v = np.concatenate([g.uniform(-4, 4, size), g.uniform(-1, 1, size), [g.uniform(-10, 1)]])
                return v

            found = adversarial_max_vector(lambda v: softmax_ratio(*decode(v)), draw, rng,
                                           max(10, settings.samples // 5), refine=3, iterations=300)
            evaluations += found.evaluations
            u, u2 = decode(found.x)
            ratio = softmax_ratio_mp(u, u2, dps)
            if ratio > best:
                best, best_pair = ratio, (u, u2)
        witness = {"T": len(best_pair[0]), "u": [float(a) for a in best_pair[0]], "u_prime": [float(a) for a in best_pair[1]],
                   "ratio": float(best)}
        detail = (f"sympy: max of 4t(1-t) on [0, 1] = {tight} (the tight constant); "
                  f"largest ratio found by search: {mpmath.nstr(best, 15)} ({evaluations} evaluations, re-evaluated at {dps} digits)")
        with mpmath.workdps(dps):
            margin = float((mpmath.mpf(sp.N(value, dps)) - best) / max(abs(mpmath.mpf(sp.N(value, dps))), best))
        if best > mpmath.mpf(sp.N(value, dps)) + mpmath.mpf(10) ** (-(dps // 2)):
            verdict = Verdict.UNRESOLVED if value >= tight else Verdict.REFUTED
            return Outcome(verdict, "adversarial search (float64 evolution strategy, mpmath re-evaluation)", dps,
                           evaluations, margin, witness, detail)
        if value < tight:
            h, pair = self._explicit_witness(value, dps)
            return Outcome(Verdict.REFUTED, "explicit witness u = (0, 0), u' = (h, -h), ratio tanh(h)/h", dps, evaluations,
                           float((sp.N(value, dps) - pair) / sp.N(value, dps)), {"T": 2, "u": [0.0, 0.0], "u_prime": [h, -h],
                                                                                  "ratio": float(pair), "ratio_digits": mpmath.nstr(pair, dps)},
                           detail + f"; witness ratio tanh(h)/h = {mpmath.nstr(pair, dps)} at {dps} digits")
        return Outcome(Verdict.PROVED, "sympy maximum of the Jacobian's l_inf->l_1 norm 4t(1-t); search as cross-check",
                       dps, evaluations, margin, witness, detail)

    @staticmethod
    def _explicit_witness(value: sp.Expr, dps: int):
        """``h`` with ``tanh(h)/h > value``: start at ``min(1, sqrt(3 (1 - value))/2)`` (``tanh h / h > 1 - h^2/3``),
        halve at most 400 times; ``dps`` already separates ``value`` from 1."""
        with mpmath.workdps(dps):
            c = mpmath.mpf(sp.N(value, dps))
            h = min(mpmath.mpf(1), mpmath.sqrt(3 * (1 - c)) / 2)
            for _ in range(400):
                if mpmath.tanh(h) / h > c:
                    return float(h), mpmath.tanh(h) / h
                h /= 2
        raise ValueError(f"no witness h down to 2^-400 for value {exact_text(value)}")


@dataclass(frozen=True)
class AttentionLipschitz(ConstantFamily):
    """Claim: ``f(X) = softmax(X W X^T) X`` is ``(1 + value ||W||_2)``-Lipschitz in ``||.||_{2->inf}`` on
    inputs whose rows have l2 norm <= 1 (the published bound uses value = 4).

    Method: the exact constant is 2.  ``value >= 2``: ``proved`` by the derivation
    ``sabounds.theory.attention_lipschitz`` (the hand proof of c <= 2 as steps, each decided here; the convex
    combination step is a cited premise).  ``value < 2``: ``refuted`` on the tight family (two opposite tokens at
    tied scores, W = sigma diag(1, -1), an antipodal move by delta along the unit circle): sigma and delta are
    chosen deterministically from the value (sigma = floor(4/(2 - value)) + 1, delta halved from 1/4 until it
    works, at most 400 halvings) and the empirical constant is certified above the value by interval
    arithmetic (``mpmath.iv``) at a precision tied to the value; the witness's ratio is also recomputed at
    ``settings.precision`` digits by the independent implementation ``sabounds.numerics.attention``.  A
    count-bounded search (structured candidates, then ``settings.samples`` random starts and a (1+1) evolution
    strategy; no clock) cross-checks the proof: a constant above 2 there would make the verdict unresolved.
    Same seed, same answer on any machine.  Cost: about a second at the default samples.
    """

    name: ClassVar[str] = "attention-lipschitz"
    stages: ClassVar[int] = 3
    claim_template: ClassVar[str] = "||f(X) - f(X')||_2->inf <= (1 + {value} ||W||_2) ||X - X'||_2->inf, rows of X, X' in the unit ball"

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        from sabounds.theory import attention_lipschitz as AL
        value = sp.Rational(self.value)
        proof = [(step.name, deciders.decide(step, settings, f"attention.{step.name}")) for step in AL.derivation()
                 if type(step.check).__name__ != "Premise"]
        advance("derivation decided")
        weak = [f"{name}: {o.verdict}" for name, o in proof if o.verdict not in (Verdict.PROVED,)]
        steps = ", ".join(f"{name} ({o.grounds})" for name, o in proof)
        search_best, search_evals = self._search(settings)
        advance("search done")
        cross = (f"count-bounded search (structured candidates, {settings.samples} random starts per shape, evolution "
                 f"strategy, seed {settings.seed}): largest empirical constant {search_best:.6f} in {search_evals} evaluations")
        if value >= AL.constant:
            if weak:
                return Outcome.unresolved("derivation attention", f"steps not proved: {', '.join(weak)}; {cross}")
            if search_best > float(value) + 1e-9:
                return Outcome.unresolved("derivation attention vs search", f"the search exceeds the proved constant; {cross}")
            return Outcome(Verdict.PROVED, "derivation attention (sabounds.theory.attention_lipschitz): hand proof of c <= 2, "
                           "every step decided", None, search_evals, _relative_margin(value, AL.constant),
                           None, f"steps: {steps}; premise: value_term (convex combination); {cross}")
        witness, detail = self._tight_witness(value, settings)
        advance("witness certified")
        if witness is None:
            return Outcome.unresolved("tight family", detail + "; " + cross)
        return Outcome(Verdict.REFUTED, "tight family (opposite tokens, tied scores, W = sigma diag(1, -1)), "
                       "certified by interval arithmetic (mpmath.iv)", witness["certificate_digits"], 1,
                       _relative_margin(value, witness["constant"]), witness, f"{detail}; {cross}")

    @staticmethod
    def _tight_witness(value: sp.Rational, settings: Settings):
        """The tight family's point with certified constant > value: ``(witness, detail)`` or ``(None, why)``."""
        from sabounds.proofs_check.interval import iv, iv_digits
        gap = 2 - value
        digits = int(mpmath.ceil(-mpmath.log10(mpmath.mpf(gap.p) / gap.q))) if gap < 1 else 0
        dps = max(30, digits + 25)
        sigma = int(4 / gap) + 1 if gap < 4 else 1
        delta_q = 4
        with iv_digits(dps):
            for _ in range(400):
                s, dl = iv.mpf(sigma), iv.mpf(1) / delta_q
                z = s * iv.sin(2 * dl)
                tanh = 1 - 2 / (iv.exp(2 * z) + 1)
                k = (tanh / (2 * iv.sin(dl / 2)) - 1) / s
                lo_value = iv.mpf(int(value.p)) / iv.mpf(int(value.q))
                if k.a > lo_value.b:
                    break
                delta_q *= 2
            else:
                return None, f"no delta down to 2^-400 certified the constant above {exact_text(value)}"
        with mpmath.workdps(dps):
            delta = mpmath.mpf(1) / delta_q
            theta, theta2 = mpmath.pi / 4, mpmath.pi / 4 - delta
            shrink = 1 - mpmath.mpf(2) ** -50
            x = np.array([[float(mpmath.cos(theta) * shrink), float(mpmath.sin(theta) * shrink)]])
            x2 = np.array([[float(mpmath.cos(theta2) * shrink), float(mpmath.sin(theta2) * shrink)]])
        x, x2 = np.vstack([x, -x]), np.vstack([x2, -x2])
        w = np.array([[float(sigma), 0.0], [0.0, -float(sigma)]])
        k_lo, k_hi = mpmath.mpf(k.a), mpmath.mpf(k.b)
        k_exp = int(math.log2(delta_q))
        shown = max(15, digits + 5)
        witness = {"T": 2, "d": 2, "sigma": sigma, "delta": f"2^-{k_exp}", "theta": "pi/4",
                   "X": "rows (cos theta, sin theta) and its negative", "X_prime": "rows (cos(theta - delta), sin(theta - delta)) and its negative",
                   "W": _matrix(w), "constant": float(k_lo), "constant_interval": [mpmath.nstr(k_lo, 20), mpmath.nstr(k_hi, 20)],
                   "norm_W": float(sigma), "certificate_digits": dps}
        certificate = (f"exact tight point (theta = pi/4, delta = 2^-{k_exp}, sigma = {sigma}): (ratio - 1)/||W||_2 in "
                       f"[{mpmath.nstr(k_lo, shown)}, {mpmath.nstr(k_hi, shown)}] (mpmath.iv, {dps} digits) > {exact_text(value)}")
        if np.array_equal(x, x2) or k_exp > 40:
            return witness, (f"{certificate}; float64 cross-check skipped: at delta = 2^-{k_exp} float64 rows of X and X' "
                             f"{'coincide' if np.array_equal(x, x2) else 'differ by a few ulps only'}, so float64 cannot "
                             "represent the point (the certificate is on the exact point)")
        try:
            ratio_mp = attention_ratio_mp(x, x2, w, settings.precision)
        except (ZeroDivisionError, ValueError, OverflowError, ArithmeticError) as exc:
            return witness, f"{certificate}; float64 cross-check skipped: the float64 rendering cannot be evaluated ({type(exc).__name__})"
        with mpmath.workdps(settings.precision):
            k_mp = (ratio_mp - 1) / sigma
        witness.update({"X": _matrix(x), "X_prime": _matrix(x2), "constant_float_witness": float(k_mp), "ratio": float(ratio_mp)})
        if not k_mp > mpmath.mpf(value.p) / value.q:
            return None, (f"the float64 rendering of the tight point gives {mpmath.nstr(k_mp, 15)}, not above {exact_text(value)}")
        detail = (f"{certificate}; its float64 rendering (rows scaled by 1 - 2^-50 into the unit ball) recomputed by "
                  f"sabounds.numerics.attention at {settings.precision} digits: {mpmath.nstr(k_mp, 15)}")
        return witness, detail

    def _search(self, settings: Settings) -> tuple[float, int]:
        """Largest empirical constant: structured candidates (the tight family, tied opposite tokens with W's singular
        directions), then random starts and an evolution strategy, bounded by counts only."""
        rng = rng_for(self.name, settings)
        best, evaluations = -np.inf, 0
        for sigma in (1.0, 10.0, 100.0):
            for delta in (1e-2, 1e-4):
                x = np.array([[np.cos(np.pi / 4), np.sin(np.pi / 4)]]) * (1 - 2.0**-50)
                x2 = np.array([[np.cos(np.pi / 4 - delta), np.sin(np.pi / 4 - delta)]]) * (1 - 2.0**-50)
                w = np.diag([sigma, -sigma])
                best = max(best, (attention_ratio(np.vstack([x, -x]), np.vstack([x2, -x2]), w) - 1) / sigma)
                evaluations += 1
        for t, d in ((2, 2), (3, 2), (2, 3)):
            decode = self._decoder(t, d)

            def objective(v, decode=decode):
                x, x2, w = decode(v)
                nw = np.linalg.norm(w, 2)
                if nw < 1e-3 or norm_2_inf(x - x2) < 1e-12:
                    return -np.inf
                return (attention_ratio(x, x2, w) - 1.0) / nw

            def draw(g, t=t, d=d):
                v = g.standard_normal(2 * t * d + d * d + 1)
                v[2 * t * d:-1] *= np.exp(g.uniform(-3, 3))
                v[-1] = g.uniform(-10, 0)
                return v

            found = adversarial_max_vector(objective, draw, rng, max(10, settings.samples // 4), refine=2, iterations=150)
            evaluations += found.evaluations
            best = max(best, found.value)
        return float(best), evaluations

    @staticmethod
    def _decoder(t: int, d: int):
        def decode(v):
            x = into_unit_rows(v[:t * d].reshape(t, d))
            direction = v[t * d:2 * t * d].reshape(t, d)
            w = v[2 * t * d:2 * t * d + d * d].reshape(d, d)
            x2 = into_unit_rows(x + np.exp(np.clip(v[-1], -16, 1)) * direction)
            return x, x2, w
        return decode


@dataclass(frozen=True)
class Thm41Tail(ConstantFamily):
    """Claim: a Theorem 4.1 tail step (``sabounds.theory.thm41``, docs/definitions.md) holds with its right side times ``value``.

    Method: (1) an explicit extremal matrix where the step holds with equality (diagonal, so its float64 SVD is
    exact): ``refuted`` there whenever ``value < 1``, compared in mpmath at digits enough to separate ``value`` from 1
    (a float comparison would round 0.99999999999999999999 to 1); (2) otherwise the step's own check (``MatrixRelation``:
    random matrices of the four spectral families, random split rank r and p, extremal tokens) decides the
    scaled inequality: ``verified`` with the smallest margin.  Cost:
    ``samples`` SVDs, about a second.  Fails: numeric evidence, never a proof for ``value >= 1``.
    """

    step_name: ClassVar[str] = ""
    extremal: ClassVar[tuple] = ()
    """``(W, X, r, p)``: a matrix, tokens, split rank and index at which lhs == rhs."""

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        step = thm41.derivation()[self.step_name]
        rel = step.statement
        w, x, r, p = self.extremal
        bindings = {W: np.array(w, dtype=float), X: np.array(x, dtype=float), thm41.r_split: sp.Integer(r), thm41.p: sp.Rational(p)}
        value = sp.Rational(self.value)
        dps = _digits_to_separate(value, 1, 30)
        with mpmath.workdps(dps):
            lhs, rhs = (mpmath.mpf(substitute_atoms(side, bindings).evalf(dps)) for side in (rel.lhs, rel.rhs))
            scaled_rhs = mpmath.mpf(int(value.p)) / int(value.q) * rhs
            margin = float((scaled_rhs - lhs) / lhs)
        if lhs > scaled_rhs:
            return Outcome(Verdict.REFUTED, f"explicit extremal matrix (diagonal: exact SVD), compared at {dps} digits", dps, 1,
                           margin, {"W": w, "X": x, "r": r, "p": float(sp.Rational(p)), "lhs": float(lhs), "rhs": float(rhs),
                                    "value": _exact_str(value)},
                           f"lhs = rhs = {mpmath.nstr(lhs, 15)} at the extremal matrix, so no constant below 1 holds: "
                           f"lhs > {exact_text(value)} * rhs (mpmath, {dps} digits, enough to separate the value from 1)")
        scaled = replace(step, statement=sp.Le(rel.lhs, self.value * rel.rhs))
        outcome = deciders.decide(scaled, settings, key=f"conjecture.{self.name}")
        detail = f"{outcome.detail}; the extremal matrix {w} (r = {r}) attains constant 1 exactly"
        if outcome.verdict is Verdict.VERIFIED and outcome.margin is not None and outcome.margin < 0:
            # a float64 SVD cannot tell equality (attained by the tight diagonal samples at value 1) from a gap below the tolerance
            detail += (f"; the smallest float64 margin {outcome.margin:.3g} lies within the rounding tolerance and is not a "
                       "violation, so the margin is reported as 0 (verified never carries a negative margin)")
            outcome = replace(outcome, margin=0.0)
        return replace(outcome, detail=detail)


@dataclass(frozen=True)
class TailSingularValue(Thm41Tail):
    name: ClassVar[str] = "tail-singular-value"
    claim_template: ClassVar[str] = "sigma_(r+1)(W) <= {value} (S_p(W) / (r+1))^(1/p) for every matrix, r and p in (0, 2]"
    step_name: ClassVar[str] = "tail_singular_value"
    extremal: ClassVar[tuple] = ([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0]], 1, "1/2")


@dataclass(frozen=True)
class TailFrobeniusRank(Thm41Tail):
    name: ClassVar[str] = "tail-frobenius-rank"
    claim_template: ClassVar[str] = "||W_(>r)||_F^2 <= {value} (D - r) sigma_(r+1)^2 for every matrix and r"
    step_name: ClassVar[str] = "tail_frobenius_rank"
    extremal: ClassVar[tuple] = ([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0]], 1, "1/2")


@dataclass(frozen=True)
class TailFrobeniusSchatten(Thm41Tail):
    name: ClassVar[str] = "tail-frobenius-schatten"
    claim_template: ClassVar[str] = "||W_(>r)||_F^2 <= {value} sigma_(r+1)^(2-p) S_p(W) for every matrix, r and p in (0, 2]"
    step_name: ClassVar[str] = "tail_frobenius_schatten"
    extremal: ClassVar[tuple] = ([[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0]], 0, "1/2")


@dataclass(frozen=True)
class TruncationError(Thm41Tail):
    name: ClassVar[str] = "truncation-error"
    claim_template: ClassVar[str] = "||X (W - W_(<=r))||_2->inf <= {value} ||X||_2->inf sigma_(r+1)(W) for all X, W, r"
    step_name: ClassVar[str] = "truncation_error"
    extremal: ClassVar[tuple] = ([[2.0, 0.0], [0.0, 1.0]], [[0.0, 1.0]], 1, "1/2")


@dataclass(frozen=True)
class CoveringConstant(ConstantFamily):
    """Claim: ``min_{r > 0} (a r + b r^{-2/p}) <= value * a^{2/(p+2)} b^{p/(p+2)}`` for all a, b > 0 and p in
    ``p_range`` (default (0, 2]): the constant c(p) of Theorem 4.1 is at most ``value``.

    Method (sympy): the minimum is ``(1 + p/2) a r*`` at ``r* = (2b/(ap))^{p/(p+2)}`` (``sabounds.theory.thm41``, steps
    stationarity .. minimum_value); sympy simplifies its ratio to ``a^{2/(p+2)} b^{p/(p+2)}`` to a function of
    p alone and checks it equals ``c(p) = ((p+2)^{p+2}/(4 p^p))^{1/(p+2)}``; with ``p = 2/(1+q)``, q >= 0, sympy
    shows ``d log c / dp = 2 log(2/p)/(p+2)^2 >= 0``, so the supremum over the range is ``c(hi)`` (``c(0+) = 1``,
    ``c(2) = 2``); the sign of ``value - c(hi)`` is decided by sympy.  Witness: p = hi, a = b = 1.  Cost: ~1 s.
    """

    p_range: tuple[sp.Rational, sp.Rational] = (sp.Integer(0), sp.Integer(2))
    name: ClassVar[str] = "covering-constant"
    claim_template: ClassVar[str] = "min_r (a r + b r^(-2/p)) <= {value} a^(2/(p+2)) b^(p/(p+2)) for all a, b > 0"

    @classmethod
    def build(cls, value: sp.Rational, ranges: Mapping[str, Interval]) -> "CoveringConstant":
        """``ranges`` may restrict p (``--var p:lo:hi`` with 0 <= lo <= hi <= 2, hi > 0)."""
        if set(ranges) - {"p"}:
            raise ValueError(f"family {cls.name} takes only --var p:LO:HI")
        if "p" not in ranges:
            return cls(value)
        lo, hi = ranges["p"].lo, ranges["p"].hi
        if not (0 <= lo <= hi <= 2 and hi > 0):
            raise ValueError("the range of p must satisfy 0 <= lo <= hi <= 2 and hi > 0")
        return cls(value, (lo, hi))

    @property
    def claim(self) -> str:
        lo, hi = self.p_range
        return f"{super().claim} and p in ({lo}, {hi}]" if lo == 0 else f"{super().claim} and p in [{lo}, {hi}]"

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        p, a, b = thm41.p, thm41.a, thm41.b
        lo, hi = self.p_range
        ratio = sp.simplify(sp.powsimp(thm41.minimum / (a ** (2 / (p + 2)) * b ** (p / (p + 2))), force=True))
        if ratio.has(a) or ratio.has(b):
            return Outcome.unresolved("sympy simplify", f"could not reduce the ratio to a function of p: {ratio}")
        same = sp.simplify(sp.expand_log(sp.log(ratio) - sp.log(thm41.c_of_p), force=True)) == 0
        q = sp.Symbol("q", nonnegative=True)
        slope = sp.factor(sp.expand_log(sp.diff(sp.log(thm41.c_of_p), p), force=True))
        increasing = sp.factor(sp.expand_log(slope.subs(p, 2 / (1 + q)), force=True)).is_nonnegative
        if not (same and increasing):
            return Outcome.unresolved("sympy", f"ratio {ratio}; equals c(p): {same}; d log c/dp = {slope}, nonnegative: {increasing}")
        from sabounds.proofs_check.interval import enclose, iv, iv_digits
        # c(hi) - 1 ~ hi (1 + log 2 - log hi) / 2 for small hi, so separating a value near 1 from c(hi) needs about
        # -log10(hi) digits more than the value's own: the enclosure is redone at doubling precision up to 1000 digits
        digits = max(_digits_to_separate(self.value, 2, 30), int(mpmath.ceil(-mpmath.log10(mpmath.mpf(hi.p) / hi.q))) + 30)
        while True:
            with iv_digits(digits):
                box = iv.mpf(int(hi.p)) / iv.mpf(int(hi.q))
                c_box = enclose(thm41.c_of_p, {p: box})
                v_box = iv.mpf(int(self.value.p)) / iv.mpf(int(self.value.q))
                below, above = v_box.b < c_box.a, v_box.a > c_box.b
            with mpmath.workdps(digits):
                c_lo, c_hi = mpmath.mpf(c_box.a), mpmath.mpf(c_box.b)
                excess = f"[{mpmath.nstr(c_lo - 1, 6)}, {mpmath.nstr(c_hi - 1, 6)}]"
            if below or above or digits >= 1000:
                break
            digits = min(1000, 2 * digits)
        detail = (f"min / (a^(2/(p+2)) b^(p/(p+2))) = {ratio} = c(p); d log c / dp = {slope} >= 0 on (0, 2], "
                  f"so the supremum over the range is c({hi}) in [{mpmath.nstr(c_lo, 17)}, {mpmath.nstr(c_hi, 17)}] (mpmath.iv, "
                  f"{digits} digits; c(hi) - 1 in {excess})")
        witness = {"p": float(hi), "p_exact": str(hi), "a": 1.0, "b": 1.0, "c": float(c_lo)}
        margin = float((mpmath.mpf(self.value.p) / self.value.q - c_lo) / c_lo)
        if below or above:
            method = "sympy: closed-form minimum, d log c/dp >= 0; interval arithmetic (mpmath.iv): value vs c(hi)"
            if below:
                return Outcome(Verdict.REFUTED, method, None, None, margin, witness, detail)
            return Outcome(Verdict.PROVED, method, None, None, margin, witness, detail)
        if hi.q > 10**6:
            return Outcome.unresolved("interval arithmetic", "the value lies inside the enclosure of c(hi) and hi is too "
                                      "finely specified for exact sympy evaluation; " + detail)
        sup = thm41.c_of_p.subs(p, hi)
        gap = sp.Rational(self.value) - sup
        r_star = thm41.r_star.subs({p: hi, a: 1, b: 1})
        witness = {"p": float(hi), "a": 1.0, "b": 1.0, "r_star": float(sp.N(r_star, 17)), "c": float(sp.N(sup, 17))}
        method = "sympy: closed-form minimum, d log c/dp >= 0, sign of value - c(hi)"
        margin = float(sp.N(gap / sup, 17))
        if gap.is_negative:
            return Outcome(Verdict.REFUTED, method, None, None, margin, witness, detail)
        if gap.is_nonnegative:
            return Outcome(Verdict.PROVED, method, None, None, margin, witness, detail)
        return Outcome.unresolved(method, "sympy could not order the value and c(hi); " + detail)


FAMILIES: dict[str, type] = {cls.name: cls for cls in (GeluLipschitz, SoftmaxLinfL1, AttentionLipschitz, TailSingularValue,
                                                       TailFrobeniusRank, TailFrobeniusSchatten, TruncationError,
                                                       CoveringConstant)}


def _relative_margin(value, constant) -> float:
    """``(value - constant) / constant``: the slack relative to the constant at the tightest point, as for the
    other families (negative = violated); finite for every accepted value (|value| <= 1e100, constant > 0)."""
    constant = sp.Rational(constant) if not isinstance(constant, float) else sp.Rational(repr(constant))
    diff = sp.Rational(value) - constant
    return float(diff / constant) if constant > 0 else float(diff)
