"""The one place where mathematics becomes text: LaTeX and plain-text renderings of derivations."""

from __future__ import annotations

import re

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.str import StrPrinter

from sabounds.theory.checks import Minimum
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.latex_text import escape_text, justification_latex

_LATEX_ATOMS = {
    "SingularValue": lambda p, a: rf"\sigma_{{{p._print(a[1])}}}({p._print(a[0])})",
    "SchattenQuantity": lambda p, a: rf"S_{{{p._print(a[1])}}}({p._print(a[0])})",
    "Rank": lambda p, a: rf"\operatorname{{rank}}({p._print(a[0])})",
    "MinDim": lambda p, a: rf"D({p._print(a[0])})",
    "TailFrobeniusSq": lambda p, a: rf"\|{p._print(a[0])}_{{>{p._print(a[1])}}}\|_F^2",
    "SplitResidual": lambda p, a: (
        rf"\|{p._print(a[0])} - {p._print(a[0])}_{{\le {p._print(a[1])}}} - {p._print(a[0])}_{{>{p._print(a[1])}}}\|_F"
    ),
    "SpectralNorm": lambda p, a: rf"\|{p._print(a[0])}\|_2",
    "RowNormMax": lambda p, a: rf"\|{p._print(a[0])}\|_{{2\to\infty}}",
    "TruncationError": lambda p, a: (
        rf"\|{p._print(a[0])}({p._print(a[1])} - {p._print(a[1])}_{{\le {p._print(a[2])}}})\|_{{2\to\infty}}"
    ),
}

_TEXT_ATOMS = {
    "SingularValue": lambda p, a: f"sigma_{p.parenthesize(a[1], 100)}({p._print(a[0])})",
    "SchattenQuantity": lambda p, a: f"S_{p._print(a[1])}({p._print(a[0])})",
    "Rank": lambda p, a: f"rank({p._print(a[0])})",
    "MinDim": lambda p, a: f"D({p._print(a[0])})",
    "TailFrobeniusSq": lambda p, a: f"||{p._print(a[0])}_>{p._print(a[1])}||_F^2",
    "SplitResidual": lambda p, a: "||{0} - {0}_<={1} - {0}_>{1}||_F".format(p._print(a[0]), p._print(a[1])),
    "SpectralNorm": lambda p, a: f"||{p._print(a[0])}||_2",
    "RowNormMax": lambda p, a: f"||{p._print(a[0])}||_2->inf",
    "TruncationError": lambda p, a: (
        f"||{p._print(a[0])}({p._print(a[1])} - {p._print(a[1])}_<={p._print(a[2])})||_2->inf"
    ),
}


_LATEX_SYMBOLS = {
    "log N_head": r"\log \mathcal{N}_{\mathrm{head}}",
    "log N_tail": r"\log \mathcal{N}_{\mathrm{tail}}",
    "log N_k": r"\log \mathcal{N}_k",
    "int_0^Delta f": r"\int_0^{\Delta} f",
    "int_0^Delta sqrt(f)": r"\int_0^{\Delta} \sqrt{f}",
    "||f_W(X) - f_W'(X)||": r"\|f_W(X) - f_{W'}(X)\|",
    "sum_l alpha_l^(2/3) xi_l": r"\sum_l \alpha_l^{2/3} \xi_l",
    "Pi_post_hoc": r"\Pi_{\text{post hoc}}",
    "edelman": r"\mathrm{edelman}",
}
"""Symbols whose names are descriptive phrases rather than TeX-able identifiers."""


class _Latex(LatexPrinter):
    def _print_Function(self, expr, exp=None):
        render = _LATEX_ATOMS.get(type(expr).__name__)
        if render is None:
            return super()._print_Function(expr, exp)
        out = render(self, expr.args)
        return rf"\left({out}\right)^{{{exp}}}" if exp is not None else out

    def _print_Symbol(self, expr, style="plain"):
        if expr.name in _LATEX_SYMBOLS:
            return _LATEX_SYMBOLS[expr.name]
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", expr.name):
            return rf"\text{{{escape_text(expr.name)}}}"
        return super()._print_Symbol(expr, style)


class _Text(StrPrinter):
    def _print_Function(self, expr):
        render = _TEXT_ATOMS.get(type(expr).__name__)
        return render(self, expr.args) if render else super()._print_Function(expr)


def latex(expr: sp.Basic) -> str:
    """LaTeX of a sympy expression or relation, matrix atoms included."""
    return _Latex({"fold_frac_powers": True}).doprint(expr)


def text(expr: sp.Basic) -> str:
    """Plain text of a sympy expression or relation, matrix atoms included."""
    return _Text().doprint(expr)


def statement_text(step: Step) -> str:
    """Plain text of a step's statement; a minimisation step reads ``value = min_r (objective)``."""
    st = step.statement
    if isinstance(step.check, Minimum) and isinstance(st, sp.Equality):
        return f"{text(st.lhs)} = min_{text(step.check.var)} ({text(st.rhs)})"
    return text(st)


def step_text(step: Step) -> str:
    return f"{step.name}: {statement_text(step)}    [{step.check.kind}; {step.justification}]"


