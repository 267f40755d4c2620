"""A relation typed by a user (``"LHS <= RHS"``) as sympy, built node by node from a whitelist: never ``eval``.

The text is parsed by Python's ``ast`` in ``mode="eval"`` and walked; only numbers, the declared
variable names, a fixed table of functions and constants, ``+ - * / **`` and exactly one comparison
(``<=``, ``<``, ``>=``, ``>``) are accepted.  Every other node (attribute access, subscripts, calls
of anything but a whitelisted name, keywords, lambda, comprehensions, strings, ...) is refused with
an :class:`ExpressionError` before any sympy object exists.  Size limits keep building and later
evaluation bounded: the text's length, the tree's depth and node count, and the size of exact
constants (``9**9**9`` is refused instead of computed).
"""

from __future__ import annotations

import ast
import keyword
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

MAX_LENGTH = 2000
MAX_DEPTH = 50
MAX_NODES = 1000
MAX_EXPONENT = 10**4  # |constant exponent| allowed in a power
MAX_ARGUMENT = 10**15  # |constant argument| of any other function (sin of a huge float is slow and meaningless)
MAX_CONSTANT_DIGITS = (
    4000  # an exact constant may have at most this many decimal digits (printable: Python's limit is 4300)
)
NUMBER_CHARS = 200
"""Longest accepted number text (a decimal literal, ``--value``, a ``--var`` bound): ~200 significant digits."""
EXPONENT_CAP = 400
"""A nonzero number's magnitude must lie within ``10^-EXPONENT_CAP .. 10^EXPONENT_CAP`` (inclusive, compared exactly):
1e400 and 1e-400 are accepted, 1e-401, 1.5e400 and 1e-5000 refused, before any huge power of ten is built."""
_DECIMAL = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,12}))?$")
_FRACTION = re.compile(r"^([+-]?\d+)\s*/\s*([+-]?\d+)$")


class ExpressionError(ValueError):
    """The text is not an accepted relation; the message is one line meant for the user."""


FUNCTIONS: dict[str, tuple[Callable, tuple[int, int | None]]] = {
    "sqrt": (sp.sqrt, (1, 1)),
    "log": (sp.log, (1, 2)),
    "exp": (sp.exp, (1, 1)),
    "Abs": (sp.Abs, (1, 1)),
    "abs": (sp.Abs, (1, 1)),
    "Min": (sp.Min, (1, None)),
    "min": (sp.Min, (1, None)),
    "Max": (sp.Max, (1, None)),
    "max": (sp.Max, (1, None)),
    "gamma": (sp.gamma, (1, 1)),
    "erf": (sp.erf, (1, 1)),
    "sin": (sp.sin, (1, 1)),
    "cos": (sp.cos, (1, 1)),
    "tanh": (sp.tanh, (1, 1)),
    "atan": (sp.atan, (1, 1)),
}
CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E}
RELATIONS = {ast.LtE: sp.Le, ast.Lt: sp.Lt, ast.GtE: sp.Ge, ast.Gt: sp.Gt}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_REFUSED_OPERATORS = {
    ast.BitXor: "'^' is not a power here; write '**'",
    ast.FloorDiv: "'//' is not allowed; write '/'",
    ast.Mod: "'%' is not allowed",
    ast.MatMult: "'@' is not allowed",
}


