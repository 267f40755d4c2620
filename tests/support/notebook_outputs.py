"""Execute the example notebook docs/examples/analyze.ipynb in a fresh kernel and store it with its outputs.

``python -m tests.support.notebook_outputs`` rewrites the notebook in place (about a minute: the analysis of the bundled
checkpoint and the rank regime's table); ``tests/api/test_notebook.py`` executes it again and fails when the stored
outputs differ from the fresh ones (text outputs compared exactly, figures by count), naming this command.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "examples" / "analyze.ipynb"
COMMAND = "python -m tests.support.notebook_outputs"


def execute(path: Path = NOTEBOOK):
    """The notebook at ``path`` executed top to bottom in a fresh ``python3`` kernel, run from a temporary folder."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as folder:
        nbclient.NotebookClient(
            nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": folder}}
        ).execute()
    return nb


def text_outputs(nb) -> list[list[str]]:
    """Per code cell, the text of each output (streams, plain-text and HTML results; an image by its kind only), with
    no execution counts or metadata, so that two runs of the same code compare equal."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        out = []
        for o in cell.outputs:
            if o.output_type == "stream":
                out.append(f"{o.name}: {o.text}")
            elif o.output_type in ("execute_result", "display_data"):
                data = o.get("data", {})
                out.append(
                    "image/png" if "image/png" in data else str(data.get("text/html", data.get("text/plain", "")))
                )
            else:
                out.append(f"{o.output_type}: {o.get('ename', '')}")
        cells.append(out)
    return cells


def main() -> int:
    import nbformat

    nb = execute()
    for cell in nb.cells:  # the stored notebook carries no machine-dependent metadata
        cell.metadata.pop("execution", None)
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote {NOTEBOOK} with the outputs of {sum(c.cell_type == 'code' for c in nb.cells)} code cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
