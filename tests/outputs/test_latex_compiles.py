"""Every LaTeX output compiles in the documented preamble (docs/preamble.tex) with no overfull box, no float too
large for its page and no character missing from its font; skipped, with the reason, where pdflatex is absent
(.ci/run installs texlive-latex-base).  The structural tests run everywhere."""

import re
import shutil
import subprocess

import pytest

from sabounds.cli import main
from sabounds.theory.catalog import derivations

DERIVATIONS = derivations()  # the catalog's printable entries
from sabounds.theory.latex_text import justification_latex, math_to_tex
from sabounds.theory.printer import LATEX_PREAMBLE, derivation_latex, standalone, statement_latex

pytestmark = pytest.mark.slow  # pdflatex

pdflatex = shutil.which("pdflatex")
needs_tex = pytest.mark.skipif(pdflatex is None, reason="no pdflatex here (apt-get install texlive-latex-base)")

_PROBLEMS = re.compile(r"^(Overfull \\[hv]box.*|.*Float too large.*|Missing character.*)$", re.M)


def compile_problems(document: str, tmp_path) -> list[str]:
    """Compile ``document`` with pdflatex; return the log's overfull boxes, oversized floats and missing characters."""
    document = document.replace("\\begin{document}", "\\begin{document}\\tracinglostchars=2 ", 1)
    (tmp_path / "doc.tex").write_text(document)
    for _ in range(2):  # longtable settles its column widths on the second run
        proc = subprocess.run(
            [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0
    return _PROBLEMS.findall((tmp_path / "doc.log").read_text(errors="replace"))


def _out(capsys, *argv) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


MIN_SCALE = 0.8
"""The smallest factor a table may be scaled by (``\\small`` at 80%: about 7 pt glyphs)."""


def table_scales(tmp_path) -> list[float]:
    """Each ``\\fittable``'s scale in the last compile: line width over natural width, capped at 1."""
    log = (tmp_path / "doc.log").read_text(errors="replace")
    pairs = re.findall(r"fittable: natural ([\d.]+)pt line ([\d.]+)pt", log)
    return [min(1.0, float(line) / float(natural)) for natural, line in pairs]


@needs_tex
@pytest.mark.parametrize("regime", [None, "frobenius", "rank", "spectral", "power_law", "low_rank_tail"])
@pytest.mark.parametrize("architecture", ["single_head", "bert"])
def test_regime_table_fits_the_page(regime, architecture, tmp_path, capsys):
    """Every --regime x --architecture: no overfull box, and no table shrunk below :data:`MIN_SCALE`."""
    body = _out(
        capsys,
        "regimes",
        "--format",
        "latex",
        "--architecture",
        architecture,
        *(["--regime", regime] if regime else []),
    )
    assert body.lstrip().startswith("\\begin{table}") and "\\label{tab:regimes}" in body
    assert "resizebox" not in body and "textheight" not in body
    assert compile_problems(standalone(body), tmp_path) == []
    scales = table_scales(tmp_path)
    assert len(scales) == (1 if regime else 5) and min(scales) >= MIN_SCALE, scales


@needs_tex
def test_the_scale_check_catches_a_table_shrunk_too_far(tmp_path):
    wide = "\\fittable{\\begin{tabular}{l}" + "x" * 400 + "\\end{tabular}}"
    compile_problems(standalone(wide), tmp_path)
    assert min(table_scales(tmp_path)) < MIN_SCALE


@needs_tex
@pytest.mark.parametrize("name", sorted(DERIVATIONS))
def test_derivation_table_typesets_without_overfull_boxes(name, tmp_path, capsys):
    document = _out(capsys, "derivation", name, "--format", "latex", "--standalone")
    assert document.startswith(LATEX_PREAMBLE)
    assert compile_problems(document, tmp_path) == []


@needs_tex
def test_the_log_check_catches_an_overfull_table_and_a_tall_float(tmp_path):
    """The detector itself: the old layout (a 26-row ``tabular`` with ASCII justifications) fails it."""
    d = DERIVATIONS["thm41"]()
    strip = lambda text: re.sub(r"[\\^_{}&%$#~]", "", text)
    rows = "\n".join(f"{i} & $x$ & {strip(step.justification)} & {step.check.kind} \\\\" for i, step in enumerate(d, 1))
    old = (
        "\\begin{table}\\begin{tabular}{r p{0.45\\linewidth} p{0.3\\linewidth} l}\n"
        + rows * 3
        + "\n\\end{tabular}\\end{table}"
    )
    problems = compile_problems(standalone(old), tmp_path)
    assert any(p.startswith("Overfull") for p in problems) and any("Float too large" in p for p in problems)


def test_derivation_latex_is_a_labelled_longtable():
    for name, make in DERIVATIONS.items():
        tex = derivation_latex(make())
        assert tex.startswith("\\begin{longtable}") and tex.rstrip().endswith("\\end{longtable}")
        assert f"\\label{{tab:{name}}}" in tex and "\\endhead" in tex


def _text_mode(tex: str) -> str:
    return re.sub(r"\$[^$]*\$", "", tex)


@pytest.mark.parametrize("name", sorted(DERIVATIONS))
def test_no_ascii_relation_reaches_text_mode(name):
    """Outside ``$...$`` a justification has no ``<``, ``>``, ``|``, ``^`` or bare ``_`` (OT1 prints ``<`` as an inverted !)."""
    for step in DERIVATIONS[name]():
        text = _text_mode(justification_latex(step.justification))
        assert not re.search(r"[<>|^]|(?<!\\)_", text), (step.name, text)
        assert "<=" not in justification_latex(step.justification)


def test_justification_translation():
    assert justification_latex("each <= sigma_{r+1}") == r"each $\le \sigma _{r+1}$"
    assert math_to_tex("||x||_2 <= sqrt(a + b)") == r"\| x\| _2 \le \sqrt{a + b}"
    assert justification_latex("at r*, b") == r"at ${r^{\star}}, b$"
    assert justification_latex("by 'peeling_cost'") == r"by \texttt{peeling\_cost}"
    assert math_to_tex("P_m = {0, 1/m, ..., 2}") == r"P_m = \{0, 1/m, \dots , 2\}"
    assert math_to_tex("ell_par_k = log(x)") == r"\ell _{\mathrm{par},k} = \log (x)"
    assert justification_latex("a direct minimisation") == "a direct minimisation"
    assert justification_latex("costs at most a: the head") == "costs at most $a$: the head"


def test_minimisation_steps_show_the_minimum_not_a_free_variable():
    from sabounds.theory.checks import Minimum

    steps = [s for make in DERIVATIONS.values() for s in make() if isinstance(s.check, Minimum)]
    assert steps
    for step in steps:
        assert "\\min_{" in statement_latex(step)


_EVALUATED_TO_TRUE: set[str] = set()  # none left: every step keeps both sides
"""Derivations with steps built as plain ``True`` (sympy evaluated them on construction; sabounds/theory, not the
printer): their LaTeX shows ``True`` for those steps.  Known, recorded by a strict xfail below."""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n, marks=pytest.mark.xfail(strict=True, reason="steps evaluated to True on construction in sabounds/theory")
        )
        if n in _EVALUATED_TO_TRUE
        else n
        for n in sorted(DERIVATIONS)
    ],
)
def test_no_statement_is_evaluated_into_a_tautology(name):
    """``c(2) = 2`` must show c's formula at p = 2, not ``2 = 2``."""
    import sympy as sp

    for step in DERIVATIONS[name]():
        st = step.statement
        if isinstance(st, sp.Equality) and not st.free_symbols:
            assert sp.srepr(st.lhs) != sp.srepr(st.rhs), step.name
        assert not isinstance(st, sp.logic.boolalg.BooleanAtom), step.name


def test_standalone_without_latex_is_a_one_line_error(capsys):
    assert main(["derivation", "thm41", "--standalone"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("text", ["||dX||_{2->inf}", "||X||_2->inf"])
def test_the_2_to_inf_norm_is_a_sup_not_an_infimum(text):
    tex = math_to_tex(text)
    assert r"\to\infty" in tex and r"\inf " not in tex, tex
