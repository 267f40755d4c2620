"""Hostile data (tests/support/hostile_data.py, issue 20): checkpoints, caches, mappings and list files a hostile or careless
user can give.  Each case runs ``sabounds`` in a child process under 2 GiB of address space and 120 s, and gets the
true result or exit 2 with one line on stderr, no traceback, and nothing changed outside the cache and ``--out``."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path

import mpmath
import numpy as np
import pytest

from sabounds.cli import main
from tests.support.bert_files import config, random_weights, write_model
from tests.support.hostile import REFUSE, bad_numbers
from tests.support.hostile_data import (
    CACHE,
    CACHE_CASES,
    DATA_CASES,
    NORM_CASES,
    PATH_CASES,
    run_limited,
    same_numbers,
    sweep_rows,
)

OWNED = (CACHE, "out")


def state(root: Path) -> dict[str, tuple]:
    """Every path below ``root`` but the owned folders: kind, size, mtime and inode (no content read, so a sparse
    6 GiB file costs nothing)."""
    out = {}
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        rel_dir = Path(dirpath).relative_to(root)
        if rel_dir.parts and rel_dir.parts[0] in OWNED:
            continue
        for name in dirs + files:
            rel = rel_dir / name
            if rel.parts[0] in OWNED:
                continue
            info = os.lstat(Path(dirpath) / name)
            out[str(rel)] = (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)
    return out


def refused(p) -> None:
    assert p.returncode == 2, (p.returncode, p.stderr[-3000:])
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]


# --- checks of the OK cases ------------------------------------------------------------------------------------


def onnx_same_as_home(p, root):
    away = json.loads(p.stdout)["totals"]
    home = run_limited(["analyze", "onnx/m.onnx", "--json"], root)
    assert home.returncode == 0, home.stderr
    assert away == json.loads(home.stdout)["totals"]


def missing_tensor_row(p, root):
    (row,) = json.loads(p.stdout)["rows"]
    assert row["status"] == "error" and "missing tensor" in row["error"] and "layer 2" in row["error"], row


def analyze_ok(p, root):
    assert json.loads(p.stdout)["totals"]["ours"] > 0


def fifo_row(p, root):
    rows = sweep_rows(p.stdout)
    assert rows["model"]["status"] == "ok" and rows["fifo.txt"]["status"] == "error", rows


def long_name_row(p, root):
    rows = sweep_rows(p.stdout)
    assert rows["model"]["status"] == "ok" and rows["x" * 300]["status"] == "error", rows


def sweep_log10(p, root):
    assert bad_numbers(p.stdout) == []
    data = json.loads(p.stdout)
    rows = {r["source"]: r for r in data["rows"]}
    assert all(r["status"] == "ok" for r in rows.values()), rows
    assert rows["deep"]["edelman"] is None and 308 < rows["deep"]["edelman_log10"] < 400
    assert rows["big"]["edelman"] is None and rows["big"]["edelman_log10"] > 1000
    assert rows["normal"]["edelman"] == pytest.approx(10 ** rows["normal"]["edelman_log10"], rel=1e-12)
    assert {f["quantity"] for f in data["fits"]} == {"ours", "edelman"}


def sweep_files(p, root):
    import pyarrow.parquet as pq

    out = root / "out"
    for name in ("sweep.csv", "fits.csv", "provenance.json"):
        assert bad_numbers((out / name).read_text()) == [], name
    table = pq.read_table(out / "sweep.parquet").to_pylist()
    assert max(r["edelman_log10"] for r in table) > 1000 and len(table) == 3
    assert all((out / f"sweep_scaling.{f}").stat().st_size > 0 for f in ("png", "pdf", "svg"))


def figures_written(p, root):
    out = root / "out"
    assert list(out.glob("*.png")), sorted(os.listdir(out))
    for path in out.iterdir():
        if path.suffix in (".csv", ".json", ".txt"):
            assert bad_numbers(path.read_text()) == [], path.name


def bound_json(p, root):
    assert bad_numbers(p.stdout) == []
    json.loads(p.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("case", DATA_CASES, ids=[c.id for c in DATA_CASES])
def test_hostile_data(case, tmp_path):
    if case.needs and importlib.util.find_spec(case.needs) is None:
        pytest.skip(f"needs {case.needs}")
    root = tmp_path / "w"
    root.mkdir()
    built = case.build(root)
    argv, where = built if isinstance(built, tuple) else (built, ".")
    before = state(root)
    p = run_limited(argv, root / where)
    if case.expect == REFUSE:
        refused(p)
    else:
        assert p.returncode == 0, p.stderr[-3000:]
        assert "Traceback" not in p.stderr
        globals()[case.check](p, root)
    assert state(root) == before


# --- the cache -------------------------------------------------------------------------------------------------


def _keys(root: Path, model: str) -> list[str]:
    from sabounds.numerics.proxies.sweep import LayerTask, task_keys

    tasks = [LayerTask(str(root / model), i, "certified", str(root / CACHE)) for i in range(2)]
    keys = task_keys(tasks, compute=False)
    assert None not in keys
    return keys


def _entry(root: Path, key: str) -> Path:
    return root / CACHE / "entries" / key[:2] / f"{key}.bin"


def _index_folder(root: Path, model: str) -> Path:
    from sabounds.numerics.cache import SpectraCache, _IndexedFile

    return _IndexedFile(SpectraCache(root / CACHE), root / model / "model.safetensors").folder


def _craft(root: Path, change, magic: bytes | None = None, tagged: bool = False) -> None:
    """Rewrite B's entries with ``change(arrays)``: with a fresh sha256 in the tag's place (``magic``: another
    format's), or properly tagged through the library (``tagged``: as if the package itself had written them)."""
    from sabounds.numerics import cache as c

    store = c.SpectraCache(root / CACHE)
    for key in _keys(root, "b"):
        raw = _entry(root, key).read_bytes()
        arrays = c.unpack(raw[len(c.MAGIC) + 32 :])
        change(arrays)
        if tagged:
            store.put(key, arrays)
            continue
        payload = c.pack(arrays)
        _entry(root, key).write_bytes((magic or c.MAGIC) + hashlib.sha256(payload).digest() + payload)


def entry_copied_from_another_model(root):
    for a, b in zip(_keys(root, "a"), _keys(root, "b")):
        shutil.copyfile(_entry(root, a), _entry(root, b))


def entry_crafted_with_fresh_checksum(root):
    _craft(root, lambda arrays: arrays.update(qk=arrays["qk"] * 10, m_out=arrays["m_out"] * 10))


def entry_crafted_head_dropped(root):
    _craft(root, lambda arrays: arrays.update(qk=arrays["qk"][:-1], qk_21=arrays["qk_21"][:-1]))


def entry_crafted_old_format(root):
    _craft(root, lambda arrays: arrays.update(m_in=arrays["m_in"] * 10), magic=b"SABOUNDS-CACHE-2\n")


def entry_nan_spectra(root):
    _craft(root, lambda arrays: arrays["qk"].__setitem__((0, 0), np.nan), tagged=True)


def entry_inf_spectra(root):
    _craft(root, lambda arrays: arrays.update(m_in=np.full_like(arrays["m_in"], np.inf)), tagged=True)


def entry_negative_spectra(root):
    _craft(root, lambda arrays: arrays.update(vt=-arrays["vt"]), tagged=True)


def index_copied_from_another_model(root):
    source, target = _index_folder(root, "a"), _index_folder(root, "b")
    for path in source.iterdir():
        shutil.copyfile(path, target / path.name)


def index_crafted_other_digests(root):
    a_folder, b_folder = _index_folder(root, "a"), _index_folder(root, "b")
    for path in b_folder.iterdir():
        record = json.loads(path.read_text())
        body = json.loads(record["body"])
        body["tensors"] = json.loads(json.loads((a_folder / path.name).read_text())["body"])["tensors"]
        record["body"] = json.dumps(body)
        path.write_text(json.dumps(record))


def _special(paths, kind: str) -> None:
    for path in paths:
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")


def entry_fifo(root):
    _special([_entry(root, k) for k in _keys(root, "b")], "fifo")


def entry_link_to_dev_zero(root):
    _special([_entry(root, k) for k in _keys(root, "b")], "link")


def index_fifo(root):
    _special(list(_index_folder(root, "b").iterdir()), "fifo")


def index_link_to_dev_zero(root):
    _special(list(_index_folder(root, "b").iterdir()), "link")


def secret_fifo(root):
    _special([root / CACHE / "secret"], "fifo")


@pytest.mark.slow
@pytest.mark.parametrize("case", CACHE_CASES, ids=[c.id for c in CACHE_CASES])
def test_tampered_cache_never_changes_a_number(case, tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    write_model(root / "a", random_weights(seed=1, scale=0.3), config())
    write_model(root / "b", random_weights(seed=2, scale=0.9), config())
    first = run_limited(["sweep", "a", "b", "--json", "--workers", "0"], root)
    assert first.returncode == 0, first.stderr
    truth = sweep_rows(first.stdout)
    assert not same_numbers(truth["a"], truth["b"])
    globals()[case.tamper](root)
    before = state(root)
    p = run_limited(["sweep", "b", "--json", "--workers", "0"], root)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-3000:]
    row = sweep_rows(p.stdout)["b"]
    assert row["status"] == "ok", row
    if not case.id.startswith("index"):  # a refused index is rebuilt from the bytes and finds B's own entries
        assert row["layers_cached"] == 0, row
    assert same_numbers(row, truth["b"]), (row, truth["b"])
    assert state(root) == before


# --- paths over the system limits ------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [a for _, a in PATH_CASES], ids=[i for i, _ in PATH_CASES])
def test_paths_over_the_system_limits(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_model(tmp_path / "model", random_weights(), config())
    before = state(tmp_path)
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "system accepts" in err, err
    assert state(tmp_path) == before


# --- norms at the ends of float64 -------------------------------------------------------------------------------


def _norm_inputs(case: str):
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.5, 2, (5, 4)), rng.uniform(0.5, 2, (4, 6))
    if case == "one-1e308-entry-on-1e-300-weights":
        a, b = a * 1e-300, b * 1e-300
        a[0, 0] = 1e308
    elif case == "subnormal-1e-321-times-1e300":
        a, b = a * 1e-321, b * 1e300
    elif case == "1e300-times-1e-300":
        a, b = a * 1e300, b * 1e-300
    elif case == "subnormal-left-times-1e10":
        a, b = a * 1e-310, b * 1e10
    elif case == "1e308-times-1e308-refused":
        a, b = a * 1e307, b * 1e307
    else:
        a[:, :2] *= 1e200
        b[:2] *= 1e-200
    return a, b


def _exact_21(a: np.ndarray, b: np.ndarray):
    """``||A B||_{2,1}`` in mpmath at 60 digits from the exact float inputs."""
    with mpmath.workdps(60):
        A, B = mpmath.matrix(a.tolist()), mpmath.matrix(b.tolist())
        P = A * B
        return sum(mpmath.sqrt(sum(P[i, j] ** 2 for i in range(P.rows))) for j in range(P.cols))


@pytest.mark.parametrize("case", NORM_CASES)
def test_product_norm_21_against_mpmath(case):
    from sabounds.numerics.norms import product_norm_21

    a, b = _norm_inputs(case)
    exact = _exact_21(a, b)
    if exact == 0 or not 2.3e-308 < exact < 1.7e308:
        with pytest.raises(ValueError):
            product_norm_21(a, b)
        return
    got = float(product_norm_21(a, b))
    assert abs(mpmath.mpf(got) / exact - 1) < 1e-12, (got, exact)
