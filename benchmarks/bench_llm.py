"""``bound`` against ``analyze`` against a numpy floor on the bundled SmolLM2-135M-Instruct GGUF (issue 31 item 6).

Three timings of the first K layers, each the best of R runs in this process (after imports and one warm-up):

- floor:   read and dequantize every layer matrix (``gguf.quants.dequantize`` through the package's GGUF store, whose
           metadata reading skips the tokenizer's arrays), then the spectra the
           analysis needs with LAPACK: per query head ``sigma(Wq_h)``, per key head ``sigma(Wk_g)``, per head the
           N x N product ``Wv_g^T Wo_h``'s values (through its d_h x d_h core) and the MLP matrices' values;
- analyze: ``sabounds.analyze(path, layers=K)`` (the same reading and spectra, plus certificates and proxies);
- bound:   ``sabounds.bound(path, layers=K, n=1e9, delta=0.05, margin=1)`` (measurement again, then the whole
           bound in mpmath, every variant, n needed and break-even).

Prints the three times and the ratios bound/analyze and analyze/floor.  Targets (issue 31): bound <= 1.5 analyze,
analyze <= 1.5 floor.  Times depend on the machine's load: say so when quoting them.

Usage: python benchmarks/bench_llm.py [--layers K] [--repeats R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from family_bounds import smollm2


def floor(path, layers: int) -> None:
    """Read + dequantize + the same spectra, in plain numpy (no certificates, no proxies)."""
    from sabounds.numerics.checkpoints.gguf_file import GGUFStore
    store = GGUFStore(path)  # gguf's reader without decoding the vocabulary (a floor should not pay for it)
    heads = int(store.metadata["llama.attention.head_count"])
    kv = int(store.metadata["llama.attention.head_count_kv"])

    def read(name):
        return store.read(name).astype(np.float64)

    for i in range(layers):
        b = f"blk.{i}."
        q, k, v, o = (read(b + n) for n in ("attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight"))
        d = q.shape[0] // heads
        for h in range(heads):
            np.linalg.svd(q[h * d:(h + 1) * d], compute_uv=False)
        for g in range(kv):
            np.linalg.svd(k[g * d:(g + 1) * d], compute_uv=False)
        for h in range(heads):
            g = h * kv // heads
            _, r_v = np.linalg.qr(v[g * d:(g + 1) * d].T)
            _, r_o = np.linalg.qr(o[:, h * d:(h + 1) * d])
            np.linalg.svd(r_v @ r_o.T, compute_uv=False)
        for n in ("ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"):
            np.linalg.svd(read(b + n), compute_uv=False)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=30, help="first K layers (default: all 30)")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    import sabounds
    path = smollm2()
    floor(path, 1)  # warm-up: imports, page cache
    sabounds.analyze(str(path), layers=1)
    t_floor = best(lambda: floor(path, args.layers), args.repeats)
    t_analyze = best(lambda: sabounds.analyze(str(path), layers=args.layers), args.repeats)
    t_bound = best(lambda: sabounds.bound(str(path), layers=args.layers, n=1e9, delta=0.05, margin=1.0),
                   args.repeats)
    print(f"SmolLM2-135M-Instruct Q4_1, first {args.layers} layers, best of {args.repeats}: floor {t_floor:.2f} s, "
          f"analyze {t_analyze:.2f} s, bound {t_bound:.2f} s")
    print(f"bound / analyze = {t_bound / t_analyze:.2f} (target <= 1.5); analyze / floor = {t_analyze / t_floor:.2f} "
          "(target <= 1.5)")


if __name__ == "__main__":
    main()
