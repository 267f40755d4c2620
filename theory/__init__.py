"""Pure-sympy mathematics of the spectrum-adaptive bounds: derivations as data, no numbers.

Every result is a :class:`~sabounds.theory.derivation.Derivation`: ordered steps, each a sympy statement with
a one-line justification and a :mod:`check specification <sabounds.theory.checks>` that says how
``proofs_check`` decides it.  Nothing here imports numpy.
"""

from sabounds.theory import checks
from sabounds.theory.derivation import Derivation, Step

__all__ = ["Derivation", "Step", "checks"]
