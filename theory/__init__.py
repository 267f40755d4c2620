"""Pure-sympy mathematics of the spectrum-adaptive bounds: derivations as data, no numbers.

Every result is a :class:`~theory.derivation.Derivation`: ordered steps, each a sympy statement with
a one-line justification and a :mod:`check specification <theory.checks>` that says how
``proofs_check`` decides it.  Nothing here imports numpy.
"""

from theory.derivation import Derivation, Step
from theory import checks

__all__ = ["Derivation", "Step", "checks"]
