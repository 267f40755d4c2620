"""Names of checkpoints for a reader: the bundled ones by name, others by the path the user gave, never a path
of this machine's site-packages."""

from __future__ import annotations

from pathlib import Path

BUNDLED_NAMES = {"default": "all-MiniLM-L6-v2 (bundled)", "minilm_l3": "paraphrase-MiniLM-L3-v2 (bundled)"}


def _bundled_key(path) -> str | None:
    """Which bundled checkpoint ``path`` is (a key of :data:`BUNDLED_NAMES`), or None."""
    from sabounds.numerics.checkpoints.reader import CheckpointError, default_model_dir, minilm_l3_onnx

    for key, where in (("default", default_model_dir), ("minilm_l3", minilm_l3_onnx)):
        try:
            if Path(str(path)).resolve() == Path(where()).resolve():
                return key
        except (CheckpointError, OSError):
            continue
    return None


def is_bundled(path) -> bool:
    """Whether ``path`` is one of the checkpoints installed with the package."""
    return _bundled_key(path) is not None


def checkpoint_label(path) -> str:
    """A checkpoint's name for a reader, free of this machine's paths: a bundled model by its name, any other by
    the path as the user gave it (a relative path stays relative)."""
    key = _bundled_key(path)
    return BUNDLED_NAMES[key] if key else str(path)
