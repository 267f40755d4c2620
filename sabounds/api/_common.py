"""What the API's calls share: tables as pandas DataFrames, check settings, the bundled checkpoint's path."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from sabounds.errors import InputError, UserError


def frame(rows: list[dict], columns: Sequence[str] | None = None):
    """A pandas DataFrame of ``rows`` (pandas imported on first use)."""
    import pandas as pd
    return pd.DataFrame(rows, columns=columns)


def check_settings(precision: int, samples: int, seed: int | None = None):
    """:class:`~sabounds.proofs_check.verdict.Settings` for a decision; InputError for values out of range."""
    from sabounds.proofs_check.verdict import Settings
    try:
        return Settings(precision=precision, samples=samples, **({} if seed is None else {"seed": seed}))
    except ValueError as exc:
        raise InputError(str(exc)) from None


def default_model() -> Path:
    """The bundled all-MiniLM-L6-v2 checkpoint folder (``config.json`` and ``model.safetensors``), the default model
    of every call that takes one; InputError when its package is not installed."""
    from sabounds.numerics.checkpoints.errors import CheckpointError
    from sabounds.numerics.checkpoints.reader import default_model_dir
    try:
        return default_model_dir()
    except CheckpointError as exc:
        raise InputError(str(exc)) from None


def model_or_default(model) -> object:
    """``model`` itself, or the bundled checkpoint when it is None."""
    return default_model() if model is None else model


def user_bound(path):
    """The bound of a user's TOML file (``sabounds.user_bound``), its one-line error as InputError; None for None."""
    if path is None:
        return None
    from sabounds.user_bound import load_bound
    try:
        return load_bound(path)
    except UserError as exc:
        raise InputError(str(exc)) from None
