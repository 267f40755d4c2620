"""One 7B-shaped layer (random): time and peak memory of the exact, certified, p = 0-certificate and upper-bound paths.

The layer: N = 4096, 32 query heads of d_h = 128 sharing 8 key-value heads (grouped-query attention), and a gated
MLP with gate and up projections 4096 x 14336 and a down projection 14336 x 4096 (Mistral-7B's shape); random float32 weights with
entries N(0, 0.02^2), widened to float64.  Each path runs in its own subprocess (its peak resident memory is its
own) in the same run, one BLAS thread:

- exact:     the 64 attention cores (``product_singular_values``: QK_h = Wq_h^T Wk_g(h), Vt_h = Wv_g(h)^T Wo_h,
             rank <= 128) and a LAPACK SVD of each of the three MLP matrices;
- certified: the same cores, and the MLP spectra by ``certified_singular_values`` (Gram eigenvalues, proven to
             1e-9 relative, LAPACK where the certificate refuses);
- p0:        the same cores, and per MLP matrix one Gram matrix (dsyrk) and two Cholesky tests
             (``numerics/p_zero_certificate.py``): sigma_1 bracketed, rank = D proven, S_p bounded below; p = 0 is
             then proven optimal at every scale above a threshold, reported for a 32-layer stack of this layer
             (alpha_l = lip^(31 - l) from the sigma_1 lower bounds; R = sqrt(N), no norm weight);
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
N, HEADS, KV_HEADS, FF = 4096, 32, 8, 14336
DEPTH = 32
DH = N // HEADS
PS = np.arange(0, 41) / 20.0  # the p grid {0, 1/20, ..., 2}


def layer(seed: int = 0) -> dict[str, np.ndarray]:
    """Hugging Face (out, in) weights of one LLaMA layer, as float64."""
    rng = np.random.default_rng(seed)

    def w(rows, cols):
        return (rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(0.02)).astype(np.float64)

    return {
        "q": w(N, N),
        "k": w(KV_HEADS * DH, N),
        "v": w(KV_HEADS * DH, N),
        "o": w(N, N),
        "gate": w(FF, N),
        "up": w(FF, N),
        "down": w(N, FF),
    }


def attention_cores(t: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    from sabounds.numerics.spectra import product_singular_values

    group = HEADS // KV_HEADS
    wq = t["q"].reshape(HEADS, DH, N)
    wk = np.repeat(t["k"].reshape(KV_HEADS, DH, N), group, axis=0)
    wv = np.repeat(t["v"].reshape(KV_HEADS, DH, N), group, axis=0)
    wo = np.ascontiguousarray(t["o"].T).reshape(HEADS, DH, N)
    return (product_singular_values(wq.transpose(0, 2, 1), wk), product_singular_values(wv.transpose(0, 2, 1), wo))


def min_contribution(s_p: np.ndarray) -> float:
    """``min_p S_p^{1/(p+2)} N^{(p+1)/(p+2)}`` over the grid's p > 0 (``s_p`` given for p > 0)."""
    ps = PS[1:]
    return float(np.min(s_p ** (1 / (ps + 2)) * float(N) ** ((ps + 1) / (ps + 2))))


