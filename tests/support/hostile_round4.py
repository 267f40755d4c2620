"""Hostile inputs, round four (issue 34): every reproduction of the campaign and the classes behind them, as tables.

Structures in TOML and JSON user files (dotted keys 29 000 parts deep, integers of 5000 digits, nesting, wide arrays,
many keys) x the commands that read them; special files (FIFO, device, folder, socket, sparse 6 GiB, not UTF-8,
missing); user bound terms that are negative, zero, complex or overflow; numeric options and scheduler addresses out
of range; cache folders that are not private.  Each case runs ``sabounds`` in a child process whose peak resident
memory is read from ``wait4`` (at most :data:`MAX_RSS_MB` for a refusal) within :data:`SECONDS`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_RSS_MB = 200
SECONDS = 120
REFUSE, OK = "refuse", "ok"


@dataclass(frozen=True)
class Measured:
    returncode: int
    stdout: str
    stderr: str
    max_rss_mb: float


_LAUNCHER = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[2:])\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
    "code = os.waitstatus_to_exitcode(status)\n"
    "sys.exit(code if code >= 0 else 128 - code)\n"
)
"""A small process between the test and the command: a child's peak RSS counts the pages it shares with the
process that forked it, so the command is forked from this ~10 MB launcher rather than from a grown test worker."""


def run_measured(argv: list[str], cwd: Path, env: dict | None = None, seconds: float = SECONDS) -> Measured:
    """``sabounds ARGV`` in a child process: exit status, output and the child's own peak RSS (``os.wait4`` in a
    small launcher, see :data:`_LAUNCHER`); the launcher and the command are killed together after ``seconds``."""
    out, err, rss = cwd / ".stdout", cwd / ".stderr", cwd / ".maxrss"
    with open(out, "wb") as o, open(err, "wb") as e:
        p = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(rss), sys.executable, "-m", "sabounds", *argv],
            cwd=cwd,
            stdout=o,
            stderr=e,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
    timer = threading.Timer(seconds, lambda: os.killpg(p.pid, 9))
    timer.start()
    try:
        p.wait()
    finally:
        timer.cancel()
    text = (out.read_text(errors="replace"), err.read_text(errors="replace"))
    peak_kib = float(rss.read_text()) if rss.exists() else float("inf")
    for path in (out, err, rss):
        path.unlink(missing_ok=True)
    code = p.returncode if p.returncode < 128 else -(p.returncode - 128)
    return Measured(code, *text, peak_kib / 1024)


# --- file structures -------------------------------------------------------------------------------------------

TOML_STRUCTURES = {
    "dotted-key-29000-parts": "a" + ".a" * 29_000 + " = 1\n",
    "dotted-header-29000-parts": "[" + "a." * 29_000 + "a]\n",
    "dotted-key-in-inline-table": "x = {" + "a." * 29_000 + "b = 1}\n",
    "quoted-dotted-key-parts": '"a".' * 10_000 + '"b" = 1\n',
    "array-of-tables-dotted-header": "[[" + "a." * 29_000 + "a]]\n",
    "integer-5000-digits": "x = " + "9" * 5000 + "\n",
    "integer-4301-digits-with-underscores": "x = 1" + "_0" * 4300 + "\n",
    "negative-integer-5000-digits": "x = -" + "9" * 5000 + "\n",
    "integer-in-array-5000-digits": "x = [1, " + "9" * 5000 + "]\n",
    "float-5000-digits": "x = 0." + "1" * 5000 + "\n",
    "nested-arrays-30000": "x = " + "[" * 30_000 + "]" * 30_000 + "\n",
    "nested-inline-tables-5000": "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n",
    "array-of-20000-items": "x = [" + "1," * 20_000 + "1]\n",
    "12000-keys": "".join(f"k{i} = 1\n" for i in range(12_000)),
}
TOML_TARGETS = {
    "regimes-bound": (["regimes", "--bound", "f.toml"], "f.toml"),
    "analyze-bound": (["analyze", "--bound", "f.toml", "--json"], "f.toml"),
    "analyze-mapping": (["analyze", "--mapping", "f.toml", "--json"], "f.toml"),
}
JSON_STRUCTURES = {
    "json-nested-100000": "[" * 100_000 + "]" * 100_000,
    "json-integer-5000-digits": '{"layer": ' + "7" * 5000 + "}",
    "json-500000-values": "[" + "1," * 500_000 + "1]",
    "json-dotted-looking-keys": '{"' + "a." * 100_000 + '": 1}',
}


def _write(name: str, text: str) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        (root / name).write_text(text)

    return build


def _fifo(root: Path, name: str) -> None:
    os.mkfifo(root / name)


def _socket(root: Path, name: str) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(root / name))  # the bound socket file stays after close: a socket, not a regular file
    s.close()


def _sparse(root: Path, name: str) -> None:
    with open(root / name, "wb") as fh:
        fh.truncate(6 * 2**30)


SPECIAL_FILES = {
    "fifo": _fifo,
    "link-to-dev-zero": lambda root, name: (root / name).symlink_to("/dev/zero"),
    "folder": lambda root, name: (root / name).mkdir(),
    "socket": _socket,
    "sparse-6-GiB": _sparse,
    "not-utf8": lambda root, name: (root / name).write_bytes(b"id = '\xff\xfe'\n"),
    "missing": lambda root, name: None,
}
SPECIAL_TARGETS = {
    "regimes-bound": ["regimes", "--bound", "f.toml"],
    "analyze-mapping": ["analyze", "--mapping", "f.toml", "--json"],
}


def _bound(term: str, log_factor: str = "1") -> str:
    return f'id = "mine"\nterm = "{term}"\naggregation = "sum"\npropagation = "none"\nlog_factor = "{log_factor}"\n'


BOUND_TERMS = {  # (term, log_factor) -> the entry the one line must name
    "term-minus-s": (("-s", "1"), "entry term"),
    "term-zero": (("0*s", "1"), "entry term"),
    "term-s-minus-s": (("s - s", "1"), "entry term"),
    "term-sqrt-of-negative": (("sqrt(s - 1e9)", "1"), "entry term"),
    "term-log-negative-on-the-model": (("log(s) - 1e9", "1"), "entry term"),
    "term-gamma-overflow": (("gamma(s*1e6)", "1"), "entry term"),
    "term-exp-tower-overflow": (("exp(exp(exp(s)))", "1"), "entry term"),
    "log-factor-negative": (("s", "-1"), "entry log_factor"),
}

ARGUMENT_CASES = {
    "sweep-workers-100000": ["sweep", "m", "--workers", "100000"],
    "study-workers-100000": ["study", "--workers", "100000"],
    "sweep-workers-negative": ["sweep", "m", "--workers", "-1"],
    "analyze-threads-100000": ["analyze", "--threads", "100000"],
    "conjecture-time-limit-inf": ["conjecture", "x <= 1", "--time-limit", "inf"],
    "conjecture-time-limit-nan": ["conjecture", "x <= 1", "--time-limit", "nan"],
    "conjecture-time-limit-1e9": ["conjecture", "x <= 1", "--time-limit", "1e9"],
    "analyze-rms-floor-nan": ["analyze", "--rms-floor", "nan"],
    "analyze-rms-floor-negative": ["analyze", "--rms-floor", "-1"],
    "bound-rms-floor-inf": ["bound", "--n", "1e9", "--delta", "0.1", "--margin", "1", "--rms-floor", "inf"],
    "study-scheduler-ucx": ["study", "--scheduler", "ucx://host:1"],
    "study-scheduler-empty": ["study", "--scheduler", ""],
    "study-scheduler-no-port": ["study", "--scheduler", "tcp://host"],
    "verify-precision-5000-digits": ["verify", "--precision", "9" * 5000],
    "analyze-dpi-1e6": ["analyze", "--dpi", "1000000", "--out", "o", "--plots"],
}


@dataclass(frozen=True)
class Case:
    """``prepare(root)`` makes the files; ``argv`` runs in ``root``; ``words`` must be in the one line."""

    id: str
    klass: str
    argv: tuple[str, ...]
    prepare: Callable[[Path], None]
    expect: str = REFUSE
    words: str = ""
    env: tuple[tuple[str, str], ...] = ()
    check: str = ""  # an OK case's check in tests/hostile/test_round_four.py


def _cases() -> list[Case]:
    cases = []
    for sid, text in TOML_STRUCTURES.items():
        for tid, (argv, name) in TOML_TARGETS.items():
            cases.append(Case(f"{tid}-{sid}", "TOML structure", tuple(argv), _write(name, text)))
    for sid, text in JSON_STRUCTURES.items():
        cases.append(
            Case(
                f"analyze-mapping-{sid}",
                "JSON structure",
                ("analyze", "--mapping", "f.json", "--json"),
                _write("f.json", text),
            )
        )
    for literal in ("NaN", "Infinity", "-Infinity"):
        cases.append(
            Case(
                f"analyze-config-eps-{literal}",
                "JSON structure",
                ("analyze", "m", "--json"),
                _config_with(literal),
                words=f"holds {literal}",
            )
        )
    for kind, make in SPECIAL_FILES.items():
        for tid, argv in SPECIAL_TARGETS.items():
            cases.append(
                Case(f"{tid}-{kind}", "special file", tuple(argv), lambda root, make=make: make(root, "f.toml"))
            )
    cases.append(Case("analyze-gguf-fifo", "special file", ("analyze", "f.gguf"), lambda root: _fifo(root, "f.gguf")))
    for bid, ((term, log_factor), entry) in BOUND_TERMS.items():
        cases.append(
            Case(
                f"analyze-bound-{bid}",
                "bound numbers",
                ("analyze", "--bound", "b.toml", "--json"),
                _write("b.toml", _bound(term, log_factor)),
                words=entry,
            )
        )
    cases.append(
        Case(
            "analyze-bound-term-s-ok",
            "bound numbers",
            ("analyze", "--bound", "b.toml", "--json"),
            _write("b.toml", _bound("s")),
            OK,
            check="user_bound_finite",
        )
    )
    for aid, argv in ARGUMENT_CASES.items():
        cases.append(Case(aid, "numeric options and addresses", tuple(argv), lambda root: None))
    cases += _cache_cases()
    return cases


def _config_with(literal: str):
    """A tiny model whose config.json sets ``layer_norm_eps`` to a non-standard JSON literal (NaN, Infinity)."""

    def prepare(root: Path) -> None:
        from tests.support.hostile import tiny_model

        tiny_model(root / "m")
        path = root / "m" / "config.json"
        path.write_text(path.read_text().replace("{", '{"layer_norm_eps": ' + literal + ", ", 1))

    return prepare


def _cache_folder(mode: int, owner: int | None = None):
    def prepare(root: Path) -> None:
        from tests.support.hostile import tiny_model

        tiny_model(root / "m")
        (root / "c").mkdir()
        os.chmod(root / "c", mode)
        if owner is not None:
            os.chown(root / "c", owner, owner)

    return prepare


def _linked_entries(root: Path) -> None:
    from tests.support.hostile import tiny_model

    tiny_model(root / "m")
    (root / "c").mkdir(mode=0o700)
    (root / "elsewhere").mkdir(mode=0o700)
    (root / "c" / "entries").symlink_to(root / "elsewhere")


def _cache_cases() -> list[Case]:
    sweep = ("sweep", "m", "--workers", "0", "--json", "--cache-dir", "c")
    cases = [
        Case(
            f"sweep-cache-mode-{mode:o}",
            "cache not private",
            sweep,
            _cache_folder(mode),
            words="writable by group or others",
        )
        for mode in (0o777, 0o775, 0o1777, 0o757)
    ]
    cases.append(
        Case(
            "sweep-cache-env-world-writable",
            "cache not private",
            ("sweep", "m", "--workers", "0", "--json"),
            _cache_folder(0o777),
            words="writable by group or others",
            env=(("SABOUNDS_CACHE_DIR", "c"),),
        )
    )
    cases.append(
        Case(
            "study-cache-world-writable",
            "cache not private",
            ("study", "--grid", "tiny", "--workers", "0", "--cache-dir", "c"),
            _cache_folder(0o777),
            words="writable by group or others",
        )
    )
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cases.append(
            Case(
                "sweep-cache-of-another-user",
                "cache not private",
                sweep,
                _cache_folder(0o700, 12345),
                words="owned by another user",
            )
        )
    cases.append(
        Case(
            "sweep-cache-entries-linked-elsewhere",
            "cache not private",
            sweep,
            _linked_entries,
            OK,
            check="link_not_followed",
        )
    )
    return cases


CASES = _cases()


def counts() -> dict[str, int]:
    out: dict[str, int] = {}
    for case in CASES:
        out[f"round four: {case.klass}"] = out.get(f"round four: {case.klass}", 0) + 1
    return out
