"""Exact numbers as text for verdicts: short exact forms, witness coordinates that are JSON floats only when float64
holds them exactly (otherwise exact decimals or fractions)."""

from __future__ import annotations

import math

import sympy as sp


def exact_text(value: sp.Rational) -> str:
    """``value`` exactly and briefly: as sympy prints it when short, else ``d.ddd...e-k`` (every digit kept)."""
    text = str(value)
    r = abs(sp.Rational(value))
    q, twos, fives = r.q, 0, 0
    while q % 2 == 0:
        q, twos = q // 2, twos + 1
    while q % 5 == 0:
        q, fives = q // 5, fives + 1
    if len(text) <= 24 or q != 1:  # short, or not a terminating decimal: sympy's fraction is the exact form
        return text
    k = max(twos, fives)
    n = r.p * 10**k // r.q
    digits = str(n).rstrip("0")
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return ("-" if value < 0 else "") + f"{mantissa}e{len(str(n)) - 1 - k:+d}"


def exact_str(v: sp.Expr) -> str:
    """An exact number as text: a decimal when it terminates, ``p/q`` otherwise, sympy's form for irrationals."""
    return _decimal_text(v) if isinstance(v, sp.Rational) else str(v)


def witness_number(r: sp.Rational) -> float | str:
    """A witness coordinate: a JSON float when float64 holds it exactly, otherwise its exact text (decimal or p/q)."""
    r = sp.Rational(r)
    f = float(r)
    if math.isfinite(f) and sp.Rational(f) == r:
        return f
    return _decimal_text(r)


def _decimal_text(r: sp.Rational) -> str:
    """``r`` exactly: a plain decimal (``0.1``, ``1.0000000000000000001``) when it terminates, else ``p/q``."""
    q, k = r.q, 0
    while q % 2 == 0 or q % 5 == 0:
        q //= 2 if q % 2 == 0 else 5
    if q != 1:
        return str(r)
    while (r * 10**k).q != 1:
        k += 1
    n = abs(int(r * 10**k))
    digits = str(n).rjust(k + 1, "0")
    text = digits[:-k] + "." + digits[-k:] if k else digits
    if len(text) > 60:
        return exact_text(r)
    return ("-" if r < 0 else "") + text
