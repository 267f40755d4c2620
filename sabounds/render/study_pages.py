"""The README's study section and ``docs/guide/study.md``'s results, rendered from the stored study result.

The stored result (``docs/study/default.json``) is ``run_study("default")``'s result from an empty cache, without the
loss-gap rankings (``slim``), with the run's measured cost (date, machine, CPU seconds from ``getrusage``, wall seconds;
its ``note`` says how) under ``measured``; ``python -m sabounds.render.study_pages --store`` recomputes and stores it.
The README's table shows ``SHOWN`` and names the rest; the guide's shows every measure.  Each page holds the rendered
block between ``<!-- study:begin -->`` and ``<!-- study:end -->``; ``python -m sabounds.render.study_pages`` rewrites
the blocks, ``--check`` exits 1 when a page differs (a test runs the same comparison)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BEGIN, END = "<!-- study:begin -->", "<!-- study:end -->"
STORED = Path("docs/study/default.json")
PAGES = {"README.md": "readme", "docs/guide/study.md": "guide"}


def slim(result: dict, measured: dict) -> dict:
    """The result without the loss-gap rankings (kept: settings, runs, error-gap rankings, timing) plus ``measured``."""
    tasks = {task: {**t, "rankings": {"gap_error": t["rankings"]["gap_error"]}} for task, t in result["tasks"].items()}
    return {**result, "tasks": tasks, "measured": measured}


def block(result: dict, page: str) -> str:
    """The rendered block of ``page`` (``readme`` or ``guide``)."""
    from sabounds.training_study.outputs import EVERY, SHOWN, legend, task_summary

    s, m = result["settings"], result["measured"]
    cost = f"{s['runs']} runs, {m['cpu_seconds'] / 60:.1f} CPU-minutes ({m['note']})"
    stored = f"[`docs/study/default.json`]({'docs/study' if page == 'readme' else '../study'}/default.json)"
    lines = [
        BEGIN,
        "",
        f"`sabounds study` (grid `{s['grid']}`: {s['grid_note']}), measured {m['date']} on {m['machine']}; "
        f"{cost}. Rendered by `python -m sabounds.render.study_pages` from the stored result {stored}.",
        "",
    ]
    full = f"the [guide's full table](docs/guide/study.md#the-default-study) and {stored}"
    for task, t in result["tasks"].items():
        lines += [*(task_summary(task, t, s, SHOWN, full) if page == "readme" else task_summary(task, t, s, EVERY)), ""]
        if page == "guide":
            lines += [*(f"- excluded: {e['label']}: {e['status']}" for e in t["excluded"]), ""]
    lines += [legend(s), "", END]
    return "\n".join(lines)


def rendered_page(text: str, new_block: str) -> str:
    """``text`` with its block replaced (ValueError when the markers are missing)."""
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise ValueError("the page has no study block markers")
    return text[:start] + new_block + text[stop + len(END) :]


def sync(root: Path, check: bool) -> list[str]:
    """Pages whose block differs from the rendering of the stored result (rewritten unless ``check``)."""
    result = json.loads((root / STORED).read_text(encoding="utf-8"))
    stale = []
    for name, page in PAGES.items():
        path = root / name
        text = path.read_text(encoding="utf-8")
        new = rendered_page(text, block(result, page))
        if new != text:
            stale.append(name)
            if not check:
                path.write_text(new, encoding="utf-8")
    return stale


def store(root: Path, workers: int = 2) -> None:
    """Run the default study from an empty cache with ``workers`` local Dask workers and store its slim result with
    its cost: wall seconds, and CPU seconds (user + system of this process and its reaped workers, getrusage)."""
    import datetime
    import os
    import platform
    import resource
    import tempfile
    import time

    from sabounds.training_study.pipeline import run_study

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as cache:
        result = run_study("default", workers=workers, cache_dir=cache)
    wall = time.perf_counter() - start
    cpu = sum(
        r.ru_utime + r.ru_stime
        for r in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )
    load = os.getloadavg()[0]
    measured = {
        "cpu_seconds": round(cpu, 1),
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, load average {load:.1f}",
        "note": f"user + system time of the whole study from an empty cache with {workers} Dask workers "
        f"(getrusage of the process and its workers); wall {wall:.0f} s",
        "wall_seconds": round(wall, 1),
    }
    text = json.dumps(slim(result, measured), indent=1, sort_keys=True, allow_nan=False) + "\n"
    (root / STORED).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if "--store" in sys.argv[1:]:
        store(Path.cwd())
    stale = sync(Path.cwd(), check="--check" in sys.argv[1:])
    print("\n".join(f"{'differs' if '--check' in sys.argv else 'rewrote'}: {name}" for name in stale) or "up to date")
    sys.exit(1 if stale and "--check" in sys.argv[1:] else 0)
