"""Write the generated pages of docs/: every derivation step by step (derivations.md), every check and what it
establishes (checks.md), how to use the LaTeX outputs (latex.md) and their preamble (preamble.tex).

They are generated from the Derivation objects and the check registry, so they cannot drift from the code; the
tests regenerate them and compare.  docs/definitions.md (written by hand) defines every symbol.  A file is
replaced only if it carries the generated-file marker; anything else in the folder is left alone.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sabounds.errors import UserError
from sabounds.render.docs_pages import MARKER, PAGE_NAMES, pages


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", metavar="DIR", default="docs", help="folder for the generated pages (default docs)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated page is out of date")


def _ours(path: Path) -> bool:
    """Whether ``path`` is a regular file this command wrote (it carries the marker on its first line; 4 KiB read)."""
    if path.is_symlink() or not path.is_file():
        return False
    with open(path, "rb") as fh:
        return MARKER.encode() in fh.readline(4096)


def _refuse_foreign(out: Path) -> None:
    """Refuse, before any page is computed and again before any is written, a page name taken by a file not ours."""
    for name in PAGE_NAMES:
        path = out / name
        if (path.exists() or path.is_symlink()) and not _ours(path):
            raise UserError(f"{path} exists and was not written by sabounds docs; not replacing it")


def _same(path: Path, content: str) -> bool:
    """Whether ``path`` holds exactly ``content`` (read up to one byte past its length, as bytes)."""
    data = content.encode("utf-8")
    if not path.is_file():
        return False
    with open(path, "rb") as fh:
        return fh.read(len(data) + 1) == data


def run(args) -> int:
    out = Path(args.out)
    if out.exists() and (out.is_symlink() or not out.is_dir()):
        raise UserError(f"{out} is not a folder")
    _refuse_foreign(out)
    generated = pages()
    stale = [name for name, content in generated.items() if not _same(out / name, content)]
    if args.check:
        print("docs up to date" if not stale else "out of date: " + ", ".join(stale))
        return 1 if stale else 0
    _refuse_foreign(out)  # a file put there while the pages were computed is not replaced either
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in stale:
            tmp = out / f".{name}.partial"
            if tmp.exists() or tmp.is_symlink():
                raise UserError(f"{tmp} is in the way; not replacing it")
            tmp.write_text(generated[name], encoding="utf-8")
            tmp.replace(out / name)
    except OSError as exc:
        raise UserError(f"could not write {out} ({exc.strerror or exc})") from None
    print(f"wrote {', '.join(stale) or 'nothing (up to date)'} in {out}")
    return 0
