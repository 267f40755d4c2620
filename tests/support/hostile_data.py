"""Hostile data as a table (issue 20): what a checkpoint, a cache, a mapping or a list file can hold.

Each case builds its files in a fresh workspace (the current folder of the run) and names the command line; the
command runs in a child process under a 2 GiB address-space limit (``RLIMIT_AS``) and a 120 s time limit.  The
contract: exit 2 with one line on stderr and no traceback, or the true result (exit 0, checked by the case); in both,
no file outside the cache and ``--out`` changes.  ``tests/hostile/test_data_files.py`` expands the table.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.bert_files import config, random_weights, write_model
from tests.support.hostile import OK, REFUSE, tiny_model

MEMORY = 2 * 2**30
SECONDS = 120
CACHE = "cache"  # the workspace folder the runs use as their spectra cache (owned by the package)


def run_limited(
    argv: list[str], cwd: Path, cache: bool = True, memory: int = MEMORY, seconds: float = SECONDS
) -> subprocess.CompletedProcess:
    """``sabounds ARGV`` in a child process with RLIMIT_AS ``memory`` and a ``seconds`` timeout."""
    env = dict(os.environ, SABOUNDS_CACHE_DIR=str(cwd / CACHE) if cache else "off")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "sabounds", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=seconds,
        preexec_fn=limit,
    )


def sweep_rows(text: str) -> dict[str, dict]:
    """The rows of ``sweep --json`` output by source."""
    return {r["source"]: r for r in json.loads(text)["rows"]}


def same_numbers(a: dict, b: dict) -> bool:
    keys = ("ours", "ours_log10", "edelman", "edelman_log10", "L", "heads")
    return all(a[k] == b[k] or (isinstance(a[k], float) and abs(a[k] - b[k]) <= 1e-12 * abs(b[k])) for k in keys)


# --- builders: each makes its files in ``root`` and returns the argv ------------------------------------------


def _model(root: Path, name: str = "model", **kw) -> Path:
    return tiny_model(root / name, **kw)


def _onnx(root: Path, location: str | None = "w.bin", data_type: int | None = None) -> Path:
    """An ONNX BERT with its weights as external data in ``w.bin`` beside it; then every location set to
    ``location`` (or the first weight's dtype set to ``data_type``)."""
    import onnx
    from onnx.external_data_helper import convert_model_to_external_data

    from tests.support.onnx_files import write_bert_onnx

    weights = {k: v for k, v in random_weights(layers=2).items() if k.endswith(".weight") and "layer" in k}
    folder = root / "onnx"
    folder.mkdir(exist_ok=True)
    write_bert_onnx(folder / "m.onnx", weights, layers=2, hidden=16, heads=4)
    model = onnx.load(str(folder / "m.onnx"))
    convert_model_to_external_data(model, all_tensors_to_one_file=True, location="w.bin", size_threshold=0)
    onnx.save(model, str(folder / "m.onnx"))
    model = onnx.load(str(folder / "m.onnx"), load_external_data=False)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location" and location is not None:
                entry.value = location
    if data_type is not None:
        big = max(model.graph.initializer, key=lambda t: len(t.dims) == 2 and t.dims[0] * t.dims[1])
        big.data_type = data_type
    (folder / "m.onnx").write_bytes(model.SerializeToString())
    return folder / "m.onnx"


def onnx_elsewhere(root):
    """The same .onnx read from another folder: numbers equal those read from its own folder (checked)."""
    _onnx(root)
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "w.bin").write_bytes(b"\0" * 200_000)  # a decoy in the current folder
    return ["analyze", "../onnx/m.onnx", "--json"], "elsewhere"


def onnx_location(location_of: Callable[[Path], str], prepare: Callable[[Path], None] = lambda root: None):
    def build(root):
        prepare(root)
        _onnx(root, location_of(root))
        return ["analyze", "onnx/m.onnx", "--json"]

    return build


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def onnx_undefined_dtype(root):
    _onnx(root, data_type=0)
    return ["analyze", "onnx/m.onnx", "--json"]


def onnx_short_file(root):
    path = _onnx(root)
    data = path.parent / "w.bin"
    data.write_bytes(data.read_bytes()[:1000])
    return ["analyze", "onnx/m.onnx", "--json"]


def claimed_layers(count: int, command: str):
    def build(root):
        weights = random_weights(layers=2)
        write_model(root / "model", weights, config(layers=count))
        return {
            "sweep": ["sweep", "model", "--json", "--workers", "0"],
            "analyze": ["analyze", "model", "--json"],
            "scaling": ["scaling", "model"],
            "bound": ["bound", "model", "--n", "1e9", "--delta", "0.05", "--margin", "1"],
        }[command]

    return build


