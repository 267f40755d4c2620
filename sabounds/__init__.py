"""sabounds: verify, evaluate and test the spectrum-adaptive generalization bounds for trained deep Transformers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("sabounds")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0+source"


def __getattr__(name: str):
    """``sabounds.bound``: imported on first use (it pulls in sympy, mpmath and numpy)."""
    if name == "bound":
        from sabounds.bound_api import bound
        return bound
    raise AttributeError(f"module 'sabounds' has no attribute {name!r}")
