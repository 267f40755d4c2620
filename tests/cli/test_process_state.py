"""Importing the package changes no process state; the command line sets its Ctrl-C handler and BLAS thread
default for the run only and restores them."""

import os
import signal
import subprocess
import sys

from tests.support.hostile import ROOT

_PROBE = """
import os, signal, sys
sys.path.insert(0, {root!r})
before = (signal.getsignal(signal.SIGINT), dict(os.environ))
import sabounds, sabounds.api, sabounds.cli
after_import = (signal.getsignal(signal.SIGINT), dict(os.environ))
seen = []
import sabounds.threads as threads
real = sabounds.cli._main
def spy(argv):
    seen.append((signal.getsignal(signal.SIGINT) is sabounds.cli._interrupted_at_start_up,
                 os.environ.get("OPENBLAS_NUM_THREADS")))
    return real(argv)
sabounds.cli._main = spy
try:
    sabounds.cli.main(["--version"])
except SystemExit:
    pass
after_main = (signal.getsignal(signal.SIGINT), dict(os.environ))
print(before == after_import, before == after_main, seen == [(True, "1")])
"""


def test_importing_sabounds_changes_no_signal_handler_and_no_environment_variable():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(root=str(ROOT))], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-3:] == ["True", "True", "True"], done.stdout


def test_a_users_thread_choice_is_kept():
    from sabounds.threads import one_blas_thread_by_default

    os.environ["OPENBLAS_NUM_THREADS"] = "3"
    try:
        with one_blas_thread_by_default():
            assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
        assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
    finally:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def test_main_off_the_main_thread_sets_no_handler():
    import threading

    from sabounds.cli import main

    handler = signal.getsignal(signal.SIGINT)
    codes = []
    worker = threading.Thread(target=lambda: codes.append(main(["regimes", "--regime", "nonsense"])))
    worker.start()
    worker.join(120)
    assert codes == [2] and signal.getsignal(signal.SIGINT) is handler
