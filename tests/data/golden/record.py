"""Write the golden checkpoints and record ``sabounds analyze --json`` on them (and on the bundled MiniLM).

The records were taken before the one-pass measurement (issue 33); ``tests/numerics/test_analyze_golden.py``
checks that every byte printed stays the same.  Re-record only when an output is meant to change:
``python -m tests.data.golden.record``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np

from tests.support.bert_files import config, random_weights, write_model
from tests.support.family_files import write_family

HERE = Path(__file__).resolve().parent
CASES = {"minilm": None, "random_bert": HERE / "random_bert", "random_llama": HERE / "random_llama"}
"""Record name -> checkpoint folder (None: the bundled default model)."""


def write_checkpoints() -> None:
    """A float16 BERT (subnormal entries; layer 1's M_in of rank 8, so its certificate refuses) and a GQA LLaMA."""
    weights = random_weights(seed=33, layers=3, hidden=32, heads=4, intermediate=128)
    rng = np.random.default_rng(33)
    weights["encoder.layer.1.intermediate.dense.weight"] = (
        rng.standard_normal((128, 8)) @ rng.standard_normal((8, 32)) / 30
    ).astype(np.float32)
    write_model(HERE / "random_bert", weights, config(layers=3, hidden=32, heads=4, intermediate=128), dtype="F16")
    write_family(HERE / "random_llama", "llama", seed=33)


def analyze_json(model: Path | None) -> str:
    """What ``sabounds analyze [MODEL] --json`` prints."""
    from sabounds.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["analyze", *([str(model)] if model is not None else []), "--json"]) == 0
    return out.getvalue()


def main() -> None:
    if "--checkpoints" in sys.argv:
        write_checkpoints()
    for name, model in CASES.items():
        (HERE / f"analyze_{name}.json").write_text(analyze_json(model))


if __name__ == "__main__":
    main()
