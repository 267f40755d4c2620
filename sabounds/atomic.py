"""Output folders that are owned, locked and replaced atomically: sabounds loses nothing it did not write.

``atomic_directory(target, force, protect)`` yields a private partial folder ``.<name>.partial-<pid>`` beside
``target``; when the block succeeds the partial folder is completed and swapped into place, otherwise removed.

- **Ownership.** Every folder sabounds creates carries a marker file ``.sabounds-output`` (JSON: a run token,
  the state ``writing`` or ``complete``, the token of the report it replaces, the manifest of the files it
  wrote and, once complete, the sha256 and size of each).  ``--force`` replaces only an empty folder or one whose
  marker lists every file in it with unchanged content (an edited file, or one turned into a link or folder, is
  named in the refusal; a marker without hashes is not trusted); it refuses a symbolic link (never followed),
  the current folder or one containing it, the inputs (``protect``), a folder containing or inside an input,
  anything that is not a folder, and an empty path.
- **Concurrency.** ``fcntl.flock`` on ``.<name>.sabounds-lock`` beside the target, held from the first check to
  the swap: of two runs to one path exactly one proceeds, the other gets a one-line error.  The lock file
  appears with its content (first line ``sabounds output lock``; hard-linked from a private file); a file of
  that name that is a link, not a regular file, or holds other content is refused and never opened for writing
  or removed; only the lock file this run holds is removed.
- **Atomic swap.** On Linux ``renameat2(RENAME_EXCHANGE)`` (through ctypes) swaps the complete new folder with
  the old one in one system call, so at every instant exactly one complete report sits at ``target``; the old
  one is then deleted.  Where the call is missing (non-Linux, or a file system that refuses it) two renames
  are used; a kill between them leaves ``target`` missing for an instant, and the next run restores the old
  report.  SIGINT and SIGTERM are blocked during the swap (and held until
  after it if another thread takes them), so an interrupt is reported with the true state.
- **Recovery.** Leftovers of a killed run carry the marker; the next run to the same target (under the lock)
  deletes unfinished ones, finishes an interrupted replacement or undoes it, and says which on stderr.  Only a
  leftover of a dead process named exactly for this target is touched (names compared as strings, never as a
  glob: a target ``o*`` never sees ``.out.old-7``): a partial whose marker names this target and that process
  (``writing``, or ``complete`` and replaceable by ``--force``), or the replaceable previous report that such a
  partial or the report at the target names by its token; a folder of a leftover's name without our marker,
  another target's, or with files the marker does not list or that were edited, is left alone (if it blocks
  this run, the refusal says so).
- **Fault injection (tests only).** :func:`arm_fault` (``"<stage>[:<SIG>]"``) makes the process send itself ``SIG``
  (INT, TERM, KILL or STOP; INT by default) at ``<stage>``; :data:`STAGES` lists them, in order.  Nothing in a
  user's environment arms it: only test code calls :func:`arm_fault`.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import json
import os
import shutil
import signal
import stat
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from sabounds.errors import UserError

MARKER = ".sabounds-output"
STAGES = ("locked", "partial-created", "writing", "written", "completed", "in-swap", "renamed-away", "swapped",
          "old-half-deleted", "done")
_fault: tuple[str, str] | None = None
_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2
_AT_FDCWD = -100


class OutputInterrupted(KeyboardInterrupt):
    """An interrupt while writing an output folder; ``message`` says which report is at the target now."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def arm_fault(spec: str | None) -> None:
    """Test hook: at stage ``spec`` (``"<stage>[:<SIG>]"``) this process sends itself the signal; None disarms."""
    global _fault
    if spec is None:
        _fault = None
        return
    stage, _, sig = spec.partition(":")
    if stage not in STAGES or sig not in ("", "INT", "TERM", "KILL", "STOP"):
        raise ValueError(f"unknown fault {spec!r}")
    _fault = (stage, sig or "INT")


