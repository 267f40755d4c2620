"""Decide a proposed sharper constant (a built-in FAMILY with --value) or a scalar inequality "LHS <= RHS" (--var name:lo:hi).

Families: gelu-lipschitz, softmax-linf-l1, attention-lipschitz, the Theorem 4.1 tail steps tail-singular-value,
tail-frobenius-rank, tail-frobenius-schatten, truncation-error (right side times C), and covering-constant
(is c(p) <= C; restrict p with --var p:LO:HI); see `sabounds.proofs_check.conjecture`.  A free-form
relation uses numbers, the declared variables, + - * / **, the functions sqrt log exp Abs Min Max gamma erf
sin cos tanh atan, the constants pi and E, and exactly one of <=, <, >=, >; it is parsed, never evaluated
as code.  Verdicts: proved (sympy, z3 or interval branch and bound), verified (numeric evidence whose smallest gap
Arb and mpmath.iv both certify), refuted (a witness both engines re-check) or unresolved; --json names the engines.  Exit status: 0 when decided (proved, verified or refuted are all answers), 1 when
unresolved, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

from sabounds.api import conjecture, conjecture_families
from sabounds.api._conjecture import stage_plan
from sabounds.arguments import add_settings_arguments, time_limit
from sabounds.progress import progress_bar

EXIT = {"proved": 0, "verified": 0, "refuted": 0, "unresolved": 1}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        metavar="FAMILY_OR_RELATION",
        help=f'one of {", ".join(conjecture_families())}, or a relation such as "x**2 + 1 >= 2*x"',
    )
    parser.add_argument("--value", metavar="C", help="the proposed constant (families only)")
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME:LO:HI[:int|:log]",
        help="a free-form variable and its range (repeatable)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"verdict", "method", "witness", "margin", "margin_error", "scaled_margin", '
        '"engines", "precision_digits", "samples", ...}',
    )
    add_settings_arguments(parser, "random starts of the search")
    parser.add_argument(
        "--time-limit", type=time_limit, default=4.0, metavar="S", help="seconds for a free-form decision (default 4)"
    )


def run(args) -> int:
    name, stages = stage_plan(args.target)
    with progress_bar(f"deciding {name}", total=stages, enabled=not args.json) as advance:
        result = conjecture(
            args.target,
            args.value,
            args.var,
            precision=args.precision,
            samples=args.samples,
            seed=args.seed,
            time_limit=args.time_limit,
            progress=advance,
        )
    rec = result.json
    if args.json:
        json.dump(rec, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT[rec["verdict"]]
    print(f"claim:   {rec['claim']}")
    print(f"verdict: {rec['verdict']}  ({rec['method']})")
    if rec["precision_digits"] is not None:
        count = rec["samples"]
        print(f"numeric: {rec['precision_digits']} digits" + (f", {count} sample{'s' * (count != 1)}" if count else ""))
    relative = args.value is not None
    if rec["margin"] is not None:
        error = "" if rec["margin_error"] is None else f" +- {_number(rec['margin_error'], '.2g')}"
        what = (
            "relative slack at the tightest point, with its error bound"
            if relative
            else "the gap rhs - lhs at the witness or tightest point, with its certified error"
        )
        print(f"margin:  {_number(rec['margin'], '.6g')}{error}  ({what}; negative = violated)")
    if rec["scaled_margin"] is not None:
        print(f"scaled:  {rec['scaled_margin']:.6g}  (the gap over its first-order change across the box)")
    if rec["witness"]:
        print(
            "witness: " + ", ".join(f"{k} = {v}" for k, v in rec["witness"].items() if k not in ("W", "X", "X_prime"))
        )
    if rec["engines"]:
        print("engines: " + ", ".join(rec["engines"]))
    print(f"detail:  {rec['detail']}")
    print(f"time:    {result.seconds:.2f} s")
    return EXIT[rec["verdict"]]


def _number(value, spec: str) -> str:
    """A float in ``spec``; a decimal string (a number beyond float64's range, see ``number_forms``) as it is."""
    return value if isinstance(value, str) else format(value, spec)
