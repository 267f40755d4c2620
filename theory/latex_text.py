"""Justification strings (ASCII prose with inline maths, e.g. ``sigma_{r+1} <= (M/(r+1))^{1/p}``) as LaTeX.

Each whitespace-separated word is classified as prose or maths; runs of maths words become one ``$...$`` span
translated to TeX (``<=`` -> ``\\le``, ``||W||_2`` -> ``\\|W\\|_2``, ``sqrt(x)`` -> ``\\sqrt{x}``, Greek names,
``r*`` -> ``r^\\star``), and prose is escaped.  No ASCII relation ever reaches text mode, where the default
OT1 encoding would print ``<`` as an inverted exclamation mark.
"""

from __future__ import annotations

import re

_PROSE_SHORT = {
    "a",
    "as",
    "at",
    "is",
    "in",
    "if",
    "of",
    "or",
    "so",
    "by",
    "to",
    "on",
    "it",
    "be",
    "an",
    "no",
    "up",
    "we",
    "do",
    "its",
    "and",
    "the",
    "for",
    "are",
    "per",
    "all",
    "any",
    "one",
    "two",
}
_FUNCTIONS = {"log", "ln", "sqrt", "exp", "min", "max", "inf", "sup", "rank", "ceil", "int", "sum", "lim", "d"}
_MATH_WORDS = {
    "eps",
    "sigma",
    "gamma",
    "alpha",
    "rho",
    "kappa",
    "delta",
    "Delta",
    "xi",
    "phi",
    "Phi",
    "Gamma",
    "pi",
    "oo",
    "ell",
    "tau",
    "beta",
    "mu",
    "lambda",
    "...",
    "=",
    "<=",
    ">=",
    "<",
    ">",
    "+",
    "-",
    "->",
    "~",
    "*",
    "/",
    "!=",
}
_GREEK = (
    "Delta",
    "Gamma",
    "Phi",
    "Pi",
    "sigma",
    "gamma",
    "alpha",
    "rho",
    "kappa",
    "delta",
    "xi",
    "phi",
    "pi",
    "tau",
    "beta",
    "mu",
    "lambda",
)
_QUOTED = re.compile(r"^'([A-Za-z0-9_]+)'([,.;:)]*)$|^(?=[a-z0-9.]*_)([a-z][a-z0-9]*(?:\.[a-z0-9_]+)+)([,.;:)]*)$")
"""A quoted name (``'rss'``) or a check id (``arch.pre_ln_residual_numeric``): set in typewriter type."""
_PROSE_WORD = re.compile(
    r"^[A-Za-z]{2,}(-[A-Za-z0-9]+)*('s)?$|^[A-Za-z]-[A-Za-z]{2,}[A-Za-z-]*$|^[A-Za-z]{2,}-[A-Za-z]$"
)
_NUMBER = re.compile(r"^\d+(\.\d+)?('s)?$")
_TEXT_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def escape_text(s: str) -> str:
    """Text-mode LaTeX of plain text: every special and every ASCII character outside OT1 escaped."""
    return "".join(_TEXT_ESCAPES.get(c, c) for c in s)


def _split_punct(word: str) -> tuple[str, str, str]:
    """``(lead, core, trail)``: an opening parenthesis and trailing punctuation peeled off a prose-like word."""
    lead = "(" if word.startswith("(") else ""
    core = word[len(lead) :]
    m = re.match(r"^(.*?)([,.;:)]*)$", core)
    return lead, m.group(1), m.group(2)


def _kind(word: str) -> str:
    """``prose``, ``math``, ``quoted``, ``neutral`` (numbers, ``a``, functions: decided by the neighbours)."""
    if _QUOTED.match(word):
        return "quoted"
    lead, core, trail = _split_punct(word)
    if not core:
        return "neutral"
    if core in _MATH_WORDS:
        return "math"
    if core in _FUNCTIONS:
        return "function"
    if core == "a":
        return "article"
    if _NUMBER.match(core):
        return "neutral"
    if core in _PROSE_SHORT or _PROSE_WORD.match(core):
        return "prose" if core not in _GREEK else "math"
    if len(core) == 1 and core.isalpha():
        return "math"
    return "math"


def _classify(words: list[str]) -> list[bool]:
    kinds = [_kind(w) for w in words]
    is_math = [k == "math" for k in kinds]
    for i, k in enumerate(kinds):
        nxt = kinds[i + 1] if i + 1 < len(kinds) else None
        if k == "function":
            after_operator = i > 0 and words[i - 1] in _MATH_WORDS
            is_math[i] = (
                nxt in ("math", "article", "neutral", "function")
                or after_operator
                or bool(re.search(r"[(^_]", words[i]))
            )
        elif k == "article":
            prev = kinds[i - 1] if i else None
            ends_clause = words[i][-1:] in ",:;."
            is_math[i] = ends_clause or nxt == "math" or (prev == "math" and nxt != "prose")
    for i, k in enumerate(kinds):
        if k == "neutral":
            prev = is_math[i - 1] if i else False
            nxt = is_math[i + 1] if i + 1 < len(kinds) else False
            is_math[i] = prev or nxt
    return is_math


