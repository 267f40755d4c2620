"""Hostile tables of issue 20 (exposure, injection, Dask, early checks): each row one case a hostile or careless
user can produce.  ``tests/support/hostile.py`` adds :func:`counts` to its own; the files of ``tests/hostile/`` expand them.
"""

from __future__ import annotations

# --- test hooks a user's environment must not reach ------------------------------------------------------------

HOOK_VARIABLES = [  # (environment, command): the file named must keep its content, the command its result
    ("SABOUNDS_TEST_READY", ["--version"]),
    ("SABOUNDS_TEST_READY", ["regimes"]),
    ("SABOUNDS_TEST_FAULT", ["analyze", "{model}", "--out", "{out}"]),
]
FAULT_VALUES = ["locked:KILL", "partial-created:STOP", "in-swap:KILL", "written:TERM"]

# --- the two-rename swap (no RENAME_EXCHANGE) killed half-way, then a run to another target -----------------------

FALLBACK_STAGES = ["in-swap", "renamed-away", "swapped", "old-half-deleted"]
UNRELATED_TARGETS = ["r*", "re?ort", "[r]eport", "rep"]  # glob patterns that match "report", and a prefix


# --- user strings in output files: a checkpoint path as the user typed it ------------------------------------------

HOSTILE_NAMES = {
    "remote-image": "![t](http:/127.0.0.1:9/t.png)",
    "newline-heading-row": "m\n# Injected heading\n| injected | row |",
    "script-tag": "<script>alert(1)</script>",
    "formula": "=cmd|' -c calc'!A0",
    "mathtext": "$\\frac{$ m",
    "javascript-link": "[click](javascript:alert(1))",
    "fence-breakout": "```\n<img src=x onerror=alert(1)>\n```",
    "plus-minus-at": "+1+cmd|x;-2;@SUM(1)",
}
ESCAPE_COMMANDS = {
    "report": list(HOSTILE_NAMES),
    "sweep": list(HOSTILE_NAMES),  # (analyze and bound write no path)
    "scaling": ["remote-image", "formula", "mathtext", "newline-heading-row"],
}
ESCAPE_CASES = [(command, name) for command, names in ESCAPE_COMMANDS.items() for name in names]


# --- Dask: addresses, peers, the private cluster, Ctrl-C while it starts -----------------------------------------

BAD_ADDRESSES = [
    "tcp://127.0.0.1:abc",
    "",
    "   ",
    "foo://",
    "tls://",
    "ucx://",
    "inproc://",
    "tcp://127.0.0.1:0",
    "tcp://127.0.0.1:99999",
    "tcp://:8786",
    "127.0.0.1:8786/path",
    "tcp://user@127.0.0.1:8786",
    "tcp://127.0.0.1:8786\n",
]
PEERS = ["silent", "http-garbage", "huge-frame", "short-frame"]  # a local socket server that is not Dask
CLUSTER_INTERRUPT_DELAYS = [
    0.3,
    0.5,
    0.7,
]  # seconds after the cluster starts starting (its start: ~2 s); 0.0 aborts at exit now and then (closing note)

# --- --out checked before any work ----------------------------------------------------------------------------

EARLY_OUT = {"under-a-file": "afile/out", "deep-under-a-file": "afile/a/b/out", "under-a-dangling-link": "dangling/out"}
EARLY_OUT_COMMANDS = ["report", "sweep", "analyze", "scaling", "bound"]
SPECIAL_OUT = {
    "proc": "/proc/sabounds-out",
    "proc-self": "/proc/self/sabounds-out",
    "proc-sys": "/proc/sys/sabounds-out",
    "sysfs": "/sys/sabounds-out",
    "sysfs-deep": "/sys/kernel/sabounds/out",
}  # kernel file systems, not storage


def counts() -> dict[str, int]:
    return {
        "test hooks from the environment (variable x command, fault values)": len(HOOK_VARIABLES)
        + len(FAULT_VALUES)
        + 1,
        "two-rename swap killed, then a run to a glob-like target (stage x target)": len(FALLBACK_STAGES)
        * len(UNRELATED_TARGETS)
        + 1,
        "user strings in output files (command x hostile checkpoint path), crafted cached figure": len(ESCAPE_CASES)
        + 1,
        "Dask: bad --scheduler addresses, non-Dask peers, private cluster, Ctrl-C while it starts": len(BAD_ADDRESSES)
        + len(PEERS)
        + 1
        + len(CLUSTER_INTERRUPT_DELAYS),
        "--out checked before any work (path x command)": len(EARLY_OUT) * len(EARLY_OUT_COMMANDS),
        "--out on a special file system, before any work (path x command)": len(SPECIAL_OUT) * len(EARLY_OUT_COMMANDS),
    }
