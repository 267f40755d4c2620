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

import time
from dataclasses import dataclass, replace
from typing import Callable, ClassVar, Mapping

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.attention import (attention_ratio, attention_ratio_mp, into_unit_rows, norm_2_inf,
                                softmax_ratio, softmax_ratio_mp, spectral_norm_mp)
from sabounds.numerics.expressions.bounded import bounded_evaluate
from sabounds.numerics.expressions.matrix_atoms import substitute_atoms
from sabounds.proofs_check import deciders
from sabounds.proofs_check.deciders import rng_for
from sabounds.proofs_check.search import adversarial_max_vector, adversarial_min
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import thm41
from sabounds.theory.checks import Interval
from sabounds.theory.matrix_atoms import W, X


def _quiet(note: str = "") -> None:
    """The default progress callback: ``decide(settings, advance)`` calls ``advance`` once per stage."""


def _deadline(budget: float) -> float:
    return time.monotonic() + budget


def _num(v, digits: int = 17) -> float:
    return float(mpmath.mpf(v)) if not isinstance(v, sp.Basic) else float(sp.N(v, digits))


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
        return self.claim_template.format(value=self.value)

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
        dps = settings.precision
        rng = rng_for(self.name, settings)
        best, best_pair, evaluations = mpmath.mpf(-1), None, 0
        deadline = _deadline(max(2.0, settings.samples / 100))
        for size in range(2, 7):
            def decode(v, size=size):
                return v[:size], v[:size] + np.exp(np.clip(v[-1], -14, 2)) * v[size:2 * size]

            def draw(g, size=size):
                v = np.concatenate([g.uniform(-4, 4, size), g.uniform(-1, 1, size), [g.uniform(-10, 1)]])
                return v

            found = adversarial_max_vector(lambda v: softmax_ratio(*decode(v)), draw, rng,
                                           max(10, settings.samples // 5), refine=3, iterations=300, deadline=deadline)
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
                                                                                  "ratio": float(pair)}, detail)
        return Outcome(Verdict.PROVED, "sympy maximum of the Jacobian's l_inf->l_1 norm 4t(1-t); search as cross-check",
                       dps, evaluations, margin, witness, detail)

    @staticmethod
    def _explicit_witness(value: sp.Expr, dps: int):
        with mpmath.workdps(dps):
            c, h = mpmath.mpf(sp.N(value, dps)), mpmath.mpf(1)
            while mpmath.tanh(h) / h <= c:
                h /= 2
            return float(h), mpmath.tanh(h) / h


