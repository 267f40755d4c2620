"""The whole bound's expressions from ``sabounds.theory.whole_bound``, compiled once per set of constants.

Two forms of the same sympy expressions: natural logarithms in float64 (vectorised over slots and p, with
``rho = exp(lrho)`` and ``S_p = exp(lM)`` substituted and the logs expanded, so nothing overflows however large
alpha is) to *choose* p, and values in mpmath to *report* the chosen bound at the working precision.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from sabounds.theory import whole_bound
from sabounds.theory.thm31 import Delta, K, rho
from sabounds.theory.thm41 import B, D, M, T, d_in, d_out, n, p

lrho, lM, ln_n = sp.symbols("lrho lM ln_n", real=True)
SLOT_MEMO = 200_000
"""Slot values remembered by :meth:`Compiled.slot` before the memo is cleared."""


def _gamma(x) -> np.ndarray:
    """``math.gamma`` element-wise, once per distinct argument (they depend on p only: P values over K x P cells,
    every row the same, so one row is sorted, not K x P cells)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 2 and x.shape[0] > 1 and np.array_equal(x, np.broadcast_to(x[:1], x.shape)):
        return np.broadcast_to(_gamma(x[0]), x.shape).copy()
    distinct, at = np.unique(x, return_inverse=True)
    return np.array([math.gamma(v) for v in distinct], dtype=np.float64)[at].reshape(x.shape)


NUMPY = [{"gamma": _gamma}, "numpy"]
"""numpy has no vectorised Gamma function; ``math.gamma`` element-wise (its arguments here lie in [1, 2])."""
SLOT_ARGS = (p, M, d_in, d_out, D, K, rho, Delta, B, T, n, whole_bound.ell0)
LOG_ARGS = (p, lM, d_in, d_out, D, K, lrho, Delta, B, T, ln_n, whole_bound.ell0)

SLOT_EXPRESSIONS = {
    "crude": whole_bound.crude_slot,
    "sharp": whole_bound.sharp_slot,
    "rank": whole_bound.rank_slot,
    "crude_share": whole_bound.crude_share,
    "sharp_share": whole_bound.sharp_share,
    "rounding": whole_bound.split_rounding_slot,
    "crude_cs": whole_bound.crude_slot_cs,
    "sharp_cs": whole_bound.sharp_slot_cs,
    "rank_cs": whole_bound.rank_slot_cs,
    "crude_share_cs": whole_bound.crude_share_cs,
    "sharp_share_cs": whole_bound.sharp_share_cs,
    "rounding_cs": whole_bound.split_rounding_slot_cs,
    "rss_main": whole_bound.rss_main,
    "rss_rem": whole_bound.rss_rem,
    "rss_main_rank": whole_bound.rss_main_rank,
    "rss_rem_rank": whole_bound.rss_rem_rank,
    "rss_round_main": whole_bound.rss_round_main,
    "rss_round_rem": whole_bound.rss_round_rem,
}
"""Log forms are taken of the shares (products); a slot's value ``share + rounding`` is ``logaddexp`` of the two."""


def _log_form(expr: sp.Expr) -> sp.Expr:
    """``log expr`` with ``rho = e^{lrho}``, ``M = e^{lM}``, ``n = e^{ln_n}`` and products, powers expanded (positive
    symbols): float64 never sees rho, S_p or n themselves, so none of them overflows."""
    return sp.expand_log(sp.log(expr.subs({rho: sp.exp(lrho), M: sp.exp(lM), n: sp.exp(ln_n)})), force=True)