def derivation_text(derivation: Derivation) -> str:
    """Numbered plain-text rendering: one line per step with its check kind and justification."""
    lines = [f"{derivation.title} ({derivation.id})"]
    for i, step in enumerate(derivation, 1):
        lines.append(f"  {i:>2}. {step_text(step)}")
    return "\n".join(lines)


CHECK_WORDS = {
    "MatrixRelation": "matrix relation, random matrices",
    "Identity": "identity",
    "Inequality": "inequality",
    "Limit": "limit",
    "Minimum": "minimum, direct minimisation",
    "Definition": "definition",
    "Premise": "cited premise, not checked",
}
"""How each check kind reads in a table: what decides the step."""

LATEX_PREAMBLE = r"""\documentclass{article}
\usepackage{amsmath,amssymb}
\usepackage{array,longtable}
\usepackage{graphicx}
% \fitmath{formula}: the formula at its natural size, scaled down to the line only when it is wider.
\newsavebox{\sbfitbox}
\newcommand{\fitmath}[1]{\sbox{\sbfitbox}{$#1$}%
  \ifdim\wd\sbfitbox>\linewidth\resizebox{\linewidth}{!}{\usebox{\sbfitbox}}\else\usebox{\sbfitbox}\fi}
% \fittable{tabular}: at its natural size, scaled down to the line only when wider, never below 80% (it then
% overflows, and the log says so); the log records each table's natural width against the line.
\newsavebox{\sbtablebox}
\newcommand{\fittable}[1]{\sbox{\sbtablebox}{#1}%
  \typeout{fittable: natural \the\wd\sbtablebox\space line \the\linewidth}%
  \ifdim\wd\sbtablebox>\linewidth
    \ifdim0.8\wd\sbtablebox>\linewidth\scalebox{0.8}{\usebox{\sbtablebox}}%
    \else\resizebox{\linewidth}{!}{\usebox{\sbtablebox}}\fi
  \else\usebox{\sbtablebox}\fi}
"""
"""The minimal preamble every LaTeX output of sabounds compiles in (``docs/preamble.tex``)."""

_SPLIT_AT = 110
"""Statements whose LaTeX is longer than this many characters are set on two lines: left side, then relation and right side."""

_REL = {"==": "=", "<=": r"\le", ">=": r"\ge", "<": "<", ">": ">", "!=": r"\ne"}


def _minimum_sides(step: Step) -> tuple[str, str] | None:
    """A minimisation step ``Eq(value, objective)`` as ``(value, \\min_var objective)``: no free variable left."""
    if not isinstance(step.check, Minimum) or not isinstance(step.statement, sp.Equality):
        return None
    value, objective = step.statement.args
    return latex(value), rf"\min_{{{latex(step.check.var)}}} \left({latex(objective)}\right)"


def statement_latex(step: Step) -> str:
    """The statement as table-cell LaTeX: one ``\\fitmath`` line, or two (left side; relation and right side)."""
    sides = _minimum_sides(step)
    st = step.statement
    if sides is not None:
        lhs, rhs, rel = sides[0], sides[1], "="
    elif isinstance(st, sp.core.relational.Relational):
        lhs, rhs, rel = latex(st.lhs), latex(st.rhs), _REL[st.rel_op]
    else:
        return rf"\fitmath{{{latex(st)}}}"
    if len(lhs) + len(rhs) <= _SPLIT_AT:
        return rf"\fitmath{{{lhs} {rel} {rhs}}}"
    return rf"\fitmath{{{lhs}}}\newline\fitmath{{\qquad {rel} {rhs}}}"


def derivation_latex(derivation: Derivation, label: str | None = None) -> str:
    """A ``longtable`` (breaks across pages): number; statement over its justification; how it is decided and
    its source.  Needs :data:`LATEX_PREAMBLE`."""
    label = label or f"tab:{derivation.id}"
    head = r"\hline \# & statement and justification & decided by \\ \hline"
    rows = []
    for i, step in enumerate(derivation, 1):
        check = CHECK_WORDS.get(step.check.kind, escape_text(step.check.kind))
        rows.append(
            rf"{i} & {statement_latex(step)}\newline {{\small {justification_latex(step.justification)}}}"
            rf" & {{\footnotesize {check}; {escape_text(step.source)}}} \\[2pt]"
        )
    return "\n".join(
        [
            r"\begin{longtable}{@{}r@{\hspace{6pt}}>{\raggedright\arraybackslash}p{\dimexpr\linewidth-110pt\relax}"
            r"@{\hspace{8pt}}>{\raggedright\arraybackslash}p{80pt}@{}}",
            rf"\caption{{{escape_text(derivation.title)}}}\label{{{label}}}\\",
            head,
            r"\endfirsthead",
            head,
            r"\endhead",
            r"\hline \endfoot",
            *rows,
            r"\end{longtable}",
        ]
    )


def standalone(body: str) -> str:
    """A complete document: :data:`LATEX_PREAMBLE`, then ``body``."""
    return LATEX_PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n"
