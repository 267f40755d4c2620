"""The tail constants of Theorem 4.1: the singular-value tail, Frobenius against rank or Schatten norm, and the truncation error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.expressions.matrix_atoms import substitute_atoms
from sabounds.proofs_check import deciders
from sabounds.proofs_check.conjecture.base import ConstantFamily, digits_to_separate, quiet, rounding_error
from sabounds.proofs_check.conjecture.number_text import exact_str, exact_text
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import thm41
from sabounds.theory.matrix_atoms import W, X


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
    engines: ClassVar[tuple[str, ...]] = ("numpy float64 SVD", "mpmath")
    extremal: ClassVar[tuple] = ()
    """``(W, X, r, p)``: a matrix, tokens, split rank and index at which lhs == rhs."""

    def decide(self, settings: Settings, advance: Callable[[str], None] = quiet) -> Outcome:
        step = thm41.derivation()[self.step_name]
        rel = step.statement
        w, x, r, p = self.extremal
        bindings = {
            W: np.array(w, dtype=float),
            X: np.array(x, dtype=float),
            thm41.r_split: sp.Integer(r),
            thm41.p: sp.Rational(p),
        }
        value = sp.Rational(self.value)
        dps = digits_to_separate(value, 1, 30)
        with mpmath.workdps(dps):
            lhs, rhs = (mpmath.mpf(substitute_atoms(side, bindings).evalf(dps)) for side in (rel.lhs, rel.rhs))
            scaled_rhs = mpmath.mpf(int(value.p)) / int(value.q) * rhs
            margin = float((scaled_rhs - lhs) / lhs)
        if lhs > scaled_rhs:
            return Outcome(
                Verdict.REFUTED,
                f"explicit extremal matrix (diagonal: exact SVD), compared at {dps} digits",
                dps,
                1,
                margin,
                {
                    "W": w,
                    "X": x,
                    "r": r,
                    "p": float(sp.Rational(p)),
                    "lhs": float(lhs),
                    "rhs": float(rhs),
                    "value": exact_str(value),
                },
                f"lhs = rhs = {mpmath.nstr(lhs, 15)} at the extremal matrix, so no constant below 1 holds: "
                f"lhs > {exact_text(value)} * rhs (mpmath, {dps} digits, enough to separate the value from 1)",
                margin_error=rounding_error(margin, dps),
            )
        scaled = replace(step, statement=sp.Le(rel.lhs, self.value * rel.rhs))
        outcome = deciders.decide(scaled, settings, key=f"conjecture.{self.name}")
        detail = f"{outcome.detail}; the extremal matrix {w} (r = {r}) attains constant 1 exactly"
        if outcome.verdict is Verdict.VERIFIED and outcome.margin is not None:
            with mpmath.workdps(dps):
                norm_w = max(abs(mpmath.mpf(v)) for row in w for v in row)  # diagonal: ||W||_2 exactly
                norm_x = max(mpmath.sqrt(sum(mpmath.mpf(v) ** 2 for v in row)) for row in x)
                tight = float((scaled_rhs - lhs) / max(abs(lhs), abs(scaled_rhs), norm_w * max(1, norm_x)))
            if not outcome.margin + (outcome.margin_error or 0.0) < tight:
                # the exact tightest point, not a float64 sample that cannot be told from it (or is looser)
                detail += (
                    f"; margin: the extremal matrix's, computed at {dps} digits in the samples' scale (its sides "
                    f"exact), {tight:.6g}; the samples' smallest float64 margin {outcome.margin:.3g} +- "
                    f"{outcome.margin_error or 0.0:.2g} is not below it"
                )
                outcome = replace(outcome, margin=tight, margin_error=rounding_error(tight, dps))
        return replace(outcome, detail=detail)


@dataclass(frozen=True)
class TailSingularValue(Thm41Tail):
    name: ClassVar[str] = "tail-singular-value"
    claim_template: ClassVar[str] = (
        "sigma_(r+1)(W) <= {value} (S_p(W) / (r+1))^(1/p) for every matrix, r and p in (0, 2]"
    )
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
    claim_template: ClassVar[str] = (
        "||W_(>r)||_F^2 <= {value} sigma_(r+1)^(2-p) S_p(W) for every matrix, r and p in (0, 2]"
    )
    step_name: ClassVar[str] = "tail_frobenius_schatten"
    extremal: ClassVar[tuple] = ([[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0]], 0, "1/2")


@dataclass(frozen=True)
class TruncationError(Thm41Tail):
    name: ClassVar[str] = "truncation-error"
    claim_template: ClassVar[str] = "||X (W - W_(<=r))||_2->inf <= {value} ||X||_2->inf sigma_(r+1)(W) for all X, W, r"
    step_name: ClassVar[str] = "truncation_error"
    extremal: ClassVar[tuple] = ([[2.0, 0.0], [0.0, 1.0]], [[0.0, 1.0]], 1, "1/2")
