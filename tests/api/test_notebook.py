"""The example notebook docs/examples/analyze.ipynb runs top to bottom in a fresh kernel (nbclient) from a folder
that is not the repository, and uses only the public API: ``import sabounds`` and its top-level public names."""

import ast
import importlib.util
from pathlib import Path

import pytest

import sabounds

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "examples" / "analyze.ipynb"
nbformat = pytest.importorskip("nbformat")


def _code() -> str:
    cells = nbformat.read(NOTEBOOK, as_version=4).cells
    return "\n".join(
        "\n".join(line for line in c.source.splitlines() if not line.startswith("%"))
        for c in cells
        if c.cell_type == "code"
    )


def _public(name: str) -> bool:
    if name.startswith("_") or importlib.util.find_spec(f"sabounds.{name}") is not None:
        return False  # a submodule is not API, even when its name is public
    return name in getattr(sabounds, "__all__", dir(sabounds))


def test_the_notebook_imports_nothing_private():
    tree = ast.parse(_code())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert all(a.name == "sabounds" or not a.name.startswith("sabounds") for a in node.names), ast.unparse(node)
        if isinstance(node, ast.ImportFrom):
            assert not (node.module or "").startswith("sabounds"), ast.unparse(node)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sabounds":
            assert _public(node.attr), f"sabounds.{node.attr} is not a public top-level name"
    assert "sabounds.default_model" in _code() and "sabounds.analyze" in _code()


def test_the_private_check_catches_a_private_import():
    assert not _public("numerics") and not _public("api") and not _public("_installed_version")
    assert _public("analyze")


@pytest.mark.slow
def test_the_notebook_runs(tmp_path):
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 3, "three figures"
    assert any("text/html" in o.get("data", {}) for o in outputs), "the DataFrame renders as a table"
    text = "".join(o.get("text", "") for o in outputs)
    assert {"proved", "verified", "refuted", "unresolved"} & set(text.split()), "the conjecture's verdict"
    assert "depth_exponent" in text
    from tests.support.notebook_outputs import COMMAND, text_outputs

    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert text_outputs(stored) == text_outputs(nb), f"the stored outputs are stale: run `{COMMAND}` and commit"


def test_the_notebook_is_stored_with_its_outputs():
    """Every code cell of the stored notebook carries its outputs (``test_the_notebook_runs`` checks they are current)."""
    cells = [c for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.cell_type == "code"]
    assert cells and all(c.outputs for c in cells), "run `python -m tests.support.notebook_outputs` and commit"
    assert not [o for c in cells for o in c.outputs if o.output_type == "error"]
