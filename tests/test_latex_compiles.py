"""The LaTeX outputs compile with pdflatex where a TeX installation exists (skipped, with the reason, elsewhere)."""

import shutil
import subprocess

import pytest

from sabounds.cli import main

pdflatex = shutil.which("pdflatex")
pytestmark = pytest.mark.skipif(pdflatex is None, reason="no pdflatex here; the structural LaTeX tests still run")

PREAMBLE = "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"


def _compile(body: str, tmp_path) -> None:
    tex = tmp_path / "doc.tex"
    tex.write_text(PREAMBLE + body + "\n\\end{document}\n")
    proc = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0


def test_regime_table_compiles_inside_a_table_environment(tmp_path, capsys):
    assert main(["regimes", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert out.lstrip().startswith("\\begin{table}")
    _compile(out, tmp_path)


@pytest.mark.parametrize("name", ["thm41", "thm31", "edelman", "arch.pre_ln", "arch.gated_mlp", "arch.gqa", "arch.activation"])
def test_derivation_table_compiles(name, tmp_path, capsys):
    assert main(["derivation", name, "--format", "latex"]) == 0
    _compile("\\small\n" + capsys.readouterr().out, tmp_path)