def exact_decimal(text: str, what: str = "number") -> sp.Rational:
    """A finite decimal (``1.13``, ``1e-3``) or a fraction (``113/100``) as the exact rational it spells.

    Read by a regular expression, never evaluated; the length and magnitude caps (``NUMBER_CHARS``,
    ``EXPONENT_CAP``) are checked before a power of ten is built, so a huge exponent costs nothing.
    """
    t = text.strip()
    if len(t) > NUMBER_CHARS:
        raise ExpressionError(f"{what} is limited to {NUMBER_CHARS} characters")
    frac = _FRACTION.match(t)
    if frac:
        num, den = int(frac.group(1)), int(frac.group(2))
        if den == 0:
            raise ExpressionError(f"{what} {text!r} divides by zero")
        value = sp.Rational(num, den)
    else:
        m = _DECIMAL.match(t)
        if not m or not (m.group(2) or m.group(3)):
            raise ExpressionError(f"{what} {text!r} is not a finite decimal number or fraction")
        sign, whole, part, exp = m.group(1), m.group(2) or "", m.group(3) or "", int(m.group(4) or 0)
        digits = (whole + part).lstrip("0")
        if not digits:
            return sp.Integer(0)
        # the value is 0.d1d2... * 10^top with d1 != 0, so 10^(top-1) <= |value| < 10^top
        top = exp + len(whole.lstrip("0")) if whole.lstrip("0") else exp - (len(part) - len(part.lstrip("0")))
        if top - 1 > EXPONENT_CAP or top < -EXPONENT_CAP:
            raise ExpressionError(
                f"{what} {text!r}: its magnitude must lie within 1e-{EXPONENT_CAP} .. 1e{EXPONENT_CAP}"
            )
        scale = exp - len(part)
        value = sp.Integer(int(whole + part))
        value = value * sp.Integer(10) ** scale if scale >= 0 else sp.Rational(value, sp.Integer(10) ** (-scale))
        value = -value if sign == "-" else value
    if value != 0 and not (sp.Rational(1, 10**EXPONENT_CAP) <= abs(value) <= sp.Integer(10) ** EXPONENT_CAP):
        raise ExpressionError(f"{what} {text!r}: its magnitude must lie within 1e-{EXPONENT_CAP} .. 1e{EXPONENT_CAP}")
    return value


