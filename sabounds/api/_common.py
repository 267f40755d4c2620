"""What the API's calls share: tables as pandas DataFrames, check settings, the bundled checkpoint's path."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from sabounds.errors import InputError, UserError

if TYPE_CHECKING:
    import pandas as pd

    from sabounds.proofs_check.verdict import Settings
    from sabounds.theory.bound import Bound as UserBound

P = ParamSpec("P")
R = TypeVar("R")


def renamed(**old_to_new: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each old keyword name as its new one with a DeprecationWarning (the API's one vocabulary: ``model=``
    for a checkpoint, no argument named like a function); both at once is an InputError."""

    def wrap(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputError(f"{function.__name__}: give {new}= only ({old}= is its deprecated name)")
                    warnings.warn(
                        f"{function.__name__}({old}=...) is deprecated; use {new}=", DeprecationWarning, stacklevel=2
                    )
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return call

    return wrap


def frame(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """A pandas DataFrame of ``rows`` (pandas imported on first use)."""
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


def check_settings(precision: int, samples: int, seed: int | None = None) -> Settings:
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


def model_or_default(model: Any) -> Any:
    """``model`` itself, or the bundled checkpoint when it is None."""
    return default_model() if model is None else model


def user_bound(path: str | Path | None) -> UserBound | None:
    """The bound of a user's TOML file (``sabounds.user_bound``), its one-line error as InputError; None for None."""
    if path is None:
        return None
    from sabounds.user_bound import load_bound

    try:
        return load_bound(path)
    except UserError as exc:
        raise InputError(str(exc)) from None
