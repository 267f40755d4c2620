"""A sweep of 24 random BERT-Miniature-shaped checkpoints: serial loop, 2-worker local Dask cluster, rerun from cache.

Builds 24 float32 checkpoints (L in {2, 4, 6, 8, 10, 12} x N in {128, 256, 512, 768}, N/64 heads, intermediate 4N;
random weights serve for timing) in a temporary directory, then times whole processes (interpreter start, imports
and writing the output folder included), one after another in one run:

- scaling:   ``sabounds scaling DIRS... --out`` (the serial loop, no cache; certified spectra like ``analyze``);
- serial:    ``sabounds sweep DIRS... --workers 0 --no-cache --out`` (in-process, certified spectra, no cache);
- cluster:   ``sabounds sweep DIRS... --workers 2 --out`` with an empty cache (a local cluster of 2 processes);
- rerun:     the same command again: every layer from the cache (no weights read, no cluster started).

Also checked: the cluster's and the rerun's tables agree with the serial loop's totals (1e-9 relative).
Target: rerun at least 20x faster than the first (cluster) run.

Usage: python benchmarks/bench_sweep.py [--reruns R] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEPTHS = (2, 4, 6, 8, 10, 12)
WIDTHS = (128, 256, 512, 768)
LAYER_TENSORS = {
    "attention.self.query": "NN",
    "attention.self.key": "NN",
    "attention.self.value": "NN",
    "attention.output.dense": "NN",
    "intermediate.dense": "IN",
    "output.dense": "NI",
}


def build(directory: Path) -> list[Path]:
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    dirs = []
    for n in WIDTHS:
        for layers in DEPTHS:
            d = directory / f"L{layers:02d}_N{n}"
            d.mkdir()
            sizes = {"N": n, "I": 4 * n}
            tensors = {}
            for l in range(layers):
                for name, (rows, cols) in LAYER_TENSORS.items():
                    tensors[f"bert.encoder.layer.{l}.{name}.weight"] = rng.standard_normal(
                        (sizes[rows], sizes[cols]), dtype=np.float32
                    ) * np.float32(0.02)
            save_file(tensors, str(d / "model.safetensors"), metadata={"format": "pt"})
            (d / "config.json").write_text(
                json.dumps(
                    {
                        "model_type": "bert",
                        "num_hidden_layers": layers,
                        "hidden_size": n,
                        "num_attention_heads": n // 64,
                        "intermediate_size": 4 * n,
                    }
                )
            )
            dirs.append(d)
    return dirs


def timed(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "sabounds", *argv], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"sabounds {argv[0]} failed: {proc.stderr.strip()[-2000:]}")
    return seconds


def totals(path: Path, model_column: str) -> dict:
    with open(path, newline="") as fh:
        return {
            (r[model_column], int(r["L"] if "L" in r else r["layers"])): (float(r["ours"]), float(r["edelman"]))
            for r in csv.DictReader(fh)
            if r.get("status", "ok") == "ok"
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=3, help="reruns from the cache (best is kept)")
    parser.add_argument("--keep", metavar="DIR", help="build (or reuse) the checkpoints in DIR instead of a temp dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        work = Path(tmp)
        models = Path(args.keep) if args.keep else work / "models"
        if not (models / "L12_N768" / "config.json").is_file():
            models.mkdir(parents=True, exist_ok=True)
            dirs = build(models)
        else:
            dirs = sorted(p for p in models.iterdir() if (p / "config.json").is_file())
        size = sum((d / "model.safetensors").stat().st_size for d in dirs) / 2**20
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "SABOUNDS_CACHE_DIR": str(work / "cache")}
        print(
            f"{len(dirs)} checkpoints, {sum(int(d.name[1:3]) for d in dirs)} layers, {size:.0f} MiB float32; "
            f"cpus={os.cpu_count()}, load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        names = [str(d) for d in dirs]
        seconds = {}
        seconds["scaling"] = timed(["scaling", *names, "--out", str(work / "scaling")], env)
        seconds["serial"] = timed(["sweep", *names, "--workers", "0", "--no-cache", "--out", str(work / "serial")], env)
        seconds["cluster"] = timed(["sweep", *names, "--workers", "2", "--out", str(work / "cluster")], env)
        reruns = [
            timed(["sweep", *names, "--workers", "2", "--out", str(work / f"rerun{i}")], env)
            for i in range(args.reruns)
        ]
        seconds["rerun"] = min(reruns)
        print(f"{'run':<10}{'seconds':>10}   (whole processes; rerun: best of {args.reruns})")
        for name, s in seconds.items():
            print(f"{name:<10}{s:>10.2f}")
        reference = totals(work / "scaling" / "scaling.csv", "model")
        worst = 0.0
        for folder in ("serial", "cluster", "rerun0"):
            got = totals(work / folder / "sweep.csv", "source")
            assert set(got) == set(reference), folder
            worst = max(worst, max(abs(a - b) / abs(b) for k in got for a, b in zip(got[k], reference[k])))
        print(
            f"totals of serial sweep, cluster and rerun against sabounds scaling: max rel diff {worst:.1e} "
            f"(target <= 1e-9): {'met' if worst <= 1e-9 else 'MISSED'}"
        )
        print(
            f"scaling / cluster = {seconds['scaling'] / seconds['cluster']:.2f}, "
            f"serial sweep / cluster = {seconds['serial'] / seconds['cluster']:.2f}"
        )
        ratio = seconds["cluster"] / seconds["rerun"]
        print(f"first run / rerun from cache = {ratio:.1f} (target >= 20): {'met' if ratio >= 20 else 'MISSED'}")


if __name__ == "__main__":
    main()
