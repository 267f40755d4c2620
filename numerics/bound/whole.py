"""The whole bound on a model, term by term, with the per-matrix p chosen to minimise it [reconstructed].

``evaluate_model(model, variant, setting)`` returns Theorem 3.1's bound under sum and rss aggregation and Edelman et al.
(2022)'s through the same margin bound (``sabounds.theory.whole_bound``).  p is chosen per slot on the grid by
coordinate descent on float64 logarithms of the whole bound (Dudley and post hoc terms together), from two starts
(every slot at p = 0, and every slot at its own Dudley minimiser); the chosen bound is then evaluated in mpmath at
``setting.dps`` digits.  No single-slot change of p lowers the result (a coordinate-wise minimum).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

import mpmath
import numpy as np
import sympy as sp

from sabounds.numerics.bound.compiled import Compiled, compiled, constants_key
from sabounds.numerics.bound.descent import MAX_SWEEPS, coordinate_descent
from sabounds.numerics.bound.slots import Model, Variant, input_norms, rhos, shell_cost
from sabounds.numerics.log_real import logsumexp as _logsumexp  # the package's one log-sum-exp


@dataclass(frozen=True)
class BoundInputs:
    """What the bound is evaluated at: ``n`` samples, confidence ``1 - delta``, ``margin`` gamma, token norm ``input_norm``
    B, ``tokens`` T (``tokens_source``: where T came from), the empirical margin risk ``empirical`` (0 when no data is
    given), constants and ``dps`` digits."""

    n: mpmath.mpf | float | int
    delta: float
    margin: float
    input_norm: float = 1.0
    tokens: int = 512
    empirical: float = 0.0
    constants: tuple = field(default_factory=constants_key)
    dps: int = 30
    tokens_source: str = ""
    input_norm_source: str = ""
    """Where ``input_norm`` came from: ``--input-norm``, the embedding LayerNorm's output bound, or assumed 1."""

    def at_n(self, n) -> BoundInputs:
        return replace(self, n=n)


@dataclass(frozen=True)
class Term:
    key: str
    label: str
    value: mpmath.mpf


@dataclass(frozen=True)
class BoundValue:
    """One bound: its terms (which sum to ``total``), the p chosen per slot (None for Edelman) and the union's price."""

    name: str
    label: str
    terms: tuple[Term, ...]
    p_opt: np.ndarray | None
    forms: tuple[str, ...] | None
    cost_parts: dict[str, float]
    source: str = "reconstructed"

    @property
    def total(self) -> mpmath.mpf:
        return mpmath.fsum(t.value for t in self.terms)

    @property
    def vacuous(self) -> bool:
        """At least 1: says nothing for a [0, 1]-bounded loss."""
        return self.total >= 1


@dataclass(frozen=True)
class WholeBound:
    ours_sum: BoundValue
    ours_rss: BoundValue
    edelman: BoundValue
    variant: Variant
    setting: BoundInputs

    @property
    def ours(self) -> BoundValue:
        """The smaller of the two aggregations (both bound the same Rademacher complexity)."""
        return self.ours_sum if self.ours_sum.total <= self.ours_rss.total else self.ours_rss


@dataclass
class Tables:
    """Per slot (rows) and grid point (columns): float64 logs of each slot's share, its form, and its union price."""

    lrho: np.ndarray
    rho: list
    norms: list
    """Per slot, the input norm bound ``B_k`` (:func:`~sabounds.numerics.bound.slots.input_norms`, mpmath)."""
    log_sum: np.ndarray
    form_sum: np.ndarray
    log_cs: np.ndarray
    form_cs: np.ndarray
    log_main: np.ndarray
    log_rem: np.ndarray
    cost: np.ndarray
    lM: np.ndarray
    base_cost: float
    s_cost: float
    slot_args: dict = field(default_factory=dict)
    """Per ``(slot, grid point, setting)`` the n-independent mpmath arguments of a slot value (:func:`_mp_slot`),
    shared by the tables of every n with the same rho."""


