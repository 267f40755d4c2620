"""``--scheduler`` addresses and the connection to a Dask scheduler, with one-line errors and a deadline that holds.

An address is ``[tcp://|tls://]HOST:PORT`` (``tls://`` takes its certificates from Dask's configuration); anything
else (an empty string, another protocol such as ``ucx://`` or ``inproc://``, no host, a port that is not an integer
in 1..65535, a path) is refused before any work.  Connecting runs in a helper thread that the caller waits for at
most :data:`CONNECT_SECONDS` plus a margin: a peer that accepts and never answers, or that answers with something
other than Dask's protocol (a frame claiming exabytes, a malformed header), ends in one line, not a hang or a
traceback.
"""

from __future__ import annotations

import argparse
import threading
import urllib.parse

from sabounds.errors import UserError

CONNECT_SECONDS = 20
"""Dask's own connect timeout; the caller gives up :data:`GRACE_SECONDS` later whatever the library does."""
GRACE_SECONDS = 5
PROTOCOLS = ("tcp", "tls")


def scheduler_address(text: str) -> str:
    """``text`` as ``protocol://host:port`` (tcp when no protocol is given); ArgumentTypeError (one line) otherwise."""
    shown = " ".join(str(text).split())[:200] or repr(text)
    if not str(text).strip():
        raise argparse.ArgumentTypeError("the scheduler address is empty; give tcp://HOST:PORT")
    if any(ord(c) < 32 for c in text):
        raise argparse.ArgumentTypeError(f"the scheduler address {shown!r} contains control characters")
    given = text.strip()
    parts = urllib.parse.urlsplit(given if "://" in given else "tcp://" + given)
    if parts.scheme not in PROTOCOLS:
        raise argparse.ArgumentTypeError(
            f"the scheduler address {shown!r} uses protocol {parts.scheme!r}; "
            "sabounds connects over tcp:// or tls:// only"
        )
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or not 0 < port < 65536:
        raise argparse.ArgumentTypeError(
            f"the scheduler address {shown!r} needs a host and a port in 1..65535, as tcp://HOST:PORT"
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise argparse.ArgumentTypeError(f"the scheduler address {shown!r} has more than protocol://HOST:PORT")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port}"


def _one_line(exc: BaseException, seconds: float) -> str:
    """Why a connection failed, in one line."""
    text = " ".join(str(exc).split())[:300]
    name = "struct.error" if type(exc).__name__ == "error" else type(exc).__name__
    if isinstance(exc, TimeoutError) and not text:
        return f"no answer within {seconds:g} s"
    if isinstance(exc, (OSError, TimeoutError)):
        return text or name
    return f"the peer does not speak Dask's protocol ({name}: {text})" if text else name


async def _probe(address: str, seconds: float) -> None:
    """Dask's connect and handshake, then the scheduler's ``identity``, each within ``seconds``: a peer that
    accepts and stays silent, or sends something else than Dask's frames, fails here, before any Client exists
    (a Client that failed half-way blocks for twice its timeout when collected)."""
    import asyncio

    from distributed.comm import connect as dask_connect
    from distributed.security import Security

    comm = await asyncio.wait_for(
        dask_connect(address, timeout=seconds, **Security().get_connection_args("client")), seconds
    )
    try:
        await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), seconds)
        reply = await asyncio.wait_for(comm.read(), seconds)
    finally:
        comm.abort()
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ConnectionError("the peer answered, but not as a Dask scheduler")


def _within(seconds: float, what: str, work):
    """``work()`` in a helper thread, waited for at most ``seconds``; its exception or a timeout as UserError."""
    outcome: dict = {}

    def attempt() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # MemoryError, struct.error, OSError, TimeoutError...: reported below
            outcome["error"] = exc

    helper = threading.Thread(target=attempt, name="sabounds-connect", daemon=True)
    helper.start()
    helper.join(seconds)
    if helper.is_alive():
        raise UserError(
            f"the Dask scheduler at {what} did not complete the connection within {seconds:g} s "
            "(is it a Dask scheduler?)"
        )
    if "error" in outcome:
        raise UserError(f"cannot connect to the Dask scheduler at {what}: {_one_line(outcome['error'], seconds)}")
    return outcome["value"]


def connect(where, seconds: float = CONNECT_SECONDS):
    """A ``distributed.Client`` on ``where`` (an address, or a cluster object), or UserError within about
    ``2 (seconds + GRACE_SECONDS)``: no answer, a refused or failed handshake, or a peer that does not speak Dask."""
    import asyncio

    from distributed import Client

    what = where if isinstance(where, str) else "the local cluster"
    if isinstance(where, str):
        _within(seconds + GRACE_SECONDS, what, lambda: asyncio.run(_probe(where, seconds)))
    return _within(seconds + GRACE_SECONDS, what, lambda: Client(where, timeout=f"{seconds}s", set_as_default=False))
