"""Sympy expressions to numbers: mpmath and float64 evaluation, a bounded evaluator for user input, matrix atoms, the proxies through the derivations."""
