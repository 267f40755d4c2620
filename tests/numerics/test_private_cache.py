"""The cache is private (issue 34 item 6): folders 0700 and files 0600 whatever the umask, a folder owned by another
user or writable by group or others refused in one line, and no link followed when writing."""

import os
import stat

import numpy as np
import pytest

from sabounds.numerics.cache import CacheFolderError, SpectraCache, check_cache_root, digest

KEY = digest("a key")


def modes(root):
    """Permission bits of every folder and file below ``root`` (root included), links not followed."""
    out = {".": stat.S_IMODE(os.lstat(root).st_mode)}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            out[os.path.relpath(path, root)] = stat.S_IMODE(os.lstat(path).st_mode)
    return out


@pytest.mark.parametrize("umask", [0o000, 0o002, 0o022, 0o077])
def test_folders_0700_files_0600_under_any_umask(tmp_path, umask):
    root = tmp_path / "new" / "cache"
    previous = os.umask(umask)
    try:
        SpectraCache(root).put(KEY, {"x": np.arange(3.0)})
    finally:
        os.umask(previous)
    found = modes(root)
    assert {"secret", "entries", f"entries/{KEY[:2]}", f"entries/{KEY[:2]}/{KEY}.bin"} <= set(found)
    for rel, mode in found.items():
        want = 0o600 if os.path.isfile(root / rel) else 0o700
        assert mode == want, (rel, oct(mode))


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757, 0o1777])
def test_group_or_world_writable_folder_refused(tmp_path, mode):
    root = tmp_path / "cache"
    root.mkdir()
    os.chmod(root, mode)
    with pytest.raises(CacheFolderError, match="writable by group or others"):
        check_cache_root(root)
    with pytest.raises(CacheFolderError):
        SpectraCache(root).put(KEY, {"x": np.arange(3.0)})
    assert os.listdir(root) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_folder_of_another_user_refused(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    os.chown(root, 12345, 12345)
    with pytest.raises(CacheFolderError, match="owned by another user"):
        check_cache_root(root)
    with pytest.raises(CacheFolderError):
        SpectraCache(root).put(KEY, {"x": np.arange(3.0)})


@pytest.mark.parametrize("planted", ["entries", "entries/prefix"])
def test_link_in_the_cache_never_followed_on_write(tmp_path, planted):
    root, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    root.mkdir(mode=0o700)
    elsewhere.mkdir(mode=0o700)
    link = root / planted.replace("prefix", KEY[:2])
    link.parent.mkdir(mode=0o700, exist_ok=True)
    link.symlink_to(elsewhere)
    with pytest.raises(CacheFolderError, match="link"):
        SpectraCache(root).put(KEY, {"x": np.arange(3.0)})
    assert os.listdir(elsewhere) == []


def test_a_link_at_the_entry_is_replaced_not_written_through(tmp_path):
    root, target = tmp_path / "cache", tmp_path / "target"
    target.write_bytes(b"keep")
    c = SpectraCache(root)
    c.put(digest("other"), {"x": np.arange(1.0)})
    entry = c._entry(KEY)
    entry.parent.mkdir(mode=0o700, exist_ok=True)
    entry.symlink_to(target)
    c.put(KEY, {"x": np.arange(3.0)})
    assert target.read_bytes() == b"keep" and not entry.is_symlink() and c.get(KEY) is not None


def test_missing_root_is_not_refused(tmp_path):
    check_cache_root(tmp_path / "not yet")
