"""A proxy's slots combined in natural logs: ``ln aggregate(offset + sum_k term_k)`` from the terms' logs.

One log-sum-exp over the slots, the offset by ``logaddexp``, the aggregation's outer power in log form (``outer``
None: the terms are logs themselves, ``aggregation = exp``, and ``ln W`` is their sum).  Shared by the catalog's
printed evaluators (``generated``) and a user's bound compiled at run time (``bound_values``).
"""

from __future__ import annotations

import numpy as np

from sabounds.numerics.log_real import logsumexp


def log_aggregate(log_terms: np.ndarray, offset: float, outer, name: str) -> float:
    """``outer(ln(offset + sum_k e^{log_terms_k}))``; ``outer`` None sums the terms (no offset allowed)."""
    if outer is None:
        if offset != 0:
            raise ValueError(f"proxy {name}: aggregation exp takes no offset")
        return float(np.sum(log_terms))
    total = float(logsumexp(log_terms))
    inner = float(np.logaddexp(np.log(offset), total)) if offset > 0 else total
    return float(outer(inner))


def log_catalog(proxy, logs: dict[str, np.ndarray]) -> float:
    """``ln`` of a printed catalog proxy (``generated.CatalogProxy``) over slots given as ``name -> natural logs``."""
    n = len(next(iter(logs.values())))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        terms = np.broadcast_to(
            np.asarray(
                proxy.log_term(*(np.asarray(logs[x], dtype=np.float64) for x in proxy.symbols)), dtype=np.float64
            ),
            (n,),
        )
    return log_aggregate(terms, proxy.offset, proxy.log_outer, proxy.key)