def mapping_file(text: str, suffix: str = ".toml"):
    def build(root):
        _model(root)
        (root / f"map{suffix}").write_text(text)
        return ["analyze", "model", "--mapping", f"map{suffix}", "--json"]

    return build


def list_files(files: dict[str, str | bytes | None]):
    """List files by name (None: a FIFO); the sweep is given the first."""

    def build(root):
        _model(root)
        for name, content in files.items():
            if content is None:
                _fifo(root / name)
            elif isinstance(content, bytes):
                (root / name).write_bytes(content)
            else:
                (root / name).write_text(content)
        return ["sweep", next(iter(files)), "--json", "--workers", "0"]

    return build


def sparse_list(root):
    _model(root)
    with open(root / "list.txt", "wb") as fh:
        fh.truncate(6 * 2**30)  # 6 GiB of holes: no disk used
    return ["sweep", "list.txt", "--json", "--workers", "0"]


def beyond_float64(command: str):
    def build(root):
        tiny_model(root / "deep", layers=80, scale=8)  # edelman about 1e358 with ordinary float32 weights
        tiny_model(root / "big", scale=1e150, dtype="F64")
        _model(root, "normal")
        return {
            "sweep-json": ["sweep", "deep", "normal", "big", "--json", "--workers", "0"],
            "sweep-out": ["sweep", "deep", "normal", "big", "--out", "out", "--workers", "0"],
            "analyze-plots": ["analyze", "big", "--out", "out", "--plots"],
            "bound-json": ["bound", "big", "--n", "1e9", "--delta", "0.05", "--margin", "1", "--json"],
            "bound-out": ["bound", "big", "--n", "1e9", "--delta", "0.05", "--margin", "1", "--out", "out"],
            "analyze-deep": ["analyze", "deep", "--json"],
        }[command]

    return build


def big_tokens(root):
    _model(root)
    path = root / "model" / "config.json"
    cfg = json.loads(path.read_text())
    cfg["max_position_embeddings"] = 10**400
    path.write_text(json.dumps(cfg))
    return ["bound", "model", "--n", "1e9", "--delta", "0.05", "--margin", "1"]


def pickled(kind: str):
    def build(root):
        import torch

        state = {k: torch.tensor(v) for k, v in random_weights(layers=2).items()}
        name = "encoder.layer.0.attention.self.query.weight"
        state[name] = torch.empty(16, 16, device="meta") if kind == "meta" else state[name].to_sparse()
        (root / "model").mkdir()
        (root / "model" / "config.json").write_text(json.dumps(config()))
        torch.save(state, root / "model" / "pytorch_model.bin")
        return ["analyze", "model", "--allow-pickle", "--json"]

    return build


@dataclass(frozen=True)
class DataCase:
    """``build(root)`` makes the files and returns the argv (or ``(argv, subfolder to run in)``)."""

    id: str
    item: int  # the item of issue 20
    build: Callable
    expect: str
    needs: str = ""  # an optional module the case needs (skipped without it)
    check: str = ""  # for OK cases: the name of the check in tests/hostile/test_data_files.py


