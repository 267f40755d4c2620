"""Random matrices and stacks with prescribed spectra, and the hypothesis strategies built on them."""