def fault_point(stage: str) -> None:
    """Where :func:`arm_fault` may strike (a no-op unless a test armed it for ``stage``)."""
    if _fault is not None and _fault[0] == stage:
        os.kill(os.getpid(), getattr(signal, "SIG" + _fault[1]))


# --- markers ----------------------------------------------------------------------------------------------


def read_marker(folder: Path) -> dict | None:
    """The marker of ``folder`` if it is a real folder carrying a well-formed sabounds marker, else None."""
    path = folder / MARKER
    try:
        if folder.is_symlink() or not folder.is_dir() or path.is_symlink() or not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("sabounds_output") != 1 or not isinstance(data.get("files"), list):
        return None
    return data


def _write_marker(folder: Path, record: dict) -> None:
    tmp = folder / (MARKER + ".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MARKER)


def _contents(folder: Path) -> list[str]:
    """Relative paths of everything below ``folder`` (folders end in ``/``), never following links."""
    out = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        rel = Path(root).relative_to(folder)
        out += [f"{(rel / d).as_posix()}/" for d in dirs]
        out += [(rel / f).as_posix() for f in files]
    return sorted(p for p in out if p not in (MARKER, MARKER + ".tmp"))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _hashes(folder: Path, names: Iterable[str]) -> dict[str, dict]:
    """sha256 and size of each regular file among ``names`` (folders end in ``/`` and are skipped)."""
    out = {}
    for name in names:
        if not name.endswith("/"):
            path = folder / name
            st = os.lstat(path)
            out[name] = ({"sha256": _sha256(path), "size": st.st_size} if stat.S_ISREG(st.st_mode)
                         else {"kind": "not a regular file"})
    return out


def _changed(folder: Path, marker: dict) -> str | None:
    """The first listed entry that is no longer what sabounds wrote (content, size, or kind), else None."""
    hashes = marker.get("hashes")
    if not isinstance(hashes, dict):
        return None
    for name in marker["files"]:
        path = folder / name.rstrip("/")
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue  # deleted by the user: nothing of theirs to lose
        if name.endswith("/"):
            if not stat.S_ISDIR(st.st_mode):
                return name
            continue
        want = hashes.get(name)
        if not stat.S_ISREG(st.st_mode) or not isinstance(want, dict) or st.st_size != want.get("size") \
                or _sha256(path) != want.get("sha256"):
            return name
    return None


def ownership(folder: Path) -> str | None:
    """None if sabounds may replace ``folder`` (empty, or every entry listed in its marker and every listed file
    as sabounds wrote it, by sha256 and size); else why not."""
    present = _contents(folder)
    if not present:
        return None
    marker = read_marker(folder)
    if marker is None:
        return (f"{folder} is not a sabounds output folder (no {MARKER} marker) and is not empty; "
                "refusing to replace it, even with --force")
    foreign = sorted(set(present) - set(marker["files"]))
    if foreign:
        return (f"{folder} holds {len(foreign)} file(s) sabounds did not write (e.g. {foreign[0]!r}); "
                "refusing to replace it, even with --force")
    if not isinstance(marker.get("hashes"), dict):
        return (f"{folder} has a marker without content hashes (an older sabounds, or unfinished), so edits to its "
                "files cannot be ruled out; refusing to replace it, even with --force (remove it yourself)")
    changed = _changed(folder, marker)
    if changed:
        return (f"{folder / changed.rstrip('/')} was changed after sabounds wrote it; refusing to replace "
                f"{folder}, even with --force")
    return None


# --- checks before any work --------------------------------------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _check_creatable(path: Path) -> None:
    """Refuse, before any work, a target whose folder could not be made: its nearest existing ancestor is not a
    folder (a file, a dangling link) or not writable (permissions, a read-only file system)."""
    ancestor = path.parent
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not os.path.isdir(ancestor):
        raise UserError(f"cannot write {path}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {path}: no permission to create anything in {ancestor}")


def check_target(target: str | os.PathLike, force: bool = False, protect: Iterable[str | os.PathLike] = ()) -> Path:
    """Validate an output path; returns it absolute (its last component not resolved).  Raises UserError."""
    if str(target).strip() == "":
        raise UserError("--out is empty; give a folder name")
    if "\0" in str(target):
        raise UserError("--out contains a NUL character")
    path = Path(os.path.abspath(target))
    if path.name in ("", ".", ".."):
        raise UserError(f"--out {str(target)!r} names no new folder")
    if path.is_symlink():
        raise UserError(f"{path} is a symbolic link; sabounds never writes through links (give the real folder)")
    real = Path(os.path.realpath(path.parent)) / path.name
    cwd = Path(os.path.realpath(os.getcwd()))
    if _inside(cwd, real):
        raise UserError(f"{path} is the current folder or contains it; refusing to write there")
    for item in protect:
        if item is None:
            continue
        inp = Path(os.path.realpath(item))
        if _inside(inp, real) or _inside(real, inp):
            raise UserError(f"{path} is, contains or lies inside the input {inp}; choose another --out")
    _check_creatable(path)
    foreign_lock = _foreign_lock(_lock_path(path))
    if foreign_lock:
        raise UserError(foreign_lock)
    if os.path.lexists(path):
        if not path.is_dir():
            raise UserError(f"{path} exists and is not a folder")
        if not force:
            raise UserError(f"{path} exists; pass --force to replace it or --out to write elsewhere")
        why = ownership(path)
        if why:
            raise UserError(why)
    return path


# --- lock ---------------------------------------------------------------------------------------------------


def _lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.sabounds-lock"


LOCK_SIGNATURE = b"sabounds output lock\n"


def _lock_content() -> bytes:
    return LOCK_SIGNATURE + f"pid {os.getpid()}\n".encode()


def _create_lock(path: Path) -> int | None:
    """Make the lock file ours, flocked and with its content before it appears (a private file hard-linked to the
    lock's name); None if the name is taken.  Where hard links are refused: create, flock, then write."""
    tmp = path.parent / f"{path.name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp"
    try:
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise UserError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
    try:
        os.write(fd, _lock_content())
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            os.link(tmp, path, follow_symlinks=False)
            return fd
        except FileExistsError:
            os.close(fd)
            return None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
                raise UserError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
        os.close(fd)
        fd = -1
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return None
        except OSError as exc:
            raise UserError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a second run opened our still-empty lock this instant; it refuses and lets go
            os.unlink(path)
            raise UserError(f"another sabounds run is starting to write beside {path.name}; retry") from None
        os.write(fd, _lock_content())
        return fd
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _special_file(path: Path, st: os.stat_result) -> str | None:
    """Why ``path`` (lstat ``st``) cannot be a sabounds lock: a symbolic link or not a regular file; else None."""
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        return (f"{path} is {kind}, not a sabounds lock; refusing to use or remove it "
                "(move it away or choose another --out)")
    return None


def _foreign_lock(path: Path) -> str | None:
    """Why a file at the lock's name is certainly not a sabounds lock (a link, not a regular file, or content
    without our first line), else None.  Read without following links and without blocking."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    why = _special_file(path, st)
    if why:
        return why
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        content = os.read(fd, len(LOCK_SIGNATURE)) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)
    if content and not LOCK_SIGNATURE.startswith(content):
        return (f"{path} is not a sabounds lock (it holds other content); refusing to use or remove it "
                "(move it away or choose another --out)")
    return None


def _adopt_lock(path: Path, target: Path) -> int | None:
    """Take an existing lock file left by a finished or killed run; refuse one held now or one sabounds did not
    write (never opened for writing, never removed); None if it vanished meanwhile."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    why = _special_file(path, st)
    if why:
        raise UserError(why)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"cannot open the lock {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UserError(f"{path} is not a regular file, not a sabounds lock; refusing to use or remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UserError(f"another sabounds run is writing {target} (lock {path.name} is held); "
                            "wait for it or choose another --out") from None
        content = os.read(fd, 4096)
        if not content:
            raise UserError(f"another sabounds run may be starting to write {target} (its lock {path.name} is "
                            "still empty); retry, or remove that file if it is not a sabounds lock")
        if not content.startswith(LOCK_SIGNATURE):
            raise UserError(f"{path} is not a sabounds lock (it holds other content); refusing to use or remove "
                            "it (move it away or choose another --out)")
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
        except FileNotFoundError:
            same = False
        if same:  # not a lock file the previous holder removed after we opened it
            return fd
        os.close(fd)
        return None
    except BaseException:
        try:
            os.close(fd)
        except OSError:
            pass
        raise


def _acquire(target: Path) -> int:
    """Take the exclusive lock beside ``target`` without waiting; returns a file descriptor on a lock file
    sabounds wrote (created now, or left by a run that ended), which :func:`_release` removes."""
    path = _lock_path(target)
    for _ in range(100):
        fd = _create_lock(path)
        if fd is None:
            fd = _adopt_lock(path, target)
        if fd is not None:
            return fd
    raise UserError(f"cannot take the lock {path}")


def _release(target: Path, fd: int) -> None:
    """Remove the lock file only if it is still the one this descriptor holds, then let go."""
    path = _lock_path(target)
    try:
        if os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False)):
            os.unlink(path)
    except OSError:
        pass
    os.close(fd)


