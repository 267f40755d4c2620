"""Numeric values of the matrix atoms of ``sabounds.theory.matrix_atoms`` on float64 arrays.

``atom_value(atom, bindings)`` evaluates one atom (its matrix arguments looked up in ``bindings``,
scalar arguments evaluated); ``substitute_atoms`` replaces every atom in an expression by its value,
leaving a scalar sympy expression for mpmath.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import sympy as sp

from sabounds.numerics.spectra import numerical_rank, schatten, singular_values
from sabounds.theory import matrix_atoms as theory_atoms


def _svd_parts(w: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    u, s, vt = np.linalg.svd(w, full_matrices=False)
    r = max(0, min(r, s.size))
    head = (u[:, :r] * s[:r]) @ vt[:r]
    tail = (u[:, r:] * s[r:]) @ vt[r:]
    return head, tail


def _sigma(w: np.ndarray, i: int) -> float:
    s = singular_values(w)
    return float(s[i - 1]) if 1 <= i <= s.size else 0.0


def _truncation_error(x: np.ndarray, w: np.ndarray, r: int) -> float:
    head, _ = _svd_parts(w, r)
    return float(np.max(np.linalg.norm(x @ (w - head), axis=1)))


def _independent_head(w: np.ndarray, r: int) -> np.ndarray:
    """A rank-r truncation computed without ``np.linalg.svd``: the symmetric eigenproblem of ``[[0, W], [W^T, 0]]``
    (eigenvalues ``+-sigma_i``, eigenvectors ``(u_i, +-v_i)/sqrt 2``; ``np.linalg.eigh``), top r pairs kept."""
    m, n = w.shape
    aug = np.block([[np.zeros((m, m)), w], [w.T, np.zeros((n, n))]])
    vals, vecs = np.linalg.eigh(aug)
    top = np.argsort(vals)[::-1][: max(0, min(r, m, n))]
    u, v = np.sqrt(2) * vecs[:m, top], np.sqrt(2) * vecs[m:, top]
    return (u * vals[top]) @ v.T


def _split_residual(w: np.ndarray, r: int) -> float:
    """``max(||W - W_<=r - W_>r||_F, | ||W - W_<=r||_F - ||W - H_r||_F |)`` with ``H_r`` the independent truncation of
    ``_independent_head``: the split sums to W and its head is an optimal rank-r truncation (Eckart-Young: every
    optimal one leaves the same Frobenius residual, so ties sigma_r = sigma_{r+1} do not matter).  A head built from
    the wrong number of singular triplets leaves a different residual."""
    head, tail = _svd_parts(w, r)
    other = _independent_head(w, r)
    return float(max(np.linalg.norm(w - head - tail), abs(np.linalg.norm(w - head) - np.linalg.norm(w - other))))


_IMPLEMENTATIONS: dict[type, Callable[..., float]] = {
    theory_atoms.SingularValue: lambda w, i: _sigma(w, int(i)),
    theory_atoms.SchattenQuantity: lambda w, p: schatten(singular_values(w), float(p)),
    theory_atoms.Rank: lambda w: float(numerical_rank(singular_values(w))),
    theory_atoms.MinDim: lambda w: float(min(w.shape)),
    theory_atoms.TailFrobeniusSq: lambda w, r: float(np.sum(singular_values(w)[int(r) :] ** 2)),
    theory_atoms.SplitResidual: lambda w, r: _split_residual(w, int(r)),
    theory_atoms.SpectralNorm: lambda w: float(singular_values(w)[0]) if min(w.shape) else 0.0,
    theory_atoms.RowNormMax: lambda x: float(np.max(np.linalg.norm(x, axis=1))),
    theory_atoms.TruncationError: lambda x, w, r: _truncation_error(x, w, int(r)),
}


def _argument(arg: sp.Basic, bindings: Mapping):
    if arg in bindings and isinstance(bindings[arg], np.ndarray):
        return bindings[arg]
    value = arg.subs({k: v for k, v in bindings.items() if not isinstance(v, np.ndarray)})
    if value.free_symbols:
        raise ValueError(f"unbound symbols {value.free_symbols} in matrix-atom argument {arg}")
    return float(value)


def atom_value(atom: theory_atoms.MatrixAtom, bindings: Mapping) -> float:
    """The float64 value of one matrix atom under ``bindings`` (symbol -> ndarray or number)."""
    impl = _IMPLEMENTATIONS.get(type(atom))
    if impl is None:
        raise TypeError(f"no numeric implementation for {type(atom).__name__}")
    return impl(*(_argument(a, bindings) for a in atom.args))


def substitute_atoms(expr: sp.Basic, bindings: Mapping) -> sp.Basic:
    """``expr`` with every matrix atom replaced by its value and scalar symbols by theirs."""
    atoms = expr.atoms(theory_atoms.MatrixAtom)
    values = {atom: sp.Float(atom_value(atom, bindings), 30) for atom in atoms}
    scalars = {k: v for k, v in bindings.items() if not isinstance(v, np.ndarray)}
    return expr.xreplace(values).subs(scalars)
