"""Does a complexity measure rank trained transformers by their generalization gap?  (``sabounds study``)

A grid of small BERT-style encoders is trained with PyTorch on CPU (``tasks``, ``model``, ``training``); each run's
weights are measured by the package's own code (``measures``); Kendall's tau, granulated tau (Jiang et al. 2020)
and the sign-error over one-axis pairs (Dziugaite et al. 2020) rank each measure against the measured gap
(``statistics``).  Runs are Dask tasks cached by content (``runner``); ``grids`` names the grids and ``outputs``
writes the table, JSON, CSV and figures.  Only ``training`` and ``model`` import torch.
"""
