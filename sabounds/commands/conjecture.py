"""Decide a proposed sharper constant (a built-in FAMILY with --value) or a scalar inequality "LHS <= RHS" (--var name:lo:hi).

Families: gelu-lipschitz, softmax-linf-l1, attention-lipschitz, the Theorem 4.1 tail steps tail-singular-value,
tail-frobenius-rank, tail-frobenius-schatten, truncation-error (right side times C), and covering-constant
(is c(p) <= C; restrict p with --var p:LO:HI); see `sabounds.proofs_check.conjecture`.  A free-form
relation uses numbers, the declared variables, + - * / **, the functions sqrt log exp Abs Min Max gamma erf
sin cos tanh atan, the constants pi and E, and exactly one of <=, <, >=, >; it is parsed, never evaluated
as code.  Verdicts: proved (sympy), verified (numeric: precision, samples, smallest margin), refuted (with a
witness) or unresolved.  Exit status: 0 when decided (proved, verified or refuted are all answers), 1 when
unresolved, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import sympy as sp

from sabounds.proofs_check.conjecture import FAMILIES, FreeForm, declare
from sabounds.proofs_check.time_limit import TimeLimit, time_limit
from sabounds.proofs_check.verdict import Outcome, Settings, Verdict
from sabounds.errors import UserError
from sabounds.progress import progress_bar
from sabounds.theory.expression import EXPONENT_CAP, NUMBER_CHARS, ExpressionError, check_name, exact_decimal, parse_relation

EXIT = {Verdict.PROVED: 0, Verdict.VERIFIED: 0, Verdict.REFUTED: 0, Verdict.UNRESOLVED: 1}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="FAMILY_OR_RELATION",
                        help=f"one of {', '.join(FAMILIES)}, or a relation such as \"x**2 + 1 >= 2*x\"")
    parser.add_argument("--value", metavar="C", help="the proposed constant (families only)")
    parser.add_argument("--var", action="append", default=[], metavar="NAME:LO:HI[:int|:log]",
                        help="a free-form variable and its range (repeatable)")
    parser.add_argument("--json", action="store_true",
                        help='print {"verdict", "method", "witness", "margin", "precision_digits", "samples", ...}')
    parser.add_argument("--precision", type=int, default=50, metavar="D", help="mpmath digits (default 50, from 15 to 1000)")
    parser.add_argument("--samples", type=int, default=200, metavar="K", help="random starts of the search (default 200)")
    parser.add_argument("--seed", type=int, default=Settings.seed, help="random seed (default %(default)s)")
    parser.add_argument("--time-limit", type=float, default=4.0, metavar="S",
                        help="seconds for a free-form decision (default 4, at most 60)")


VALUE_CHARS = NUMBER_CHARS
"""Longest accepted --value (and --var bound) text: at most 200 characters, so at most ~200 significant digits."""


def exact_number(text: str, what: str) -> sp.Rational:
    """A finite decimal (``1.13``, ``1e-3``) or a fraction (``113/100``) as the exact rational it spells
    (``sabounds.theory.expression.exact_decimal``: the same reader and caps as a relation's literals)."""
    try:
        return exact_decimal(text, what)
    except ExpressionError as exc:
        raise UserError(str(exc)) from None


def parse_value(text: str) -> sp.Rational:
    """A finite decimal or fraction as the exact rational it spells (``1.13`` -> 113/100, ``1e-3``, ``113/100``)."""
    f = exact_number(text, "--value")
    if abs(f) > 10**100:
        raise UserError(f"--value {text!r} exceeds 1e100 in absolute value")
    return f


def parse_var(spec: str):
    """``name:lo:hi`` with an optional ``:int`` or ``:log`` flag -> (symbol, interval).

    The bounds are the exact rationals their decimal strings spell (``1.23456789`` -> 123456789/10^8), capped as
    ``--value`` is (``exact_number``), never routed through a float.
    """
    parts = spec.split(":")
    if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] not in ("int", "log")):
        raise UserError(f"--var {spec!r}: expected NAME:LO:HI, optionally followed by :int or :log")
    name = parts[0]
    lo, hi = exact_number(parts[1], f"--var {name} lower bound"), exact_number(parts[2], f"--var {name} upper bound")
    try:
        check_name(name)
        return declare(name, lo, hi, integer=parts[3:] == ["int"], log=parts[3:] == ["log"])
    except (ExpressionError, ValueError) as exc:
        raise UserError(f"--var {spec!r}: {exc}") from None


