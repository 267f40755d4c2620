"""Theorem 4.1 (reconstructed): covering numbers of ``{X -> X W : ||W||_2 <= s, S_p(W) <= M}``.

Split ``W`` at rank ``r``; cover the rank-r head parametrically (``a r``) and the tail by a
Maurey-type bound controlled by its Frobenius norm (``b r^{-2/p}``); optimise ``r``:

    r* = (2b / (a p))^{p/(p+2)},   min_r (a r + b r^{-2/p}) = (1 + p/2) a r*,

which with ``a = N``, ``b = N^2 M^{2/p} B^2 / eps^2`` is

    log N(eps) <= c(p) M^{2/(p+2)} (B/eps)^{2p/(p+2)} N^{2(p+1)/(p+2)},
    c(p) = ((p+2)^{p+2} / (4 p^p))^{1/(p+2)}.

Constants stay symbolic (``ell_par``, ``K_M``, ``ell_M``) so a user can substitute tighter ones with
``derivation().subs({K_M: ...})``.  docs/definitions.md and docs/derivations.md are the specification.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from sabounds.theory.checks import Identity, Inequality, Interval, Limit, MatrixRelation, Minimum, Premise
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.matrix_atoms import (
    MinDim,
    RowNormMax,
    SchattenQuantity,
    SingularValue,
    SplitResidual,
    TailFrobeniusSq,
    TruncationError,
    W,
    X,
)

# Scalars. All positive so that power and log rules apply; p <= 2 is carried by the sampling domains.
from sabounds.theory.symbols import B, D, M, N, T, d_in, d_out, eps, n, p, s  # noqa: F401  (the symbol table)

r, a, b, t, u = sp.symbols("r a b t u", positive=True)
ell_par, K_M, ell_M = sp.symbols("ell_par K_M ell_M", positive=True)
"""``ell_par = log(c s B / eps)`` (parametric log factor), ``K_M`` Maurey constant, ``ell_M = log(2 d_in d_out n T)``."""
k = sp.Symbol("k", positive=True, integer=True)

P_RANGE = Interval(sp.Rational(1, 20), 2)
r_split = sp.Symbol("r", integer=True, nonnegative=True)

objective = a * r + b * r ** (-2 / p)
"""``a r + b r^{-2/p}``: rank-r head plus the relaxed Frobenius tail."""

r_star = (2 * b / (a * p)) ** (p / (p + 2))
minimum = (1 + p / 2) * a * r_star
c_of_p = ((p + 2) ** (p + 2) / (4 * p**p)) ** (1 / (p + 2))
"""``c(p)``: -> 1 as p -> 0, = 2 at p = 2."""

a_width, b_width = N, N**2 * M ** (2 / p) * B**2 / eps**2
"""The width-only substitution of section 4: logs and constants set aside, ``d_in = d_out = D = N``."""

closed_form = c_of_p * M ** (2 / (p + 2)) * (B / eps) ** (2 * p / (p + 2)) * N ** (2 * (p + 1) / (p + 2))
"""``log N(eps) <= c(p) M^{2/(p+2)} (B/eps)^{2p/(p+2)} N^{2(p+1)/(p+2)}``."""

a_general = (d_in + d_out) * ell_par
b_general = K_M * ell_M * d_out * D * M ** (2 / p) * B**2 / eps**2

# The sharper tail ||W_{>r}||_F^2 <= sigma_{r+1}^{2-p} S_p <= M^{2/p} r^{-(2-p)/p} (no factor D).
objective_sharp = a * r + b * r ** (-(2 - p) / p)
r_star_sharp = ((2 - p) * b / (p * a)) ** (p / 2)
minimum_sharp = 2 / (2 - p) * a * r_star_sharp
c_sharp = 2 / (2 - p) * ((2 - p) / p) ** (p / 2)
b_width_sharp = N * M ** (2 / p) * B**2 / eps**2
closed_form_sharp = c_sharp * M * (B / eps) ** p * N
"""``log N(eps) <= c2(p) M (B/eps)^p N`` with ``c2(p) = (2/(2-p)) ((2-p)/p)^{p/2}`` for ``0 < p < 2``."""

b_general_sharp = K_M * ell_M * d_out * M ** (2 / p) * B**2 / eps**2
"""The sharp tail's coefficient: ``||W_{>r}||_F^2 <= sigma_{r+1}^{2-p} S_p <= M^{2/p} r^{-(2-p)/p}`` (no factor D)."""
minimum_sharp_general = c_sharp * a ** (1 - p / 2) * b ** (p / 2)
"""``min_r (a r + b r^{-(2-p)/p}) = c2(p) a^{1-p/2} b^{p/2}``: the sharp route's minimum for general a, b."""

