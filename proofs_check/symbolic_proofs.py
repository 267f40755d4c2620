"""What sympy can prove about a relation on its own: an inequality's sign by sign inference, an identity by rewritings
valid for positive symbols (or after a reparametrisation that shows sympy a range's upper end).  Each returns the
operation that established it, so a ``proved`` verdict names it.
"""

from __future__ import annotations

import sympy as sp


def gap_of(relation: sp.Basic) -> tuple[sp.Expr, bool]:
    """``(g, strict)`` with the relation equivalent to ``g >= 0`` (or ``g > 0`` when ``strict``)."""
    if isinstance(relation, (sp.LessThan, sp.StrictLessThan)):
        return relation.rhs - relation.lhs, isinstance(relation, sp.StrictLessThan)
    if isinstance(relation, (sp.GreaterThan, sp.StrictGreaterThan)):
        return relation.lhs - relation.rhs, isinstance(relation, sp.StrictGreaterThan)
    raise TypeError(f"not an inequality: {relation}")


def symbolic_sign(g: sp.Expr, strict: bool) -> tuple[bool | None, str]:
    for form, how in ((g, "sign inference"), (sp.factor(sp.simplify(g)), "simplify + factor, then sign inference")):
        ok = form.is_positive if strict else form.is_nonnegative
        if ok is not None:
            return ok, f"{how} on rhs - lhs = {form}"
    return None, ""


def prove_equal(lhs: sp.Expr, rhs: sp.Expr) -> str | None:
    """Try sympy rewritings that are valid for positive symbols; return the one that reduced ``lhs - rhs`` to 0."""
    diff = lhs - rhs
    if sp.simplify(diff) == 0:
        return "simplify(lhs - rhs) == 0"
    if sp.simplify(sp.powsimp(sp.expand_power_base(diff))) == 0:
        return "expand_power_base + powsimp + simplify(lhs - rhs) == 0 (positive bases)"
    if lhs.is_positive and rhs.is_positive:
        logdiff = sp.expand_log(sp.log(lhs) - sp.log(rhs))
        if sp.simplify(logdiff) == 0:
            return "expand_log(log lhs - log rhs) simplifies to 0 (both sides positive)"
    return None


def _equal_after(lhs: sp.Expr, rhs: sp.Expr) -> str | None:
    """``log`` route first (cheap when sympy knows both sides positive), then ``powsimp`` (powers of positive bases),
    then ``simplify`` of the difference."""
    if lhs.is_positive and rhs.is_positive and sp.simplify(sp.expand_log(sp.log(lhs) - sp.log(rhs))) == 0:
        return "expand_log(log lhs - log rhs) simplifies to 0 (both sides positive)"
    if sp.simplify(sp.powsimp(sp.expand_power_base(lhs - rhs))) == 0:
        return "expand_power_base + powsimp + simplify(lhs - rhs) == 0 (positive bases)"
    if sp.simplify(lhs - rhs) == 0:
        return "simplify(lhs - rhs) == 0"
    return None


def prove_reparametrised(lhs: sp.Expr, rhs: sp.Expr, domain) -> str | None:
    """An identity sympy cannot simplify while a positive symbol's range ends below an integer h (``p < 2`` keeps
    ``2 - p > 0``, which sympy cannot see from ``p > 0``): substitute ``s = h k / (1 + k)``, k > 0 (a bijection onto
    (0, h)), then ``_equal_after``.  Returns what was proved, for every s in (0, h), or ``None``."""
    for s_, iv in (domain or {}).items():
        lo, hi = sp.sympify(iv.lo), sp.sympify(iv.hi)
        if not (s_.is_positive and lo.is_nonnegative and hi.is_Rational and not hi.is_Integer and hi > 0):
            continue
        h = sp.ceiling(hi)
        k = sp.Symbol("k", positive=True)
        sub = {s_: h * k / (1 + k)}
        how = _equal_after(lhs.subs(sub).doit(), rhs.subs(sub).doit())
        if how:
            return (
                f"{how} after substituting {s_} = {h} k/(1 + k), k > 0, so for every {s_} in (0, {h}) "
                f"(the sampled range [{lo}, {hi}] included)"
            )
    return None