@dataclass(frozen=True)
class AttentionLipschitz(ConstantFamily):
    """Claim: ``f(X) = softmax(X W X^T) X`` is ``(1 + value ||W||_2)``-Lipschitz in ``||.||_{2->inf}`` on
    inputs whose rows have l2 norm <= 1 (the published bound uses value = 4).

    Method (numeric evidence only): for every T in 2..4 and d in 1..4, random X, W (log-uniform scale),
    direction D and step h; then a (1+1) evolution strategy in float64 maximises the empirical constant
    ``k = (ratio - 1) / ||W||_2`` with ``ratio = ||f(X) - f(X')||_{2->inf} / ||X - X'||_{2->inf}``, X' the
    projection of X + h D onto the domain; the best point is re-evaluated at mpmath precision (mpmath SVD for
    ||W||_2).  ``refuted`` if that k exceeds ``value``; otherwise ``verified`` with the largest k found (the
    smallest margin).  A hand proof gives value = 2: ``Df[dX]_t = sum_j P_tj dx_j + sum_j (dP_t)_j x_j``, the
    first term <= 1, and ``||dP_t||_1 <= ||d score_t||_inf <= 2 ||W||_2`` by the tight softmax constant 1.
    Cost: about ``samples / 40`` seconds (5 s at the default).  Fails: it finds local maxima, so ``verified``
    is evidence, never proof.
    """

    name: ClassVar[str] = "attention-lipschitz"
    stages: ClassVar[int] = 12
    claim_template: ClassVar[str] = "||f(X) - f(X')||_2->inf <= (1 + {value} ||W||_2) ||X - X'||_2->inf, rows of X, X' in the unit ball"

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        dps = settings.precision
        rng = rng_for(self.name, settings)
        shapes = [(t, d) for t in (2, 3, 4) for d in (1, 2, 3, 4)]
        deadline = _deadline(max(3.0, settings.samples / 40))
        best, best_point, evaluations = None, None, 0
        for t, d in shapes:
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

            found = adversarial_max_vector(objective, draw, rng, max(20, settings.samples), refine=max(3, settings.samples // 60), iterations=600,
                                           deadline=time.monotonic() + (deadline - time.monotonic()) / (len(shapes) - shapes.index((t, d))))
            evaluations += found.evaluations
            if best is None or found.value > best[0]:
                best, best_point = (found.value, t, d), decode(found.x)
            advance(f"T={t}, d={d}: best constant so far {best[0]:.4f}")
        x, x2, w = best_point
        with mpmath.workdps(dps):
            ratio = attention_ratio_mp(x, x2, w, dps)
            norm_w = spectral_norm_mp(w, dps)
            k = (ratio - 1) / norm_w
            bound = 1 + mpmath.mpf(sp.N(self.value, dps)) * norm_w
            margin = float((bound - ratio) / max(abs(bound), ratio))
        witness = {"T": best[1], "d": best[2], "W": _matrix(w), "X": _matrix(x), "X_prime": _matrix(x2),
                   "ratio": float(ratio), "norm_W": float(norm_w), "constant": float(k)}
        detail = (f"largest empirical constant (ratio - 1) / ||W||_2 found: {mpmath.nstr(k, 12)} "
                  f"(T = {best[1]}, d = {best[2]}, ||W||_2 = {mpmath.nstr(norm_w, 6)}, ratio {mpmath.nstr(ratio, 12)}); "
                  f"{evaluations} float64 evaluations over T in 2..4, d in 1..4, witness re-evaluated at {dps} digits")
        method = "adversarial search (float64 evolution strategy, mpmath re-evaluation)"
        verdict = Verdict.REFUTED if k > mpmath.mpf(sp.N(self.value, dps)) else Verdict.VERIFIED
        return Outcome(verdict, method, dps, evaluations, margin, witness, detail)

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
class FreeForm:
    """Claim: a user's relation ``lhs <op> rhs`` holds for every point of a box of scalar variables.

    Method: (1) sympy's sign inference on ``rhs - lhs`` (and on its ``simplify``), using only the variables'
    sign and integrality assumptions taken from their ranges, within ``symbolic_seconds``: ``proved`` when it
    succeeds; (2) otherwise an adversarial search of the relative gap ``(rhs - lhs) / max(|lhs|, |rhs|)``
    (``settings.samples`` random starts, corners, then pattern search) at ``settings.precision`` digits with a
    guarded evaluator (``sabounds.numerics.expressions.bounded``), stopping at the time budget.  ``refuted`` when the gap
    is below ``-10^(-precision/2)`` (strict relations: <= 0) at a witness re-checked at twice the precision;
    ``verified`` otherwise, with the smallest gap; ``unresolved`` if no point could be evaluated.
    Cost: at most ``budget`` seconds.  Fails: a violation confined to a tiny region can be missed.
    """

    relation: sp.Rel
    domain: Mapping[sp.Symbol, Interval]
    budget: float = 4.0
    symbolic_seconds: float = 1.0
    name: ClassVar[str] = "free-form"
    stages: ClassVar[int] = 1

    @property
    def claim(self) -> str:
        ranges = ", ".join(f"{s} in [{iv.lo}, {iv.hi}]" for s, iv in self.domain.items())
        return f"{self.relation} for {ranges}" if ranges else str(self.relation)

    def _gap(self) -> tuple[sp.Expr, bool]:
        rel = self.relation
        less = isinstance(rel, (sp.LessThan, sp.StrictLessThan))
        return (rel.rhs - rel.lhs) if less else (rel.lhs - rel.rhs), isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))

    def _relative_gap(self, point: Mapping, dps: int) -> mpmath.mpf:
        rel = self.relation
        lhs, rhs = bounded_evaluate(rel.lhs, point, dps), bounded_evaluate(rel.rhs, point, dps)
        gap = (rhs - lhs) if isinstance(rel, (sp.LessThan, sp.StrictLessThan)) else (lhs - rhs)
        scale = max(abs(lhs), abs(rhs))
        return gap / scale if scale else gap

    def _symbolic(self) -> str | None:
        g, strict = self._gap()
        try:
            with time_limit(self.symbolic_seconds):
                for how, transform in (("sign inference", None), ("factor, then sign inference", sp.factor),
                                       ("simplify, then sign inference", sp.simplify)):
                    form = g if transform is None else transform(g)
                    ok = form.is_positive if strict else form.is_nonnegative
                    if ok:
                        return f"sympy {how} on the gap {form} under the variables' sign assumptions"
        except (TimeLimit, RecursionError, MemoryError, TypeError, ValueError, ArithmeticError):
            return None
        return None

    def decide(self, settings: Settings, advance: Callable[[str], None] = _quiet) -> Outcome:
        start = time.monotonic()
        proof = self._symbolic()
        if proof is not None:
            return Outcome(Verdict.PROVED, "sympy sign inference", detail=proof)
        dps = settings.precision
        _, strict = self._gap()
        tol = mpmath.mpf(10) ** (-(dps // 2))
        rng = rng_for(str(self.relation), settings)
        try:
            with mpmath.workdps(dps):
                found = adversarial_min(lambda pt: self._relative_gap(pt, dps), self.domain, settings.samples, rng,
                                        deadline=start + self.budget)
        except ValueError as exc:
            return Outcome.unresolved("adversarial search", f"no point of the domain could be evaluated ({exc})")
        margin = found.value
        witness = {str(s): _num(v) for s, v in found.point.items()}
        violated = margin <= 0 if strict and margin < tol else margin < -tol
        method = "adversarial search (random starts, corners, pattern search) at mpmath precision"
        if violated:
            try:
                recheck = self._relative_gap(found.point, 2 * dps)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError, ArithmeticError):
                recheck = None
            if recheck is None or not (recheck <= 0 if strict else recheck < -tol):
                return Outcome(Verdict.UNRESOLVED, method, dps, found.evaluations, float(margin), witness,
                               f"gap {mpmath.nstr(margin, 6)} at {dps} digits did not survive re-evaluation at {2 * dps}")
            return Outcome(Verdict.REFUTED, method, dps, found.evaluations, float(margin), witness,
                           f"relative gap {mpmath.nstr(margin, 8)} at the witness (re-checked at {2 * dps} digits)")
        return Outcome(Verdict.VERIFIED, method, dps, found.evaluations, float(margin), witness,
                       f"smallest relative gap {mpmath.nstr(margin, 8)} in {found.evaluations} evaluations "
                       f"({time.monotonic() - start:.1f} s; sympy could not decide the sign)")


@dataclass(frozen=True)
class Thm41Tail(ConstantFamily):
    """Claim: a Theorem 4.1 tail step (``sabounds.theory.thm41``, docs/definitions.md) holds with its right side times ``value``.

    Method: (1) an explicit extremal matrix where the step holds with equality (diagonal, so its float64 SVD is
    exact): ``refuted`` there whenever ``value < 1``; (2) otherwise the step's own check (``MatrixRelation``:
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
        lhs, rhs = (float(substitute_atoms(side, bindings).evalf(30)) for side in (rel.lhs, rel.rhs))
        if lhs > float(self.value) * rhs:
            return Outcome(Verdict.REFUTED, "explicit extremal matrix (diagonal: exact SVD)", 16, 1,
                           (float(self.value) * rhs - lhs) / lhs, {"W": w, "X": x, "r": r, "p": float(sp.Rational(p)), "lhs": lhs, "rhs": rhs},
                           f"lhs = rhs = {lhs:g} at the extremal matrix, so no constant below 1 holds")
        scaled = replace(step, statement=sp.Le(rel.lhs, self.value * rel.rhs))
        outcome = deciders.decide(scaled, settings, key=f"conjecture.{self.name}")
        return replace(outcome, detail=f"{outcome.detail}; the extremal matrix {w} (r = {r}) attains constant 1 exactly")


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
        sup = thm41.c_of_p.subs(p, hi)
        gap = sp.Rational(self.value) - sup
        detail = (f"min / (a^(2/(p+2)) b^(p/(p+2))) = {ratio} = c(p); d log c / dp = {slope} >= 0 on (0, 2], "
                  f"so the supremum over the range is c({hi}) = {sup} = {sp.N(sup, 15)}")
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


def declare(name: str, lo: float, hi: float, integer: bool = False, log: bool = False) -> tuple[sp.Symbol, Interval]:
    """A real symbol for a free-form variable ranging over ``[lo, hi]``, with the sign assumptions the range implies."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        raise ValueError(f"range of {name} must be finite with lo <= hi, got [{lo}, {hi}]")
    if log and lo <= 0:
        raise ValueError(f"log-uniform range of {name} needs lo > 0")
    assumptions = {"real": True}
    if integer:
        assumptions["integer"] = True
    if lo > 0:
        assumptions["positive"] = True
    elif lo >= 0:
        assumptions["nonnegative"] = True
    if hi < 0:
        assumptions["negative"] = True
    elif hi <= 0:
        assumptions["nonpositive"] = True
    if integer and math.ceil(lo) > math.floor(hi):
        raise ValueError(f"integer range of {name} [{lo}, {hi}] contains no integer")
    lo_r, hi_r = sp.Rational(repr(float(lo))), sp.Rational(repr(float(hi)))
    return sp.Symbol(name, **assumptions), Interval(lo_r, hi_r, integer=integer, log=log)
