"""A real Dask scheduler and two single-threaded workers on 127.0.0.1 (separate processes), as a fixture;
the port is one the kernel hands out, so parallel test workers never share it."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dask_cluster(tmp_path):
    """A Dask scheduler and two single-threaded workers, each its own process, on the loopback address."""
    dask = Path(sys.executable).parent / "dask"
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "SABOUNDS_CACHE_DIR": str(tmp_path / "cache")}
    logs = open(tmp_path / "dask.log", "w")
    procs = [
        subprocess.Popen(
            [str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=logs,
            stderr=subprocess.STDOUT,
            env=env,
        )
    ]
    try:
        from distributed import Client

        client = Client(address, timeout="30s")
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        str(dask),
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--host",
                        "127.0.0.1",
                        "--no-dashboard",
                    ],
                    stdout=logs,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            )
        client.wait_for_workers(2, timeout=60)
        yield address, client
        client.close()
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        logs.close()
