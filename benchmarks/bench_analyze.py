"""Time and memory of ``sabounds analyze`` on a BERT-base-shaped checkpoint, beside its floor and a naive approach.

Builds a random float32 checkpoint (L = 12, N = 768, 12 heads, intermediate 3072; random weights serve for
timing) in a temporary directory, then runs each variant in a fresh subprocess that times its own work (after
imports) and reports its peak resident memory (ru_maxrss):

- analyze: ``sabounds analyze DIR --json`` through ``sabounds.cli.main`` (output discarded);
- floor:   reading the same weights as float64 plus LAPACK singular values of the 24 feed-forward matrices;
- naive:   the floor's reading, a full N x N SVD of every QK_h and Vt_h, and the p grid in a Python loop.

The end-to-end wall time of the ``python -m sabounds analyze`` process (interpreter start and imports included)
is printed too.  Targets: analyze within 1.5x of the floor, at least 3x faster than naive, peak under 1.5 GiB.

Usage: python benchmarks/bench_analyze.py [--repeats R] [--skip-naive] [--threads T|default]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the package of this checkout, not an installed one
SHAPE = {"layers": 12, "hidden": 768, "heads": 12, "intermediate": 3072}
LAYER_TENSORS = {"attention.self.query": "NN", "attention.self.key": "NN", "attention.self.value": "NN",
                 "attention.output.dense": "NN", "intermediate.dense": "IN", "output.dense": "NI"}


def build_checkpoint(directory: Path) -> None:
    from safetensors.numpy import save_file
    rng = np.random.default_rng(0)
    n, inner = SHAPE["hidden"], SHAPE["intermediate"]
    sizes = {"N": n, "I": inner}
    tensors = {"bert.embeddings.word_embeddings.weight": rng.standard_normal((30522, n), dtype=np.float32) * 0.02}
    for l in range(SHAPE["layers"]):
        for name, (rows, cols) in LAYER_TENSORS.items():
            w = rng.standard_normal((sizes[rows], sizes[cols]), dtype=np.float32) * np.float32(0.02)
            tensors[f"bert.encoder.layer.{l}.{name}.weight"] = w
            tensors[f"bert.encoder.layer.{l}.{name}.bias"] = np.zeros(sizes[rows], dtype=np.float32)
    save_file(tensors, str(directory / "model.safetensors"), metadata={"format": "pt"})
    config = {"model_type": "bert", "num_hidden_layers": SHAPE["layers"], "hidden_size": n,
              "num_attention_heads": SHAPE["heads"], "intermediate_size": inner, "hidden_act": "gelu"}
    (directory / "config.json").write_text(json.dumps(config))


def read_layers(directory: Path):
    """Every encoder weight matrix as float64, one layer at a time (what any analysis must read)."""
    from safetensors import safe_open
    with safe_open(str(directory / "model.safetensors"), framework="numpy") as f:
        for l in range(SHAPE["layers"]):
            yield {name: f.get_tensor(f"bert.encoder.layer.{l}.{name}.weight").astype(np.float64)
                   for name in LAYER_TENSORS}


def run_floor(directory: Path) -> None:
    for layer in read_layers(directory):
        np.linalg.svd(layer["intermediate.dense"].T, compute_uv=False)
        np.linalg.svd(layer["output.dense"].T, compute_uv=False)


def run_naive(directory: Path) -> None:
    """Full SVDs of every N x N product and a Python loop over the p grid (proxies as in THEORY.md section 6)."""
    n, heads = SHAPE["hidden"], SHAPE["heads"]
    dh, L = n // heads, SHAPE["layers"]
    m = math.ceil(L + math.log(n))
    grid = [j / m for j in range(2 * m + 1)]
    spectra = []
    for layer in read_layers(directory):
        q, k, v, o = (layer[x] for x in ("attention.self.query", "attention.self.key", "attention.self.value",
                                          "attention.output.dense"))
        mats = [q[h * dh:(h + 1) * dh].T @ k[h * dh:(h + 1) * dh] for h in range(heads)]
        mats += [v[h * dh:(h + 1) * dh].T @ o.T[h * dh:(h + 1) * dh] for h in range(heads)]
        mats += [layer["intermediate.dense"].T, layer["output.dense"].T]
        spectra.append([np.linalg.svd(w, compute_uv=False) for w in mats])
    for sig in spectra:  # the grid minimisation (scale 1 here: timing only)
        for s in sig:
            rank = int(np.sum(s > 1e-10 * len(s) * max(s[0], 1.0)))
            min(((rank if p == 0 else float(np.sum(s ** p))) ** (1 / (p + 2)) * n ** ((p + 1) / (p + 2)))
                for p in grid)


def run_analyze(directory: Path) -> None:
    from sabounds.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["analyze", str(directory), "--json"]) == 0


VARIANTS = {"analyze": run_analyze, "floor": run_floor, "naive": run_naive}


def child(variant: str, directory: Path) -> None:
    start = time.perf_counter()
    VARIANTS[variant](directory)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def child_env(threads: int | None) -> dict:
    """The environment of every variant: the same BLAS thread count for all (unset: the library's default)."""
    env = dict(os.environ)
    if threads is not None:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[name] = str(threads)
    return env


def measure(variant: str, directory: Path, env: dict) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", variant, str(directory)], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_cli(directory: Path, env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sabounds", "analyze", str(directory), "--json"], cwd=ROOT, env=env,
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of analyze and floor (best is kept)")
    parser.add_argument("--skip-naive", action="store_true")
    parser.add_argument("--threads", default="1", help="BLAS threads for every variant, or 'default' to leave "
                        "the library's choice (default 1: steadier on a machine shared with other work)")
    parser.add_argument("--child", nargs=2, metavar=("VARIANT", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    env = child_env(None if args.threads == "default" else int(args.threads))
    with tempfile.TemporaryDirectory(prefix="bench-bert-base-") as tmp:
        directory = Path(tmp)
        build_checkpoint(directory)
        size = (directory / "model.safetensors").stat().st_size / 2**20
        print(f"checkpoint: L={SHAPE['layers']} N={SHAPE['hidden']} H={SHAPE['heads']} "
              f"intermediate={SHAPE['intermediate']}, float32, {size:.0f} MiB; cpus={os.cpu_count()}, "
              f"BLAS threads={args.threads}", flush=True)
        results = {"analyze": [], "floor": []}
        for _ in range(args.repeats):  # interleaved, so load from elsewhere hits both alike
            for variant in results:
                results[variant].append(measure(variant, directory, env))
        best = {v: min(runs, key=lambda r: r["seconds"]) for v, runs in results.items()}
        best["analyze"]["peak_mib"] = max(r["peak_mib"] for r in results["analyze"])
        if not args.skip_naive:
            best["naive"] = measure("naive", directory, env)
        cli = min(measure_cli(directory, env) for _ in range(args.repeats))
        print(f"{'variant':<10}{'seconds':>10}{'peak MiB':>10}")
        for variant, r in best.items():
            print(f"{variant:<10}{r['seconds']:>10.2f}{r['peak_mib']:>10.0f}")
        print(f"python -m sabounds analyze, whole process (interpreter start and imports included): {cli:.2f} s")
        ratio_floor = best["analyze"]["seconds"] / best["floor"]["seconds"]
        print(f"analyze / floor = {ratio_floor:.2f} (target <= 1.5): {'met' if ratio_floor <= 1.5 else 'MISSED'}")
        if "naive" in best:
            speedup = best["naive"]["seconds"] / best["analyze"]["seconds"]
            print(f"naive / analyze = {speedup:.1f} (target >= 3): {'met' if speedup >= 3 else 'MISSED'}")
        peak = best["analyze"]["peak_mib"]
        print(f"analyze peak memory = {peak:.0f} MiB (target < 1536): {'met' if peak < 1536 else 'MISSED'}")


if __name__ == "__main__":
    main()