def run_path(path: str, k: int) -> dict:
    from sabounds.numerics.certified_spectra import certified_singular_values, schatten_upper_bound
    from sabounds.numerics.spectra import schatten_grid

    t = layer()
    start, cpu = time.perf_counter(), time.process_time()
    qk, vt = attention_cores(t)
    out = {"attention": {"qk1": qk[:, 0].tolist(), "vt1": vt[:, 0].tolist()}}
    for name in ("gate", "up", "down"):
        w = t[name]
        if path == "exact":
            sigma = np.linalg.svd(w, compute_uv=False)
            out[name] = {
                "s_p": schatten_grid(sigma, PS).tolist(),
                "method": "lapack",
                "sigma1": float(sigma[0]),
                "rank": int(schatten_grid(sigma, [0.0])[0]),
            }
        elif path == "certified":
            result = certified_singular_values(w)
            out[name] = {
                "s_p": schatten_grid(result.values, PS).tolist(),
                "method": result.method,
                "rel_error_bound": result.relative_error_bound,
            }
        elif path == "p0":
            from sabounds.numerics.p_zero_certificate import p_zero_evidence

            ev = p_zero_evidence(w)
            out[name] = {
                "sigma1": [ev.sigma1_lower, ev.sigma1_upper],
                "full_rank": ev.full_rank,
                "sigma_min_lower": ev.sigma_min_lower,
                "dim": ev.dim,
                "frobenius": ev.frobenius,
                "method": "p0 certificate",
            }
        else:
            bound = schatten_upper_bound(w, k, PS)
            out[name] = {"s_p": bound.values.tolist(), "method": bound.label}
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "cpu_seconds": time.process_time() - cpu,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "matrices": out,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=256, help="top singular values for the upper bound")
    parser.add_argument("--paths", default="exact,certified,p0", help="paths to run (exact,certified,p0,bound)")
    parser.add_argument("--child", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_path(args.child, args.k)))
        return
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    print(
        f"LLaMA-7B-shaped layer: N={N}, {HEADS} heads / {KV_HEADS} KV heads, MLP {N}x{FF}; float64; "
        f"cpus={os.cpu_count()}, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    res = {}
    for path in args.paths.split(","):
        proc = subprocess.run(
            [sys.executable, __file__, "--child", path, "--k", str(args.k)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        res[path] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"  {path}: {res[path]['seconds']:.1f} s", flush=True)
    base = min(r["peak_mib"] for r in res.values())
    ref = res.get("exact", next(iter(res.values())))["seconds"]
    print(
        f"{'path':<10}{'s/layer':>9}{'CPU s':>9}{'peak MiB':>10}{'vs exact':>10}{'32 layers, 2 cores':>20}   "
        f"(peak includes the ~{base:.0f} MiB layer; 2 cores: one layer per core, from CPU seconds)"
    )
    for path, r in res.items():
        cpu = r.get("cpu_seconds", r["seconds"])
        print(
            f"{path:<10}{r['seconds']:>9.1f}{cpu:>9.1f}{r['peak_mib']:>10.0f}{r['seconds'] / ref:>10.2f}"
            f"{DEPTH * cpu / 2 / 60:>17.1f} min"
        )
    for name in ("gate", "up", "down"):
        line = [name]
        exact = res.get("exact", {}).get("matrices", {}).get(name)
        if "certified" in res:
            cert = res["certified"]["matrices"][name]
            rel = (
                float(
                    np.max(np.abs(np.array(cert["s_p"])[1:] - np.array(exact["s_p"])[1:]) / np.array(exact["s_p"])[1:])
                )
                if exact
                else math.nan
            )
            line.append(
                f"certified: {cert['method']}, proven sigma rel error {cert.get('rel_error_bound', math.inf):.1e}, "
                f"S_p rel diff to LAPACK {rel:.1e}"
            )
        if "p0" in res:
            ev = res["p0"]["matrices"][name]
            lo, hi = ev["sigma1"]
            line.append(
                f"p0: sigma_1 in [{lo:.12g}, {hi:.12g}] (width {(hi - lo) / lo:.1e}), rank = D proven {ev['full_rank']}"
            )
            if exact:
                s1, rank = exact["sigma1"], exact["rank"]
                line.append(f"exact sigma_1 {s1:.12g} inside: {lo <= s1 <= hi}; exact rank {rank} of {ev['dim']}")
        print("; ".join(line))
    if "p0" in res:
        print(stack_certificates(res))


def stack_certificates(res: dict) -> str:
    """For a 32-layer stack of this layer: at how many layers p = 0 is proven per MLP matrix (scale from the
    sigma_1 lower bounds), and whether the exact spectra agree at the same scale."""
    from sabounds.numerics.expressions.published_compiled import minimise_ours
    from sabounds.numerics.p_zero_certificate import PZeroEvidence, p_zero_proven
    from sabounds.numerics.proxies.layer_factors import activation_constant

    p0 = res["p0"]["matrices"]
    att = p0["attention"]
    lact, radius = activation_constant("silu"), math.sqrt(N)
    g, u, d = (p0[k]["sigma1"][0] for k in ("gate", "up", "down"))
    a = float(np.sum(np.array(att["vt1"]) * (1 + 4 * np.array(att["qk1"]))))
    lip = (1 + a) * (1 + (1 + lact) * radius * g * u * d)
    gamma = {"gate": lact * radius * u * d, "up": radius * g * d, "down": 1.0}
    parts = []
    for name in ("gate", "up", "down"):
        e = p0[name]
        ev = PZeroEvidence(
            e["sigma1"][0], e["sigma1"][1], e["sigma_min_lower"], e["dim"], e["frobenius"], e["full_rank"]
        )
        scales = [math.log(gamma[name]) + (DEPTH - 1 - l) * math.log(lip) + math.log(DEPTH) for l in range(DEPTH)]
        proven = [p_zero_proven(ev, PS, sc, N) for sc in scales]
        text = f"{name}: p = 0 proven at {sum(proven)}/{DEPTH} layers"
        exact = res.get("exact", {}).get("matrices", {}).get(name)
        if exact:
            log_s = np.log(np.array(exact["s_p"]))
            best = [
                float(PS[minimise_ours(log_s[None, :], PS, np.array([sc - math.log(DEPTH)]), DEPTH, N)[1][0]])
                for sc in scales
            ]
            text += (
                f", exact p_opt = 0 at {sum(b == 0 for b in best)}/{DEPTH}; proven where exact is not: "
                f"{sum(p and b != 0 for p, b in zip(proven, best))}"
            )
        parts.append(text)
    return f"32-layer stack (ln lip = {math.log(lip):.1f}): " + "; ".join(parts)


if __name__ == "__main__":
    main()
