"""The registry of checks: each decides one derivation step or one claim.

A check from a derivation step (``is_step``) that ends ``refuted`` or ``unresolved`` makes
``sabounds verify`` fail; a claim check (``is_step=False``) may be refuted: that is a result.
"""

from __future__ import annotations

import fnmatch
import importlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sabounds.proofs_check.verdict import Outcome, Settings, Verdict


@dataclass(frozen=True)
class Check:
    """``id`` (dotted, prefixed by its derivation), the ``claim`` in words, and how to ``decide`` it."""

    id: str
    claim: str
    decide: Callable[[Settings], Outcome]
    is_step: bool = True

    def run(self, settings: Settings) -> Outcome:
        """Decide the check and record the wall time; an exception becomes ``unresolved``, never a crash."""
        start = time.perf_counter()
        try:
            outcome = self.decide(settings)
        except Exception as exc:  # a decider that breaks must not hide the other verdicts
            outcome = Outcome(Verdict.UNRESOLVED, "decider raised", detail=f"{type(exc).__name__}: {exc}")
        return outcome.checked().with_seconds(time.perf_counter() - start)


_REGISTRY: dict[str, Check] = {}


def register(check: Check) -> Check:
    if check.id in _REGISTRY:
        raise ValueError(f"duplicate check id {check.id}")
    _REGISTRY[check.id] = check
    return check


def claim(check_id: str, statement: str, *, is_step: bool = False):
    """Decorator: register ``fn(settings) -> Outcome`` as the check ``check_id``."""

    def wrap(fn: Callable[[Settings], Outcome]):
        register(Check(check_id, statement, fn, is_step))
        return fn

    return wrap


def all_checks() -> list[Check]:
    """Every check of the catalog (``sabounds.theory.catalog``): one per decidable step of each ``printable``
    derivation, then the claims of each entry's ``claims`` modules; nothing outside the catalog."""
    from sabounds.proofs_check.derivations import step_checks
    from sabounds.theory.catalog import CATALOG

    out = []
    for entry in CATALOG:
        if entry.make is not None and "printable" in entry.tags:
            out += step_checks(entry.make())
        for name in entry.claims:
            importlib.import_module(name)
            out += [c for c in _REGISTRY.values() if getattr(c.decide, "__module__", None) == name]
    return out


def select(pattern: str | None) -> list[Check]:
    """Checks whose id matches the shell-style ``pattern`` (a bare word matches as a substring)."""
    checks = all_checks()
    if not pattern:
        return checks
    glob = pattern if any(c in pattern for c in "*?[") else f"*{pattern}*"
    return [c for c in checks if fnmatch.fnmatchcase(c.id, glob)]


def run_all(checks: Iterable[Check], settings: Settings, progress: Callable[[Check, Outcome], None] | None = None):
    """Decide each check in order; ``progress`` is called after each one."""
    results = []
    for check in checks:
        outcome = check.run(settings)
        results.append((check, outcome))
        if progress:
            progress(check, outcome)
    return results
