"""The Lipschitz constant of one attention head in the (2, infinity) norm."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.attention import attention_ratio, attention_ratio_mp, into_unit_rows, norm_2_inf
from sabounds.proofs_check import deciders
from sabounds.proofs_check.conjecture.base import ConstantFamily, matrix_list, quiet, relative_margin, rounding_error
from sabounds.proofs_check.conjecture.number_text import exact_text
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.search import adversarial_max_vector
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict


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
    engines: ClassVar[tuple[str, ...]] = ("mpmath.iv", "mpmath")
    stages: ClassVar[int] = 3
    claim_template: ClassVar[str] = (
        "||f(X) - f(X')||_2->inf <= (1 + {value} ||W||_2) ||X - X'||_2->inf, rows of X, X' in the unit ball"
    )

    def decide(self, settings: Settings, advance: Callable[[str], None] = quiet) -> Outcome:
        from sabounds.theory import attention_lipschitz

        value = sp.Rational(self.value)
        proof = [
            (step.name, deciders.decide(step, settings, f"attention.{step.name}"))
            for step in attention_lipschitz.derivation()
            if type(step.check).__name__ != "Premise"
        ]
        advance("derivation decided")
        weak = [f"{name}: {o.verdict}" for name, o in proof if o.verdict not in (Verdict.PROVED,)]
        steps = ", ".join(f"{name} ({o.grounds})" for name, o in proof)
        search_best, search_evals = self._search(settings)
        advance("search done")
        cross = (
            f"count-bounded search (structured candidates, {settings.samples} random starts per shape, evolution "
            f"strategy, seed {settings.seed}): largest empirical constant {search_best:.6f} in {search_evals} evaluations"
        )
        if value >= attention_lipschitz.constant:
            if weak:
                return Outcome.unresolved("derivation attention", f"steps not proved: {', '.join(weak)}; {cross}")
            if search_best > float(value) + 1e-9:
                return Outcome.unresolved(
                    "derivation attention vs search", f"the search exceeds the proved constant; {cross}"
                )
            return Outcome(
                Verdict.PROVED,
                "derivation attention (sabounds.theory.attention_lipschitz): hand proof of c <= 2, every step decided",
                None,
                search_evals,
                relative_margin(value, attention_lipschitz.constant),
                None,
                f"steps: {steps}; premise: value_term (convex combination); {cross}",
                margin_error=rounding_error(relative_margin(value, attention_lipschitz.constant), 17),
                engines=self._deciders(proof),
            )
        witness, detail = self._tight_witness(value, settings)
        advance("witness certified")
        if witness is None:
            return Outcome.unresolved("tight family", detail + "; " + cross)
        return Outcome(
            Verdict.REFUTED,
            "tight family (opposite tokens, tied scores, W = sigma diag(1, -1)), "
            "certified by interval arithmetic (mpmath.iv)",
            witness["certificate_digits"],
            1,
            relative_margin(value, witness["constant"]),
            witness,
            f"{detail}; {cross}",
            margin_error=rounding_error(relative_margin(value, witness["constant"]), 17),
        )

    @staticmethod
    def _deciders(proof) -> tuple[str, ...]:
        """What decided the derivation's steps (each step's engines, else sympy when its method names it)."""
        named = (e for _, o in proof for e in (o.engines or (("sympy",) if "sympy" in o.method else (o.method,))))
        return tuple(dict.fromkeys(("derivation", *named)))

    @staticmethod
    def _tight_witness(value: sp.Rational, settings: Settings):
        """The tight family's point with certified constant > value: ``(witness, detail)`` or ``(None, why)``."""
        from sabounds.proofs_check.interval_enclosure import iv, iv_digits

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
        witness = {
            "T": 2,
            "d": 2,
            "sigma": sigma,
            "delta": f"2^-{k_exp}",
            "theta": "pi/4",
            "X": "rows (cos theta, sin theta) and its negative",
            "X_prime": "rows (cos(theta - delta), sin(theta - delta)) and its negative",
            "W": matrix_list(w),
            "constant": float(k_lo),
            "constant_interval": [mpmath.nstr(k_lo, 20), mpmath.nstr(k_hi, 20)],
            "norm_W": float(sigma),
            "certificate_digits": dps,
        }
        certificate = (
            f"exact tight point (theta = pi/4, delta = 2^-{k_exp}, sigma = {sigma}): (ratio - 1)/||W||_2 in "
            f"[{mpmath.nstr(k_lo, shown)}, {mpmath.nstr(k_hi, shown)}] (mpmath.iv, {dps} digits) > {exact_text(value)}"
        )
        if np.array_equal(x, x2) or k_exp > 40:
            return witness, (
                f"{certificate}; float64 cross-check skipped: at delta = 2^-{k_exp} float64 rows of X and X' "
                f"{'coincide' if np.array_equal(x, x2) else 'differ by a few ulps only'}, so float64 cannot "
                "represent the point (the certificate is on the exact point)"
            )
        try:
            ratio_mp = attention_ratio_mp(x, x2, w, settings.precision)
        except (ZeroDivisionError, ValueError, OverflowError, ArithmeticError) as exc:
            return (
                witness,
                f"{certificate}; float64 cross-check skipped: the float64 rendering cannot be evaluated ({type(exc).__name__})",
            )
        with mpmath.workdps(settings.precision):
            k_mp = (ratio_mp - 1) / sigma
        witness.update(
            {
                "X": matrix_list(x),
                "X_prime": matrix_list(x2),
                "constant_float_witness": float(k_mp),
                "ratio": float(ratio_mp),
            }
        )
        if not k_mp > mpmath.mpf(value.p) / value.q:
            return None, (
                f"the float64 rendering of the tight point gives {mpmath.nstr(k_mp, 15)}, not above {exact_text(value)}"
            )
        detail = (
            f"{certificate}; its float64 rendering (rows scaled by 1 - 2^-50 into the unit ball) recomputed by "
            f"sabounds.numerics.attention at {settings.precision} digits: {mpmath.nstr(k_mp, 15)}"
        )
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
                v[2 * t * d : -1] *= np.exp(g.uniform(-3, 3))
                v[-1] = g.uniform(-10, 0)
                return v

            found = adversarial_max_vector(
                objective, draw, rng, max(10, settings.samples // 4), refine=2, iterations=150
            )
            evaluations += found.evaluations
            best = max(best, found.value)
        return float(best), evaluations

    @staticmethod
    def _decoder(t: int, d: int):
        def decode(v):
            x = into_unit_rows(v[: t * d].reshape(t, d))
            direction = v[t * d : 2 * t * d].reshape(t, d)
            w = v[2 * t * d : 2 * t * d + d * d].reshape(d, d)
            x2 = into_unit_rows(x + np.exp(np.clip(v[-1], -16, 1)) * direction)
            return x, x2, w

        return decode