_LONG = "x" * 300
DATA_CASES = [
    DataCase("onnx-external-from-another-folder", 1, onnx_elsewhere, OK, "onnx", "onnx_same_as_home"),
    DataCase(
        "onnx-external-dotdot",
        1,
        onnx_location(lambda r: "../w.bin", lambda r: (r / "w.bin").write_bytes(b"\0" * 10**5)),
        REFUSE,
        "onnx",
    ),
    DataCase(
        "onnx-external-absolute",
        1,
        onnx_location(lambda r: str(r / "abs.bin"), lambda r: (r / "abs.bin").write_bytes(b"\0" * 10**5)),
        REFUSE,
        "onnx",
    ),
    DataCase(
        "onnx-external-link-to-dev-zero",
        1,
        onnx_location(
            lambda r: "z.bin", lambda r: (r / "onnx").mkdir() or (r / "onnx" / "z.bin").symlink_to("/dev/zero")
        ),
        REFUSE,
        "onnx",
    ),
    DataCase(
        "onnx-external-fifo",
        1,
        onnx_location(lambda r: "f.bin", lambda r: (r / "onnx").mkdir() or _fifo(r / "onnx" / "f.bin")),
        REFUSE,
        "onnx",
    ),
    DataCase("onnx-external-missing", 1, onnx_location(lambda r: "gone.bin"), REFUSE, "onnx"),
    DataCase(
        "onnx-external-a-folder",
        1,
        onnx_location(lambda r: "sub", lambda r: (r / "onnx" / "sub").mkdir(parents=True)),
        REFUSE,
        "onnx",
    ),
    DataCase(
        "onnx-external-link-out-of-folder-to-fifo",
        1,
        onnx_location(
            lambda r: "l.bin",
            lambda r: _fifo(r / "fifo") or (r / "onnx").mkdir() or (r / "onnx" / "l.bin").symlink_to(r / "fifo"),
        ),
        REFUSE,
        "onnx",
    ),
    DataCase("onnx-external-empty-location", 1, onnx_location(lambda r: ""), REFUSE, "onnx"),
    DataCase("onnx-external-name-too-long", 1, onnx_location(lambda r: _LONG), REFUSE, "onnx"),
    DataCase("onnx-external-file-too-short", 1, onnx_short_file, REFUSE, "onnx"),
    DataCase("onnx-weight-dtype-undefined", 19, onnx_undefined_dtype, REFUSE, "onnx"),
    DataCase(
        "onnx-weight-dtype-unknown-number",
        19,
        lambda r: _onnx(r, data_type=999) and ["analyze", "onnx/m.onnx", "--json"],
        REFUSE,
        "onnx",
    ),
    DataCase("sweep-config-claims-1e9-layers", 10, claimed_layers(10**9, "sweep"), OK, "", "missing_tensor_row"),
    DataCase("sweep-config-claims-1e7-layers", 10, claimed_layers(10**7, "sweep"), OK, "", "missing_tensor_row"),
    DataCase("analyze-config-claims-1e9-layers", 10, claimed_layers(10**9, "analyze"), REFUSE),
    DataCase("scaling-config-claims-1e9-layers", 10, claimed_layers(10**9, "scaling"), REFUSE),
    DataCase("bound-config-claims-1e9-layers", 10, claimed_layers(10**9, "bound"), REFUSE),
    DataCase("mapping-100000-dotted-key-parts", 11, mapping_file("a" + ".b" * 100_000 + " = 1\n"), REFUSE),
    DataCase("mapping-dotted-parts-in-inline-table", 11, mapping_file("x = {" + "a." * 100_000 + "b = 1}\n"), REFUSE),
    DataCase("mapping-dotted-table-header", 11, mapping_file("[" + "a." * 100_000 + "b]\n"), REFUSE),
    DataCase("mapping-nested-arrays", 11, mapping_file("x = " + "[" * 200_000 + "]" * 200_000 + "\n"), REFUSE),
    DataCase(
        "mapping-template-width",
        11,
        mapping_file('base = "bert"\nlayer = "encoder.layer.{i}{i:>900000000}."\n'),
        REFUSE,
    ),
    DataCase(
        "mapping-template-width-beside-i",
        11,
        mapping_file('base = "bert"\nlayer = "encoder.layer.{i}.{i:>900000000}"\n'),
        REFUSE,
    ),
    DataCase(
        "mapping-template-attribute", 11, mapping_file('base = "bert"\nlayer = "encoder.layer.{i}.{i.foo}."\n'), REFUSE
    ),
    DataCase(
        "mapping-template-index", 11, mapping_file('base = "bert"\nlayer = "encoder.layer.{i}.{i[0]}."\n'), REFUSE
    ),
    DataCase(
        "mapping-template-other-field",
        11,
        mapping_file('{"base": "bert", "layer": "encoder.layer.{i}.{j}"}', ".json"),
        REFUSE,
    ),
    DataCase(
        "mapping-template-in-json",
        11,
        mapping_file('{"base": "bert", "layer": "encoder.layer.{i}{i!r:>99999999}"}', ".json"),
        REFUSE,
    ),
    DataCase(
        "mapping-only-i-works", 11, mapping_file('base = "bert"\nlayer = "encoder.layer.{i}."\n'), OK, "", "analyze_ok"
    ),
    DataCase("list-names-itself", 12, list_files({"list.txt": "model\nlist.txt\n"}), REFUSE),
    DataCase("lists-name-each-other", 12, list_files({"a.txt": "model\nb.txt\n", "b.txt": "a.txt\n"}), REFUSE),
    DataCase("list-line-of-1-MiB", 12, list_files({"list.txt": "model\n" + "y" * 2**20 + "\n"}), REFUSE),
    DataCase("list-line-of-20-MiB", 12, list_files({"list.txt": "z" * 20 * 2**20 + "\n"}), REFUSE),
    DataCase("list-sparse-6-GiB", 12, sparse_list, REFUSE),
    DataCase("list-fifo", 12, list_files({"list.txt": "model\nfifo.txt\n", "fifo.txt": None}), OK, "", "fifo_row"),
    DataCase(
        "list-lists-fanning-out",
        12,
        list_files({"a.txt": "b.txt\n" * 2000, "b.txt": "c.txt\n" * 2000, "c.txt": "model\n"}),
        REFUSE,
    ),
    DataCase("list-glob-matching-nothing", 12, list_files({"list.txt": "nowhere/*/*/*\n"}), REFUSE),
    DataCase(
        "list-component-too-long", 16, list_files({"list.txt": "model\n" + _LONG + "\n"}), OK, "", "long_name_row"
    ),
    DataCase("sweep-json-beyond-float64", 15, beyond_float64("sweep-json"), OK, "", "sweep_log10"),
    DataCase("sweep-out-beyond-float64", 15, beyond_float64("sweep-out"), OK, "pyarrow", "sweep_files"),
    DataCase("analyze-plots-weights-1e150", 15, beyond_float64("analyze-plots"), OK, "", "figures_written"),
    DataCase("bound-json-weights-1e150", 15, beyond_float64("bound-json"), OK, "", "bound_json"),
    DataCase("bound-out-weights-1e150", 15, beyond_float64("bound-out"), OK, "", "figures_written"),
    DataCase("bound-max-position-embeddings-1e400", 19, big_tokens, REFUSE),
    DataCase(
        "bound-tokens-1e400",
        19,
        lambda r: (
            _model(r) and ["bound", "model", "--n", "1e9", "--delta", "0.05", "--margin", "1", "--tokens", str(10**400)]
        ),
        REFUSE,
    ),
    DataCase("pickle-meta-tensor", 19, pickled("meta"), REFUSE, "torch"),
    DataCase("pickle-sparse-tensor", 19, pickled("sparse"), REFUSE, "torch"),
]

