"""A bound as data: what one slot (one weight matrix) costs, how slots aggregate, how errors propagate, and
where it comes from.  Regime rows (``sabounds.theory.regime_bounds.bound_row``), checkpoint numbers
(``sabounds.numerics.bound.catalog_values``), docs and LaTeX are all generated from one :class:`Bound`.

A slot's term is a sympy expression in the named symbols of ``sabounds.theory.symbols`` (``rho = gamma alpha``,
``w_11``, ``w_21``, ``F2``, ``s``, ``d_in``, ``d_out``); the capacity is ``aggregate(sum_k term_k)``; the
Rademacher bound is ``form`` with ``W`` (capacity) and ``ell`` (``log_factor``, the largest over the slots).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from sabounds.theory.symbols import B, Delta, n

W, ell = sp.symbols("W ell", positive=True)
SOURCES = ("published", "published proxy", "reconstructed", "extension", "user")

AGGREGATIONS = {
    "sum": lambda total: total,
    "rss": sp.sqrt,
    "power_mean_2/3": lambda total: total ** sp.Rational(3, 2),
    "exp": sp.exp,
}
"""``aggregate(sum_k term_k)``: plain sum, root of a sum of squares (terms are squares), or ``(sum_k x_k^{2/3})^{3/2}``
(terms are ``x_k^{2/3}``: the optimal allocation of the covering radius, Edelman et al. 2022, Lemma A.8), or
``exp(sum_k term_k)`` (terms are logs: a product over the slots, e.g. of spectral norms)."""

DUDLEY_FORM = 4 * Delta / n + 12 * W * B * sp.sqrt(ell / n) * sp.log(n)
"""``R_n <= 4 Delta/n + 12 W B sqrt(ell/n) ln n``: Dudley cut at ``Delta/n`` with ``log N(eps) <= W^2 B^2 ell / eps^2``."""


@dataclass(frozen=True)
class Proxy:
    """A number on a checkpoint: per-slot ``term`` aggregated by ``aggregation`` over every slot (``propagation``
    ``none``: raw tensors, ``rho = 1``; ``gamma_edelman``: ``rho_k = gamma^E_k alpha^(l)`` of the architecture),
    plus ``offset`` inside the aggregation (the published Edelman proxy's leading 1)."""

    name: str
    term: sp.Expr
    aggregation: str
    propagation: str
    source: str
    offset: sp.Expr = sp.Integer(0)
    tensors: str = "slots"
    """``slots``: the architecture's matrices (QK_h, Vt_h, M_in, M_out); ``raw``: every trainable tensor as stored."""
    over_grid: bool = False
    """Each slot's term minimised over the grid ``P_m`` of ``p`` (first minimiser) before aggregating (``ours``)."""

    def value(self, total: sp.Expr) -> sp.Expr:
        return AGGREGATIONS[self.aggregation](self.offset + total)


@dataclass(frozen=True)
class Bound:
    """``form`` at ``W = aggregate(sum_k term(rho_k, norms_k))`` and ``ell = max_k log_factor(d_in, d_out)``."""

    id: str
    title: str
    source: str
    term: sp.Expr
    aggregation: str
    propagation: str
    log_factor: sp.Expr
    assumptions: str
    citation: str
    form: sp.Expr = DUDLEY_FORM
    symbolic: str = ""
    """Constants or steps that could not be pinned down and are kept symbolic (said in every output)."""
    proxies: tuple[Proxy, ...] = ()

    def __post_init__(self):
        if self.source not in SOURCES or self.aggregation not in AGGREGATIONS:
            raise ValueError(
                f"bound {self.id}: source must be one of {SOURCES}, aggregation one of {sorted(AGGREGATIONS)}"
            )

    def capacity(self, total: sp.Expr) -> sp.Expr:
        """``W`` from ``total = sum_k term_k``."""
        return AGGREGATIONS[self.aggregation](total)

    def rademacher(self, total: sp.Expr, log_factor: sp.Expr) -> sp.Expr:
        """The bound with the capacity of ``total`` and the log factor ``log_factor``."""
        return self.form.subs({W: self.capacity(total), ell: log_factor})
