"""Time and memory of ``sabounds analyze`` on a BERT-base-shaped checkpoint, beside its floor and the authors' route.

Builds a random float32 checkpoint (L = 12, N = 768, 12 heads, intermediate 3072; random weights serve for
timing) in a temporary directory, then runs each variant in a fresh subprocess that times its own work (after
imports) and reports its peak resident memory (ru_maxrss):

- analyze:   ``sabounds analyze DIR --json`` through ``sabounds.cli.main`` (output discarded); its feed-forward
             spectra take the certified Gram route (LAPACK where the certificate refuses);
- certified: the same measurement through ``measure_layers`` without the command line around it;
- certified-2t, certified-2blas: the same on both cores, as two threads over layers (one BLAS thread each) or
             as one layer at a time with two BLAS threads;
- floor:     reading the same weights as float64 plus single-thread LAPACK singular values of the 24 feed-forward
             matrices (what any exact analysis must at least do with LAPACK);
- authors:   the authors' published route, re-implemented here: a full float64 SVD of every N x N per-head matrix
             QK_h and Vt_h and of the feed-forward matrices, then a per-matrix Python loop over the p grid.

Also checked, in one extra subprocess: p_opt of every matrix and the totals of the certified route against the
LAPACK route (unchanged to 1e-9 relative), and the authors' totals against analyze's (the same quantity).
Targets (issue 23): analyze <= 0.5x the floor; authors' route >= 15x slower than analyze; every p_opt unchanged;
peak under 1.5 GiB.

Usage: python benchmarks/bench_analyze.py [--repeats R] [--skip-authors] [--threads T|default]
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


def run_authors(directory: Path) -> dict:
    """The authors' route: full SVDs of every N x N per-head product and FF matrix, then a per-matrix grid loop."""
    n, heads, L = SHAPE["hidden"], SHAPE["heads"], SHAPE["layers"]
    dh = n // heads
    m = math.ceil(L + math.log(n))
    grid = [j / m for j in range(2 * m + 1)]
    layers = []
    for layer in read_layers(directory):
        q, k, v, o = (layer[x] for x in ("attention.self.query", "attention.self.key", "attention.self.value",
                                          "attention.output.dense"))
        qk = [np.linalg.svd(q[h * dh:(h + 1) * dh].T @ k[h * dh:(h + 1) * dh], compute_uv=False) for h in range(heads)]
        vt = [np.linalg.svd(v[h * dh:(h + 1) * dh].T @ o.T[h * dh:(h + 1) * dh], compute_uv=False)
              for h in range(heads)]
        layers.append((qk, vt, np.linalg.svd(layer["intermediate.dense"].T, compute_uv=False),
                       np.linalg.svd(layer["output.dense"].T, compute_uv=False)))
    lphi = 1.13
    lip = [lphi * fi[0] * fo[0] * sum(s[0] * (1 + 4 * t[0]) for s, t in zip(vt, qk)) for qk, vt, fi, fo in layers]
    total = 0.0
    for l, (qk, vt, fi, fo) in enumerate(layers):
        alpha = math.prod(lip[l + 1:])
        terms = [(s, 2 * t[0] * fo[0] * fi[0]) for s, t in zip(qk, vt)] + [(s, fo[0] * fi[0]) for s in vt]
        terms += [(fi, fo[0]), (fo, 1.0)]
        for sigma, gamma in terms:
            scale = gamma * alpha * L
            rank = int(np.sum(sigma > 1e-10 * len(sigma) * max(sigma[0], 1.0)))
            best = math.inf
            for p in grid:
                s_p = rank if p == 0 else float(np.sum(sigma ** p))
                best = min(best, s_p ** (1 / (p + 2)) * scale ** (p / (p + 2)) * n ** ((p + 1) / (p + 2)))
            total += best
    return {"ours": total + math.sqrt(L)}


def run_certified(directory: Path, threads: int = 1) -> dict:
    from sabounds.numerics.proxies.certified_measure import measure_layers
    from sabounds.numerics.proxies.model_analysis import analyze_spectra, open_checkpoint
    source = open_checkpoint(directory)
    analysis = analyze_spectra([s for s, _ in measure_layers(source, source.shape.layers, "certified", threads)],
                               source.shape)
    return {"ours": analysis.ours, "edelman": analysis.edelman}


def run_certified_two_threads(directory: Path) -> dict:
    return run_certified(directory, threads=2)


