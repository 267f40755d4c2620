"""The report's expensive parts, cached by content: every check's outcome and the regime tables.

Each part is read, in order, from the results stored with the package (``proofs_check/stored_results.json``),
from the user's cache folder, or computed now; a stored or cached record is used only when it is current
(``numerics.result_cache``: same settings, same library versions, every module it may have run unchanged), so a
result is never shown as fresh for different code.  The report names where each part came from.

``python -m sabounds.full_report.cached_parts`` recomputes both parts at the report's default settings in a fresh
process and rewrites the stored file (a few minutes: every check at 50 digits and 200 samples); ``--check`` only
says whether the stored file is current for this code (exit 1 and the reason when it is not).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from sabounds.numerics.result_cache import (
    Record,
    UserCache,
    compute_record,
    current,
    library_versions,
    read_records,
    write_records,
)
from sabounds.proofs_check.registry import Check, all_checks, run_all
from sabounds.proofs_check.stored_outcomes import STORED, check_inputs, outcome_from_json, outcome_json, plain
from sabounds.proofs_check.verdict import Outcome, Settings

REGENERATE = "python -m sabounds.full_report.cached_parts"
"""The command that rewrites :data:`STORED` (named by the test that fails when it is stale)."""

_WORDS = {"stored": "stored with the package", "cache": "the user's cache", "computed": "computed in this run"}


def regime_inputs() -> dict:
    return {"part": "regimes", "versions": library_versions()}


def _compute_checks(settings: Settings, progress: Callable[[Check], None] | None):
    def run():
        return [
            outcome_json(c, o)
            for c, o in run_all(all_checks(), settings, progress=(lambda c, o: progress(c)) if progress else None)
        ]

    return run


def _compute_regimes():
    from sabounds.render.regime_tables import json_data, markdown
    from sabounds.theory.architecture import ARCHITECTURES
    from sabounds.theory.regimes import table

    results = table(None, ARCHITECTURES["single_head"]())
    return {"json": plain(json_data(results)), "markdown": markdown(results)}


def checks(
    settings: Settings, progress: Callable[[Check], None] | None = None, stored=None, cache: UserCache | None = None
) -> tuple[list[tuple[Check, Outcome]], Record]:
    """Every check's outcome at ``settings`` (``progress(check)`` once per check) and the record they came from."""
    stored = read_records(STORED) if stored is None else stored
    record = current("checks", check_inputs(settings), _compute_checks(settings, progress), stored, cache)
    by_id = {c.id: c for c in all_checks()}
    if [r["id"] for r in record.value] != list(by_id):  # cannot happen for a current record; never trust one
        record = compute_record("checks", check_inputs(settings), _compute_checks(settings, progress))
        (cache or UserCache()).put(record)
    results = [(by_id[r["id"]], outcome_from_json(r)) for r in record.value]
    if progress is not None and record.origin != "computed":
        for check, _ in results:
            progress(check)
    return results, record


def regimes(stored=None, cache: UserCache | None = None) -> tuple[dict, str, Record]:
    """The regime tables (``sabounds regimes --format json`` and the report's markdown) and their record."""
    stored = read_records(STORED) if stored is None else stored
    record = current("regimes", regime_inputs(), _compute_regimes, stored, cache)
    return record.value["json"], record.value["markdown"], record


def origin_line(part: str, record: Record) -> str:
    """``checks: stored with the package (computed 2026-12-05T04:00:00+00:00 on Linux ..., 180.2 s); ...``."""
    if record.origin == "computed":
        return f"{part}: computed in this run ({record.seconds:.0f} s)"
    return (
        f"{part}: {_WORDS[record.origin]}, computed {record.created} on {record.platform} in {record.seconds:.0f} s, "
        "current for this code (every module it may have run unchanged, same settings and library versions)"
    )


def stale(path: Path = STORED, settings: Settings | None = None) -> list[str]:
    """Why each part of the stored file is not current for this code at ``settings`` (empty: all current)."""
    records = read_records(path)
    wanted = {"checks": check_inputs(settings or Settings()), "regimes": regime_inputs()}
    reasons = []
    for part, inputs in wanted.items():
        found = records.get(part, [])
        if not found:
            reasons.append(f"{part}: not in {path.name}")
        elif all(r.stale_reason(inputs) for r in found):
            reasons.append(f"{part}: {found[0].stale_reason(inputs)}")
    return reasons


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether the stored file is current")
    parser.add_argument("--out", type=Path, default=STORED, help="the file to write or check (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.check:
        reasons = stale(args.out)
        for reason in reasons:
            print(f"stale: {reason}; run `{REGENERATE}`", file=sys.stderr)
        if not reasons:
            print(f"{args.out.name}: current for this code")
        return 1 if reasons else 0
    settings = Settings()
    records = [
        compute_record("checks", check_inputs(settings), _compute_checks(settings, None)),
        compute_record("regimes", regime_inputs(), _compute_regimes),
    ]
    write_records(args.out, records)
    print(f"wrote {args.out}: " + ", ".join(f"{r.part} ({r.seconds:.0f} s)" for r in records))
    return 0


if __name__ == "__main__":  # run through the module's own name, so that its source counts among the records' modules
    from sabounds.full_report import cached_parts

    sys.exit(cached_parts.main())
