"""The Lipschitz constant of one attention head: ``f(X) = softmax(X W X^T) X`` on rows of l2 norm <= 1.

Hand proof of ``||f(X) - f(X')||_{2->inf} <= (1 + 2 ||W||_2) ||X - X'||_{2->inf}`` (docs/definitions.md), each
step a check.  Row t of the derivative is ``Df[dX]_t = sum_j P_tj dx_j + sum_j (dP_t)_j x_j``:

1. ``||sum_j P_tj dx_j||_2 <= ||dX||_{2->inf}`` (a convex combination; weight 1);
2. ``||sum_j (dP_t)_j x_j||_2 <= ||dP_t||_1`` (rows of norm <= 1);
3. ``||dP_t||_1 <= ||ds_t||_inf``: the softmax Jacobian ``diag(s) - s s^T`` has ``l_inf -> l_1`` norm
   ``max 4 t (1 - t) = 1`` (t the softmax mass where the sign vector is +);
4. ``|ds_tj| = |dx_t^T W x_j + x_t^T W dx_j| <= 2 ||W||_2 ||dX||_{2->inf}``;
5. the domain (rows in the unit ball) is convex, so the mean value theorem turns the derivative bound into
   ``1 + 1 * 2 ||W||_2``.

Tight family (so 2 is the exact constant, and the published 4 is loose by exactly 2): ``d = 2``,
``W = sigma diag(1, -1)`` (``||W||_2 = sigma``), two opposite tokens ``x_1 = -x_2`` at angle ``theta = pi/4``
(tied scores: ``x_1^T W x_1 = 0``), moved along the unit circle to ``pi/4 - delta`` (antipodally).  Then
``f(X) = 0``, ``||f(X') - f(X)||_{2->inf} = tanh(sigma sin 2 delta)`` and ``||X - X'||_{2->inf} = 2 sin(delta/2)``,
so the empirical constant ``k = (ratio - 1)/sigma`` tends to ``2 - 1/sigma`` as delta -> 0 and to 2 as sigma -> oo.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from sabounds.theory.checks import Identity, Inequality, Interval, Limit, Premise
from sabounds.theory.derivation import Derivation, Step

t = sp.Symbol("t", nonnegative=True)
sigma, delta, h = sp.symbols("sigma delta h", positive=True)
e1, e2 = sp.symbols("e_1 e_2", nonnegative=True)

softmax_jacobian_norm = 4 * t * (1 - t)
"""``||(diag(s) - s s^T) v||_1`` for a sign vector v with + on softmax mass t."""
softmax_constant = sp.Integer(1)
"""``max_{t in [0, 1]} 4 t (1 - t)``: the tight l_inf -> l_1 constant of softmax."""
score_constant = sp.Integer(2)
"""Both the query and the key row move: ``|ds_tj| <= 2 ||W||_2 ||dX||_{2->inf}``."""
value_weight = sp.Integer(1)
"""The convex combination of step 1 carries weight 1."""

constant = softmax_constant * score_constant
"""The proved constant c in ``1 + c ||W||_2``: 2."""

tight_ratio = sp.tanh(sigma * sp.sin(2 * delta)) / (2 * sp.sin(delta / 2))
"""``||f(X) - f(X')||_{2->inf} / ||X - X'||_{2->inf}`` on the tight family."""
tight_constant = (tight_ratio - 1) / sigma
"""The empirical constant ``(ratio - 1)/||W||_2`` on the tight family."""
tight_limit_delta = 2 - 1 / sigma


def tight_tokens(theta: sp.Expr) -> sp.Matrix:
    """The two opposite unit tokens at angle ``theta``: rows ``(cos, sin)`` and ``-(cos, sin)``."""
    return sp.Matrix([[sp.cos(theta), sp.sin(theta)], [-sp.cos(theta), -sp.sin(theta)]])


def tight_weight(s: sp.Expr) -> sp.Matrix:
    """``W = s diag(1, -1)``: spectral norm s, and ``x^T W x = 0`` at angle pi/4 (tied scores)."""
    return sp.Matrix([[s, 0], [0, -s]])


def _steps() -> tuple[Step, ...]:
    return (
        Step(
            "value_term",
            sp.Le(sp.Symbol("||sum_j P_tj dx_j||_2"), sp.Symbol("||dX||_2->inf")),
            "||sum_j P_tj dx_j||_2 <= sum_j P_tj ||dx_j||_2 <= ||dX||_{2->inf}: softmax weights are a convex combination",
            Premise("triangle inequality for a convex combination"),
        ),
        Step(
            "softmax_jacobian",
            sp.Le(softmax_jacobian_norm, softmax_constant),
            "for a sign vector v with + on mass t: ||(diag(s) - s s^T) v||_1 = 4t(1-t) <= 1 = (1 - 2t)^2 + 4t(1-t)",
            Inequality({t: Interval(0, 1)}),
        ),
        Step(
            "softmax_jacobian_attained",
            sp.Eq(sp.Subs(softmax_jacobian_norm, t, sp.Rational(1, 2)), softmax_constant, evaluate=False),
            "the maximum 1 is attained at t = 1/2 (two tied scores): the softmax constant is exactly 1",
            Identity(),
        ),
        Step(
            "score_perturbation",
            sp.Le(sigma * h * ((1 - e1) + (1 - e2)), score_constant * sigma * h),
            "|dx_t^T W x_j + x_t^T W dx_j| <= ||W||_2 h (||x_j|| + ||x_t||) by Cauchy-Schwarz, h = ||dX||_{2->inf}, and "
            "the token norms 1 - e_1, 1 - e_2 are at most 1 (e_i >= 0)",
            Inequality(
                {
                    sigma: Interval(sp.Rational(1, 10), 100, log=True),
                    h: Interval(sp.Rational(1, 10**6), 1, log=True),
                    e1: Interval(0, 1),
                    e2: Interval(0, 1),
                }
            ),
        ),
        Step(
            "assemble",
            sp.Eq(
                sp.Add(value_weight, sp.Mul(softmax_constant, score_constant, sigma, evaluate=False), evaluate=False),
                sp.Add(1, sp.Mul(constant, sigma, evaluate=False), evaluate=False),
                evaluate=False,
            ),
            "the two terms of Df[dX]_t add: (1 + 1 * 2 ||W||_2) ||dX||_{2->inf}; the domain is convex (mean value theorem)",
            Identity({sigma: Interval(sp.Rational(1, 10), 100, log=True)}),
        ),
        Step(
            "tight_limit_delta",
            sp.Eq(sp.Limit(tight_constant, delta, 0, "+"), tight_limit_delta),
            "on the tight family the empirical constant tends to (2 sigma - 1)/sigma as delta -> 0+",
            Limit({sigma: Interval(1, 100, log=True)}),
        ),
        Step(
            "tight_limit_sigma",
            sp.Eq(sp.Limit(tight_limit_delta, sigma, sp.oo), constant),
            "and to 2 as sigma = ||W||_2 -> oo: no constant below 2 holds",
            Limit(),
        ),
    )


@lru_cache(maxsize=1)
def derivation() -> Derivation:
    """The attention Lipschitz constant: the hand proof of c <= 2 and the tight family showing c >= 2."""
    return Derivation(
        "attention",
        "Attention head: Lipschitz constant 1 + 2 ||W||_2 (exact)",
        _steps(),
        notes="'value_term' is a cited premise; the others are decided by sabounds verify.",
    )
