"""The named symbols every expression of the package is written in (one table; derivations import from here).

Widths and counts: ``N`` (hidden width), ``L`` (layers), ``T`` (tokens), ``n`` (samples), ``d_in``, ``d_out``,
``D = min(d_in, d_out)``, ``K`` (slots).  Per matrix: ``M`` (Schatten quantity ``S_p``), ``s`` (spectral norm),
``w_21 = ||W||_{2,1}``, ``w_11 = ||W||_{1,1}`` (entrywise l1), ``F2 = ||W||_F^2``.  Propagation: ``rho = gamma alpha``,
``gamma``, ``alpha``.  ``B`` bounds token norms, ``Delta`` the loss range, ``eps`` a covering radius, ``p`` the
Schatten exponent.
"""

from __future__ import annotations

import sympy as sp

p, M, B, eps, s, N = sp.symbols("p M B epsilon s N", positive=True)
d_in, d_out, D, n, T = sp.symbols("d_in d_out D n T", positive=True)
K, rho, Delta = sp.symbols("K rho Delta", positive=True)
L = sp.Symbol("L", positive=True)
gamma, alpha = sp.symbols("gamma alpha", positive=True)
w_21, w_11, F2 = sp.symbols("w_21 w_11 F2", positive=True)

NAMED = {str(x): x for x in (p, M, B, eps, s, N, d_in, d_out, D, n, T, K, rho, Delta, L, gamma, alpha, w_21, w_11, F2)}
"""name -> symbol: what a user's bound file may write (``sabounds.theory.expression`` parses against it)."""
