"""Numbers from theory: mpmath evaluation of sympy expressions, spectra and Schatten quantities of arrays."""
