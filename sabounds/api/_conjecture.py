"""``sabounds.conjecture``: decide a built-in family's proposed constant or a user's scalar relation
``"LHS <= RHS"`` over declared variables: proved, verified (numeric evidence), refuted (with a witness) or
unresolved.  The text is parsed (``sabounds.theory.expression``), never evaluated as code."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sabounds.api._common import check_settings
from sabounds.errors import InputError

if TYPE_CHECKING:
    import sympy as sp

    from sabounds.proofs_check.conjecture.free_form import FreeForm
    from sabounds.proofs_check.verdict import Outcome
    from sabounds.theory.checks import Interval

MAX_SAMPLES, MAX_PRECISION, MAX_SECONDS = 100_000, 1000, 60


@dataclass(frozen=True)
class Conjecture:
    """``sabounds.conjecture``'s result: ``json`` as ``conjecture --json`` (verdict, method, witness, margin,
    precision_digits, samples, claim, detail); ``seconds`` the time the decision took."""

    json: dict[str, Any] = field(repr=False)
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        """One of proved, verified, refuted, unresolved."""
        return str(self.json["verdict"])

    @property
    def witness(self) -> dict[str, Any] | None:
        """The point that refutes the claim (variable -> value), None when there is none."""
        witness: dict[str, Any] | None = self.json["witness"]
        return witness

    def to_json(self) -> dict[str, Any]:
        return self.json


def exact_number(text: str, what: str) -> sp.Rational:
    """A finite decimal (``1.13``, ``1e-3``) or a fraction (``113/100``) as the exact rational it spells
    (``sabounds.theory.expression.exact_decimal``: the same reader and caps as a relation's literals)."""
    from sabounds.theory.expression import ExpressionError, exact_decimal

    try:
        return exact_decimal(text, what)
    except ExpressionError as exc:
        raise InputError(str(exc)) from None


def parse_value(text: str) -> sp.Rational:
    """The proposed constant: a finite decimal or fraction as the exact rational it spells, |value| <= 1e100."""
    f = exact_number(text, "the value")
    if abs(f) > 10**100:
        raise InputError(f"the value {text!r} exceeds 1e100 in absolute value")
    return f


def parse_variable(spec: str) -> tuple[sp.Symbol, Interval]:
    """``name:lo:hi`` with an optional ``:int`` or ``:log`` flag -> (symbol, interval); the bounds are the exact
    rationals their decimal strings spell, never routed through a float."""
    from sabounds.proofs_check.conjecture import declare
    from sabounds.theory.expression import ExpressionError, check_name

    parts = spec.split(":")
    if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] not in ("int", "log")):
        raise InputError(f"variable {spec!r}: expected NAME:LO:HI, optionally followed by :int or :log")
    name = parts[0]
    lo, hi = exact_number(parts[1], f"the lower bound of {name}"), exact_number(parts[2], f"the upper bound of {name}")
    try:
        check_name(name)
        return declare(name, lo, hi, integer=parts[3:] == ["int"], log=parts[3:] == ["log"])
    except (ExpressionError, ValueError) as exc:
        raise InputError(f"variable {spec!r}: {exc}") from None


def _family(target: str, value: str | None, variables: Sequence[str]) -> Any:
    from sabounds.proofs_check.conjecture import FAMILIES

    if value is None:
        raise InputError(f"family {target} needs a proposed value C")
    ranges = {symbol.name: interval for symbol, interval in map(parse_variable, variables)}
    try:
        family: Any = FAMILIES[target]
        return family.build(parse_value(value), ranges)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _relation(target: str, variables: Sequence[str], time_limit: float) -> FreeForm:
    from sabounds.proofs_check.conjecture import FreeForm
    from sabounds.proofs_check.time_limit import TimeLimit
    from sabounds.proofs_check.time_limit import time_limit as limit
    from sabounds.theory.expression import ExpressionError, parse_with_requirements

    domain: dict[sp.Symbol, Interval] = {}
    for spec in variables:
        symbol, interval = parse_variable(spec)
        if symbol.name in {s.name for s in domain}:
            raise InputError(f"variable {symbol.name} given twice")
        domain[symbol] = interval
    try:
        with limit(time_limit):
            parsed = parse_with_requirements(target, {s.name: s for s in domain})
    except ExpressionError as exc:
        raise InputError(str(exc)) from None
    except TimeLimit:
        raise InputError(f"the expression took longer than the time limit of {time_limit:g} s to parse") from None
    relation, requirements = parsed.relation, parsed.requirements
    used = relation.free_symbols.union(*(r.expr.free_symbols for r in requirements))
    unused = [s.name for s in domain if s not in used]
    written = _names_in(target)
    absent, removed = [n for n in unused if n not in written], [n for n in unused if n in written]
    if absent:
        print(f"note: variable(s) {', '.join(absent)} do not occur in the relation", file=sys.stderr)
    if removed:
        print(
            f"note: the relation does not depend on variable(s) {', '.join(removed)}: sympy's exact simplification "
            "under the variables' assumptions (integer, sign) removed them",
            file=sys.stderr,
        )
    domain = {s: iv for s, iv in domain.items() if s in used}
    return FreeForm(
        relation,
        domain,
        budget=max(0.5, time_limit - 0.5),
        symbolic_seconds=min(1.0, time_limit / 4),
        requirements=requirements,
    )


