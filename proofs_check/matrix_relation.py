"""Decide a relation between matrix atoms (``MatrixRelation``) on random matrices of several spectral families and on
exactly tight diagonal ones, with a rounding tolerance derived from the float64 SVD's backward error."""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.expressions.matrix_atoms import substitute_atoms
from sabounds.numerics.testbeds.random_matrices import draw, token_matrix
from sabounds.proofs_check.sampling import rng_for
from sabounds.proofs_check.search import from_unit
from sabounds.proofs_check.symbolic_proofs import gap_of
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.theory import checks
from sabounds.theory.derivation import Step
from sabounds.theory.matrix_atoms import W, X


def _with_extremal_tokens(x: np.ndarray, w: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Append every left singular direction of ``w`` (at the token bound, random sign) as a token: the extremal inputs."""
    u = np.linalg.svd(w, full_matrices=False)[0]
    bound = float(np.linalg.norm(x, axis=1).max())
    return np.vstack([x, bound * (u * rng.choice((-1.0, 1.0), size=u.shape[1])).T])


def _concrete(iv: checks.Interval, matrices: dict) -> checks.Interval:
    """An interval whose bounds may involve matrix atoms (e.g. ``r <= D(W)``), evaluated on the drawn matrices."""
    lo, hi = (substitute_atoms(e, matrices) for e in (iv.lo, iv.hi))
    return checks.Interval(lo, hi, iv.integer, iv.log)


UNIT_ROUNDOFF = float(np.finfo(float).eps) / 2
"""``u = 2^-53``, float64's unit roundoff."""


def matrix_tolerance(d: int, p_min: float | None) -> float:
    """Rounding tolerance of a matrix relation, relative to ``max(|lhs|, |rhs|, ||W||_2 max(1, ||X||_2->inf))``.

    LAPACK's SVD is backward stable: the computed singular values are those of ``W + E`` with
    ``||E||_2 <= c d u ||W||_2`` (c a small constant, taken as 4; Weyl: each sigma_i moves by at most that), and a
    product ``X W`` costs ``d u`` more.  A side raises such quantities to powers up to ``1/p`` (``(S_p/(r+1))^{1/p}``
    multiplies S_p's relative error by ``1/p``) and multiplies at most two of them: relative error at most
    ``4 d u (1/p_min + 2)``.  With d <= 32 and p >= 1/20 this is <= 6.2e-13, so a constant off by 1e-12 is seen on an
    exactly tight matrix of size <= 8 (tolerance <= 1.6e-13)."""
    return 4 * d * UNIT_ROUNDOFF * ((1 / p_min if p_min else 1.0) + 2)


def _tight_sample(rng: np.random.Generator, i: int, spec: checks.MatrixRelation) -> tuple[np.ndarray, np.ndarray, int]:
    """An exactly tight case (diagonal, so its float64 SVD is exact): ``W = diag(1, .., 1, 0, ..)`` with k ones
    (k = 1, then d, then random), split rank r = k - 1, unit tokens: the Theorem 4.1 tail steps hold with equality
    there (the singular-value and rank bounds at every k, the Schatten bound at k = 1, the truncation bound via the
    extremal tokens)."""
    d = int(rng.integers(2, 9))
    k = (1, d, int(rng.integers(1, d + 1)))[(i // 4) % 3]
    w = np.diag([1.0] * k + [0.0] * (d - k))
    x = token_matrix(rng, int(rng.integers(1, 5)), d, bound=1.0)
    return w, x, k - 1


def decide_matrix_relation(step: Step, settings: Settings, key: str) -> Outcome:
    """Random matrices of the spec's families, and every fourth sample an exactly tight diagonal one; the tolerance
    is ``matrix_tolerance`` (float64 SVD backward error), derived per sample from its size."""
    spec: checks.MatrixRelation = step.check
    relation = step.statement
    _, strict = gap_of(relation)
    small, large = (
        (relation.lhs, relation.rhs)
        if isinstance(relation, (sp.LessThan, sp.StrictLessThan))
        else (relation.rhs, relation.lhs)
    )
    rng = rng_for(key, settings)
    p_min = min((float(iv.lo) for s_, iv in spec.domain.items() if str(s_) == "p"), default=None)
    worst, tolerances = None, []
    for i in range(settings.samples):
        tight = i % 4 == 3
        if tight:
            family = "tight diagonal"
            w, x, r_tight = _tight_sample(rng, i, spec)
            d_in, d_out = w.shape
        else:
            family = spec.families[i % len(spec.families)]
            d_in, d_out = (int(v) for v in rng.integers(2, 33, size=2))
            w = draw(family, rng, d_in, d_out, scale=float(10 ** rng.uniform(-2, 2)))
            x = token_matrix(rng, int(rng.integers(1, 17)), d_in, bound=float(rng.uniform(0.5, 2.0)))
        x = _with_extremal_tokens(x, w, rng)
        with mpmath.workdps(30):
            scalars = {s: from_unit(rng.uniform(), _concrete(iv, {W: w, X: x})) for s, iv in spec.domain.items()}
        if tight:
            scalars = {s: mpmath.mpf(r_tight) if spec.domain[s].integer else v for s, v in scalars.items()}
        bindings = {
            W: w,
            X: x,
            **{
                s: sp.Integer(int(v)) if iv.integer else sp.Float(v, 30)
                for (s, iv), v in zip(spec.domain.items(), scalars.values())
            },
        }
        with np.errstate(all="ignore"):
            lhs_v, rhs_v = (float(substitute_atoms(side, bindings).evalf(30)) for side in (small, large))
        # relative to the operands' own scale, so sides that vanish in exact arithmetic compare as rounding
        scale = max(
            abs(lhs_v), abs(rhs_v), float(np.linalg.norm(w, 2)) * max(1.0, float(np.linalg.norm(x, axis=1).max()))
        )
        margin = (rhs_v - lhs_v) / scale
        tol = matrix_tolerance(max(d_in, d_out), p_min)
        tolerances.append(tol)
        ok = margin > tol if strict else margin >= -tol
        sample = {
            "family": family,
            "d_in": d_in,
            "d_out": d_out,
            "T": x.shape[0],
            **{str(s): int(b) if spec.domain[s].integer else float(b) for s, b in zip(spec.domain, scalars.values())},
            "lhs": lhs_v,
            "rhs": rhs_v,
        }
        if not ok:
            return Outcome(
                Verdict.REFUTED,
                "random and exactly tight matrices (float64 SVD)",
                16,
                i + 1,
                margin,
                sample,
                f"violated on a {family} {d_in}x{d_out} matrix beyond the rounding tolerance {tol:.3g} "
                f"(4 d u (1/p_min + 2), float64 SVD backward error)",
                margin_error=tol,
            )
        if worst is None or margin < worst[0]:
            worst = (margin, sample, tol)
    return Outcome(
        Verdict.VERIFIED,
        f"random matrices (float64 SVD) over {', '.join(spec.families)}, and exactly tight diagonal ones",
        16,
        settings.samples,
        float(worst[0]),
        worst[1],
        f"smallest margin {worst[0]:.3g} relative to max(|lhs|, |rhs|, ||W||_2 ||X||_2->inf) over "
        f"{settings.samples} matrices ({settings.samples // 4} exactly tight diagonal ones); rounding tolerance "
        f"{max(tolerances):.3g} at most (4 d u (1/p_min + 2) per sample, float64 SVD backward error)",
        margin_error=worst[2],
    )
