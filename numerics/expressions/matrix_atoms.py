"""Numeric values of the matrix atoms of ``sabounds.theory.matrix_atoms`` on float64 arrays.

``atom_value(atom, bindings)`` evaluates one atom (its matrix arguments looked up in ``bindings``,
scalar arguments evaluated); ``substitute_atoms`` replaces every atom in an expression by its value,
leaving a scalar sympy expression for mpmath.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import sympy as sp

from sabounds.numerics.spectra import numerical_rank, schatten, singular_values
from sabounds.theory import matrix_atoms as A


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


def _split_residual(w: np.ndarray, r: int) -> float:
    head, tail = _svd_parts(w, r)
    return float(np.linalg.norm(w - head - tail))


_IMPLEMENTATIONS: dict[type, Callable[..., float]] = {
    A.SingularValue: lambda w, i: _sigma(w, int(i)),
    A.SchattenQuantity: lambda w, p: schatten(singular_values(w), float(p)),
    A.Rank: lambda w: float(numerical_rank(singular_values(w))),
    A.MinDim: lambda w: float(min(w.shape)),
    A.TailFrobeniusSq: lambda w, r: float(np.sum(singular_values(w)[int(r):] ** 2)),
    A.SplitResidual: lambda w, r: _split_residual(w, int(r)),
    A.SpectralNorm: lambda w: float(singular_values(w)[0]) if min(w.shape) else 0.0,
    A.RowNormMax: lambda x: float(np.max(np.linalg.norm(x, axis=1))),
    A.TruncationError: lambda x, w, r: _truncation_error(x, w, int(r)),
}


def _argument(arg: sp.Basic, bindings: Mapping):
    if arg in bindings and isinstance(bindings[arg], np.ndarray):
        return bindings[arg]
    value = arg.subs({k: v for k, v in bindings.items() if not isinstance(v, np.ndarray)})
    if value.free_symbols:
        raise ValueError(f"unbound symbols {value.free_symbols} in matrix-atom argument {arg}")
    return float(value)


def atom_value(atom: A.MatrixAtom, bindings: Mapping) -> float:
    """The float64 value of one matrix atom under ``bindings`` (symbol -> ndarray or number)."""
    impl = _IMPLEMENTATIONS.get(type(atom))
    if impl is None:
        raise TypeError(f"no numeric implementation for {type(atom).__name__}")
    return impl(*(_argument(a, bindings) for a in atom.args))


def substitute_atoms(expr: sp.Basic, bindings: Mapping) -> sp.Basic:
    """``expr`` with every matrix atom replaced by its value and scalar symbols by theirs."""
    atoms = expr.atoms(A.MatrixAtom)
    values = {atom: sp.Float(atom_value(atom, bindings), 30) for atom in atoms}
    scalars = {k: v for k, v in bindings.items() if not isinstance(v, np.ndarray)}
    return expr.xreplace(values).subs(scalars)