# --- swap ---------------------------------------------------------------------------------------------------


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """``renameat2`` through libc; False when the call or the flag is unsupported here, OSError on failure."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        func = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if func(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(dst))


def _old_name(target: Path, pid: int) -> Path:
    return target.parent / f".{target.name}.old-{pid}"


def _partial_name(target: Path, pid: int) -> Path:
    return target.parent / f".{target.name}.partial-{pid}"


def _remove_old(old: Path) -> None:
    """Delete a replaced report (verified ours); the fault point sits half-way for the tests."""
    entries = sorted(old.iterdir(), key=lambda e: e.name == MARKER)  # the marker last: leftovers stay recognisable
    for i, entry in enumerate(entries):
        if i == len(entries) // 2:
            fault_point("old-half-deleted")
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    old.rmdir()


def _swap(partial: Path, target: Path) -> Path | None:
    """Put ``partial`` at ``target``; return where the old report now lies (None if there was none)."""
    if not os.path.lexists(target):
        if not _renameat2(partial, target, _RENAME_NOREPLACE):
            os.rename(partial, target)
        return None
    if _renameat2(partial, target, _RENAME_EXCHANGE):
        return partial
    old = _old_name(target, os.getpid())
    os.rename(target, old)  # fallback: two renames; a kill between them is undone by the next run
    fault_point("renamed-away")
    os.rename(partial, target)
    return old


# --- leftovers ----------------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _named_leftovers(target: Path) -> list[tuple[Path, str, int]]:
    """Entries beside ``target`` named exactly ``.<name>.partial-<pid>`` or ``.<name>.old-<pid>`` for this very
    name (compared as strings, never as a glob pattern), with their kind and pid."""
    prefix = f".{target.name}."
    try:
        names = sorted(e.name for e in os.scandir(target.parent) if e.name.startswith(prefix))
    except OSError:
        return []
    found = []
    for name in names:
        kind, _, pid = name[len(prefix):].rpartition("-")
        if kind in ("partial", "old") and pid.isdigit() and pid == str(int(pid)):
            found.append((target.parent / name, kind, int(pid)))
    return found


def _made_for(marker: dict, target: Path, pid: int) -> bool:
    """Whether a marker says it was written by run ``pid`` for a folder named like ``target``."""
    return marker.get("target") == target.name and marker.get("pid") == pid


def _leftovers(target: Path) -> list[tuple[Path, dict]]:
    """Folders beside ``target`` that a dead sabounds run left for this target and that hold nothing else: a
    partial whose marker names this target and the run in the folder's name (``writing``, or ``complete`` and
    cleared by :func:`ownership`), or the cleared previous report that such a partial, or the report at
    ``target``, says it replaces (by token).  Anything else (no marker, another target's, foreign or edited
    files) is never touched."""
    candidates = []
    for path, kind, pid in _named_leftovers(target):
        if pid == os.getpid() or _alive(pid):
            continue
        marker = read_marker(path)
        if marker is not None:
            candidates.append((path, kind, pid, marker))
    current = read_marker(target) if os.path.lexists(target) else None
    replaced = {(current.get("replaces"), None)} if current else set()
    replaced |= {(m.get("replaces"), pid) for _, kind, pid, m in candidates if kind == "partial" and _made_for(m, target, pid)}
    found = []
    for path, kind, pid, marker in candidates:
        state, token = marker.get("state"), marker.get("token")
        own = kind == "partial" and _made_for(marker, target, pid)
        previous = isinstance(token, str) and ((token, None) in replaced or (token, pid) in replaced)
        if state == "writing" and own:
            found.append((path, marker))
        elif state == "complete" and (own or previous) and ownership(path) is None:
            found.append((path, marker))
    return found


def recover(target: str | os.PathLike) -> list[str]:
    """Finish or undo what killed runs left beside ``target`` (only folders with our marker); return what was done.

    A ``writing`` leftover is deleted.  A ``complete`` leftover is either the old report of a finished swap (the
    report at ``target`` names it in ``replaces``: deleted, the replacement is finished) or, if ``target`` is
    missing, the old report of a two-rename swap cut in the middle (put back: the replacement is undone), or a
    new report that never reached ``target`` (deleted: the run is undone).
    """
    target = Path(os.path.abspath(target))
    current = read_marker(target) if os.path.lexists(target) else None
    done = []
    leftovers = _leftovers(target)
    if not os.path.lexists(target):
        olds = [(p, m) for p, m in leftovers if m.get("state") == "complete" and p.name.startswith(f".{target.name}.old-")]
        if olds:
            path, _ = olds[0]
            os.rename(path, target)
            done.append(f"restored {target.name} from {path.name}: a replacement killed half-way was undone")
            leftovers = [(p, m) for p, m in leftovers if p != path]
            current = read_marker(target)
    for path, marker in leftovers:
        if marker.get("state") != "complete":
            what = "removed the unfinished output"
        elif current is not None and current.get("replaces") == marker.get("token"):
            what = f"finished an interrupted replacement of {target.name}: removed the previous report"
        else:
            what = f"undid an interrupted run: removed its report, which never reached {target.name}"
        shutil.rmtree(path)
        done.append(f"{what} {path.name}")
    return done


def remove_stale_partials(target: str | os.PathLike) -> list[Path]:
    """Delete leftover folders (with our marker) of runs that no longer exist; return them (see :func:`recover`)."""
    target = Path(os.path.abspath(target))
    before = {p for p, _ in _leftovers(target)}
    lock = _acquire(target)
    try:
        recover(target)
    finally:
        _release(target, lock)
    return sorted(p for p in before if not p.exists())


# --- the context manager ------------------------------------------------------------------------------------


class _Interrupts:
    """Ctrl-C and SIGTERM raise KeyboardInterrupt and are remembered, so that an interrupt swallowed by library
    code (a bare ``except:``) still prevents the folder from being moved into place."""

    def __init__(self):
        self.seen = False
        self.deferred = False
        self.pending = False

    def __call__(self, signum, frame):
        self.seen = True
        if self.deferred:  # inside a step that must not be cut (blocking covers only this thread)
            self.pending = True
            return
        raise KeyboardInterrupt

    @contextmanager
    def held(self):
        """Run a step whole: SIGINT/SIGTERM are blocked in this thread and, if another thread takes one, the
        KeyboardInterrupt comes after the step."""
        self.deferred = True
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
            self.deferred = False
            if self.pending:
                self.pending = False
                raise KeyboardInterrupt


_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _finish_marker(partial: Path, record: dict) -> None:
    files = _contents(partial)
    record.update(state="complete", files=files, hashes=_hashes(partial, files))
    _write_marker(partial, record)


@contextmanager
def atomic_directory(target: str | os.PathLike, force: bool = False,
                     protect: Iterable[str | os.PathLike] = ()) -> Iterator[Path]:
    """Yield a partial folder; swap it into ``target`` when the block succeeds, remove it otherwise.

    Refusals (UserError, before any work): see :func:`check_target`; the lock is held until the swap is done.
    An interrupt raises :class:`OutputInterrupted` whose message says which report is at ``target``.
    Must run in the main thread.
    """
    protect = list(protect)
    path = check_target(target, force, protect)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
    interrupts = _Interrupts()
    previous = {sig: signal.signal(sig, interrupts) for sig in _SIGNALS}
    lock = None
    partial = None
    swapped = False
    existed = False
    try:
        lock = _acquire(path)
        fault_point("locked")
        for line in recover(path):
            print(f"sabounds: {line}", file=sys.stderr)
        check_target(path, force, protect)  # again, under the lock
        existed = os.path.lexists(path)
        old_marker = read_marker(path) if existed else None
        for taken in (_partial_name(path, os.getpid()), _old_name(path, os.getpid())):
            if os.path.lexists(taken):
                raise UserError(f"{taken} exists (not made by this run); sabounds will not touch it: "
                                "move it away or retry")
        record = {"sabounds_output": 1, "token": uuid.uuid4().hex, "pid": os.getpid(), "target": path.name,
                  "state": "writing",
                  "replaces": old_marker.get("token") if old_marker else None, "files": []}
        with interrupts.held():  # the folder is never without its marker (but after SIGKILL)
            try:
                _partial_name(path, os.getpid()).mkdir()
            except OSError as exc:
                raise UserError(f"cannot write in {path.parent}: {exc.strerror or exc}") from None
            partial = _partial_name(path, os.getpid())
            _write_marker(partial, record)
        fault_point("partial-created")
        yield partial
        fault_point("written")
        if interrupts.seen:
            raise KeyboardInterrupt
        _finish_marker(partial, record)
        fault_point("completed")
        if existed and ownership(path):  # changed under us since the check (not by sabounds: we hold the lock)
            raise UserError(ownership(path))
        with interrupts.held():
            fault_point("in-swap")
            old = _swap(partial, path)
            swapped = True
        fault_point("swapped")
        if old is not None:
            _remove_old(old)
        fault_point("done")
    except BaseException as exc:
        if not swapped and partial is not None:  # made by our mkdir, so everything in it is ours
            shutil.rmtree(partial, ignore_errors=True)
        if isinstance(exc, KeyboardInterrupt):
            if swapped:
                cleanup = _cleanup_after(path)
                raise OutputInterrupted(f"{path} holds the new, complete report (the interrupt came after it was "
                                        f"in place){cleanup}") from None
            raise OutputInterrupted(f"no report written ({path} unchanged" + ("" if existed else ", not created")
                                    + ")") from None
        if isinstance(exc, OSError):
            raise UserError(f"cannot write {path}: {exc.strerror or exc}; nothing written") from None
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if lock is not None:
            _release(path, lock)


def _cleanup_after(target: Path) -> str:
    """After an interrupt that came once the new report was in place: delete the old one now if possible."""
    try:
        for p in (_partial_name(target, os.getpid()), _old_name(target, os.getpid())):
            if read_marker(p) is not None:
                shutil.rmtree(p)
        return ""
    except BaseException:
        return "; the previous report's remains are removed by the next run"
