"""The installed distribution's version, read without importing importlib.metadata (0.2 s of start-up).

``sabounds.__version__`` and every module that prints the version call :func:`installed_version`: importing the
package's ``__init__`` from inside the package would make a cycle with the API it loads on first use."""

from __future__ import annotations

from functools import cache


@cache
def installed_version() -> str:
    """The installed distribution's version from its METADATA, found along ``sys.path`` as importlib.metadata
    would find it (importing importlib.metadata costs 0.2 s of start-up); ``0.1.0+source`` when not installed."""
    import os
    import sys

    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("sabounds-") and name.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry or ".", name, "METADATA"), encoding="utf-8") as fh:
                        for line in fh:
                            if line.startswith("Version:"):
                                return line.split(":", 1)[1].strip()
                except OSError:
                    continue
    return "0.1.0+source"
