"""The softmax constant from the sup norm to the l1 norm of its change."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.attention import softmax_ratio, softmax_ratio_mp
from sabounds.proofs_check.conjecture.base import (
    ConstantFamily,
    digits_to_separate,
    quiet,
    relative_margin,
    rounding_error,
)
from sabounds.proofs_check.conjecture.number_text import exact_text
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.search import adversarial_max_vector
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict


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
    engines: ClassVar[tuple[str, ...]] = ("sympy", "mpmath")
    claim_template: ClassVar[str] = "||softmax(u) - softmax(u')||_1 <= {value} ||u - u'||_inf for all u, u' in R^T"

    def decide(self, settings: Settings, advance: Callable[[str], None] = quiet) -> Outcome:
        t = sp.Symbol("t", real=True)
        tight = sp.maximum(4 * t * (1 - t), t, sp.Interval(0, 1))
        value = sp.Rational(self.value)
        dps = digits_to_separate(value, tight, settings.precision)
        rng = rng_for(self.name, settings)
        best, best_pair, evaluations = mpmath.mpf(-1), None, 0
        for size in range(2, 7):

            def decode(v, size=size):
                return v[:size], v[:size] + np.exp(np.clip(v[-1], -14, 2)) * v[size : 2 * size]

            def draw(g, size=size):
                v = np.concatenate([g.uniform(-4, 4, size), g.uniform(-1, 1, size), [g.uniform(-10, 1)]])
                return v

            found = adversarial_max_vector(
                lambda v: softmax_ratio(*decode(v)), draw, rng, max(10, settings.samples // 5), refine=3, iterations=300
            )
            evaluations += found.evaluations
            u, u2 = decode(found.x)
            ratio = softmax_ratio_mp(u, u2, dps)
            if ratio > best:
                best, best_pair = ratio, (u, u2)
        witness = {
            "T": len(best_pair[0]),
            "u": [float(a) for a in best_pair[0]],
            "u_prime": [float(a) for a in best_pair[1]],
            "ratio": float(best),
        }
        detail = (
            f"sympy: max of 4t(1-t) on [0, 1] = {tight} (the tight constant); "
            f"largest ratio found by search: {mpmath.nstr(best, 15)} ({evaluations} evaluations, re-evaluated at {dps} digits)"
        )
        with mpmath.workdps(dps):
            margin = float((mpmath.mpf(sp.N(value, dps)) - best) / max(abs(mpmath.mpf(sp.N(value, dps))), best))
        if best > mpmath.mpf(sp.N(value, dps)) + mpmath.mpf(10) ** (-(dps // 2)):
            verdict = Verdict.UNRESOLVED if value >= tight else Verdict.REFUTED
            return Outcome(
                verdict,
                "adversarial search (float64 evolution strategy, mpmath re-evaluation)",
                dps,
                evaluations,
                margin,
                witness,
                detail,
                margin_error=float(mpmath.mpf(10) ** (-(dps // 2))),
            )
        if value < tight:
            h, pair = self._explicit_witness(value, dps)
            return Outcome(
                Verdict.REFUTED,
                "explicit witness u = (0, 0), u' = (h, -h), ratio tanh(h)/h",
                dps,
                evaluations,
                float((sp.N(value, dps) - pair) / sp.N(value, dps)),
                {
                    "T": 2,
                    "u": [0.0, 0.0],
                    "u_prime": [h, -h],
                    "ratio": float(pair),
                    "ratio_digits": mpmath.nstr(pair, dps),
                },
                detail + f"; witness ratio tanh(h)/h = {mpmath.nstr(pair, dps)} at {dps} digits",
                margin_error=rounding_error(float((sp.N(value, dps) - pair) / sp.N(value, dps)), dps),
            )
        exact = relative_margin(value, tight)  # the slack at the exact supremum, not at the search's best sample
        return Outcome(
            Verdict.PROVED,
            "sympy maximum of the Jacobian's l_inf->l_1 norm 4t(1-t); search as cross-check",
            dps,
            evaluations,
            exact,
            witness,
            f"{detail}; margin relative to the exact supremum {tight} (the search's best sample leaves {margin:.6g})",
            margin_error=rounding_error(exact, 17),
        )

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
