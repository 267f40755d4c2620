"""The whole bound of Theorem 3.1 as a number on a model's weights [reconstructed], beside Edelman et al. (2022).

``slots``: the model's matrices as slots with dyadic radii and propagation factors (mpmath, any alpha);
``compiled``: the theory's expressions (``sabounds.theory.whole_bound``) compiled for float64 logs and mpmath;
``whole``: the bound term by term, with the per-matrix p chosen to minimise it; ``solve``: n needed, break-even.
"""
