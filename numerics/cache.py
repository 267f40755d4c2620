"""A content-addressed disk cache of spectra, safe for several processes at once.

Keys are SHA-256 digests of what determines a result: the bytes, dtype, shape and name of every tensor it reads, the
method, ``CACHE_VERSION`` and the source of ``sabounds.numerics`` (``code_digest``).  An entry is one file
``<root>/entries/<key[:2]>/<key>.bin`` written as ``MAGIC + HMAC-SHA256(secret, key, payload) + payload`` (payload:
a JSON header and raw little-endian arrays, see ``pack``) to a temporary name and renamed into place, so two workers
writing the same key both leave a complete, identical entry.  The tag binds an entry to its own key (whose parts are
the digests of its inputs) and to ``<root>/secret``, 32 random bytes made by the first writer (mode 0600): an entry
copied under another key, or crafted with a fresh checksum by anyone who cannot read the secret, does not verify.
An entry that does not verify is treated as missing and rewritten, never trusted.

Tensor digests need the tensor bytes; so that a rerun reads no weights, the digests of a safetensors file's tensors
are kept in ``<root>/files/`` under the file's identity (resolved path, size, mtime, ctime, inode) together with a
digest of its header, tagged like an entry with the identity folded in: an index copied from another file's
folder, or a file changed in any of these, is hashed again.

Every cache file is opened with ``O_NOFOLLOW | O_NONBLOCK`` and read only if ``fstat`` says it is a regular file,
at most ``MAX_ENTRY_BYTES``: a symbolic link (to ``/dev/zero``, say) or a FIFO in the cache is a miss, not a hang.
The cache is private: its folders are made 0700 and its files 0600 whatever the umask, a cache folder owned by
another user or writable by group or others is refused (``CacheFolderError``, one line), and every write goes through
folder descriptors opened with ``O_NOFOLLOW`` (``private_write``), so a link planted at ``entries/`` is never followed.

The folder is ``platformdirs.user_cache_dir("sabounds")`` (e.g. ``~/.cache/sabounds`` on Linux), or the
``SABOUNDS_CACHE_DIR`` environment variable, or ``--cache-dir``.  ``SABOUNDS_CACHE_DIR=off`` disables caching.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import mmap
import os
import re
import stat
import struct
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

CACHE_VERSION = 3
ENV_VAR = "SABOUNDS_CACHE_DIR"
MAGIC = b"SABOUNDS-CACHE-3\n"
_DIGEST = 32
MAX_ENTRY_BYTES = 2**30
MAX_INDEX_BYTES = 256 * 2**20
_LAYER_NUMBER = re.compile(r"(?:^|\.)(\d+)\.")


def default_cache_dir() -> Path | None:
    """``$SABOUNDS_CACHE_DIR`` if set (``off``: no cache), else the platform's user cache folder for sabounds."""
    value = os.environ.get(ENV_VAR)
    if value is not None:
        return None if value.strip().lower() in ("", "off", "none", "0") else Path(value)
    import platformdirs

    return Path(platformdirs.user_cache_dir("sabounds", appauthor=False))


