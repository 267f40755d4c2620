"""sabounds: verify, evaluate and test the spectrum-adaptive generalization bounds for trained deep Transformers."""


def _installed_version() -> str:
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

_API = ("analyze", "verify", "regimes", "conjecture", "bound")


def __getattr__(name: str):
    """``sabounds.analyze``, ``sabounds.bound`` and friends, imported on first use so that ``import sabounds`` stays fast."""
    if name == "__version__":
        globals()["__version__"] = _installed_version()
        return globals()["__version__"]
    if name == "default_model":  # the bundled all-MiniLM-L6-v2 folder (a Path), for sabounds.analyze
        from sabounds.numerics.checkpoints.reader import default_model_dir
        return default_model_dir
    if name == "bound":
        from sabounds.bound_api import bound
        return bound
    if name in _API:
        from sabounds import api
        return getattr(api, name)
    raise AttributeError(f"module 'sabounds' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API) | {"__version__", "default_model"})
