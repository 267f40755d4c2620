"""Scalar functionals of matrices as sympy atoms, so a relation between matrices is a sympy relation.

``W`` and ``X`` are plain symbols standing for matrices (``W`` is d_in x d_out, ``X`` is T x d_in,
rows are tokens).  The atoms are unevaluated here; ``sabounds.numerics.expressions.matrix_atoms`` evaluates them on arrays.
Singular values are 1-based and sorted, ``sigma_i = 0`` for ``i > D = min(d_in, d_out)``.
"""

from __future__ import annotations

import sympy as sp


class MatrixAtom(sp.Function):
    """Base class: a real scalar functional of one or more matrices; never evaluates symbolically."""

    is_real = True
    is_nonnegative = True


class SingularValue(MatrixAtom):
    """``sigma_i(W)``, the i-th largest singular value (i >= 1)."""

    nargs = 2


class SchattenQuantity(MatrixAtom):
    """``S_p(W) = sum_i sigma_i^p`` for ``0 < p <= 2``; ``S_0(W) = rank(W)`` (numerical rank)."""

    nargs = 2


class Rank(MatrixAtom):
    """Numerical rank ``#{i : sigma_i > tol * len(sigma) * max(sigma_1, 1)}``, ``tol = 1e-10``."""

    nargs = 1


class MinDim(MatrixAtom):
    """``D = min(d_in, d_out)``."""

    nargs = 1


class TailFrobeniusSq(MatrixAtom):
    """``||W_{>r}||_F^2 = sum_{i > r} sigma_i^2``, the squared Frobenius norm of the SVD tail."""

    nargs = 2


class SplitResidual(MatrixAtom):
    """``||W - (W_{<=r} + W_{>r})||_F`` together with the gap between ``||W - W_{<=r}||_F`` and the residual of a rank-r
    truncation computed independently (not from the same SVD); zero in exact arithmetic."""

    nargs = 2


class SpectralNorm(MatrixAtom):
    """``||W||_2 = sigma_1(W)``."""

    nargs = 1


class RowNormMax(MatrixAtom):
    """``||X||_{2->inf}``, the largest l2 norm of a row (a token)."""

    nargs = 1


class TruncationError(MatrixAtom):
    """``||X (W - W_{<=r})||_{2->inf}``, the output error of replacing W by its rank-r truncation."""

    nargs = 3


W, X = sp.symbols("W X")

__all__ = [
    "MatrixAtom",
    "SingularValue",
    "SchattenQuantity",
    "Rank",
    "MinDim",
    "TailFrobeniusSq",
    "SplitResidual",
    "SpectralNorm",
    "RowNormMax",
    "TruncationError",
    "W",
    "X",
]
