"""BLAS threading for the command line.

The matrices here are small (N <= a few thousand), and on a busy 2-core machine a multi-threaded
OpenBLAS spin-waits: ``sabounds analyze`` on the bundled model took 50 s with 2 threads next to one
other busy process, 1.5 s with 1.  So the command line defaults to one thread; a user who sets
``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS``) keeps their choice.  It takes effect only where numpy is
imported afterwards (the command line's own process, and the processes it starts); the API leaves it alone.
"""

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def one_blas_thread_by_default() -> Iterator[None]:
    """``OPENBLAS_NUM_THREADS=1`` for the block unless the user chose a thread count; the environment is restored
    when the block is left."""
    if "OPENBLAS_NUM_THREADS" in os.environ or "OMP_NUM_THREADS" in os.environ:
        yield
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        os.environ.pop("OPENBLAS_NUM_THREADS", None)
