"""The one place where mathematics becomes text: LaTeX and plain-text renderings of derivations."""

from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.str import StrPrinter

from sabounds.theory.derivation import Derivation, Step

_LATEX_ATOMS = {
    "SingularValue": lambda p, a: rf"\sigma_{{{p._print(a[1])}}}({p._print(a[0])})",
    "SchattenQuantity": lambda p, a: rf"S_{{{p._print(a[1])}}}({p._print(a[0])})",
    "Rank": lambda p, a: rf"\operatorname{{rank}}({p._print(a[0])})",
    "MinDim": lambda p, a: rf"D({p._print(a[0])})",
    "TailFrobeniusSq": lambda p, a: rf"\|{p._print(a[0])}_{{>{p._print(a[1])}}}\|_F^2",
    "SplitResidual": lambda p, a: rf"\|{p._print(a[0])} - {p._print(a[0])}_{{\le {p._print(a[1])}}} - {p._print(a[0])}_{{>{p._print(a[1])}}}\|_F",
    "SpectralNorm": lambda p, a: rf"\|{p._print(a[0])}\|_2",
    "RowNormMax": lambda p, a: rf"\|{p._print(a[0])}\|_{{2\to\infty}}",
    "TruncationError": lambda p, a: rf"\|{p._print(a[0])}({p._print(a[1])} - {p._print(a[1])}_{{\le {p._print(a[2])}}})\|_{{2\to\infty}}",
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
    "TruncationError": lambda p, a: f"||{p._print(a[0])}({p._print(a[1])} - {p._print(a[1])}_<={p._print(a[2])})||_2->inf",
}


class _Latex(LatexPrinter):
    def _print_Function(self, expr, exp=None):
        render = _LATEX_ATOMS.get(type(expr).__name__)
        if render is None:
            return super()._print_Function(expr, exp)
        out = render(self, expr.args)
        return rf"\left({out}\right)^{{{exp}}}" if exp is not None else out


class _Text(StrPrinter):
    def _print_Function(self, expr):
        render = _TEXT_ATOMS.get(type(expr).__name__)
        return render(self, expr.args) if render else super()._print_Function(expr)


def latex(expr: sp.Basic) -> str:
    """LaTeX of a sympy expression or relation, matrix atoms included."""
    return _Latex().doprint(expr)


def text(expr: sp.Basic) -> str:
    """Plain text of a sympy expression or relation, matrix atoms included."""
    return _Text().doprint(expr)


def step_text(step: Step) -> str:
    return f"{step.name}: {text(step.statement)}    [{step.check.kind}; {step.justification}]"


def derivation_text(derivation: Derivation) -> str:
    """Numbered plain-text rendering: one line per step with its check kind and justification."""
    lines = [f"{derivation.title} ({derivation.id})"]
    for i, step in enumerate(derivation, 1):
        lines.append(f"  {i:>2}. {step_text(step)}")
    return "\n".join(lines)


def _tex_escape(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("^", r"\^{}"), ("~", r"\~{}")):
        s = s.replace(a, b)
    return s


def derivation_latex(derivation: Derivation) -> str:
    """A ``longtable``-free ``tabular`` of the steps: number, statement, justification, check kind."""
    rows = [
        rf"{i} & ${latex(step.statement)}$ & {_tex_escape(step.justification)} & {_tex_escape(step.check.kind)} \\"
        for i, step in enumerate(derivation, 1)
    ]
    return "\n".join(
        [
            r"\begin{tabular}{r p{0.45\linewidth} p{0.3\linewidth} l}",
            rf"\multicolumn{{4}}{{l}}{{\textbf{{{_tex_escape(derivation.title)}}}}} \\",
            r"\# & statement & justification & check \\ \hline",
            *rows,
            r"\end{tabular}",
        ]
    )