def _replace_calls(s: str, name: str, render, word: bool = True) -> str:
    """Replace ``name(inner)`` (balanced parentheses) by ``render(inner)``; ``word``: ``name`` starts a word."""
    out, i = [], 0
    pattern = re.compile((r"(?<![A-Za-z\\])" if word else "") + rf"{name}\(")
    while True:
        m = pattern.search(s, i)
        if not m:
            out.append(s[i:])
            return "".join(out)
        depth, j = 1, m.end()
        while j < len(s) and depth:
            depth += {"(": 1, ")": -1}.get(s[j], 0)
            j += 1
        if depth:
            out.append(s[i:])
            return "".join(out)
        out.append(s[i : m.start()] + render(s[m.end() : j - 1]))
        i = j


def _braces(s: str) -> str:
    """TeX groups after ``^``/``_`` stay groups; any other brace is a literal set brace ``\\{``."""
    out, stack = [], []
    for i, c in enumerate(s):
        if c == "{":
            group = i > 0 and s[i - 1] in "^_"
            stack.append(group)
            out.append("{" if group else r"\{")
        elif c == "}":
            group = stack.pop() if stack else False
            out.append("}" if group else r"\}")
        else:
            out.append(c)
    return "".join(out)


def math_to_tex(s: str) -> str:
    """TeX (maths mode) of an ASCII formula such as ``||x||_2 <= sqrt(a + b)``."""
    s = _braces(s)
    s = s.replace("...", r"\dots ")
    for a, b in (("&", r"\&"), ("%", r"\%"), ("#", r"\#"), ("$", r"\$")):
        s = s.replace(a, b)
    s = _replace_calls(s, "sqrt", lambda x: rf"\sqrt{{{x}}}")
    s = _replace_calls(s, "ceil", lambda x: rf"\lceil {x}\rceil ")
    s = _replace_calls(s, r"\^", lambda x: f"^{{({x})}}", word=False)
    s = re.sub(r"\bceil\s+([A-Za-z]\*?)", r"\\lceil \1\\rceil", s)
    s = re.sub(r"(?<![A-Za-z\\])([A-Za-z]+)\*", r"{\1^{\\star}}", s)
    s = s.replace("*", r"\cdot ")
    s = s.replace("||", r"\| ").replace("<=", r"\le ").replace(">=", r"\ge ").replace("!=", r"\ne ")
    s = re.sub(r"->\s*inf(?![A-Za-z])", r"\\to\\infty ", s)  # ||X||_{2->inf}: the sup over rows, not an infimum
    s = s.replace("->", r"\to ").replace("~", r"\sim ")
    s = re.sub(r"(\d)\+(?=$|[\s),;:.])", r"\1^+", s)
    s = re.sub(r"_inf(?![A-Za-z])", r"_{\\infty}", s)  # the sup norm ||x||_inf, not the infimum
    s = re.sub(r"(?<![A-Za-z\\])oo(?![A-Za-z])", r"\\infty ", s)
    s = re.sub(r"(?<![A-Za-z\\])eps(?![A-Za-z])", r"\\varepsilon ", s)
    s = re.sub(r"(?<![A-Za-z\\])(" + "|".join(_GREEK) + r")(?![A-Za-z])", r"\\\1 ", s)
    s = re.sub(r"(?<![A-Za-z\\])(log|ln|exp|min|max|inf|sup|lim)(?![A-Za-z])", r"\\\1 ", s)
    s = re.sub(r"(?<![A-Za-z\\])ell(?![A-Za-z])", r"\\ell ", s)
    s = re.sub(r"(?<![A-Za-z\\])(int|sum)(?![A-Za-z])", r"\\\1 ", s)
    s = re.sub(r"(?<![A-Za-z\\])rank(?![A-Za-z])", r"\\operatorname{rank}", s)
    s = re.sub(
        r"_([A-Za-z]{2,})(?:_([A-Za-z0-9]))?",
        lambda m: rf"_{{\mathrm{{{m.group(1)}}}{',' + m.group(2) if m.group(2) else ''}}}",
        s,
    )
    s = re.sub(r"\s+", " ", s).strip()
    return s


def justification_latex(text: str) -> str:
    """LaTeX (text mode, maths in ``$...$``) of a justification written in ASCII prose with inline formulas."""
    words = text.split()
    if not words:
        return ""
    is_math = _classify(words)
    pieces: list[str] = []
    run: list[str] = []

    def flush():
        if not run:
            return
        formula = " ".join(run)
        trail = re.search(r"[,.;:]*$", formula).group(0)
        core = formula[: len(formula) - len(trail)] if trail else formula
        lead = ""
        if core.startswith("(") and core.count("(") > core.count(")"):
            lead, core = "(", core[1:]
        close = ""
        if core.endswith(")") and core.count(")") > core.count("("):
            close, core = ")", core[:-1]
        pieces.append(f"{lead}${math_to_tex(core)}${close}{trail}" if core else lead + close + trail)
        run.clear()

    for word, math in zip(words, is_math):
        q = _QUOTED.match(word)
        if math:
            run.append(word)
            if word.endswith((":", ";")):
                flush()
            continue
        flush()
        if q:
            name, trail = (q.group(1), q.group(2)) if q.group(1) is not None else (q.group(3), q.group(4))
            pieces.append(rf"\texttt{{{escape_text(name)}}}{escape_text(trail)}")
        else:
            pieces.append(escape_text(word))
    flush()
    return " ".join(pieces)
