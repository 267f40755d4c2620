"""A user's bound from a TOML file, as a :class:`sabounds.theory.bound.Bound` (source label ``user``).

Every expression is parsed by the package's whitelisted parser (``sabounds.theory.expression``: never ``eval``)
against the symbol table ``sabounds.theory.symbols.NAMED`` (``form`` may also use ``W`` and ``ell``).  The file
is read by the one bounded reader (``sabounds.numerics.user_files``: a regular file within ``LIMITS``); any fault is one line naming the entry (``UserError``: exit 2).  Keys: ``id``, ``title``,
``term`` (one slot's share), ``aggregation`` (sum, rss, power_mean_2/3, exp), ``propagation`` (none,
gamma_edelman), ``log_factor``, optional ``form``, ``assumptions``, ``citation``.  See docs/bounds.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import sympy as sp

from sabounds.errors import UserError
from sabounds.numerics.user_files import Limits, read_toml
from sabounds.theory import symbols as S
from sabounds.theory.bound import AGGREGATIONS, DUDLEY_FORM, Bound, Proxy, W, ell
from sabounds.theory.expression import ExpressionError, parse_relation

MAX_BYTES = 64 * 1024
LIMITS = Limits(MAX_BYTES, max_key_parts=4, max_depth=4, max_items=100, max_keys=64, max_digits=100)
KEYS = {"id", "title", "term", "aggregation", "propagation", "log_factor", "form", "assumptions", "citation"}
REQUIRED = ("id", "term", "aggregation", "propagation", "log_factor")
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")


def _expr(path: Path, key: str, text, names: dict) -> sp.Expr:
    if not isinstance(text, str):
        raise UserError(f"{path}: entry {key}: must be a string holding an expression")
    try:
        expr = parse_relation(f"0 <= {text}", names).rhs
    except ExpressionError as exc:
        raise UserError(f"{path}: entry {key}: {exc}") from None
    if key != "form" and (expr.is_positive is False or expr.is_real is False):
        raise UserError(
            f"{path}: entry {key}: {text[:80]!r} is not positive for positive values of its symbols; "
            "a bound's term and log factor must be positive real numbers"
        )
    return expr


def _text(path: Path, key: str, data: dict, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or len(value) > 2000 or not value.isprintable():
        raise UserError(f"{path}: entry {key}: must be one line of printable text (at most 2000 characters)")
    return value


def load_bound(path) -> Bound:
    """The bound described by the TOML file at ``path`` (one-line :class:`UserError` for anything malformed)."""
    path = Path(path)
    data = read_toml(path, "bound file", LIMITS, UserError)
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise UserError(f"{path}: entry {unknown[0]}: unknown key; known: {', '.join(sorted(KEYS))}")
    for key in REQUIRED:
        if key not in data:
            raise UserError(f"{path}: entry {key}: missing")
    ident = _text(path, "id", data)
    if not _ID.match(ident):
        raise UserError(f"{path}: entry id: {ident[:40]!r} must be a letter then letters, digits or _ (at most 40)")
    aggregation, propagation = _text(path, "aggregation", data), _text(path, "propagation", data)
    if aggregation not in AGGREGATIONS:
        raise UserError(f"{path}: entry aggregation: {aggregation[:40]!r} is not one of {', '.join(AGGREGATIONS)}")
    if propagation not in ("none", "gamma_edelman"):
        raise UserError(f"{path}: entry propagation: {propagation[:40]!r} is not one of none, gamma_edelman")
    slot_names = {k: v for k, v in S.NAMED.items() if v in (S.rho, S.w_11, S.w_21, S.F2, S.s, S.d_in, S.d_out)}
    if propagation == "none":
        slot_names.pop("rho")
    term = _expr(path, "term", data["term"], slot_names)
    log_factor = _expr(path, "log_factor", data["log_factor"], {k: S.NAMED[k] for k in ("d_in", "d_out", "n", "T")})
    form = (
        DUDLEY_FORM
        if "form" not in data
        else _expr(
            path, "form", data["form"], {**{k: S.NAMED[k] for k in ("B", "Delta", "n", "T")}, "W": W, "ell": ell}
        )
    )
    return Bound(
        ident,
        _text(path, "title", data, ident),
        "user",
        term,
        aggregation,
        propagation,
        log_factor,
        _text(path, "assumptions", data),
        _text(path, "citation", data, "user file"),
        form,
        proxies=(Proxy(ident, term, aggregation, propagation, "user"),),
    )