def _args(
    model: Model, setting: BoundInputs, lrho: np.ndarray, ell0: np.ndarray, lM: np.ndarray, rows, norms: np.ndarray
):
    ps = np.broadcast_to(model.ps, lM.shape)
    sizes = _remembered(
        model,
        ("sizes",),
        lambda: np.array([(s.d_in, s.d_out, s.dim) for s in model.slots], dtype=np.float64).reshape(-1, 3),
    )
    sizes = sizes if rows is None else sizes[list(rows)]
    return (
        ps,
        lM,
        sizes[:, 0:1],
        sizes[:, 1:2],
        sizes[:, 2:3],
        float(model.K),
        lrho[:, None],
        float(setting.margin),
        norms[:, None],
        float(setting.tokens),
        _ln(setting.n),
        ell0[:, None],
    )


def _ln(x) -> float:
    """``ln x`` as a float for any positive x (x itself may lie beyond float64)."""
    return float(mpmath.log(mpmath.mpf(x)))


def _log_forms(
    comp: Compiled, model: Model, setting: BoundInputs, lrho: np.ndarray, lM: np.ndarray, rows, kinds, norms
):
    b_all = _remembered(model, ("norm floats", id(norms)), lambda: (norms, np.array([float(x) for x in norms])))[1]
    s_all = _remembered(model, ("s floats",), lambda: np.array([2.0**x.s_shell for x in model.slots]))
    s, b = (s_all, b_all) if rows is None else (s_all[list(rows)], b_all[list(rows)])
    ell0 = comp.ell0_log(s, float(model.K), lrho, float(setting.margin), b)
    args = _args(model, setting, lrho, ell0, lM, rows, b)
    full = np.ones_like(lM)
    zero = model.ps == 0
    at_zero = (args[0][:, zero], lM[:, zero], *args[2:])
    out = {}
    for k in kinds:
        if k in AT_ZERO_ONLY:  # used at p = 0 alone: evaluated there (element-wise, so the same values), inf elsewhere
            out[k] = np.full(lM.shape, np.inf)
            out[k][:, zero] = np.nan_to_num(comp.log_slot(k, *at_zero) * full[:, zero], nan=np.inf)
        else:
            out[k] = np.nan_to_num(comp.log_slot(k, *args) * full, nan=np.inf)
    return args[0], out


AT_ZERO_ONLY = frozenset(("rank", "rank_cs", "rss_main@0", "rss_rem@0"))
"""The log forms :func:`log_sum_shares` and :func:`log_shares` read at p = 0 only."""


def log_sum_shares(
    comp: Compiled,
    model: Model,
    setting: BoundInputs,
    lrho: np.ndarray,
    lM: np.ndarray,
    rows=None,
    norms=None,
    forms: bool = True,
):
    """Float64 logs of each slot's share of the sum-aggregated Dudley integral at every grid point, and its form:
    p = 0 the rank cover (``lM`` = log rank), p > 0 the smaller of the crude and the sharp (p < 2) cover (``forms``
    False: None for the forms)."""
    norms = _norms(model, setting) if norms is None else norms
    ps, out = _log_forms(
        comp, model, setting, lrho, lM, rows, ("crude_share", "sharp_share", "rounding", "rank"), norms
    )
    zero = ps == 0
    with np.errstate(invalid="ignore"):
        crude = np.where(zero, np.inf, np.logaddexp(out["crude_share"], out["rounding"]))
        sharp = np.where(zero | (ps >= 2), np.inf, np.logaddexp(out["sharp_share"], out["rounding"]))
    shares = np.where(zero, out["rank"], np.minimum(crude, sharp))
    return shares, np.where(zero, "rank", np.where(sharp < crude, "sharp", "crude")) if forms else None


def log_shares(
    comp: Compiled, model: Model, setting: BoundInputs, lrho: np.ndarray, lM: np.ndarray, rows=None, norms=None
):
    """:func:`log_sum_shares`, the Cauchy-Schwarz (rss, unequal p) summands and forms (sharp needs p < 1 there,
    crude p < 2), and the equal-p rss sums' summands."""
    norms = _norms(model, setting) if norms is None else norms
    return (
        *log_sum_shares(comp, model, setting, lrho, lM, rows, norms),
        *_rss_shares(comp, model, setting, lrho, lM, rows, norms),
    )


