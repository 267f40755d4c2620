"""Check outcomes as plain data: the JSON schema of ``sabounds verify --json`` and the summary counts."""

from __future__ import annotations

from collections import Counter

from sabounds.proofs_check.registry import Check
from sabounds.proofs_check.verdict import Outcome, Verdict


def outcome_record(check: Check, outcome: Outcome) -> dict:
    """One check as ``{"id", "claim", "verdict", "method", "precision_digits", "samples", "seconds", "detail", ...}``."""
    return {
        "id": check.id,
        "claim": check.claim,
        "verdict": outcome.verdict.value,
        "method": outcome.method,
        "precision_digits": outcome.precision_digits,
        "samples": outcome.samples,
        "seconds": round(outcome.seconds, 4),
        "detail": outcome.detail,
        "margin": outcome.margin,
        "witness": dict(outcome.witness) if outcome.witness else None,
        "is_step": check.is_step,
        "basis": outcome.grounds,
    }


def summary(results: list[tuple[Check, Outcome]]) -> dict:
    """Counts per verdict, plus ``basis``: the same checks split so definitions and statements true by construction
    are counted apart from ``proved``."""
    counts = Counter(outcome.verdict for _, outcome in results)
    out = {v.value: counts.get(v, 0) for v in Verdict}
    grounds = Counter(outcome.grounds for _, outcome in results)
    out["basis"] = {k: grounds.get(k, 0) for k in (*(v.value for v in Verdict), "definition", "construction")}
    return out


def failing_steps(results: list[tuple[Check, Outcome]]) -> list[Check]:
    """Derivation steps that are refuted or unresolved (claims may be refuted: that is a result)."""
    return [c for c, o in results if c.is_step and o.verdict in (Verdict.REFUTED, Verdict.UNRESOLVED)]


def summary_text(counts: dict) -> str:
    """``"77 proved, 34 verified, 1 refuted, 0 unresolved (by basis: 63 proved, ..., 9 definition, 5 construction)"``."""
    main = ", ".join(f"{n} {v}" for v, n in counts.items() if v != "basis")
    basis = counts.get("basis")
    return main + (" (by basis: " + ", ".join(f"{n} {v}" for v, n in basis.items() if n) + ")" if basis else "")
