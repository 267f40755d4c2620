"""The token length T a bound is evaluated at: given, else the checkpoint's own context length, else 512."""

from __future__ import annotations

from pathlib import Path

DEFAULT_TOKENS = 512
MAX_TOKENS = 10**15  # far beyond any context length; the bound takes T into float64 arithmetic


def checkpoint_tokens(context: tuple[int | None, str], given: int | None) -> tuple[int, str]:
    """T and where it came from: ``given`` (``--tokens``), else the checkpoint's own context length (GGUF
    ``<arch>.context_length``, config.json ``max_position_embeddings``; the source names the file, not its path),
    else 512 (said); ValueError above MAX_TOKENS."""
    if given is not None:
        return given, "given (--tokens)"
    value, where = context
    if value is None:
        return DEFAULT_TOKENS, f"default {DEFAULT_TOKENS}: the checkpoint states no context length"
    if value > MAX_TOKENS:
        raise ValueError(
            f"{where} is {'a ' + str(len(str(value))) + '-digit number' if value > 10**30 else value}; "
            f"at most {MAX_TOKENS} tokens are accepted (pass --tokens T)"
        )
    place, _, field = where.rpartition(": field ")  # the file's name, not this machine's path to it
    return value, f"the checkpoint's context length ({Path(place).name + ': field ' + field if place else where})"