class Compiled:
    """The expressions with the constants substituted (``constants``: symbol name -> sympy number)."""

    def __init__(self, constants: tuple[tuple[str, sp.Expr], ...]):
        values = {whole_bound.CONSTANTS[name].symbol: value for name, value in constants}
        self.values = values
        self._seen: dict = {}
        self._ids: dict = {}
        self._log = {
            k: sp.lambdify(LOG_ARGS, _log_form(e.subs(values)), modules=NUMPY) for k, e in SLOT_EXPRESSIONS.items()
        }
        # p = 0 substituted before taking logs: c(p) -> 1 there, but its log has p log p (nan at 0 in float64)
        self._log.update(
            {
                k + "@0": sp.lambdify(LOG_ARGS, _log_form(SLOT_EXPRESSIONS[k + "_rank"].subs(values)), modules=NUMPY)
                for k in ("rss_main", "rss_rem")
            }
        )
        self._mp = {k: sp.lambdify(SLOT_ARGS, e.subs(values), modules="mpmath") for k, e in SLOT_EXPRESSIONS.items()}
        lr_ell0 = sp.expand_log(whole_bound.allocated_log.subs(values).subs(rho, sp.exp(lrho)), force=True)
        self._ell0_log = sp.lambdify((sp.Symbol("s", positive=True), K, lrho, Delta, B), lr_ell0, modules=NUMPY)
        self._ell0_mp = sp.lambdify(
            (sp.Symbol("s", positive=True), K, rho, Delta, B), whole_bound.allocated_log.subs(values), modules="mpmath"
        )
        sums = (whole_bound.rss_equal_main, whole_bound.rss_equal_rem)
        self.rss_equal = sp.lambdify((p, Delta, *sums), whole_bound.rss_equal.subs(values), modules="mpmath")
        self.rss_rounding = sp.lambdify(
            (Delta, whole_bound.rss_round_main_sum, whole_bound.rss_round_rem_sum),
            whole_bound.rss_rounding,
            modules="mpmath",
        )
        self.rss_cs = sp.lambdify((Delta, whole_bound.rss_cs_total), whole_bound.rss_cs.subs(values), modules="mpmath")
        self.integrals = sp.lambdify(
            (p, Delta),
            (
                whole_bound.power_log_integral(whole_bound.crude_t, 0),
                whole_bound.power_log_integral(whole_bound.crude_t, whole_bound.crude_e / 2),
            ),
            modules=NUMPY,
        )
        self.prefactor = sp.lambdify((whole_bound.margin, n), whole_bound.prefactor.subs(values), modules="mpmath")
        self.post_hoc = sp.lambdify((whole_bound.cost, n), whole_bound.post_hoc_term.subs(values), modules="mpmath")
        self.confidence = sp.lambdify(
            (whole_bound.delta, n), whole_bound.confidence_term.subs(values), modules="mpmath"
        )
        d_max = sp.Symbol("d_max", positive=True)
        edelman = whole_bound.edelman_dudley.subs(whole_bound.ell_E, whole_bound.edelman_log).subs(values)
        self.edelman = sp.lambdify(
            (whole_bound.W_E, B, Delta, whole_bound.margin, n, T, d_max), edelman, modules="mpmath"
        )

    def log_slot(self, kind: str, *args) -> np.ndarray:
        """Natural log of a slot expression, element-wise over numpy arrays (arguments in ``LOG_ARGS`` order)."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(self._log[kind](*args), dtype=np.float64)

    def slot(self, kind: str, *args):
        """A slot expression in mpmath (arguments in ``SLOT_ARGS`` order), remembered per arguments and precision:
        the slots of a model repeat their arguments (dyadic radii, equal ranks), and a solve evaluates them often."""
        return self.slot_at(kind, self.arguments_id(args[:-2] + args[-1:]), args[-2], args)

    def arguments_id(self, fixed: tuple) -> int:
        """A number naming ``fixed`` (the arguments other than n, in ``SLOT_ARGS`` order without n) at the working
        precision: equal arguments get the same number, so the memo hashes them once, not at every n."""
        key = (mpmath.mp.prec, *fixed)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._ids)
        return found

    def slot_at(self, kind: str, fixed_id: int, n_value, args: tuple):
        """:meth:`slot` of ``args`` whose arguments other than n are named ``fixed_id`` (:meth:`arguments_id`)."""
        key = (kind, fixed_id, n_value)
        value = self._seen.get(key)
        if value is None:
            if len(self._seen) > SLOT_MEMO:
                self._seen.clear()
            value = self._seen[key] = self._mp[kind](*args)
        return value

    def ell0_log(self, s, k, lrho_, delta_, b):
        with np.errstate(divide="ignore"):
            return np.asarray(self._ell0_log(s, k, lrho_, delta_, b), dtype=np.float64)

    def ell0(self, s, k, rho_, delta_, b):
        return self._ell0_mp(s, k, rho_, delta_, b)


@lru_cache(maxsize=8)
def compiled(constants: tuple[tuple[str, sp.Expr], ...]) -> Compiled:
    """The compiled expressions for these constants (cached: compiling takes about a second)."""
    return Compiled(constants)


def constants_key(overrides: dict[str, sp.Expr] | None = None) -> tuple[tuple[str, sp.Expr], ...]:
    """Every constant's value, defaults replaced by ``overrides`` (name -> value), as a hashable key."""
    overrides = overrides or {}
    unknown = set(overrides) - set(whole_bound.CONSTANTS)
    if unknown:
        raise ValueError(f"unknown constant {sorted(unknown)[0]!r}; known: {', '.join(whole_bound.CONSTANTS)}")
    return tuple((name, sp.nsimplify(overrides.get(name, c.default))) for name, c in whole_bound.CONSTANTS.items())
