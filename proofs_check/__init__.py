"""Claims stated as checks, and the procedures that decide them.

A check yields an :class:`~sabounds.proofs_check.verdict.Outcome` whose verdict is ``proved`` (sympy
established it, and says how), ``verified`` (numerically, with precision, sample count and the
smallest margin found), ``refuted`` (with a counterexample) or ``unresolved``.
"""