def _names_in(text: str) -> set[str]:
    """The names written in a relation's text (the parser accepted it, so it is a Python expression)."""
    import ast

    return {node.id for node in ast.walk(ast.parse(text.strip(), mode="eval")) if isinstance(node, ast.Name)}


def conjecture_from(
    target: str, value: str | None = None, variables: Sequence[str] = (), time_limit: float = 4.0
) -> Any:
    """The family or free-form relation ``target`` names (all validation happens here, before deciding): an object
    with ``claim`` and ``decide(settings[, progress])``."""
    from sabounds.proofs_check.conjecture import FAMILIES

    if target in FAMILIES:
        return _family(target, value, variables)
    if not any(op in target for op in "<>"):
        raise InputError(
            f"unknown family {target!r}: choose from {', '.join(FAMILIES)}, or give a relation with <=, <, >= or >"
        )
    if value is not None:
        raise InputError("a value applies to families; a relation states its constants itself")
    if not (0 < time_limit <= MAX_SECONDS):
        raise InputError(f"the time limit must lie in (0, {MAX_SECONDS}] seconds")
    return _relation(target, variables, time_limit)


def record(conjecture: Any, outcome: Outcome) -> dict[str, Any]:
    """The JSON of one decision: verdict, method, witness, margin, precision_digits, samples, then claim and detail;
    no timing (same seed, same bytes)."""
    forms, detail = dict(outcome.exact_forms), outcome.detail
    margin, error = forms.get("margin", outcome.margin), forms.get("margin_error", outcome.margin_error)
    if outcome.verdict.value == "unresolved" and margin is not None and (error is None or (error == 0 and margin != 0)):
        # an unresolved margin without a certified error could be taken for a finding: withheld, with the reason
        margin, error, forms = None, None, {}
        detail += "; no margin is reported: the gap found has no certified error bound"
    return {
        "verdict": outcome.verdict.value,
        "method": outcome.method,
        "witness": dict(outcome.witness or {}) or None,
        "margin": margin,
        "margin_error": error,
        "scaled_margin": outcome.scaled_margin,
        "number_forms": {
            name: "decimal string (17 digits): its float64 would be 0, subnormal or infinite" for name in forms
        },
        "engines": list(dict.fromkeys(outcome.engines or getattr(conjecture, "engines", ()))),
        "precision_digits": outcome.precision_digits,
        "samples": outcome.samples,
        "claim": conjecture.claim,
        "detail": detail,
    }


def conjecture(
    target: str,
    value: str | float | None = None,
    variables: Sequence[str] = (),
    *,
    precision: int = 50,
    samples: int = 200,
    seed: int | None = None,
    time_limit: float = 4.0,
    progress: Callable[[str], None] | None = None,
) -> Conjecture:
    """Decide a built-in family's proposed constant (``value``) or a relation ``"LHS <= RHS"`` over ``variables``
    (``"name:lo:hi"`` strings, optionally ``:int`` or ``:log``); ``progress(note)`` once per stage."""
    proposed = conjecture_from(target, None if value is None else str(value), list(variables), time_limit)
    settings = check_settings(precision, samples, seed)
    if samples > MAX_SAMPLES or precision > MAX_PRECISION:
        raise InputError(f"samples is limited to {MAX_SAMPLES} and precision to {MAX_PRECISION}")
    start = time.perf_counter()
    outcome = proposed.decide(settings, progress) if progress is not None else proposed.decide(settings)
    return Conjecture(record(proposed, outcome), time.perf_counter() - start)


def stage_plan(target: str) -> tuple[str, int]:
    """The name of what ``target`` decides and how many progress stages it takes (for a progress bar)."""
    from sabounds.proofs_check.conjecture import FAMILIES, FreeForm

    kind: Any = FAMILIES.get(target, FreeForm)
    return str(kind.name), int(kind.stages)
