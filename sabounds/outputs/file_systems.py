"""The kind of file system a path lies on, so ``--out`` can refuse the kernel's special ones before any work.

proc, sysfs, devtmpfs, cgroup and the like are interfaces to the kernel, not storage: creating a report there
either fails half-way (after the work: a lock or a folder that cannot be made) or, as root, changes the system.  The
type is that of the mount whose device number (``major:minor``, field 3 of ``/proc/self/mountinfo``) is the path's
``st_dev``; no path strings are compared, so links and bind mounts resolve as the kernel resolves them.  Where the
table cannot be read (no /proc, another OS) the type is unknown and nothing is refused on this ground.
"""

from __future__ import annotations

import os

SPECIAL = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "debugfs",
        "tracefs",
        "securityfs",
        "configfs",
        "bpf",
        "pstore",
        "efivarfs",
        "fusectl",
        "binfmt_misc",
        "mqueue",
        "hugetlbfs",
        "nsfs",
        "rpc_pipefs",
        "selinuxfs",
    }
)
"""Kernel interfaces by their mount type; tmpfs (``/dev/shm``, ``/tmp`` on many systems) is storage and is not here,
nor is autofs (a folder an automounter has not mounted yet becomes storage when it is entered)."""

MOUNTINFO = "/proc/self/mountinfo"
MOUNTINFO_MAX_BYTES = 1 << 22


def file_system(path: str | os.PathLike) -> str | None:
    """The mount type of the file system holding the existing ``path`` (``ext4``, ``proc``, ...), or None if unknown."""
    try:
        device = os.stat(path).st_dev
        with open(MOUNTINFO, "rb") as fh:
            table = fh.read(MOUNTINFO_MAX_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    wanted = f"{os.major(device)}:{os.minor(device)}"
    for line in table.splitlines():
        fields = line.split(" ")
        if len(fields) > 7 and fields[2] == wanted and "-" in fields[6:]:
            kind = fields.index("-", 6) + 1
            return fields[kind] if kind < len(fields) else None
    return None


def special_file_system(path: str | os.PathLike) -> str | None:
    """The type of the kernel's special file system holding ``path`` (see :data:`SPECIAL`), or None."""
    kind = file_system(path)
    return kind if kind in SPECIAL else None