def _rss_shares(comp: Compiled, model: Model, setting: BoundInputs, lrho: np.ndarray, lM: np.ndarray, rows, norms):
    """The rss part of :func:`log_shares`: Cauchy-Schwarz summands and forms, equal-p summands."""
    ps, out = _log_forms(
        comp,
        model,
        setting,
        lrho,
        lM,
        rows,
        (
            "crude_share_cs",
            "sharp_share_cs",
            "rounding_cs",
            "rank_cs",
            "rss_main",
            "rss_rem",
            "rss_main@0",
            "rss_rem@0",
        ),
        norms,
    )
    zero = ps == 0
    with np.errstate(invalid="ignore"):
        crude_cs = np.where(zero | (ps >= 2), np.inf, np.logaddexp(out["crude_share_cs"], out["rounding_cs"]))
        sharp_cs = np.where(zero | (ps >= 1), np.inf, np.logaddexp(out["sharp_share_cs"], out["rounding_cs"]))
    log_cs = np.where(zero, out["rank_cs"], np.minimum(crude_cs, sharp_cs))
    form_cs = np.where(zero, "rank", np.where(sharp_cs < crude_cs, "sharp", "crude"))
    main = np.where(zero, out["rss_main@0"], out["rss_main"])
    rem = np.where(zero, out["rss_rem@0"], out["rss_rem"])
    return log_cs, form_cs, main, rem


_MEMO: ContextVar[dict | None] = ContextVar("whole_bound_memo", default=None)


@contextmanager
def remembering():
    """Within it, what does not depend on n (rho, the input norm bounds ``B_k``, the radii tables, Edelman's ``W_E``)
    is computed once per model, variant and precision: a solve for n evaluates the bound at many n."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def _remembered(model: Model, key: tuple, compute):
    """``compute()``, once per ``(model, key)`` inside :func:`remembering` (the model is kept with its value)."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
    full = (id(model), *key)
    if full not in memo:
        memo[full] = (model, compute())
    return memo[full][1]


def _norms(model: Model, setting: BoundInputs) -> list:
    """Each slot's input norm bound ``B_k`` at ``setting.dps`` digits."""

    def compute():
        with mpmath.workdps(setting.dps):
            return input_norms(model, setting.input_norm)

    return _remembered(model, ("norms", setting.input_norm, setting.dps), compute)


def schatten_shells(model: Model) -> np.ndarray:
    """K x P: :meth:`Slot.schatten_shell` at every slot and grid point (0 where p = 0), vectorised."""
    sp_grid = np.array([s.schatten for s in model.slots], dtype=np.float64).reshape(model.K, len(model.ps))
    log_sp = np.array([s.log_schatten for s in model.slots], dtype=np.float64).reshape(sp_grid.shape)
    finite = np.isfinite(sp_grid)
    mantissa, exponent = np.frexp(np.where(finite & (sp_grid > 0), sp_grid, 1.0))
    z = np.where(sp_grid > 0, np.where(mantissa == 0.5, exponent - 1, exponent), 0)
    with np.errstate(invalid="ignore"):
        beyond = np.ceil(np.where(finite, 0.0, log_sp) / math.log(2) * (1 + 1e-12))
    z = np.where(finite, z, beyond).astype(np.int64)
    return np.where(model.ps == 0, 0, z)


