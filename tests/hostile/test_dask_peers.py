"""Dask on the loopback address (issue 20, items 9, 14, 17): ``--scheduler`` addresses refused in one line; a peer
that is not Dask (silent, or sending garbage) refused in one line within the deadline; the local cluster is a real
scheduler and real worker processes on 127.0.0.1 over TLS with a per-run certificate and no HTTP port, which a
second process cannot use; Ctrl-C while it starts is one line and exit 130."""

import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

from sabounds.cli import main
from tests.support.hostile import ROOT, TESTS, tiny_model, wait_for
from tests.support.hostile_exposure import BAD_ADDRESSES, CLUSTER_INTERRUPT_DELAYS, PEERS

pytestmark = pytest.mark.slow  # a Dask cluster and child processes per case


@pytest.mark.parametrize("address", BAD_ADDRESSES, ids=[repr(a) for a in BAD_ADDRESSES])
def test_a_bad_scheduler_address_is_one_line_before_any_work(address, tmp_path, capsys):
    tiny_model(tmp_path / "model")
    with pytest.raises(SystemExit) as exit_:
        main(["sweep", str(tmp_path / "model"), "--scheduler", address, "--no-cache"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "--scheduler" in err


def _peer(kind: str):
    """A local server that accepts and then stays silent or answers with something that is not Dask's protocol."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            try:
                if kind == "http-garbage":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" * 4)
                elif kind == "huge-frame":
                    conn.sendall(struct.pack("<Q", 1) + struct.pack("<Q", 2**61) + b"x" * 64)
                elif kind == "short-frame":
                    conn.sendall(struct.pack("<Q", 3) + b"abc")
            except OSError:
                pass

    threading.Thread(target=serve, daemon=True).start()
    return server, held


@pytest.mark.parametrize("kind", PEERS)
def test_a_peer_that_is_not_dask_is_one_line_within_the_deadline(kind, tmp_path):
    tiny_model(tmp_path / "model")
    server, held = _peer(kind)
    port = server.getsockname()[1]
    start = time.monotonic()
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "sabounds",
                "sweep",
                str(tmp_path / "model"),
                "--scheduler",
                f"tcp://127.0.0.1:{port}",
                "--no-cache",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.close()
        for conn in held:
            conn.close()
    seconds = time.monotonic() - start
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "Dask scheduler" in done.stderr and seconds < 90, (seconds, done.stderr)


_PROBE = """
import json, subprocess, sys
from sabounds.distributed import private_cluster
from sabounds.scheduler_address import connect

def listening(pids):
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout.splitlines()
    return sorted(line.split()[3] for line in out if any(f"pid={p}," in line for p in pids))

if __name__ == "__main__":
    cluster = private_cluster(2)
    client = connect(cluster)
    info = client.scheduler_info()
    nodes = [cluster.scheduler_address, *info["workers"], *(w["nanny"] for w in info["workers"].values())]
    pids = [__import__("os").getpid(), *client.run(__import__("os").getpid).values()]
    second = {}
    for name, code in (("plain", "from distributed import Client; c = Client(%r, timeout='5s'); "
                                 "print(c.run_on_scheduler(lambda: 'ran'))" % cluster.scheduler_address.replace("tls", "tcp")),
                       ("own-tls", "from distributed import Client; from distributed.security import Security; "
                                   "c = Client(%r, timeout='5s', security=Security.temporary()); "
                                   "print(c.run_on_scheduler(lambda: 'ran'))" % cluster.scheduler_address)):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        second[name] = [p.returncode, p.stdout]
    print(json.dumps({"nodes": nodes, "listening": listening(pids), "second": second,
                      "mine": client.run_on_scheduler(lambda: "ran")}))
    client.close()
    cluster.close()
"""


def test_the_local_cluster_is_private_tls_without_http_and_refuses_a_second_process(tmp_path):
    import json

    probe = tmp_path / "probe.py"
    probe.write_text(_PROBE)
    done = subprocess.run([sys.executable, str(probe)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["mine"] == "ran"
    nodes = record["nodes"]
    assert len(nodes) == 5 and all(n.startswith("tls://127.0.0.1:") for n in nodes), nodes
    assert record["listening"] == sorted(n[len("tls://") :] for n in nodes), record  # no HTTP, no dashboard, no 8787
    for name, (code, out) in record["second"].items():
        assert code != 0 and "ran" not in out, (name, code, out)


_INTERRUPTIBLE = (
    "import os, sys; sys.path.insert(0, %r); import sabounds.distributed as d; start = d.private_cluster\n"
    "def hooked(n):\n    os.close(os.open(%r, os.O_CREAT | os.O_EXCL | os.O_WRONLY)); return start(n)\n"
    "d.private_cluster = hooked\nfrom sabounds.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.parametrize("delay", CLUSTER_INTERRUPT_DELAYS)
def test_ctrl_c_while_the_local_cluster_starts_is_one_line_and_130(delay, tmp_path):
    tiny_model(tmp_path / "model", layers=24)  # enough tasks that the sweep is still running at the last delay
    ready = tmp_path / "cluster-starting"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _INTERRUPTIBLE % (str(TESTS), str(ready)),
            "sweep",
            str(tmp_path / "model"),
            "--workers",
            "2",
            "--no-cache",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(ready.exists, 120), "the sweep never started its cluster"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=180)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and "interrupted" in err and "Traceback" not in err, err
