"""Every count of checks the docs state is the code's: a stale count fails here.

A statement ``N checks`` in README.md or a page of docs/ counts the checks of the nearest ``--only 'PATTERN'`` before
it in the same paragraph or code block (every check when there is none); the verdicts that follow it in the same
clause (``4 proved, 1 verified, 0 refuted, 0 unresolved``), and ``by basis N proved, M definitions, K true by
construction`` or ``of which M are definitions and K true by construction``, are compared with the outcomes at the
default settings (the ``default_checks`` fixture: the stored results while current).  The counts of tests are
checked by ``test_test_counts_in_docs`` (it collects the suite in a child process).  CHANGELOG.md is history and
keeps its numbers; the pages generated from the code (docs/checks.md, docs/derivations.md) are checked by
``tests/cli/test_docs.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from sabounds.proofs_check.registry import select

ROOT = Path(__file__).resolve().parents[2]
GENERATED = {"docs/checks.md", "docs/derivations.md"}
COUNT = re.compile(r"(?<![\w.`-])(\d+) checks\b")
ONLY = re.compile(r"--only '([^']+)'|--only ([\w.*?\[\]-]+)")
VERDICT = re.compile(r"(?<![\w.])(\d+) (proved|verified|refuted|unresolved)\b")
BASIS = re.compile(r"by basis:? (\d+) proved, (\d+) definitions?, (\d+) true by construction")
OF_WHICH = re.compile(r"of which (\d+) are definitions and (\d+|none) true by construction")


def pages() -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.relative_to(ROOT).as_posix() not in GENERATED),
    ]


def _paragraph_before(text: str, at: int) -> str:
    """The text before ``at`` that a count can refer to: its paragraph, or for a count in a code block the block and
    the paragraph that introduces it (never past a heading)."""
    start = text.rfind("\n\n", 0, at)
    if text.count("```", 0, at) % 2:  # inside a code block: back to the paragraph before the block
        start = text.rfind("\n\n", 0, text.rfind("```", 0, at) - 2)
    heading = text.rfind("\n#", 0, at)
    return text[max(start, heading, 0) : at]


def _clause_after(text: str, end: int) -> str:
    """From ``end`` to the end of the clause: ``;``, a blank line, a sentence end or an unopened ``)``;
    parenthesised asides inside are dropped."""
    rest = text[end : end + 600].split("\n\n")[0]
    rest = re.split(r";|\.\s", rest)[0]
    while True:
        shorter = re.sub(r"\([^()]*\)", "", rest)
        if shorter == rest:
            break
        rest = shorter
    return rest.split(")")[0]


def statements() -> list[tuple[str, str | None, int, str, str]]:
    """``(page, pattern, count, clause, whole remainder up to the next blank line)`` for every ``N checks``."""
    out = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for m in COUNT.finditer(text):
            only = ONLY.findall(_paragraph_before(text, m.start()))
            pattern = (only[-1][0] or only[-1][1]) if only else None
            rest = text[m.end() : m.end() + 600].split("\n\n")[0]
            out.append(
                (page.relative_to(ROOT).as_posix(), pattern, int(m.group(1)), _clause_after(text, m.end()), rest)
            )
    return out


def test_the_docs_state_some_counts():
    """The parser finds the statements it is meant to check (a docs rewrite that hides them fails here)."""
    found = statements()
    assert any(pattern is None for _, pattern, _, _, _ in found)
    assert any(pattern == "thm41.c*" for _, pattern, _, _, _ in found)


@pytest.mark.parametrize(
    "page,pattern,count,clause,rest", statements(), ids=[f"{s[0]}:{s[1] or 'all'}:{s[2]}" for s in statements()]
)
def test_check_counts_in_docs(page, pattern, count, clause, rest, default_checks):
    ids = [c.id for c in select(pattern)]
    assert count == len(ids), (
        f"{page} says {count} checks for {pattern or 'every check'}; the code has {len(ids)}: update the page"
    )
    verdicts = Counter(default_checks[i].verdict.value for i in ids)
    grounds = Counter(default_checks[i].grounds for i in ids)
    for n, word in VERDICT.findall(clause):
        assert int(n) == verdicts[word], (
            f"{page}: {n} {word} for {pattern or 'every check'}; the code: {verdicts[word]}"
        )
    basis = BASIS.search(rest)
    if basis:
        stated = tuple(map(int, basis.groups()))
        assert stated == (grounds["proved"], grounds["definition"], grounds["construction"]), (page, stated, grounds)
    of_which = OF_WHICH.search(rest)
    if of_which:
        stated = tuple(0 if g == "none" else int(g) for g in of_which.groups())
        assert stated == (grounds["definition"], grounds["construction"]), (page, stated, grounds)


TESTS = re.compile(r"(?<![\w.])(\d+) tests \((\d+) in the quick lane\)")


def _collected(*marks: str) -> int:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *marks],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    ).stdout
    found = re.search(r"(\d+)(?:/\d+)? tests? collected", out) or re.search(r"(\d+) tests? selected", out)
    selected = re.search(r"(\d+)/(\d+) tests collected", out)
    return int(selected.group(1)) if selected else int(found.group(1))


@pytest.mark.slow
def test_test_counts_in_docs():
    """``N tests (M in the quick lane)``: what ``make test`` and ``make test-fast`` collect today."""
    stated = [
        (page.relative_to(ROOT).as_posix(), int(a), int(b))
        for page in pages()
        for a, b in TESTS.findall(page.read_text(encoding="utf-8"))
    ]
    assert stated, "no page states the suite's size as 'N tests (M in the quick lane)'"
    everything, quick = _collected(), _collected("-m", "not slow")
    for page, a, b in stated:
        assert (a, b) == (everything, quick), (
            f"{page} says {a} tests ({b} in the quick lane); the suite has {everything} ({quick}): update the page"
        )