# --- the cache: entries and digest indexes tampered with after a first sweep ------------------------------------


@dataclass(frozen=True)
class CacheCase:
    """After ``sweep A B`` fills the cache, ``tamper(cache, root)`` changes it; ``sweep B`` must give B's numbers."""

    id: str
    item: int
    tamper: str  # the name of a tamper function in tests/hostile/test_data_files.py


CACHE_CASES = [
    CacheCase(name, item, name.replace("-", "_"))
    for name, item in (
        ("entry-copied-from-another-model", 2),
        ("entry-crafted-with-fresh-checksum", 2),
        ("entry-crafted-head-dropped", 2),
        ("entry-crafted-old-format", 2),
        ("index-copied-from-another-model", 2),
        ("index-crafted-other-digests", 2),
        ("entry-nan-spectra", 2),
        ("entry-inf-spectra", 2),
        ("entry-negative-spectra", 2),
        ("entry-fifo", 13),
        ("entry-link-to-dev-zero", 13),
        ("index-fifo", 13),
        ("index-link-to-dev-zero", 13),
        ("secret-fifo", 13),
    )
]

# --- paths over the system limits, every place a user path is taken (item 16) -------------------------------------

_COMPONENT, _PATH = "c" * 300, "/".join(["p" * 200] * 25)
PATH_PLACES = {
    "analyze MODEL": ["analyze", "{p}"],
    "analyze --out": ["analyze", "model", "--out", "{p}"],
    "analyze --mapping": ["analyze", "model", "--mapping", "{p}"],
    "scaling MODEL": ["scaling", "{p}"],
    "scaling --out": ["scaling", "model", "--out", "{p}"],
    "bound MODEL": ["bound", "{p}", "--n", "1e9", "--delta", "0.05", "--margin", "1"],
    "bound --out": ["bound", "model", "--n", "1e9", "--delta", "0.05", "--margin", "1", "--out", "{p}"],
    "report --model": ["report", "--model", "{p}", "--out", "r"],
    "report --out": ["report", "--out", "{p}"],
    "sweep SOURCE": ["sweep", "{p}"],
    "sweep --out": ["sweep", "model", "--out", "{p}"],
    "sweep --cache-dir": ["sweep", "model", "--cache-dir", "{p}"],
    "docs --out": ["docs", "--out", "{p}"],
}
PATH_CASES = [
    (f"{place} {kind}", [a.replace("{p}", p) for a in argv])
    for place, argv in PATH_PLACES.items()
    for kind, p in (("component-300", _COMPONENT), ("path-5000", _PATH))
]

# --- norms at the ends of float64 (item 3), checked against mpmath ---------------------------------------------------

NORM_CASES = [
    "one-1e308-entry-on-1e-300-weights",
    "subnormal-1e-321-times-1e300",
    "1e300-times-1e-300",
    "subnormal-left-times-1e10",
    "1e308-times-1e308-refused",
    "mixed-1e200-and-1e-200-columns",
]


def counts() -> dict[str, int]:
    return {
        "data (ONNX, configs, mappings, list files, beyond float64)": len(DATA_CASES),
        "cache (entries and indexes copied, crafted, special)": len(CACHE_CASES),
        "paths over the system limits": len(PATH_CASES),
        "norms at the ends of float64": len(NORM_CASES),
    }