def radii_tables(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """K x P: ``ln M`` (log rank at p = 0, else the dyadic shell of ``S_p``) and the union price of each choice."""
    z = schatten_shells(model)
    lM = z * math.log(2)
    shells, at = np.unique(z, return_inverse=True)
    cost = np.array([shell_cost(int(v)) for v in shells])[at].reshape(z.shape)  # the scalar formula per distinct shell
    zero = model.ps == 0  # a zero matrix is in the rank-1 class: the union runs over ranks 1..D
    lM[:, zero] = np.array([math.log(max(s.rank, 1)) for s in model.slots])[:, None]
    cost[:, zero] = np.array([math.log(s.dim) for s in model.slots])[:, None]
    return lM, cost


LEFT_OUT = np.empty((0, 0))
"""A part of :class:`Tables` not computed (no entries: indexing it fails)."""


def tables(
    model: Model,
    variant: Variant,
    setting: BoundInputs,
    comp: Compiled | None = None,
    shrink=None,
    parts: tuple[str, ...] = ("sum", "rss"),
) -> Tables:
    """Every slot's shares and prices at every grid point; ``shrink[k]`` (optional) divides ``rho_k`` (break-even);
    ``parts``: the sum aggregation's shares (``log_sum``, ``form_sum``), the rss one's (``log_cs``, ``form_cs``,
    ``log_main``, ``log_rem``) or both (a part left out is :data:`LEFT_OUT`)."""
    comp = comp or compiled(setting.constants)
    rho, lrho, norms, lM, cost, base, s_cost, slot_args = _fixed(model, variant, setting, shrink)
    log_sum, form_sum = (
        log_sum_shares(comp, model, setting, lrho, lM, norms=norms) if "sum" in parts else (LEFT_OUT,) * 2
    )
    log_cs, form_cs, main, rem = (
        _rss_shares(comp, model, setting, lrho, lM, None, norms) if "rss" in parts else (LEFT_OUT,) * 4
    )
    return Tables(lrho, rho, norms, log_sum, form_sum, log_cs, form_cs, main, rem, cost, lM, base, s_cost, slot_args)


def _fixed(model: Model, variant: Variant, setting: BoundInputs, shrink=None) -> tuple:
    """What :func:`tables` needs that does not depend on n: rho (``shrink[k]`` divides ``rho_k``), its float64 logs,
    the input norm bounds ``B_k``, the radii tables and the union prices; :func:`remembering` keeps them (without
    ``shrink``) per variant, input norm and precision."""
    if shrink is None:
        return _remembered(
            model, ("tables", variant, setting.input_norm, setting.dps), lambda: _fixed(model, variant, setting, ())
        )
    with mpmath.workdps(setting.dps):
        rho = rhos(model, variant, input_norm=setting.input_norm)
        if shrink:
            rho = [r / mpmath.mpf(f) for r, f in zip(rho, shrink)]
        lrho = np.array([float(mpmath.log(r)) for r in rho])
    lM, cost = radii_tables(model)
    s_cost = sum(shell_cost(s.s_shell) for s in model.slots)
    base = model.K * math.log(2 * model.grid_m + 1) + s_cost + model.norm_cost()
    return rho, lrho, _norms(model, setting), lM, cost, base, s_cost, {}


@dataclass(frozen=True)
class Objective:
    """``log(exp(a + scale * logsumexp(shares)) + c_conf sqrt(cost / (2n)))``: float64 logs of the whole bound's
    p-dependent part (``scale`` 1 for sum aggregation, 1/2 under the square root of rss)."""

    log_prefactor: float
    power: float
    c_conf: float
    ln_n: float

    def __call__(self, log_shares_total: np.ndarray, cost_total: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            post = np.log(self.c_conf) + 0.5 * (np.log(np.maximum(cost_total, 0)) - math.log(2) - self.ln_n)
        return np.logaddexp(self.log_prefactor + self.power * log_shares_total, post)


def objective_for(comp: Compiled, setting: BoundInputs, aggregation: str) -> Objective:
    with mpmath.workdps(setting.dps):
        log_pre = float(mpmath.log(comp.prefactor(mpmath.mpf(setting.margin), mpmath.mpf(setting.n))))
        c_conf = float(comp.values[sp.Symbol("c_conf", positive=True)])
    if aggregation == "sum":
        return Objective(log_pre, 1.0, c_conf, _ln(setting.n))
    return Objective(log_pre + 0.5 * math.log(setting.margin), 0.5, c_conf, _ln(setting.n))


def coordinate_descent_plain(
    log_v: np.ndarray, cost: np.ndarray, base_cost: float, objective: Objective, start: np.ndarray
) -> tuple[np.ndarray, float]:
    """Per slot, the grid index that minimises the objective given the others; sweeps until no slot moves.

    The straightforward form (O(K^2 P) per sweep), kept as the reference the fast descent
    (:func:`sabounds.numerics.bound.descent.coordinate_descent`, which :func:`choose` uses) is tested against."""
    choice = start.copy()
    rows = np.arange(len(choice))
    best = float(objective(_logsumexp(log_v[rows, choice]), base_cost + cost[rows, choice].sum()))
    for _ in range(MAX_SWEEPS):
        moved = False
        for k in range(len(choice)):
            current = log_v[rows, choice]
            others = np.delete(current, k)
            cand = np.concatenate([np.broadcast_to(others, (log_v.shape[1], len(others))), log_v[k][:, None]], axis=1)
            c_other = base_cost + cost[rows, choice].sum() - cost[k, choice[k]]
            values = objective(_logsumexp(cand), c_other + cost[k])
            j = int(np.argmin(values))
            if values[j] < values[choice[k]] and values[j] < best:
                choice[k], best, moved = j, float(values[j]), True
        if not moved:
            break
    return choice, best


def choose(
    log_v: np.ndarray, cost: np.ndarray, base_cost: float, objective: Objective, descent=coordinate_descent
) -> np.ndarray:
    """The better of two descents: from every slot at p = 0, and from each slot's own minimiser of ``log_v``
    (``descent``: the fast one, or :func:`coordinate_descent_plain`)."""
    zero = np.zeros(log_v.shape[0], dtype=int)
    own = np.argmin(log_v, axis=1)
    a, va = descent(log_v, cost, base_cost, objective, zero)
    b, vb = descent(log_v, cost, base_cost, objective, own)
    return a if va <= vb else b


def _mp_slot(comp: Compiled, model: Model, setting: BoundInputs, t: Tables, i: int, j: int, kind: str):
    """Slot ``i``'s value ``kind`` at grid point ``j`` in mpmath; its arguments other than n are built once per
    tables' rho (``t.slot_args``)."""
    key = (i, j, comp, setting.margin, setting.tokens, mpmath.mp.prec)
    args = t.slot_args.get(key)
    if args is None:
        s = model.slots[i]
        p = model.ps[j]
        if p == 0:  # the rank, exactly (a zero matrix counts as rank 1, as in :func:`tables`)
            m = mpmath.mpf(max(s.rank, 1))
        else:
            m = mpmath.ldexp(1, s.schatten_shell(j))
        rho, b = t.rho, t.norms[i]
        ell0 = comp.ell0(mpmath.ldexp(1, s.s_shell), mpmath.mpf(model.K), rho[i], mpmath.mpf(setting.margin), b)
        p_mp = mpmath.mpf(0) if p == 0 else mpmath.mpf(int(round(p * model.grid_m))) / model.grid_m
        fixed = (
            p_mp,
            m,
            s.d_in,
            s.d_out,
            s.dim,
            mpmath.mpf(model.K),
            rho[i],
            mpmath.mpf(setting.margin),
            b,
            mpmath.mpf(setting.tokens),
        )
        args = t.slot_args[key] = (fixed, ell0, comp.arguments_id(fixed + (ell0,)))
    n = mpmath.mpf(setting.n)
    return comp.slot_at(kind, args[2], n, (*args[0], n, args[1]))


def _common_terms(comp: Compiled, setting: BoundInputs, cost: float) -> list[Term]:
    n = mpmath.mpf(setting.n)
    return [
        Term(
            "post_hoc",
            "post hoc: union over P_m per slot and dyadic shells of the radii",
            comp.post_hoc(mpmath.mpf(cost), n),
        ),
        Term("confidence", "confidence: c_conf sqrt(log(2/delta)/(2n))", comp.confidence(mpmath.mpf(setting.delta), n)),
    ]


def _empirical(setting: BoundInputs) -> Term:
    label = "empirical margin risk" + (" (no data: 0)" if setting.empirical == 0 else "")
    return Term("empirical", label, mpmath.mpf(setting.empirical))


def _norm_parts(model: Model) -> dict[str, float]:
    """The norm radii's union price as a part of the post hoc price, where the model has norm radii."""
    priced = model.family is not None or model.token_radii is not None or model.input_radius is not None
    return {"norm_shells": model.norm_cost()} if priced else {}


def _cost_parts(model: Model, t: Tables, choice: np.ndarray, grid: bool = True) -> dict[str, float]:
    rows = np.arange(model.K)
    chosen = t.cost[rows, choice]
    zero = model.ps[choice] == 0
    return {
        "grid_union": model.K * math.log(2 * model.grid_m + 1) if grid else 0.0,
        "spectral_shells": t.s_cost,
        "rank_choices": float(chosen[zero].sum()),
        "schatten_shells": float(chosen[~zero].sum()),
        **_norm_parts(model),
    }


def ours_sum(comp: Compiled, model: Model, setting: BoundInputs, t: Tables) -> BoundValue:
    choice = choose(t.log_sum, t.cost, t.base_cost, objective_for(comp, setting, "sum"))
    rows = np.arange(model.K)
    forms = tuple(t.form_sum[rows, choice])
    parts = _cost_parts(model, t, choice)
    with mpmath.workdps(setting.dps):
        shares = [_mp_slot(comp, model, setting, t, i, j, f) for i, (j, f) in enumerate(zip(choice, forms))]
        pre = comp.prefactor(mpmath.mpf(setting.margin), mpmath.mpf(setting.n))
        by_type = {}
        for s, v in zip(model.slots, shares):
            by_type[s.type] = by_type.get(s.type, 0) + pre * v
        terms = [_empirical(setting)]
        terms += [Term(f"dudley_{k}", f"Dudley integral, {k} slots (sum aggregation)", v) for k, v in by_type.items()]
        terms += _common_terms(comp, setting, sum(parts.values()))
    return BoundValue("ours_sum", "Theorem 3.1, sum aggregation", tuple(terms), model.ps[choice], forms, parts)


def ours_rss(comp: Compiled, model: Model, setting: BoundInputs, t: Tables) -> BoundValue:
    """The smaller of: all slots at one p (exact rss integral, crude tail) and unequal p (Cauchy-Schwarz)."""
    rows = np.arange(model.K)
    obj_cs = objective_for(comp, setting, "rss")
    choice_cs = choose(t.log_cs, t.cost, t.base_cost, obj_cs)
    best_cs = float(obj_cs(_logsumexp(t.log_cs[rows, choice_cs]), t.base_cost + t.cost[rows, choice_cs].sum()))
    obj_eq = objective_for(comp, setting, "sum")
    eq_values = []
    with mpmath.workdps(setting.dps):
        round_main = mpmath.fsum(_mp_slot(comp, model, setting, t, i, 0, "rss_round_main") for i in range(model.K))
        round_rem = mpmath.fsum(_mp_slot(comp, model, setting, t, i, 0, "rss_round_rem") for i in range(model.K))
        rounding = float(comp.rss_rounding(mpmath.mpf(setting.margin), round_main, round_rem))
    for j, p in enumerate(model.ps):
        i0, i1 = comp.integrals(p, float(setting.margin))
        with np.errstate(divide="ignore"):
            dudley = np.logaddexp(
                0.5 * _logsumexp(t.log_main[:, j]) + np.log(i0), 0.5 * _logsumexp(t.log_rem[:, j]) + np.log(i1)
            )
            if p > 0:
                dudley = np.logaddexp(dudley, np.log(rounding))
        eq_values.append(float(obj_eq(np.array(dudley), t.base_cost + t.cost[:, j].sum())))
    j_eq = int(np.argmin(eq_values))
    with mpmath.workdps(setting.dps):
        pre = comp.prefactor(mpmath.mpf(setting.margin), mpmath.mpf(setting.n))
        if eq_values[j_eq] <= best_cs:
            choice = np.full(model.K, j_eq)
            rank = "_rank" if j_eq == 0 else ""
            main = mpmath.fsum(_mp_slot(comp, model, setting, t, i, j_eq, "rss_main" + rank) for i in range(model.K))
            rem = mpmath.fsum(_mp_slot(comp, model, setting, t, i, j_eq, "rss_rem" + rank) for i in range(model.K))
            dudley = pre * comp.rss_equal(mpmath.mpf(j_eq) / model.grid_m, mpmath.mpf(setting.margin), main, rem)
            if j_eq > 0:
                dudley += pre * comp.rss_rounding(mpmath.mpf(setting.margin), round_main, round_rem)
            forms = tuple(["rank" if j_eq == 0 else "crude"] * model.K)
            label = f"Dudley integral, rss aggregation, every slot at p = {model.ps[j_eq]:.4g} (exact)"
        else:
            choice = choice_cs
            forms = tuple(t.form_cs[rows, choice])
            total = mpmath.fsum(
                _mp_slot(comp, model, setting, t, i, j, f + "_cs") for i, (j, f) in enumerate(zip(choice, forms))
            )
            dudley = pre * comp.rss_cs(mpmath.mpf(setting.margin), total)
            label = "Dudley integral, rss aggregation, unequal p (Cauchy-Schwarz)"
        parts = _cost_parts(model, t, choice)
        terms = [_empirical(setting), Term("dudley", label, dudley), *_common_terms(comp, setting, sum(parts.values()))]
    return BoundValue("ours_rss", "Theorem 3.1, rss aggregation", tuple(terms), model.ps[choice], forms, parts)


def edelman_only(model: Model, variant: Variant, setting: BoundInputs) -> BoundValue:
    """:func:`edelman` without the tables of our bound (it needs only rho and the radii)."""
    s_cost = sum(shell_cost(s.s_shell) for s in model.slots)
    return edelman(compiled(setting.constants), model, variant, setting, _norms(model, setting), s_cost)


def edelman(
    comp: Compiled, model: Model, variant: Variant, setting: BoundInputs, norms: list, s_cost: float
) -> BoundValue:
    """Edelman et al. (2022): ``W_E = (sum_k (rho^E_k w_k B_k)^{2/3})^{3/2}`` over the dyadic (2,1)-radii ``w_k``, with
    Edelman's ``gamma^E`` (no attention factor c/2 on QK) and each slot's input norm bound ``B_k`` (``norms``; ``B = 1``
    outside); ``s_cost`` the spectral radii's union price."""
    with mpmath.workdps(setting.dps):

        def compute():
            rho_e = rhos(model, variant, edelman=True, input_norm=setting.input_norm)
            return norms, mpmath.fsum(
                (r * b * mpmath.ldexp(1, s.w_shell)) ** (mpmath.mpf(2) / 3)
                for r, b, s in zip(rho_e, norms, model.slots)
            ) ** 1.5

        # W_E does not depend on n; the norms are kept with it, so their id names them while it is remembered
        w_e = _remembered(model, ("edelman", variant, setting.input_norm, setting.dps, id(norms)), compute)[1]
        d_max = max(s.d_in * s.d_out for s in model.slots)
        dudley = comp.edelman(
            w_e,
            mpmath.mpf(1),
            mpmath.mpf(setting.margin),
            mpmath.mpf(setting.margin),
            mpmath.mpf(setting.n),
            mpmath.mpf(setting.tokens),
            mpmath.mpf(d_max),
        )
        parts = {
            "spectral_shells": s_cost,
            "two_one_shells": sum(shell_cost(s.w_shell) for s in model.slots),
            **_norm_parts(model),
        }
        terms = [
            _empirical(setting),
            Term("dudley", "Dudley integral, Edelman's norm-based cover (cut at Delta/n)", dudley),
            *_common_terms(comp, setting, sum(parts.values())),
        ]
        terms[2] = Term("post_hoc", "post hoc: dyadic shells of the spectral and (2,1) radii", terms[2].value)
    return BoundValue("edelman", "Edelman et al. (2022), same margin bound", tuple(terms), None, None, parts)


def evaluate_model(model: Model, variant: Variant, setting: BoundInputs) -> WholeBound:
    """Ours (sum and rss aggregation) and Edelman's, term by term, at ``setting``."""
    comp = compiled(setting.constants)
    t = tables(model, variant, setting, comp)
    return WholeBound(
        ours_sum(comp, model, setting, t),
        ours_rss(comp, model, setting, t),
        edelman(comp, model, variant, setting, t.norms, t.s_cost),
        variant,
        setting,
    )
