"""sabounds: verify, evaluate and test the spectrum-adaptive generalization bounds for trained deep Transformers.

The library is the product (the ``sabounds`` command line is a skin over it): :func:`analyze`, :func:`verify`,
:func:`regimes`, :func:`conjecture`, :func:`bound`, :func:`derivation`, :func:`sweep`, :func:`report`,
:func:`study` and :func:`default_model`, each returning a documented result object; bad input raises
:class:`InputError`.  Everything else (``sabounds.theory``, ``numerics``, ``proofs_check``, ``outputs``,
``render``, ``full_report``, ``commands``) is internal.  See :mod:`sabounds.api` for examples.
"""

from typing import TYPE_CHECKING, Any

__all__ = [
    "Analysis",
    "Bound",
    "Checks",
    "Conjecture",
    "Derivation",
    "InputError",
    "Regimes",
    "Report",
    "Study",
    "Sweep",
    "UserError",
    "analyze",
    "bound",
    "conjecture",
    "default_model",
    "derivation",
    "rank_runs",
    "regimes",
    "report",
    "study",
    "sweep",
    "verify",
    "Scaling",
    "scaling",
]

if TYPE_CHECKING:  # what an editor and a type checker see; at run time the names load on first use (fast import)
    from sabounds.api import (
        Analysis,
        Bound,
        Checks,
        Conjecture,
        Derivation,
        InputError,
        Regimes,
        Report,
        Scaling,
        Study,
        Sweep,
        UserError,
        analyze,
        bound,
        conjecture,
        default_model,
        derivation,
        rank_runs,
        regimes,
        report,
        scaling,
        study,
        sweep,
        verify,
    )


def __getattr__(name: str) -> Any:
    """The API's names (``sabounds.analyze`` and friends), imported from :mod:`sabounds.api` on first use so that
    ``import sabounds`` stays fast."""
    if name == "__version__":
        from sabounds.version import installed_version

        globals()["__version__"] = installed_version()
        return globals()["__version__"]
    if name in __all__:
        from sabounds import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sabounds' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"__version__"})
