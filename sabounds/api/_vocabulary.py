"""The names a caller chooses among (conjecture families, regimes, architecture descriptions, study grids and
tasks), the package's defaults, and the JSON and summary lines every front end prints the same way."""

from __future__ import annotations

from typing import Any


def conjecture_families() -> tuple[str, ...]:
    """The built-in families :func:`sabounds.conjecture` decides a proposed constant of."""
    from sabounds.proofs_check.conjecture import FAMILIES

    return tuple(FAMILIES)


def regime_names() -> tuple[str, ...]:
    """The spectral regimes of :func:`sabounds.regimes`."""
    from sabounds.theory.regimes import REGIMES

    return tuple(REGIMES)


def architecture_names() -> tuple[str, ...]:
    """The architecture descriptions :func:`sabounds.regimes` evaluates the closed forms for."""
    from sabounds.theory.architecture import ARCHITECTURES

    return tuple(ARCHITECTURES)


def study_grids() -> dict[str, str]:
    """The named grids of :func:`sabounds.study`, each with a one-line note."""
    from sabounds.training_study.grids import GRID_NOTES

    return dict(GRID_NOTES)


def study_tasks() -> tuple[str, ...]:
    """The tasks a study trains on."""
    from sabounds.training_study.tasks import TASKS

    return tuple(TASKS)


def default_lphi() -> float:
    """The published proxy's Lipschitz constant of the activation (L_phi)."""
    from sabounds.numerics.proxies.published_factors import L_PHI

    return float(L_PHI)


def default_rank_tol() -> float:
    """The relative tolerance below which a singular value does not count towards the rank."""
    from sabounds.numerics.spectra import RANK_TOL

    return float(RANK_TOL)


def json_text(record: Any, indent: int | None = 2) -> str:
    """``record`` as JSON, a ``LogReal`` (a number beyond float64) as ``{"decimal", "log10"}``; ValueError for inf
    and nan."""
    from sabounds.numerics.log_real import dumps

    text: str = dumps(record, indent=indent)
    return text


def checks_summary_line(counts: dict[str, Any]) -> str:
    """``"77 proved, 34 verified, 1 refuted, 0 unresolved (by basis: ...)"`` for a summary of checks."""
    from sabounds.proofs_check.outcome_records import summary_text

    return summary_text(counts)


def storage_line(source: dict[str, Any]) -> str:
    """One line on how a checkpoint's matrices were stored and read (from :attr:`Analysis.json`'s ``source``)."""
    from sabounds.numerics.checkpoints.storage_info import storage_line as line

    return line(source)
