"""One progress display for long work: a rich progress bar on stderr, silent when stderr is not a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def progress_bar(label: str, total: int, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """Yield ``advance(note)``; draws a bar on stderr only when enabled and stderr is a terminal."""
    if not (enabled and sys.stderr.isatty()):
        yield lambda note="": None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total, note="")
        yield lambda note="": progress.update(task, advance=1, note=note)