def conjecture_from(args):
    """The family or free-form relation the arguments describe (all validation happens here, before deciding)."""
    if args.target in FAMILIES:
        if args.value is None:
            raise UserError(f"family {args.target} needs --value C")
        ranges = {symbol.name: interval for symbol, interval in map(parse_var, args.var)}
        try:
            return FAMILIES[args.target].build(parse_value(args.value), ranges)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    if not any(op in args.target for op in "<>"):
        raise UserError(f"unknown family {args.target!r}: choose from {', '.join(FAMILIES)}, "
                        "or give a relation with <=, <, >= or >")
    if args.value is not None:
        raise UserError("--value applies to families; a relation states its constants itself")
    if not (0 < args.time_limit <= 60):
        raise UserError("--time-limit must lie in (0, 60] seconds")
    domain = {}
    for spec in args.var:
        symbol, interval = parse_var(spec)
        if symbol.name in {s.name for s in domain}:
            raise UserError(f"--var {symbol.name} given twice")
        domain[symbol] = interval
    try:
        with time_limit(args.time_limit):
            relation = parse_relation(args.target, {s.name: s for s in domain})
    except ExpressionError as exc:
        raise UserError(str(exc)) from None
    except TimeLimit:
        raise UserError(f"the expression took longer than --time-limit {args.time_limit:g} s to parse") from None
    unused = [s.name for s in domain if s not in relation.free_symbols]
    domain = {s: iv for s, iv in domain.items() if s in relation.free_symbols}
    if unused:
        print(f"note: variable(s) {', '.join(unused)} do not occur in the relation", file=sys.stderr)
    return FreeForm(relation, domain, budget=max(0.5, args.time_limit - 0.5), symbolic_seconds=min(1.0, args.time_limit / 4))


def record(conjecture, outcome: Outcome) -> dict:
    """The JSON of one decision: the issue's six keys, then claim and detail; no timing (same seed, same bytes)."""
    return {"verdict": outcome.verdict.value, "method": outcome.method, "witness": dict(outcome.witness or {}) or None,
            "margin": outcome.margin, "precision_digits": outcome.precision_digits, "samples": outcome.samples,
            "claim": conjecture.claim, "detail": outcome.detail}


def run(args) -> int:
    conjecture = conjecture_from(args)
    try:
        settings = Settings(precision=args.precision, samples=args.samples, seed=args.seed)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if args.samples > 100_000 or args.precision > 1000:
        raise UserError("--samples is limited to 100000 and --precision to 1000")
    start = time.perf_counter()
    with progress_bar(f"deciding {conjecture.name}", total=conjecture.stages, enabled=not args.json) as advance:
        outcome = conjecture.decide(settings, advance)
    outcome = outcome.with_seconds(time.perf_counter() - start)
    rec = record(conjecture, outcome)
    if args.json:
        json.dump(rec, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"claim:   {rec['claim']}")
        print(f"verdict: {rec['verdict']}  ({rec['method']})")
        if rec["precision_digits"] is not None:
            count = rec["samples"]
            print(f"numeric: {rec['precision_digits']} digits" + (f", {count} sample{'s' * (count != 1)}" if count else ""))
        if rec["margin"] is not None:
            print(f"margin:  {rec['margin']:.6g}  (relative slack at the tightest point; negative = violated)")
        if rec["witness"]:
            print("witness: " + ", ".join(f"{k} = {v}" for k, v in rec["witness"].items() if k not in ("W", "X", "X_prime")))
        print(f"detail:  {rec['detail']}")
        print(f"time:    {outcome.seconds:.2f} s")
    return EXIT[outcome.verdict]
