"""``sabounds.verify``: decide the registered checks (derivation steps and claims) at given settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sabounds.api._common import check_settings, frame
from sabounds.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from sabounds.api._sweep import ProgressBar
    from sabounds.proofs_check.mutants import Mutant
    from sabounds.proofs_check.registry import Check
    from sabounds.proofs_check.verdict import Outcome


@dataclass(frozen=True)
class Checks:
    """``sabounds.verify``'s result: ``json`` is ``{"checks": [...], "summary": {...}}`` as ``verify --json``;
    ``failing`` the ids of derivation steps not proved or verified; ``results`` the ``(Check, Outcome)`` pairs."""

    json: dict[str, Any] = field(repr=False)
    failing: tuple[str, ...] = ()
    results: tuple[tuple[Check, Outcome], ...] = field(repr=False, default=())

    @property
    def table(self) -> pd.DataFrame:
        """One row per check: id, claim, verdict, method, precision, samples, margin, seconds, detail."""
        return frame(self.json["checks"])

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def to_json(self) -> dict[str, Any]:
        return self.json

    @property
    def summary(self) -> dict[str, Any]:
        """Counts of verdicts, of steps and claims."""
        summary: dict[str, Any] = self.json["summary"]
        return summary


def verify(
    only: str | None = None,
    *,
    precision: int = 50,
    samples: int = 200,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Checks:
    """Decide the registered checks (those whose id matches ``only``: a glob or a substring); ``progress(id)`` is
    called after each check."""
    from sabounds.proofs_check.outcome_records import failing_steps, outcome_record, summary
    from sabounds.proofs_check.registry import run_all, select

    settings = check_settings(precision, samples, seed)
    checks = select(only)
    if not checks:
        raise InputError(f"the pattern {only!r} matches no check id")
    results = run_all(checks, settings, progress=None if progress is None else (lambda c, o: progress(c.id)))
    return Checks(
        {"checks": [outcome_record(c, o) for c, o in results], "summary": summary(results)},
        tuple(c.id for c in failing_steps(results)),
        tuple(results),
    )


def count_checks(only: str | None = None) -> int:
    """How many checks :func:`verify` decides for ``only`` (for a progress bar)."""
    from sabounds.proofs_check.registry import select

    return len(select(only))


@dataclass(frozen=True)
class MutationAudit:
    """The mutation audit's result: ``json`` as ``verify --mutants --json`` (``mutants``, ``summary``); ``results``
    the audited mutants (step, operator, outcome, killed)."""

    json: dict[str, Any] = field(repr=False)
    results: tuple[Mutant, ...] = field(repr=False, default=())

    @property
    def summary(self) -> dict[str, Any]:
        summary: dict[str, Any] = self.json["summary"]
        return summary

    def to_frame(self) -> pd.DataFrame:
        return frame(self.json["mutants"])

    def to_json(self) -> dict[str, Any]:
        return self.json


def audit_mutants(
    only: str | None = None,
    *,
    precision: int = 50,
    samples: int = 200,
    seed: int | None = None,
    progress_bar: ProgressBar | None = None,
) -> MutationAudit:
    """Perturb every checked derivation step (constant, sign, exponent, dropped factor, fine mutants off by 1e-12)
    and decide each mutant: which check refutes it (``sabounds.proofs_check.mutants``).  ``progress_bar(total)``: a
    context manager yielding ``advance(note)``."""
    from contextlib import nullcontext

    from sabounds.proofs_check import mutants

    settings = check_settings(precision, samples, seed)
    audited = [d for d in mutants.derivations_audited() if not only or only in d.id]
    if not audited:
        from sabounds.theory.catalog import derivations as catalogued

        raise InputError(f"the pattern {only!r} matches no derivation ({', '.join(catalogued('audited'))})")
    total = sum(len(mutants.mutate(step)) for d in audited for step in d)
    with progress_bar(total) if progress_bar else nullcontext(None) as advance:
        results = mutants.audit(audited, settings, progress=advance)
    return MutationAudit(
        {"mutants": [mutants.record(m) for m in results], "summary": mutants.summary(results, audited)}, tuple(results)
    )
