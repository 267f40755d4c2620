"""One LLaMA-7B-shaped layer (random): time and peak memory of the exact, certified and upper-bound spectra paths.

The layer: N = 4096, 32 query heads of d_h = 128 sharing 8 key-value heads (grouped-query attention), and a gated
MLP with gate and up projections 4096 x 11008 and a down projection 11008 x 4096; random float32 weights with
entries N(0, 0.02^2), widened to float64.  Each path runs in its own subprocess (its peak resident memory is its
own) in the same run, one BLAS thread:

- exact:     the 64 attention cores (``product_singular_values``: QK_h = Wq_h^T Wk_g(h), Vt_h = Wv_g(h)^T Wo_h,
             rank <= 128) and a LAPACK SVD of each of the three MLP matrices;
- certified: the same cores, and the MLP spectra by ``certified_singular_values`` (Gram eigenvalues, proven to
             1e-9 relative, LAPACK where the certificate refuses);
- bound:     the same cores, and for the MLP matrices ``schatten_upper_bound`` (top-k Ritz lower bounds, k = 256,
             plus the exact Frobenius norm): certified upper bounds on S_p, not the spectrum.

Printed side by side: seconds, peak MiB, and for each MLP matrix the certified relative error and the ratio
bound / exact of S_p at p = 0.5, 1, 1.5, 2 and of the minimum over the p grid of
``S_p^{1/(p+2)} N^{(p+1)/(p+2)}`` (the contribution at scale 1), which increases with S_p and so stays an upper
bound when S_p is replaced by its bound.

Usage: python benchmarks/bench_llama_layer.py [--k 256]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
N, HEADS, KV_HEADS, FF = 4096, 32, 8, 11008
DH = N // HEADS
PS = np.arange(0, 41) / 20.0  # the p grid {0, 1/20, ..., 2}


def layer(seed: int = 0) -> dict[str, np.ndarray]:
    """Hugging Face (out, in) weights of one LLaMA layer, as float64."""
    rng = np.random.default_rng(seed)

    def w(rows, cols):
        return (rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(0.02)).astype(np.float64)
    return {"q": w(N, N), "k": w(KV_HEADS * DH, N), "v": w(KV_HEADS * DH, N), "o": w(N, N),
            "gate": w(FF, N), "up": w(FF, N), "down": w(N, FF)}


def attention_cores(t: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    from sabounds.numerics.spectra import product_singular_values
    group = HEADS // KV_HEADS
    wq = t["q"].reshape(HEADS, DH, N)
    wk = np.repeat(t["k"].reshape(KV_HEADS, DH, N), group, axis=0)
    wv = np.repeat(t["v"].reshape(KV_HEADS, DH, N), group, axis=0)
    wo = np.ascontiguousarray(t["o"].T).reshape(HEADS, DH, N)
    return (product_singular_values(wq.transpose(0, 2, 1), wk),
            product_singular_values(wv.transpose(0, 2, 1), wo))


def min_contribution(s_p: np.ndarray) -> float:
    """``min_p S_p^{1/(p+2)} N^{(p+1)/(p+2)}`` over the grid's p > 0 (``s_p`` given for p > 0)."""
    ps = PS[1:]
    return float(np.min(s_p ** (1 / (ps + 2)) * float(N) ** ((ps + 1) / (ps + 2))))


def run_path(path: str, k: int) -> dict:
    from sabounds.numerics.certified_spectra import certified_singular_values, schatten_upper_bound
    from sabounds.numerics.spectra import schatten_grid
    t = layer()
    start = time.perf_counter()
    attention_cores(t)
    out = {}
    for name in ("gate", "up", "down"):
        w = t[name]
        if path == "exact":
            sigma = np.linalg.svd(w, compute_uv=False)
            out[name] = {"s_p": schatten_grid(sigma, PS).tolist(), "method": "lapack"}
        elif path == "certified":
            result = certified_singular_values(w)
            out[name] = {"s_p": schatten_grid(result.values, PS).tolist(), "method": result.method,
                         "rel_error_bound": result.relative_error_bound}
        else:
            bound = schatten_upper_bound(w, k, PS)
            out[name] = {"s_p": bound.values.tolist(), "method": bound.label}
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "matrices": out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=256, help="top singular values for the upper bound")
    parser.add_argument("--child", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_path(args.child, args.k)))
        return
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    print(f"LLaMA-7B-shaped layer: N={N}, {HEADS} heads / {KV_HEADS} KV heads, MLP {N}x{FF}; float64; "
          f"cpus={os.cpu_count()}, load average {os.getloadavg()[0]:.1f}", flush=True)
    res = {}
    for path in ("exact", "certified", "bound"):
        proc = subprocess.run([sys.executable, __file__, "--child", path, "--k", str(args.k)], env=env,
                              capture_output=True, text=True, check=True)
        res[path] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"  {path}: {res[path]['seconds']:.1f} s", flush=True)
    base = min(r["peak_mib"] for r in res.values())
    print(f"{'path':<10}{'seconds':>9}{'peak MiB':>10}{'vs exact':>10}   (peak includes the ~{base:.0f} MiB layer)")
    for path, r in res.items():
        print(f"{path:<10}{r['seconds']:>9.1f}{r['peak_mib']:>10.0f}{r['seconds'] / res['exact']['seconds']:>10.2f}")
    picks = [int(np.argmin(np.abs(PS - p))) for p in (0.5, 1.0, 1.5, 2.0)]
    for name in ("gate", "up", "down"):
        exact = np.array(res["exact"]["matrices"][name]["s_p"])
        cert = res["certified"]["matrices"][name]
        bound = np.array(res["bound"]["matrices"][name]["s_p"])
        rel = float(np.max(np.abs(np.array(cert["s_p"])[1:] - exact[1:]) / exact[1:]))
        print(f"{name}: certified method {cert['method']} (proven sigma rel error "
              f"{cert.get('rel_error_bound', math.inf):.1e}; S_p rel diff to LAPACK {rel:.1e}); bound/exact S_p at "
              f"p=0.5,1,1.5,2: " + ", ".join(f"{bound[i] / exact[i]:.4f}" for i in picks)
              + f"; min contribution bound/exact {min_contribution(bound[1:]) / min_contribution(exact[1:]):.4f}"
              + f"; bound >= exact everywhere: {bool(np.all(bound[1:] >= exact[1:]))}")


if __name__ == "__main__":
    main()
