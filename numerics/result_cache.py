"""Results cached by the content of what they depend on: the source of the code that computed them, their settings
and the versions of the libraries that computed them.

A result is kept as a :class:`Record`: the part's name, its ``inputs`` (settings and library versions), the SHA-256
of the source of every ``sabounds`` module it may have run (every module of ``sabounds.theory`` and
``sabounds.proofs_check``, and every other ``sabounds`` module loaded when it finished) and the value as plain JSON.
A record is *current* only when its inputs equal today's and every one of those modules' source is byte for byte
the same today (a module that no longer exists makes it stale): a change to any code a result may depend on makes
the record stale, so a stored result is never shown as fresh for different code.  New code that no module of the
record imported cannot change the result without a change to one that did (the import itself).

Records live in two places: a file stored with the package (``proofs_check/stored_results.json``, made by
``python -m sabounds.full_report.cached_parts``) and the user's cache folder (``numerics.cache``: the same private,
HMAC-tagged entries as the spectra, so a record planted by anyone who cannot read the cache's secret is ignored).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import pkgutil
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from sabounds.numerics.cache import SpectraCache, default_cache_dir, digest

FORMAT = 1
LIBRARIES = ("sympy", "mpmath", "numpy", "scipy", "python-flint", "z3-solver")
"""The libraries whose version is an input of every record (a new sympy may simplify differently)."""
ALWAYS = ("sabounds.theory", "sabounds.proofs_check")
"""Packages whose every module counts, loaded or not."""


def library_versions() -> dict[str, str]:
    """``{"python": "3.11.9", "sympy": "1.13.3", ...}``; ``absent`` for a library that is not installed."""
    out = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def _source(name: str) -> Path | None:
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) if module is not None else None
    if origin is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        origin = spec.origin if spec is not None else None
    return Path(origin) if origin and origin.endswith(".py") else None


def module_digests(names) -> dict[str, str | None]:
    """SHA-256 of each module's source file (None: the module or its source is gone)."""
    out = {}
    for name in sorted(set(names)):
        path = _source(name)
        try:
            out[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None
        except OSError:
            out[name] = None
    return out


def dependent_modules() -> list[str]:
    """Every module of :data:`ALWAYS` and every loaded ``sabounds`` module with a Python source file."""
    names = {n for n in list(sys.modules) if (n == "sabounds" or n.startswith("sabounds.")) and _source(n)}
    for package in ALWAYS:
        module = importlib.import_module(package)
        names.add(package)
        names.update(info.name for info in pkgutil.walk_packages(module.__path__, package + "."))
    return sorted(names)


@dataclass(frozen=True)
class Record:
    """One cached result: ``value`` (plain JSON) of ``part`` computed from ``inputs`` by the code of ``modules``."""

    part: str
    inputs: dict
    modules: dict[str, str | None]
    value: Any
    created: str = ""
    platform: str = ""
    seconds: float = 0.0
    origin: str = field(default="", compare=False)
    """Where this record was read from (``stored``, ``cache``) or ``computed``; not stored."""

    def stale_reason(self, inputs: dict) -> str | None:
        """None when current for ``inputs`` and today's code, else the first reason it is not."""
        for key in sorted(set(self.inputs) | set(inputs)):
            if self.inputs.get(key) != inputs.get(key):
                return f"{key} was {self.inputs.get(key)!r}, is {inputs.get(key)!r}"
        now = module_digests(self.modules)
        changed = [name for name, d in self.modules.items() if d is None or now.get(name) != d]
        if changed:
            more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
            return f"the source of {changed[0]}{more} changed"
        return None

    def to_json(self) -> dict:
        return {
            "part": self.part,
            "inputs": self.inputs,
            "modules": self.modules,
            "created": self.created,
            "platform": self.platform,
            "seconds": self.seconds,
            "value": self.value,
        }

    @classmethod
    def from_json(cls, data: dict, origin: str) -> Record:
        return cls(
            str(data["part"]),
            dict(data["inputs"]),
            dict(data["modules"]),
            data["value"],
            str(data.get("created", "")),
            str(data.get("platform", "")),
            float(data.get("seconds", 0.0)),
            origin,
        )


def platform_line() -> str:
    """``Linux x86_64, CPython 3.11.7``: where a record was computed."""
    return f"{platform.system()} {platform.machine()}, {platform.python_implementation()} {platform.python_version()}"


def compute_record(part: str, inputs: dict, compute: Callable[[], Any]) -> Record:
    """Run ``compute()`` (its value must be plain JSON) and record the modules it may depend on, after it ran."""
    start = time.perf_counter()
    value = compute()
    seconds = time.perf_counter() - start
    return Record(
        part,
        inputs,
        module_digests(dependent_modules()),
        value,
        datetime.now(UTC).isoformat(timespec="seconds"),
        platform_line(),
        round(seconds, 1),
        "computed",
    )


def read_records(path: Path) -> dict[str, list[Record]]:
    """The records of a stored file by part (empty when the file is missing or of another format)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    out: dict[str, list[Record]] = {}
    for item in data.get("records", []):
        record = Record.from_json(item, "stored")
        out.setdefault(record.part, []).append(record)
    return out


def write_records(path: Path, records: list[Record]) -> None:
    """One line per record (the file is large: the regime tables alone are about 0.6 MB of JSON)."""
    lines = ",\n".join(json.dumps(r.to_json(), separators=(",", ":")) for r in records)
    Path(path).write_text(f'{{"format":{FORMAT},"records":[\n{lines}\n]}}\n', encoding="utf-8")


class UserCache:
    """Records in the user's cache folder, one entry per part and inputs (the last computed wins)."""

    def __init__(self, root: Path | None = None):
        root = default_cache_dir() if root is None else root
        self.cache = SpectraCache(root) if root is not None else None

    @staticmethod
    def key(part: str, inputs: dict) -> str:
        return digest("result-record", str(FORMAT), part, json.dumps(inputs, sort_keys=True))

    def get(self, part: str, inputs: dict) -> Record | None:
        if self.cache is None:
            return None
        try:
            entry = self.cache.get(self.key(part, inputs))
        except OSError:
            return None
        if entry is None or "record" not in entry:
            return None
        try:
            return Record.from_json(json.loads(str(entry["record"].ravel()[0])), "cache")
        except (ValueError, KeyError, TypeError, IndexError):
            return None

    def put(self, record: Record) -> None:
        if self.cache is None:
            return
        try:
            self.cache.put(self.key(record.part, record.inputs), {"record": np.array([json.dumps(record.to_json())])})
        except OSError:
            pass  # an unwritable cache costs a recomputation, never the result


def current(
    part: str,
    inputs: dict,
    compute: Callable[[], Any],
    stored: dict[str, list[Record]] | None = None,
    cache: UserCache | None = None,
) -> Record:
    """The record of ``part`` for ``inputs``: a current stored one, else a current one from the user's cache, else
    computed now (and put in the cache).  ``record.origin`` says which."""
    for record in (stored or {}).get(part, []):
        if record.stale_reason(inputs) is None:
            return record
    cache = UserCache() if cache is None else cache
    record = cache.get(part, inputs)
    if record is not None and record.part == part and record.stale_reason(inputs) is None:
        return record
    record = compute_record(part, inputs, compute)
    cache.put(record)
    return record