def run_agreement(directory: Path) -> dict:
    """p_opt per matrix and totals: certified route against LAPACK; the authors' total against analyze's."""
    from sabounds.numerics.proxies.model_analysis import analyze_spectra, open_checkpoint
    from sabounds.numerics.proxies.certified_measure import measure_layer_spectra
    source = open_checkpoint(directory)
    runs = {}
    for method in ("certified", "exact"):
        measured = [measure_layer_spectra(source, i, method) for i in range(source.shape.layers)]
        runs[method] = (analyze_spectra([s for s, _ in measured], source.shape), measured)
    cert, exact = runs["certified"][0], runs["exact"][0]
    methods = [m for _, pair in runs["certified"][1] for m in pair]
    authors = run_authors(directory)["ours"]
    return {"p_opt_changed": sum(a.p_opt != b.p_opt for a, b in zip(cert.matrices, exact.matrices)),
            "matrices": len(cert.matrices),
            "ours_rel": abs(cert.ours - exact.ours) / exact.ours,
            "edelman_rel": abs(cert.edelman - exact.edelman) / exact.edelman,
            "authors_rel": abs(authors - exact.ours) / exact.ours,
            "gram": methods.count("gram"), "lapack": methods.count("lapack")}


def run_analyze(directory: Path) -> None:
    from sabounds.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["analyze", str(directory), "--json"]) == 0


VARIANTS = {"analyze": run_analyze, "certified": run_certified, "certified-2t": run_certified_two_threads,
            "certified-2blas": run_certified, "floor": run_floor, "authors": run_authors, "agreement": run_agreement}


def child(variant: str, directory: Path) -> None:
    start = time.perf_counter()
    extra = VARIANTS[variant](directory) or {}
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      **extra}))


def child_env(threads: int | None) -> dict:
    """The environment of every variant: the same BLAS thread count for all (unset: the library's default)."""
    env = dict(os.environ)
    if threads is not None:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[name] = str(threads)
    return env


def measure(variant: str, directory: Path, env: dict) -> dict:
    if variant == "certified-2blas":
        env = child_env(2)
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
    parser.add_argument("--repeats", type=int, default=3, help="runs of analyze, certified and floor (best is kept)")
    parser.add_argument("--skip-authors", action="store_true")
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
              f"BLAS threads={args.threads}, load average {os.getloadavg()[0]:.1f}", flush=True)
        results = {"analyze": [], "certified": [], "certified-2t": [], "certified-2blas": [], "floor": []}
        if not args.skip_authors:
            results["authors"] = []
        for r in range(args.repeats):  # interleaved, so load from elsewhere hits all alike
            for variant in results:
                if variant in ("analyze", "certified", "floor") or r == 0:
                    results[variant].append(measure(variant, directory, env))
        best = {v: min(runs, key=lambda r: r["seconds"]) for v, runs in results.items()}
        for v in best:
            best[v]["peak_mib"] = max(r["peak_mib"] for r in results[v])
        cli = min(measure_cli(directory, env) for _ in range(args.repeats))
        print(f"{'variant':<10}{'seconds':>10}{'peak MiB':>10}   (best of {args.repeats}; authors, two-core variants: one run)")
        for variant, r in best.items():
            print(f"{variant:<10}{r['seconds']:>10.2f}{r['peak_mib']:>10.0f}")
        print(f"python -m sabounds analyze, whole process (interpreter start and imports included): {cli:.2f} s")
        floor = best["floor"]["seconds"]
        for variant in ("analyze", "certified", "certified-2t", "certified-2blas"):
            ratio = best[variant]["seconds"] / floor
            print(f"{variant} / floor = {ratio:.2f} (target <= 0.5): {'met' if ratio <= 0.5 else 'MISSED'}")
        if "authors" in best:
            for variant in ("analyze", "certified", "certified-2t", "certified-2blas"):
                speedup = best["authors"]["seconds"] / best[variant]["seconds"]
                print(f"authors / {variant} = {speedup:.1f} (target >= 15): {'met' if speedup >= 15 else 'MISSED'}")
        agree = measure("agreement", directory, env)
        print(f"certified vs LAPACK: p_opt changed for {agree['p_opt_changed']} of {agree['matrices']} matrices, "
              f"ours rel diff {agree['ours_rel']:.1e}, edelman rel diff {agree['edelman_rel']:.1e} (target <= 1e-9: "
              f"{'met' if agree['p_opt_changed'] == 0 and max(agree['ours_rel'], agree['edelman_rel']) <= 1e-9 else 'MISSED'}); "
              f"feed-forward matrices by Gram {agree['gram']}, by LAPACK {agree['lapack']}; "
              f"authors' ours vs analyze's: rel diff {agree['authors_rel']:.1e}")
        peak = best["analyze"]["peak_mib"]
        print(f"analyze peak memory = {peak:.0f} MiB (target < 1536): {'met' if peak < 1536 else 'MISSED'}")


if __name__ == "__main__":
    main()