def digest(*parts: bytes | str) -> str:
    """SHA-256 of the parts, each length-prefixed so that no two different part lists collide by concatenation."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else bytes(part)
        h.update(struct.pack("<Q", len(data)))
        h.update(data)
    return h.hexdigest()


class CacheFolderError(OSError):
    """A cache folder this process must not trust: owned by another user, writable by group or others, or a link
    where a folder of the cache should be.  The message is one line naming the folder."""


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _check_private(info: os.stat_result, where) -> None:
    """Refuse a cache folder owned by another user or writable by group or others (they could swap the secret)."""
    if not stat.S_ISDIR(info.st_mode):
        raise CacheFolderError(f"the cache folder {where} is not a folder")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise CacheFolderError(
            f"the cache folder {where} is owned by another user (uid {info.st_uid}); "
            "give a folder of your own with --cache-dir"
        )
    if info.st_mode & 0o022:
        raise CacheFolderError(
            f"the cache folder {where} is writable by group or others (mode "
            f"{stat.S_IMODE(info.st_mode):o}); chmod go-w it or give another folder"
        )


def check_cache_root(root) -> None:
    """Refuse an existing cache folder that is not private (see :func:`_check_private`); a missing one is made 0700
    on the first write."""
    try:
        info = os.stat(root)
    except OSError:  # missing, or under a file: nothing to trust, and a write there fails (costing the caching)
        return
    _check_private(info, root)


def _open_private_dir(root: Path, parts: tuple[str, ...]) -> int:
    """A descriptor on ``root/parts...``, each part made 0700 if missing (whatever the umask) and opened with
    ``O_NOFOLLOW`` relative to its parent's descriptor, so a link planted at ``entries/`` is refused, never followed;
    the root and every part must be private (:func:`_check_private`)."""
    created = False
    try:
        os.mkdir(root, 0o700)
        created = True
    except FileExistsError:
        pass
    except FileNotFoundError:
        root.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(root, 0o700)
        created = True
    fd = os.open(root, _DIR_FLAGS)
    try:
        if created:
            os.fchmod(fd, 0o700)
        _check_private(os.fstat(fd), root)
        where = root
        for name in parts:
            where = where / name
            made = False
            try:
                os.mkdir(name, 0o700, dir_fd=fd)
                made = True
            except FileExistsError:
                pass
            try:
                child = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                raise CacheFolderError(
                    f"the cache folder {where} is a link or not a folder ({exc.strerror or exc}); "
                    "the cache follows no link when writing"
                ) from None
            os.close(fd)
            fd = child
            if made:
                os.fchmod(fd, 0o700)
            _check_private(os.fstat(fd), where)
        return fd
    except BaseException:
        os.close(fd)
        raise


def private_write(root, parts: tuple[str, ...], name: str, data: bytes, link: bool = False) -> bool:
    """Write ``root/parts.../name`` (mode 0600) through a temporary file in that folder and one rename, every step
    relative to a folder descriptor and no link followed; ``link``: ``os.link`` into place instead of a rename, so an
    existing file wins (False is returned then: another process made it first)."""
    fd = _open_private_dir(Path(root), tuple(parts))
    tmp = f".{name}.{os.urandom(8).hex()}.tmp"
    try:
        out = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600, dir_fd=fd
        )
        try:
            os.fchmod(out, 0o600)
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
        finally:
            os.close(out)
        if link:
            try:
                os.link(tmp, name, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
            except FileExistsError:
                return False
            return True
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        tmp = None
        return True
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=fd)
            except FileNotFoundError:
                pass
        os.close(fd)


def _atomic_write(path: Path, data: bytes, root: Path) -> None:
    """Write ``data`` to ``path`` (below the cache ``root``) by :func:`private_write`."""
    parts = path.relative_to(root).parts
    private_write(root, parts[:-1], parts[-1], data)


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not a link, FIFO or device) of at most ``limit`` bytes, else
    None; opened with ``O_NOFOLLOW | O_NONBLOCK`` so that neither a link nor a FIFO can make the read block."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks, left = [], info.st_size + 1
        while left > 0:
            chunk = os.read(fd, min(left, 2**24))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= info.st_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


class SpectraCache:
    """Entries of named float64/int/str arrays by key; ``get`` returns None for a missing or corrupt entry."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.corrupt_seen = 0
        self._secret: bytes | None = None

    def secret(self, create: bool = False) -> bytes | None:
        """The cache's tag key ``<root>/secret`` (made with mode 0600 by the first writer), None if absent or odd."""
        if self._secret is None:
            path = self.root / "secret"
            data = read_regular(path, 64)
            if data is None and create:
                data = os.urandom(32)
                if not private_write(self.root, (), "secret", data, link=True):  # whole or absent; else theirs
                    data = read_regular(path, 64)
            self._secret = data if data is not None and len(data) == 32 else None
        return self._secret

    def tag(self, *parts: bytes | str) -> bytes:
        """HMAC-SHA256 of the length-prefixed parts under the cache's secret (made if missing)."""
        secret = self.secret(create=True)
        if secret is None:
            raise OSError(f"{self.root / 'secret'}: not a readable 32-byte regular file")
        return hmac.new(secret, bytes.fromhex(digest(*parts)), hashlib.sha256).digest()

    def verifies(self, tag: bytes, *parts: bytes | str) -> bool:
        secret = self.secret()
        return secret is not None and hmac.compare_digest(
            tag, hmac.new(secret, bytes.fromhex(digest(*parts)), hashlib.sha256).digest()
        )

    def _entry(self, key: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ValueError(f"cache key must be a SHA-256 hex digest, got {key!r}")
        return self.root / "entries" / key[:2] / f"{key}.bin"

    def put(self, key: str, arrays: Mapping[str, np.ndarray]) -> None:
        payload = pack(arrays)
        _atomic_write(self._entry(key), MAGIC + self.tag(key, payload) + payload, self.root)

    def get(self, key: str) -> dict[str, np.ndarray] | None:
        """The entry of ``key`` if it is a regular file tagged for this key under this cache's secret, else None."""
        raw = read_regular(self._entry(key), MAX_ENTRY_BYTES)
        if raw is None:  # missing, a link, a FIFO, too large or unreadable: not cached
            return None
        head = len(MAGIC)
        payload = raw[head + _DIGEST :]
        arrays = (
            unpack(payload) if raw[:head] == MAGIC and self.verifies(raw[head : head + _DIGEST], key, payload) else None
        )
        if arrays is None:
            self.corrupt_seen += 1
        return arrays

    # tensor digests of safetensors files, by file identity ------------------------------------------------

    def tensor_digests(
        self, path: Path, names: Iterable[str] | None = None, compute: bool = True, group: str = "all"
    ) -> dict[str, dict]:
        """``{name: {"dtype", "shape", "digest"}}`` for the tensors of a safetensors file (all, or ``names``):
        from the index when the file's identity and header are unchanged, else by hashing their bytes (with
        ``compute=False``: only those already indexed).  ``group`` names the index file, so that processes
        hashing different groups (layers) of one file never overwrite each other's digests."""
        return _IndexedFile(self, Path(path)).digests(names, compute, group)


class _IndexedFile:
    """A safetensors file's identity (resolved path, size, mtime, ctime, inode), header and digest index folder."""

    def __init__(self, cache: SpectraCache, path: Path):
        self.path = Path(path).resolve()
        stat = self.path.stat()
        identity = digest(
            str(self.path),
            str(stat.st_size),
            str(stat.st_mtime_ns),
            str(stat.st_ctime_ns),
            str(stat.st_ino),
            str(CACHE_VERSION),
        )
        header_bytes, self.start = _safetensors_header(self.path)
        self.header_digest = hashlib.sha256(header_bytes).hexdigest()
        self.header = json.loads(header_bytes)
        self.cache, self.identity = cache, identity
        self.folder = cache.root / "files" / identity[:2] / identity

    def names(self) -> list[str]:
        return sorted(n for n in self.header if n != "__metadata__")

    def digests(self, names: Iterable[str] | None, compute: bool, group: str) -> dict[str, dict]:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", group):
            raise ValueError(f"index group must be a plain name, got {group!r}")
        wanted = self.names() if names is None else sorted(names)
        index_path = self.folder / f"{group}.json"
        known = self._indexed(index_path, group)
        missing = [n for n in wanted if n not in known]
        if missing and not compute:
            return {n: known[n] for n in wanted if n in known}
        if missing:
            known = dict(known)
            with open(self.path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
                for name in missing:
                    entry = self.header[name]
                    begin, end = entry["data_offsets"]
                    known[name] = {
                        "dtype": entry["dtype"],
                        "shape": entry["shape"],
                        "digest": hashlib.sha256(view[self.start + begin : self.start + end]).hexdigest(),
                    }
            body = json.dumps({"path": str(self.path), "header": self.header_digest, "tensors": known})
            tag = self.cache.tag(self.identity, self.header_digest, group, body).hex()
            _atomic_write(index_path, json.dumps({"tag": tag, "body": body}).encode(), self.cache.root)
        return {n: known[n] for n in wanted}

    def _indexed(self, index_path: Path, group: str) -> dict[str, dict]:
        """The digests recorded for this file, if the index is a regular file tagged for this file's identity and
        header under the cache's secret (an index copied from another file's folder is not); else none."""
        raw = read_regular(index_path, MAX_INDEX_BYTES)
        try:
            record = json.loads(raw) if raw is not None else {}
            body, tag = record.get("body"), bytes.fromhex(record.get("tag", ""))
            if isinstance(body, str) and self.cache.verifies(tag, self.identity, self.header_digest, group, body):
                tensors = json.loads(body).get("tensors")
                return dict(tensors) if isinstance(tensors, dict) else {}
        except (ValueError, UnicodeDecodeError, AttributeError, TypeError, RecursionError):
            pass
        return {}


_DTYPES = {"f8": np.float64, "i8": np.int64, "u1": np.uint8}


def pack(arrays: Mapping[str, np.ndarray]) -> bytes:
    """The payload of an entry: an 8-byte header length, a JSON header (name, dtype, shape, offset of each array;
    strings as a list) and the arrays' little-endian bytes.  Nothing executable."""
    header, blobs, offset = {}, [], 0
    for name, value in arrays.items():
        value = np.asarray(value)
        if value.dtype.kind in "US":
            header[name] = {"strings": [str(v) for v in value.ravel()], "shape": list(value.shape)}
            continue
        code = {"f": "f8", "i": "i8", "u": "u1" if value.dtype == np.uint8 else "i8", "b": "i8"}[value.dtype.kind]
        blob = np.ascontiguousarray(value, dtype=np.dtype(_DTYPES[code]).newbyteorder("<")).tobytes()
        header[name] = {"dtype": code, "shape": list(value.shape), "offset": offset, "length": len(blob)}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def unpack(payload: bytes) -> dict[str, np.ndarray] | None:
    """The arrays of :func:`pack`'s output, or None when the layout does not verify."""
    payload = memoryview(payload)
    try:
        (length,) = struct.unpack("<Q", payload[:8])
        header = json.loads(bytes(payload[8 : 8 + length]))
        data = payload[8 + length :]
        out = {}
        for name, info in header.items():
            shape = tuple(int(d) for d in info["shape"])
            if "strings" in info:
                out[name] = np.array(info["strings"], dtype=str).reshape(shape)
                continue
            dtype = np.dtype(_DTYPES[info["dtype"]]).newbyteorder("<")
            begin, size = int(info["offset"]), int(info["length"])
            if begin < 0 or begin + size > len(data):
                return None
            out[name] = (
                np.frombuffer(data[begin : begin + size], dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))
            )
        return out
    except (ValueError, KeyError, TypeError, struct.error, RecursionError):
        return None


def _safetensors_header(path: Path) -> tuple[bytes, int]:
    """The JSON header bytes of a safetensors file and the offset where its data begins."""
    with open(path, "rb") as fh:
        (length,) = struct.unpack("<Q", fh.read(8))
        if length > 100_000_000:
            raise ValueError(f"{path}: safetensors header of {length} bytes")
        return fh.read(length), 8 + length


def layer_number(tensor_name: str) -> int | None:
    """The first dotted integer of a tensor name (``encoder.layer.3.attention...`` -> 3, ``model.layers.3...``)."""
    match = _LAYER_NUMBER.search(tensor_name)
    return int(match.group(1)) if match else None


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 over the source of every module of ``sabounds.numerics`` (readers, spectra, the certificate): a
    change to the code that measures a layer changes every key, so no entry outlives the code that made it."""
    root = Path(__file__).resolve().parent
    return digest(
        *(part for path in sorted(root.rglob("*.py")) for part in (str(path.relative_to(root)), path.read_bytes()))
    )


def layer_keys(
    safetensors_files: Iterable[Path],
    config_bytes: bytes,
    layers: Iterable[int],
    method: str,
    cache: SpectraCache,
    compute: bool = True,
) -> dict[int, str | None]:
    """Key of each layer's spectra: every tensor whose first dotted number is the layer (name, dtype, shape, bytes),
    the config, the method and the cache version: a superset of what the layer reads, so never stale.  With
    ``compute=False`` a layer whose digests are not all indexed yet gets None (no tensor bytes read)."""
    layers = sorted(set(layers))
    parts: dict[int, list[str] | None] = {
        i: [f"v{CACHE_VERSION}", code_digest(), method, digest(config_bytes), str(i)] for i in layers
    }
    for path in sorted(Path(p) for p in safetensors_files):
        indexed = _IndexedFile(cache, path)
        by_layer: dict[int, list[str]] = {i: [] for i in layers}
        for name in indexed.names():
            number = layer_number(name)
            if number in by_layer:
                by_layer[number].append(name)
        for i, names in by_layer.items():
            if parts[i] is None:
                continue
            known = indexed.digests(names, compute, f"layer-{i}")
            if any(n not in known for n in names):
                parts[i] = None
                continue
            for name in sorted(names):
                info = known[name]
                parts[i] += [name, info["dtype"], json.dumps(info["shape"]), info["digest"]]
    return {i: None if p is None else digest(*p) for i, p in parts.items()}


def layer_key(
    safetensors_files: Iterable[Path],
    config_bytes: bytes,
    layer: int,
    method: str,
    cache: SpectraCache,
    compute: bool = True,
) -> str | None:
    """:func:`layer_keys` for one layer."""
    return layer_keys(safetensors_files, config_bytes, [layer], method, cache, compute)[layer]
