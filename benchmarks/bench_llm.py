"""``bound`` against ``analyze`` against a numpy floor on two GGUF files (issue 31 item 6).

The files: the bundled SmolLM2-135M-Instruct (Q4_1, ``llama``: 30 layers, N = 576, 9 / 3 heads, FF 1536) and a
Gemma-3-270M-shaped file written here at run time (``gemma3``: 18 layers, N = 640, 4 query heads, 1 key/value head
of size 256, FF 2048, vocabulary 262,144; random weights quantized to Q8_0 by ``gguf.quants.quantize``, norms F32,
the token embedding as random Q8_0 blocks; the metadata and tokenizer arrays llama.cpp's converter writes for Gemma 3,
at their real sizes, so reading the metadata costs what it costs on the real file).  Three timings per file:

- floor:   read and dequantize every layer matrix (``gguf.quants.dequantize`` through the package's GGUF store, whose
           metadata reading skips the tokenizer's arrays), then the spectra analyze computes by the same LAPACK
           routines on the same matrices: thin QRs of the head factors, the d_h x d_h cores' SVDs (QK_h, Vt_h and
           the factors' own values), the MLP matrices' Gram eigenvalues (the unavoidable work: analyze/floor is
           the overhead of certificates, norms and proxies);
- analyze: ``sabounds.analyze(path)`` (the same reading and spectra, plus certificates and proxies);
- bound:   ``sabounds.bound(path, n=1e9, delta=0.05, margin=1)`` (the measurement, then the whole bound in mpmath,
           every variant, n needed and break-even; compiling the bound's expressions, about 0.5 s, included);
- shared:  ``sabounds.bound(analysis, ...)`` of an ``analysis = sabounds.analyze(path)`` made first, untimed (the
           analysis's measurement reused: what bound adds once analyze has run).

Each timing runs in a fresh process with one BLAS thread, timed after its imports; the three run interleaved
(floor, analyze, bound, then again) and the minimum of ``--repeats`` runs is kept, so load from elsewhere hits all
alike.  Prints the times and the ratios bound/analyze and analyze/floor.  Targets (issue 31): bound <= 1.5 analyze,
analyze <= 1.5 floor.  Times depend on the machine's load: say so when quoting them.

Usage: python benchmarks/bench_llm.py [--repeats R] [--only smollm2|gemma3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_analyze import ROOT, one_thread, verdict
from family_bounds import smollm2

GEMMA3_270M = {
    "layers": 18,
    "hidden": 640,
    "heads": 4,
    "kv_heads": 1,
    "head_dim": 256,
    "ff": 2048,
    "vocab": 262_144,
    "context": 32_768,
}
"""Gemma 3 270M's sizes (Hugging Face ``google/gemma-3-270m`` config: hidden_size 640, num_hidden_layers 18,
num_attention_heads 4, num_key_value_heads 1, head_dim 256, intermediate_size 2048, vocab_size 262144)."""
KINDS = ("floor", "analyze", "bound", "shared")


def gemma3_shaped(path: Path, seed: int = 0) -> Path:
    """A GGUF file of Gemma 3 270M's shape, tensors and metadata as llama.cpp's converter writes them (Q8_0 matrices,
    F32 norms stored as ``1 + w``, the tokenizer's token, score and type arrays of the full vocabulary)."""
    import gguf

    g, rng = GEMMA3_270M, np.random.default_rng(seed)
    n, d, q8 = g["hidden"], g["head_dim"], gguf.GGMLQuantizationType.Q8_0
    writer = gguf.GGUFWriter(str(path), "gemma3")
    writer.add_name("gemma-3-270m-shaped (random weights)")
    writer.add_context_length(g["context"])
    writer.add_embedding_length(n)
    writer.add_block_count(g["layers"])
    writer.add_feed_forward_length(g["ff"])
    writer.add_head_count(g["heads"])
    writer.add_head_count_kv(g["kv_heads"])
    writer.add_key_length(d)
    writer.add_value_length(d)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_freq_base(1_000_000.0)
    writer.add_sliding_window(512)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    writer.add_tokenizer_model("llama")
    writer.add_tokenizer_pre("default")
    lengths = rng.integers(1, 12, g["vocab"])
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)
    text = bytes(letters[rng.integers(0, 26, int(lengths.sum()))])
    ends = np.cumsum(lengths)
    writer.add_token_list([f"\u2581{i}" + text[e - k : e].decode() for i, (e, k) in enumerate(zip(ends, lengths))])
    writer.add_token_scores((-np.arange(g["vocab"], dtype=np.float32)).tolist())
    writer.add_token_types([1] * g["vocab"])
    writer.add_bos_token_id(2)
    writer.add_eos_token_id(1)
    writer.add_unk_token_id(3)
    writer.add_pad_token_id(0)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    def matrix(rows: int, cols: int) -> np.ndarray:
        w = rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(0.5 / np.sqrt(cols))
        return gguf.quants.quantize(w, q8)

    def norm(size: int) -> np.ndarray:
        return (1 + rng.integers(0, 32, size) / 64.0).astype(np.float32)  # the stored gain 1 + w

    block, size = gguf.GGML_QUANT_SIZES[q8]
    embedding = rng.integers(0, 256, (g["vocab"], n // block, size), dtype=np.uint8)
    embedding[:, :, :2] = np.frombuffer(np.float16(2.0**-9).tobytes(), np.uint8)  # each block's scale d
    writer.add_tensor("token_embd.weight", embedding.reshape(g["vocab"], n // block * size), raw_dtype=q8)
    for i in range(g["layers"]):
        b = f"blk.{i}."
        for name, rows, cols in (
            ("attn_q", g["heads"] * d, n),
            ("attn_k", g["kv_heads"] * d, n),
            ("attn_v", g["kv_heads"] * d, n),
            ("attn_output", n, g["heads"] * d),
            ("ffn_gate", g["ff"], n),
            ("ffn_up", g["ff"], n),
            ("ffn_down", n, g["ff"]),
        ):
            writer.add_tensor(f"{b}{name}.weight", matrix(rows, cols), raw_dtype=q8)
        for name, width in (
            ("attn_norm", n),
            ("attn_q_norm", d),
            ("attn_k_norm", d),
            ("post_attention_norm", n),
            ("ffn_norm", n),
            ("post_ffw_norm", n),
        ):
            writer.add_tensor(f"{b}{name}.weight", norm(width))
    writer.add_tensor("output_norm.weight", norm(n))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def floor(path: Path) -> None:
    """Read + dequantize + the spectra analyze computes, by the same LAPACK routines on the same matrices (no
    certificates, no proxies): per query head and per key/value head a thin QR (``geqrf``) of the stored factor,
    per head the d_h x d_h cores' SVDs (``gesdd``: sigma of QK_h and Vt_h, sigma of Wq_h and Wk_g from the R
    factors), and per MLP matrix the Gram matrix of its shorter side and its eigenvalues (``syevd``)."""
    from sabounds.numerics.checkpoints.gguf_file import GGUFStore

    store = GGUFStore(path)  # gguf's reader without decoding the vocabulary (a floor should not pay for it)
    arch = store.architecture
    heads = int(store.metadata[f"{arch}.attention.head_count"])
    kv = int(store.metadata[f"{arch}.attention.head_count_kv"])

    def read(name):
        return store.read(name).astype(np.float64)

    def r_of(blocks):  # R factors of a stack of N x d_h head matrices
        return np.linalg.qr(np.stack(blocks), mode="r")

    for i in range(int(store.metadata[f"{arch}.block_count"])):
        b = f"blk.{i}."
        q, k, v, o = (read(b + n) for n in ("attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight"))
        d = q.shape[0] // heads
        group = [h * kv // heads for h in range(heads)]
        r_q = r_of([q[h * d : (h + 1) * d].T for h in range(heads)])
        r_k = r_of([k[g * d : (g + 1) * d].T for g in range(kv)])
        r_v = r_of([v[g * d : (g + 1) * d].T for g in range(kv)])
        r_o = r_of([o[:, h * d : (h + 1) * d] for h in range(heads)])
        np.linalg.svd(r_q, compute_uv=False)
        np.linalg.svd(r_k, compute_uv=False)
        np.linalg.svd(r_q @ np.swapaxes(r_k[group], -1, -2), compute_uv=False)
        np.linalg.svd(r_v[group] @ np.swapaxes(r_o, -1, -2), compute_uv=False)
        for n in ("ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"):
            w = read(b + n)
            w = w if w.shape[0] <= w.shape[1] else w.T
            np.linalg.eigvalsh(w @ w.T)


def child(kind: str, path: Path) -> None:
    """One timing in this fresh process, after the imports its call needs."""
    import gguf  # noqa: F401

    import sabounds
    import sabounds.numerics.checkpoints.gguf_file
    import sabounds.numerics.proxies.model_analysis

    if kind in ("bound", "shared"):
        import sympy  # noqa: F401

        import sabounds.numerics.bound.analysis
        import sabounds.numerics.bound.checkpoint_inputs
    analysis = sabounds.analyze(str(path)) if kind == "shared" else None
    run = {
        "floor": lambda: floor(path),
        "analyze": lambda: sabounds.analyze(str(path)),
        "bound": lambda: sabounds.bound(str(path), n=1e9, delta=0.05, margin=1.0),
        "shared": lambda: sabounds.bound(analysis, n=1e9, delta=0.05, margin=1.0),
    }[kind]
    start = time.perf_counter()
    run()
    print(json.dumps({"seconds": time.perf_counter() - start}))


def measure(kind: str, path: Path) -> float:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        cwd=ROOT,
        env=one_thread(),
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


def bench(label: str, path: Path, repeats: int) -> None:
    print(f"\n{label}: {path.stat().st_size / 2**20:.0f} MiB; load average before {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[str, list[float]] = {k: [] for k in KINDS}
    for _ in range(repeats):
        for kind in KINDS:
            runs[kind].append(measure(kind, path))
    best = {k: min(v) for k, v in runs.items()}
    print(
        f"best of {repeats} interleaved: floor {best['floor']:.2f} s, analyze {best['analyze']:.2f} s, "
        f"bound {best['bound']:.2f} s (slowest: {', '.join(f'{max(runs[k]):.2f}' for k in KINDS[:3])})"
    )
    bound_ratio, floor_ratio = best["bound"] / best["analyze"], best["analyze"] / best["floor"]
    print(
        f"bound / analyze = {bound_ratio:.2f} (target <= 1.5: {verdict(bound_ratio <= 1.5)}); "
        f"analyze / floor = {floor_ratio:.2f} (target <= 1.5: {verdict(floor_ratio <= 1.5)})"
    )
    print(
        f"bound of an analysis (its measurement reused) {best['shared']:.2f} s: analyze + it = "
        f"{(best['analyze'] + best['shared']) / best['analyze']:.2f} analyze"
    )
    print(f"load average after {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="interleaved runs of each timing (minimum kept)")
    parser.add_argument("--only", choices=("smollm2", "gemma3"))
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    print(
        f"cpus={os.cpu_count()}, one BLAS thread, {sys.platform}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    if args.only != "gemma3":
        bench("SmolLM2-135M-Instruct Q4_1 (llama, 30 layers)", smollm2(), args.repeats)
    if args.only != "smollm2":
        with tempfile.TemporaryDirectory(prefix="bench-gemma3-") as tmp:
            start = time.perf_counter()
            path = gemma3_shaped(Path(tmp) / "gemma-3-270m-shaped.Q8_0.gguf")
            print(f"\n(Gemma-3-shaped file written in {time.perf_counter() - start:.1f} s, not timed)")
            bench("Gemma-3-270M-shaped Q8_0 (gemma3, 18 layers, synthetic)", path, args.repeats)


if __name__ == "__main__":
    main()
