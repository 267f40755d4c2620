"""BLAS threading for the command line and the tests.

The matrices here are small (N <= a few thousand), and on a busy 2-core machine a multi-threaded
OpenBLAS spin-waits: ``sabounds analyze`` on the bundled model took 50 s with 2 threads next to one
other busy process, 1.5 s with 1.  So one thread is the default; a user who sets
``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS``) keeps their choice.  Must run before numpy is imported.
"""

import os


def default_to_one_blas_thread() -> None:
    if "OPENBLAS_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