def check_name(name: str) -> str:
    """A variable name must be a plain identifier, not a keyword, dunder, function or constant name."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ExpressionError(f"variable name {name!r} is not a plain identifier")
    if name.startswith("_"):
        raise ExpressionError(f"variable name {name!r} may not start with '_'")
    if name in FUNCTIONS or name in CONSTANTS:
        raise ExpressionError(f"variable name {name!r} is reserved for a function or constant")
    if len(name) > 32:
        raise ExpressionError(f"variable name {name[:32]!r}... is longer than 32 characters")
    return name


def _depth_and_size(tree: ast.AST) -> tuple[int, int]:
    """Depth and node count of ``tree``, iteratively (a deep tree must not exhaust Python's stack)."""
    deepest, count, stack = 0, 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH or count > MAX_NODES:
            return deepest, count
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest, count


def _digits(value: sp.Expr) -> float:
    """Decimal digits of an exact rational constant (0 for anything else)."""
    if isinstance(value, sp.Rational):
        return max(math.log10(abs(int(value.p)) + 1), math.log10(int(value.q) + 1))
    return 0.0


@dataclass(frozen=True)
class Requirement:
    """Where a subexpression is defined, recorded as it is built (before sympy can cancel it: ``x/x`` is 1 once
    built, but needs ``x != 0``): ``kind`` is ``nonzero``, ``positive``, ``nonnegative`` or ``not_pole`` (gamma's
    argument is no integer <= 0) of ``expr``; ``origin`` says which operation asks for it."""

    kind: str
    expr: sp.Expr
    origin: str


@dataclass(frozen=True)
class ParsedRelation:
    """A relation and the requirements of every subexpression it was built from, in the order they were met."""

    relation: sp.Rel
    requirements: tuple[Requirement, ...]


class _Builder:
    def __init__(self, symbols: Mapping[str, sp.Symbol], source: str = ""):
        self.symbols = symbols
        self.source = source
        self.requirements: list[Requirement] = []

    def _require(self, kind: str, expr: sp.Expr, origin: str) -> None:
        if expr.free_symbols and Requirement(kind, expr, origin) not in self.requirements:
            self.requirements.append(Requirement(kind, expr, origin))

    def build(self, node: ast.AST) -> sp.Expr:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise ExpressionError(f"{_describe(node)} is not allowed in an expression")
        return method(node)

    def _Constant(self, node: ast.Constant) -> sp.Expr:
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ExpressionError(f"literal {v!r} is not allowed; only real numbers")
        if isinstance(v, float):
            # the literal as written, exactly (0.1 is 1/10, not the binary float nearest to it)
            text = ast.get_source_segment(self.source, node) or repr(v)
            return exact_decimal(text.replace("_", ""), "literal")
        if len(str(v)) > 100:
            raise ExpressionError("integer literal longer than 100 digits")
        return sp.Integer(v)

    def _Name(self, node: ast.Name) -> sp.Expr:
        if node.id in self.symbols:
            return self.symbols[node.id]
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in FUNCTIONS:
            raise ExpressionError(f"function {node.id!r} must be called, e.g. {node.id}(x)")
        raise ExpressionError(
            f"unknown name {node.id!r}: declare it with --var {node.id}:LO:HI "
            f"or use one of {', '.join(sorted(FUNCTIONS) + sorted(CONSTANTS))}"
        )

    def _UnaryOp(self, node: ast.UnaryOp) -> sp.Expr:
        operand = self.build(node.operand)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        raise ExpressionError(f"unary operator {type(node.op).__name__} is not allowed")

    def _BinOp(self, node: ast.BinOp) -> sp.Expr:
        op = type(node.op)
        if op in _REFUSED_OPERATORS:
            raise ExpressionError(_REFUSED_OPERATORS[op])
        if op not in _BINARY:
            raise ExpressionError(f"operator {op.__name__} is not allowed")
        left, right = self.build(node.left), self.build(node.right)
        if op is ast.Pow:
            return self._power(left, right)
        if op is ast.Div:
            self._require("nonzero", right, f"division by {right}")
        result = {ast.Add: sp.Add, ast.Sub: lambda a, b: a - b, ast.Mult: sp.Mul, ast.Div: lambda a, b: a / b}[op](
            left, right
        )
        if result.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise ExpressionError("the expression divides by zero or is not finite")
        if _digits(result) > MAX_CONSTANT_DIGITS:
            raise ExpressionError(f"exact constant with more than {MAX_CONSTANT_DIGITS} digits")
        return result

    def _power(self, base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
        if not exponent.free_symbols:
            e = float(sp.N(exponent, 20))
            if not math.isfinite(e) or abs(e) > MAX_EXPONENT:
                raise ExpressionError(f"exponent {sp.N(exponent, 6)} exceeds {MAX_EXPONENT} in absolute value")
            if not base.free_symbols:
                b = abs(float(sp.N(base, 20))) if base != 0 else 0.0
                if b > 0 and abs(e) * abs(math.log10(b)) > MAX_CONSTANT_DIGITS:
                    raise ExpressionError(f"constant power with more than {MAX_CONSTANT_DIGITS} digits")
                if b == 0 and e < 0:
                    raise ExpressionError("zero to a negative power")
        if exponent.is_Integer:
            if exponent < 0:
                self._require("nonzero", base, f"{base} to the power {exponent}")
        elif exponent.is_number and exponent > 0:
            self._require("nonnegative", base, f"{base} to the power {exponent}")
        else:
            self._require("positive", base, f"{base} to the power {exponent}")
        result = sp.Pow(base, exponent)
        if result.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise ExpressionError("the expression is not finite")
        if _digits(result) > MAX_CONSTANT_DIGITS:
            raise ExpressionError(f"exact constant with more than {MAX_CONSTANT_DIGITS} digits")
        return result

    def _Call(self, node: ast.Call) -> sp.Expr:
        if not isinstance(node.func, ast.Name):
            raise ExpressionError(
                "only direct calls of whitelisted functions are allowed (no attributes, no calls of calls)"
            )
        name = node.func.id
        if name not in FUNCTIONS:
            raise ExpressionError(f"function {name!r} is not allowed; allowed: {', '.join(sorted(FUNCTIONS))}")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"{name}() takes plain positional arguments only")
        fn, (lo, hi) = FUNCTIONS[name]
        n = len(node.args)
        if n < lo or (hi is not None and n > hi):
            expected = str(lo) if lo == hi else f"{lo} to {hi}" if hi else f"at least {lo}"
            raise ExpressionError(f"{name}() takes {expected} argument(s), got {n}")
        args = [self.build(a) for a in node.args]
        if name == "sqrt":
            self._require("nonnegative", args[0], f"sqrt({args[0]})")
        elif name == "log":
            for a in args:
                self._require("positive", a, f"log of {a}")
            if len(args) == 2:
                self._require("nonzero", sp.log(args[1]), f"log to the base {args[1]}")
        elif name == "gamma":
            self._require("not_pole", args[0], f"gamma({args[0]})")
        limit = MAX_EXPONENT if name in ("exp", "gamma") else MAX_ARGUMENT
        for a in args:
            if not a.free_symbols and abs(float(sp.N(a, 20))) > limit:
                raise ExpressionError(f"{name}() of a constant above {limit:g} in absolute value")
        result = fn(*args)
        if result.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise ExpressionError(f"{name}() is not finite at its constant argument")
        if _digits(result) > MAX_CONSTANT_DIGITS:
            raise ExpressionError(f"exact constant with more than {MAX_CONSTANT_DIGITS} digits")
        return result


def _describe(node: ast.AST) -> str:
    names = {
        "Attribute": "attribute access",
        "Subscript": "subscripting",
        "Lambda": "lambda",
        "Compare": "a second comparison",
        "BoolOp": "and/or",
        "IfExp": "if/else",
        "Call": "a call",
        "ListComp": "a comprehension",
        "GeneratorExp": "a generator",
        "Starred": "star arguments",
        "NamedExpr": "assignment (:=)",
        "JoinedStr": "an f-string",
        "List": "a list",
        "Tuple": "a tuple",
        "Dict": "a dict",
        "Set": "a set",
        "Await": "await",
        "Yield": "yield",
    }
    kind = type(node).__name__
    return names.get(kind, kind)


def parse_relation(text: str, variables: Mapping[str, sp.Symbol]) -> sp.Rel:
    """``text`` (one comparison of two real expressions in ``variables``) as a sympy relation.

    Raises :class:`ExpressionError` with a one-line reason when the text is refused.
    """
    return parse_with_requirements(text, variables).relation


def parse_with_requirements(text: str, variables: Mapping[str, sp.Symbol]) -> ParsedRelation:
    """``text`` as a sympy relation, with the domain requirements of every subexpression met while building it."""
    if not isinstance(text, str):
        raise ExpressionError("the expression must be a string")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters")
    if "\x00" in text or not text.isprintable():
        raise ExpressionError("expression contains control characters")
    for name in variables:
        check_name(name)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        msg = getattr(exc, "msg", None) or type(exc).__name__
        raise ExpressionError(f"cannot parse the expression: {msg}") from None
    depth, size = _depth_and_size(tree)
    if depth > MAX_DEPTH:
        raise ExpressionError(f"expression nested deeper than {MAX_DEPTH} levels")
    if size > MAX_NODES:
        raise ExpressionError(f"expression has more than {MAX_NODES} parts")
    body = tree.body
    if not isinstance(body, ast.Compare):
        raise ExpressionError("the expression must be one comparison: LHS <= RHS (or <, >=, >)")
    if len(body.ops) != 1:
        raise ExpressionError("exactly one comparison operator is allowed (no chains like a <= b <= c)")
    relation = RELATIONS.get(type(body.ops[0]))
    if relation is None:
        raise ExpressionError("the comparison must be one of <=, <, >=, > (== and != are not inequalities)")
    builder = _Builder(variables, text.strip())
    try:
        lhs, rhs = builder.build(body.left), builder.build(body.comparators[0])
    except (ValueError, OverflowError, RecursionError, MemoryError, TypeError, ArithmeticError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"cannot build the expression: {type(exc).__name__}") from None
    rel = relation(lhs, rhs, evaluate=False)
    if not (lhs.free_symbols | rhs.free_symbols) <= set(variables.values()):
        raise ExpressionError("the expression uses undeclared symbols")
    return ParsedRelation(rel, tuple(builder.requirements))
