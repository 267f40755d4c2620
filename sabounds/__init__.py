"""sabounds: verify, evaluate and test the spectrum-adaptive generalization bounds for trained deep Transformers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("sabounds")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0+source"

_API = ("analyze", "verify", "regimes", "conjecture", "bound")


def __getattr__(name: str):
    """``sabounds.analyze``, ``sabounds.bound`` and friends, imported on first use so that ``import sabounds`` stays fast."""
    if name == "bound":
        from sabounds.bound_api import bound
        return bound
    if name in _API:
        from sabounds import api
        return getattr(api, name)
    raise AttributeError(f"module 'sabounds' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
