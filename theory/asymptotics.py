"""Growth orders of positive expressions as one variable tends to infinity, by sympy limits of log-ratios.

The growth of ``f`` in ``v`` is the triple ``(rate, power, log_power)`` with

    rate = lim log f / v,   power = lim (log f - rate v) / log v,
    log_power = lim (log f - rate v - power log v) / log log v,

ordered lexicographically: ``f ~ e^{rate v} v^power (log v)^log_power`` (slower factors, such as
``log log v``, are below its resolution).  Products add growths, a power ``f^e`` with ``e`` free of
``v`` scales it, a sum whose ``v``-dependent terms are positive takes the largest of their
growths (and of 0 when a ``v``-free term is present: the whole sum is positive), ``b^{a v}`` has
rate ``a log b`` and ``log f`` has power 1 if f grows exponentially, log-power 1 if f grows like a
power; every other sub-expression is an *atom*
whose triple comes from ``sympy.limit`` of the three log-ratios above.  Working atom by atom keeps the
limits small and fast; all exponents are exact sympy numbers or expressions in the other symbols.

Comparisons involving a symbol ``p`` confined to an interval ``(lo, hi)`` are decided by sympy sign
inference after the substitution ``p = lo + (hi - lo) t/(1 + t)``, ``t > 0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

_t = sp.Symbol("t_reparam", positive=True)


@dataclass(frozen=True)
class Growth:
    """``e^{rate v} v^power (log v)^log_power``; ``rate > 0`` is exponential growth."""

    rate: sp.Expr = sp.Integer(0)
    power: sp.Expr = sp.Integer(0)
    log_power: sp.Expr = sp.Integer(0)

    def __add__(self, other: Growth) -> Growth:
        return Growth(self.rate + other.rate, self.power + other.power, self.log_power + other.log_power)

    def scale(self, e: sp.Expr) -> Growth:
        return Growth(self.rate * e, self.power * e, self.log_power * e)

    def subs(self, mapping) -> Growth:
        return Growth(*(sp.simplify(sp.sympify(c).subs(mapping)) for c in self.parts))

    @property
    def parts(self) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
        return (self.rate, self.power, self.log_power)

    @property
    def exponential(self) -> bool:
        return bool(sp.simplify(self.rate) != 0)

    def simplified(self) -> Growth:
        return Growth(*(sp.factor(sp.cancel(c)) if c.free_symbols else sp.nsimplify(c) for c in self.parts))


@dataclass(frozen=True)
class Domain:
    """Where a symbol ``p`` may range while comparing growths: the open interval ``(lo, hi)``; ``p=None`` for none."""

    p: sp.Symbol | None = None
    lo: sp.Expr = sp.Integer(0)
    hi: sp.Expr = sp.Integer(2)

    def reparam(self, e: sp.Expr) -> sp.Expr:
        if self.p is None or self.p not in e.free_symbols:
            return e
        return e.subs(self.p, self.lo + (self.hi - self.lo) * _t / (1 + _t))


@lru_cache(maxsize=4096)
def sign(e: sp.Expr, domain: Domain) -> int | None:
    """Sign of ``e`` for every p in the domain (``-1, 0, 1``), or ``None`` when sympy cannot decide it."""
    e = sp.sympify(e)
    if e == 0:
        return 0
    r = domain.reparam(e)
    if r.is_positive:
        return 1
    if r.is_negative:
        return -1
    e = sp.simplify(e)
    if e == 0:
        return 0
    for form in (domain.reparam(e), sp.factor(sp.together(domain.reparam(e)))):
        if form.is_positive:
            return 1
        if form.is_negative:
            return -1
    return None


def compare(a: Growth, b: Growth, domain: Domain) -> int | None:
    """Lexicographic comparison of growths on the domain; ``None`` if undecidable."""
    for x, y in zip(a.parts, b.parts):
        s = sign(x - y, domain)
        if s is None:
            return None
        if s:
            return s
    return 0


@lru_cache(maxsize=2048)
def atom_growth(f: sp.Expr, v: sp.Symbol) -> Growth:
    """The growth triple of a positive ``f`` from three ``sympy.limit`` calls on log-ratios."""
    logf = sp.expand_log(sp.log(f), force=True)
    rate = sp.limit(logf / v, v, sp.oo)
    if rate.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.Limit):
        raise ArithmeticError(f"growth of {f} in {v} is faster than exponential or undecided")
    rest = logf - rate * v
    power = sp.limit(rest / sp.log(v), v, sp.oo)
    rest = rest - power * sp.log(v)
    log_power = sp.limit(rest / sp.log(sp.log(v)), v, sp.oo)
    for part in (power, log_power):
        if part.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.Limit):
            raise ArithmeticError(f"sympy could not resolve the growth of {f} in {v}")
    return Growth(sp.simplify(rate), sp.simplify(power), sp.simplify(log_power))


def growth(f: sp.Expr, v: sp.Symbol, domain: Domain = Domain()) -> Growth:
    """Growth of a positive expression ``f`` as ``v -> oo`` (all other symbols fixed)."""
    f = sp.sympify(f)
    if v not in f.free_symbols:
        return Growth()
    if f == v:
        return Growth(power=sp.Integer(1))
    if isinstance(f, sp.Mul):
        out = Growth()
        for factor in f.args:
            out = out + growth(factor, v, domain)
        return out
    if isinstance(f, sp.Pow) and v not in f.exp.free_symbols:
        return growth(f.base, v, domain).scale(f.exp)
    if isinstance(f, sp.Pow) and v not in f.base.free_symbols and sp.diff(f.exp, v, 2) == 0 and f.base.is_positive:
        return Growth(rate=sp.diff(f.exp, v) * sp.log(f.base))  # b^{a v + c} = e^{(a log b) v} b^c
    if isinstance(f, sp.log):
        inner = growth(f.args[0], v, domain)
        if sign(inner.rate, domain) == 1:
            return Growth(power=sp.Integer(1))  # log e^{r v} = r v
        if sign(inner.rate, domain) == 0 and sign(inner.power, domain) == 1:
            return Growth(log_power=sp.Integer(1))  # log v^a = a log v
        if inner == Growth() or (
            sign(inner.rate, domain) == 0 and sign(inner.power, domain) == 0 and sign(inner.log_power, domain) in (0, 1)
        ):
            return Growth()  # log of a constant or of a power of log v: below the resolution
        return atom_growth(f, v)
    if isinstance(f, sp.Add):
        moving = [term for term in f.args if v in term.free_symbols]
        if all(positive(term, domain) for term in moving):
            best = Growth() if len(moving) < len(f.args) else None
            for term in moving:
                g = growth(term, v, domain)
                c = 1 if best is None else compare(g, best, domain)
                if c is None:
                    return atom_growth(f, v)
                if c > 0:
                    best = g
            return best
    return atom_growth(f, v)


@lru_cache(maxsize=4096)
def positive(term: sp.Expr, domain: Domain = Domain()) -> bool:
    """Structural positivity: sums, products and real powers of positive parts; a logarithm is positive
    when its argument exceeds 1 at sample points (every symbol in [2, 50], p inside the domain).

    The bounds' terms are positive by construction when ``n, N, T, L >= 2``; the samples confirm it
    for the logarithms sign inference cannot see (``log(2 N^2 n T)``).
    """
    if term.is_Number:
        return bool(term > 0)
    if term.is_Symbol:
        return bool(term.is_positive)
    if isinstance(term, sp.Mul):
        return all(positive(a, domain) for a in term.args)
    if isinstance(term, sp.Add) and all(positive(a, domain) for a in term.args):
        return True
    if isinstance(term, sp.Pow):
        return positive(term.base, domain) and bool(term.exp.is_real)
    if isinstance(term, sp.log):
        arg = term.args[0]
        return positive(arg, domain) and all(v > 1 for v in _samples(arg, domain))
    return all(v > 0 for v in _samples(term, domain))


def _samples(term: sp.Expr, domain: Domain) -> list:
    others = sorted(term.free_symbols - ({domain.p} if domain.p is not None else set()), key=str)
    out = []
    for k, base in enumerate((2, 7, 50)):
        point = {sym: sp.Integer(base + 3 * i) for i, sym in enumerate(others)}
        if domain.p is not None:
            point[domain.p] = domain.lo + (domain.hi - domain.lo) * sp.Rational(k + 1, 4)
        value = term.evalf(30, subs=point)
        out.append(value if value.is_real else sp.nan)
    return out


def minimise_over_p(g: Growth, p: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> tuple[Growth, sp.Expr | None]:
    """``(inf, argmin)`` over fixed ``p`` in the open interval ``(lo, hi)`` of the growth ``g(p)``, lexicographically.

    If the rate is positive for every p in the interval the growth is exponential throughout: the
    result is ``g`` at the midpoint with ``argmin = None``.  Otherwise candidates are the end points
    (as one-sided limits: an infimum that may not be attained) and the critical points of each
    component, found by ``sympy.solve`` on its derivative.
    """
    domain = Domain(p, lo, hi)
    if sign(g.rate, domain) == 1:
        mid = (sp.sympify(lo) + hi) / 2
        return Growth(*(part.subs(p, mid) for part in g.parts)), None
    candidates = {sp.sympify(lo), sp.sympify(hi)}
    for part in g.parts:
        if p in part.free_symbols:
            for root in sp.solve(sp.diff(part, p), p):
                if root.is_real and lo < root < hi:
                    candidates.add(root)
    best, arg = None, None
    for c in sorted(candidates, key=lambda x: float(x)):
        val = Growth(
            *(sp.limit(part, p, c, "+" if c == lo else "-") if p in part.free_symbols else part for part in g.parts)
        )
        if best is None or compare(val, best, Domain()) == -1:
            best, arg = val, c
    return best, arg