u_cross = (c_of_p / c_sharp) ** ((p + 2) / p)
"""The sharper tail wins iff ``u = M (B/eps)^p / N < u_cross``."""

_POS = Interval(sp.Rational(1, 10), 10, log=True)
_WIDTH = Interval(2, 4096, log=True)
_EPS = Interval(sp.Rational(1, 1000), 1, log=True)
_SAMPLE = {p: P_RANGE, a: _POS, b: Interval(sp.Rational(1, 10), 1000, log=True)}
_SAMPLE_WIDTH = {p: P_RANGE, M: Interval(1, 1000, log=True), B: _POS, eps: _EPS, N: _WIDTH}


_R_SPLIT = Interval(0, MinDim(W), integer=True)


def _unevaluated_subs(expr: sp.Expr, mapping: dict) -> sp.Expr:
    """``expr.subs(mapping)`` without sympy's automatic evaluation, so the checker (not construction) decides the step."""
    with sp.evaluate(False):
        return expr.subs(mapping)


def schatten_sum(sigmas: sp.Expr | list, power: sp.Expr) -> sp.Expr:
    """Symbolic ``S_p = sum_i sigma_i^p`` of a list of singular-value symbols."""
    return sp.Add(*(sigma**power for sigma in sigmas))


def _steps() -> tuple[Step, ...]:
    sig = sp.symbols("sigma_1:5", positive=True)
    r_up = sp.ceiling(r_star)
    return (
        Step(
            "split",
            sp.Le(SplitResidual(W, r_split), 0),
            "truncated SVD: W = W_{<=r} + W_{>r} exactly",
            MatrixRelation(domain={r_split: _R_SPLIT}),
        ),
        Step(
            "tail_singular_value",
            sp.Le(SingularValue(W, r_split + 1), (SchattenQuantity(W, p) / (r_split + 1)) ** (1 / p)),
            "(r+1) sigma_{r+1}^p <= sum_{i<=r+1} sigma_i^p <= S_p, take M = S_p(W)",
            MatrixRelation(domain={r_split: _R_SPLIT, p: P_RANGE}),
        ),
        Step(
            "tail_frobenius_rank",
            sp.Le(TailFrobeniusSq(W, r_split), sp.Max(MinDim(W) - r_split, 0) * SingularValue(W, r_split + 1) ** 2),
            "the tail has at most D - r singular values, each <= sigma_{r+1}",
            MatrixRelation(domain={r_split: _R_SPLIT}),
        ),
        Step(
            "tail_frobenius_schatten",
            sp.Le(TailFrobeniusSq(W, r_split), SingularValue(W, r_split + 1) ** (2 - p) * SchattenQuantity(W, p)),
            "sigma_i^2 = sigma_i^{2-p} sigma_i^p <= sigma_{r+1}^{2-p} sigma_i^p for i > r",
            MatrixRelation(domain={r_split: _R_SPLIT, p: P_RANGE}),
        ),
        Step(
            "truncation_error",
            sp.Le(TruncationError(X, W, r_split), RowNormMax(X) * SingularValue(W, r_split + 1)),
            "each row: ||x (W - W_{<=r})||_2 <= ||x||_2 ||W_{>r}||_2 = ||x||_2 sigma_{r+1}",
            MatrixRelation(domain={r_split: _R_SPLIT}),
        ),
        Step(
            "rank_part_cover",
            sp.Le(sp.Symbol("log N_head"), r * a_general),
            "parametric covering of rank-r matrices with ||W||_2 <= s: r (d_in + d_out) log(c s B / eps)",
            Premise("parametric (volumetric) covering of the factors of a rank-r matrix"),
        ),
        Step(
            "tail_cover",
            sp.Le(sp.Symbol("log N_tail"), K_M * ell_M * d_out * B**2 * sp.Symbol("F_tail") ** 2 / eps**2),
            "Maurey-type empirical covering, coordinate by coordinate of the output, F_tail = ||W_{>r}||_F",
            Premise("Maurey's sparsification lemma (Zhang 2002; Bartlett et al. 2017, Lemma 3.2)"),
        ),
        Step(
            "tail_relaxation",
            sp.Le(K_M * ell_M * d_out * B**2 * (D - r) * (M / (r + 1)) ** (2 / p) / eps**2, b_general * r ** (-2 / p)),
            "steps 3 and 5 with sigma_{r+1} <= (M/(r+1))^{1/p}, then D - r <= D and (r+1)^{-2/p} <= r^{-2/p}",
            Inequality(
                {
                    p: P_RANGE,
                    r: Interval(1, 10**4, log=True),
                    D: Interval(10**4, 10**5, log=True),
                    M: _POS,
                    B: _POS,
                    eps: _EPS,
                    K_M: _POS,
                    ell_M: _POS,
                    d_out: _WIDTH,
                }
            ),
        ),
        Step(
            "stationarity",
            sp.Eq(sp.Derivative(objective, r).subs(r, r_star), 0),
            "d/dr (a r + b r^{-2/p}) = a - (2b/p) r^{-2/p-1} vanishes at r* = (2b/(a p))^{p/(p+2)}",
            Identity(_SAMPLE),
        ),
        Step(
            "second_order",
            sp.StrictGreaterThan(sp.Derivative(objective, r, 2).subs(r, r_star), 0),
            "(2b/p)(2/p + 1) r^{-2/p-2} > 0: the objective is strictly convex, r* is its minimiser",
            Inequality(_SAMPLE),
        ),
        Step(
            "minimum_value",
            sp.Eq(objective.subs(r, r_star), minimum),
            "at r*, b r*^{-2/p} = (p/2) a r*, so the minimum is (1 + p/2) a r*",
            Identity(_SAMPLE),
        ),
        Step(
            "minimum_direct",
            sp.Eq(minimum, objective),
            "the closed-form minimum equals a direct numeric minimisation of a r + b r^{-2/p} over r > 0",
            Minimum(var=r, var_range=Interval(sp.Rational(1, 10**12), 10**12), domain=_SAMPLE),
        ),
        Step(
            "closed_form",
            sp.Eq(minimum.subs({a: a_width, b: b_width}), closed_form),
            "substitute a = N, b = N^2 M^{2/p} B^2/eps^2 and collect powers",
            Identity(_SAMPLE_WIDTH),
        ),
        Step(
            "closed_form_direct",
            sp.Eq(closed_form, objective.subs({a: a_width, b: b_width})),
            "the closed form equals a direct minimisation over r of N r + N^2 M^{2/p} B^2 eps^{-2} r^{-2/p}",
            Minimum(var=r, var_range=Interval(sp.Rational(1, 10**12), 10**15), domain=_SAMPLE_WIDTH),
        ),
        Step(
            "constant_at_0",
            sp.Eq(sp.Limit(c_of_p, p, 0, "+"), 1),
            "(p+2)^{p+2} -> 4 and p^p -> 1 as p -> 0+, so c(p) -> (4/4)^{1/2} = 1",
            Limit(),
        ),
        Step(
            "constant_at_2",
            sp.Eq(_unevaluated_subs(c_of_p, {p: 2}), 2, evaluate=False),
            "c(2) = (4^4 / 16)^{1/4} = 2",
            Identity(),
        ),
        Step(
            "constant_a_2N",
            sp.Eq(minimum.subs({a: 2 * N, b: b_width}), 2 ** (2 / (p + 2)) * closed_form),
            "with a = 2N (d_in + d_out = 2N) the constant gains a factor 2^{2/(p+2)}",
            Identity(_SAMPLE_WIDTH),
        ),
        Step(
            "rank_endpoint",
            sp.Eq(sp.Limit(closed_form, p, 0, "+"), M * N),
            "p -> 0+: with M = S_0 = rank(W) the bound is rank * N (rank-based covering)",
            Limit({M: _POS, B: _POS, eps: _EPS, N: _WIDTH}),
        ),
        Step(
            "norm_endpoint",
            sp.Eq(
                _unevaluated_subs(closed_form, {p: 2, M: sp.Symbol("F", positive=True) ** 2}),
                2 * sp.Symbol("F", positive=True) * B * N ** sp.Rational(3, 2) / eps,
                evaluate=False,
            ),
            "p = 2: with M = S_2 = ||W||_F^2 = F^2 the bound is 2 ||W||_F B N^{3/2} / eps (norm-based)",
            Identity(),
        ),
        Step(
            "schatten_continuity",
            sp.Eq(sp.Limit(schatten_sum(sig, p), p, 0, "+"), len(sig)),
            "each positive sigma_i^p -> 1, zero singular values contribute 0: S_p -> rank as p -> 0+",
            Limit({s_: _POS for s_ in sig}),
        ),
        Step(
            "integer_rounding",
            sp.Le(objective.subs(r, r_up), objective.subs(r, r_star) + a),
            "rounding r* up costs at most a: the head grows by a(ceil r* - r*) <= a, the tail only shrinks",
            Inequality(_SAMPLE),
        ),
        Step(
            "saturation",
            sp.Le(a * r_star / (1 + t), minimum),
            "if r* >= D (write D = r*/(1+t), t >= 0) the full-dimension count a D beats (1 + p/2) a r*: use r = D",
            Inequality({**_SAMPLE, t: Interval(0, 100)}),
        ),
        Step(
            "sharp_tail_stationarity",
            sp.Eq(sp.Derivative(objective_sharp, r).subs(r, r_star_sharp), 0),
            "with the sharper tail sigma_{r+1}^{2-p} S_p the objective is a r + b r^{-(2-p)/p}, stationary at ((2-p) b/(p a))^{p/2}",
            Identity({p: Interval(sp.Rational(1, 20), sp.Rational(39, 20)), a: _POS, b: _POS}),
        ),
        Step(
            "sharp_tail_closed_form",
            sp.Eq(minimum_sharp.subs({a: a_width, b: b_width_sharp}), closed_form_sharp),
            "minimum (2/(2-p)) a r*; with a = N, b = N M^{2/p} B^2/eps^2: c2(p) M (B/eps)^p N",
            Identity({p: Interval(sp.Rational(1, 20), sp.Rational(39, 20)), M: _POS, B: _POS, eps: _EPS, N: _WIDTH}),
        ),
        Step(
            "sharp_tail_direct",
            sp.Eq(closed_form_sharp, objective_sharp.subs({a: a_width, b: b_width_sharp})),
            "the sharper closed form equals a direct numeric minimisation over r",
            Minimum(
                var=r,
                var_range=Interval(sp.Rational(1, 10**12), 10**12),
                domain={
                    p: Interval(sp.Rational(1, 10), sp.Rational(19, 10)),
                    M: _POS,
                    B: _POS,
                    eps: Interval(sp.Rational(1, 10), 1, log=True),
                    N: _WIDTH,
                },
            ),
        ),
        Step(
            "sharp_tail_relaxation",
            sp.Le(
                K_M * ell_M * d_out * B**2 * (M / (r + 1)) ** ((2 - p) / p) * M / eps**2,
                b_general_sharp * r ** (-(2 - p) / p),
            ),
            "steps 3 (sharp form) and 5 with sigma_{r+1} <= (M/(r+1))^{1/p}, S_p <= M, then (r+1)^{-(2-p)/p} <= r^{-(2-p)/p}",
            Inequality(
                {
                    p: Interval(sp.Rational(1, 20), sp.Rational(39, 20)),
                    r: Interval(1, 10**4, log=True),
                    M: _POS,
                    B: _POS,
                    eps: _EPS,
                    K_M: _POS,
                    ell_M: _POS,
                    d_out: _WIDTH,
                }
            ),
        ),
        Step(
            "sharp_tail_minimum",
            sp.Eq(minimum_sharp, minimum_sharp_general),
            "the sharp minimum (2/(2-p)) a r* with r* = ((2-p) b/(p a))^{p/2} is c2(p) a^{1-p/2} b^{p/2}",
            Identity({p: Interval(sp.Rational(1, 20), sp.Rational(39, 20)), a: _POS, b: _POS}),
        ),
        Step(
            "sharp_tail_maurey_endpoint",
            sp.Eq(sp.Limit(minimum_sharp_general, p, 2, "-"), b),
            "p -> 2-: c2(p) -> 1 and a^{1-p/2} -> 1, so the sharp route tends to Maurey's bound b = K_M ell_M d_out S_2 B^2/eps^2",
            Limit({a: _POS, b: _POS}),
        ),
        Step(
            "tail_crossover",
            sp.Eq(
                closed_form_sharp.subs(M, u_cross * N * (eps / B) ** p),
                closed_form.subs(M, u_cross * N * (eps / B) ** p),
            ),
            "both interpolations agree at u = M (B/eps)^p / N = (c(p)/c2(p))^{(p+2)/p}; below it the sharper tail is smaller",
            Identity({p: Interval(sp.Rational(1, 10), sp.Rational(19, 10)), B: _POS, eps: _EPS, N: _WIDTH}),
        ),
    )


@lru_cache(maxsize=1)
def derivation() -> Derivation:
    """The Theorem 4.1 derivation (docs/definitions.md), each step decided by ``proofs_check``."""
    return Derivation(
        "thm41",
        "Theorem 4.1: matrix-valued parametric interpolation",
        _steps(),
        notes="Steps 'rank_part_cover' and 'tail_cover' are cited premises, not checked here.",
    )
