"""Run a grid: cached runs answered locally, the rest as one Dask task each (local cluster or ``--scheduler``).

A run's cache key is the SHA-256 (``sabounds.numerics.cache.digest``) of its data (every training and test array),
its configuration and seed, the package's code (``code_digest`` of ``sabounds.numerics`` and the source of the
study's modules that make a run) and the versions of torch and scikit-learn.  An entry is ``<cache>/study/<key[:2]>/<key>.json``,
``{"key", "sha256", "result"}``, written to a temporary name and renamed when its run finishes, so an interrupted
study keeps every finished run and a rerun (or a grown grid) trains only what is missing.  An entry whose checksum or
key does not verify is ignored and rewritten.  The cluster is the sweep's (``sabounds.distributed.run_cached``): one
single-threaded worker process per usable core.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sabounds.training_study.grids import RunSpec

CACHE_FOLDER = "study"
RESULT_MODULES = ("tasks.py", "model.py", "training.py", "measures.py", "run.py")


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """Digest of the code a run's result depends on: ``sabounds.numerics``, the study's ``RESULT_MODULES`` and the
    torch and scikit-learn versions (the statistics, outputs and this runner do not change a run)."""
    from importlib.metadata import PackageNotFoundError, version

    from sabounds.numerics.cache import code_digest, digest

    root = Path(__file__).resolve().parent
    parts = [code_digest()]
    for name in RESULT_MODULES:
        parts += [name, (root / name).read_bytes()]
    for name in ("torch", "scikit-learn"):
        try:
            parts.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} absent")
    return digest(*parts)


@functools.lru_cache(maxsize=256)
def _data_parts(task: str, size: int, noise: float, tokens: int, data_seed: int) -> tuple[bytes, ...]:
    from sabounds.training_study.tasks import make_data

    data = make_data(task, size, noise, tokens, data_seed)
    return tuple(
        a.tobytes() + str((a.dtype, a.shape)).encode() for a in (data.x_train, data.y_train, data.x_test, data.y_test)
    )


def run_key(spec: RunSpec) -> str:
    """The content key of a run: data arrays, configuration and seed, code."""
    from sabounds.numerics.cache import digest

    arrays = _data_parts(spec.task, spec.size, spec.noise, spec.tokens, spec.data_seed)
    return digest("sabounds-study-1", json.dumps(spec.to_json(), sort_keys=True), *arrays, code_version())


@dataclass(frozen=True)
class RunCache:
    """The study's entries under ``root/study``; ``get`` returns None for a missing or unverified entry."""

    root: Path

    def path(self, key: str) -> Path:
        return self.root / CACHE_FOLDER / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            with open(self.path(key), "rb") as fh:
                entry = json.loads(fh.read(1 << 24))
            body = json.dumps(entry["result"], sort_keys=True).encode()
            if entry["key"] == key and entry["sha256"] == hashlib.sha256(body).hexdigest():
                return entry["result"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return None

    def put(self, key: str, result: dict) -> None:
        from sabounds.numerics.cache import private_write

        body = json.dumps(result, sort_keys=True).encode()
        entry = json.dumps({"key": key, "sha256": hashlib.sha256(body).hexdigest(), "result": result}, sort_keys=True)
        private_write(self.root, (CACHE_FOLDER, key[:2]), f"{key}.json", entry.encode())  # 0700/0600, no link followed


def _task(spec_json: dict) -> dict:
    """The Dask task: one run (imports torch in the worker)."""
    from sabounds.training_study.run import run_point

    return run_point(spec_json)


def run_grid(
    specs: Sequence[RunSpec],
    cache: RunCache | None,
    workers: int | None = None,
    scheduler: str | None = None,
    on_done: Callable[[RunSpec, dict | BaseException, bool], None] | None = None,
) -> list[dict | BaseException]:
    """Results in grid order (a failed run: its exception); ``workers = 0``: in this process, serially."""
    from sabounds.distributed import run_cached

    keys = [run_key(s) for s in specs]

    def finish(i: int, outcome, cached: bool) -> None:
        if cache is not None and isinstance(outcome, dict) and not cached:
            try:
                cache.put(keys[i], outcome)
            except OSError:  # an unwritable cache costs the caching, not the run
                pass
        if on_done is not None:
            on_done(specs[i], outcome, cached)

    hits = [cache.get(key) if cache is not None else None for key in keys]
    return run_cached(_task, [s.to_json() for s in specs], hits, workers, scheduler, finish)
