"""``sabounds analyze`` beside its floor, a full-SVD reference of the published proxies and the authors' route.

Two checkpoints: a random float32 BERT-base-shaped one built here (L = 12, N = 768, 12 heads, I = 3072; random
weights serve for timing) and the bundled all-MiniLM-L6-v2.  Each variant runs in a fresh subprocess with one BLAS
thread, imports first and times only its own work:

- analyze:   ``sabounds analyze DIR --json`` through ``sabounds.cli.main``, after one analyze of a tiny checkpoint
             in the same process (so the command's lazy imports are not timed);
- floor:     reading the encoder weights as float64 plus LAPACK singular values of the feed-forward matrices (what
             any exact analysis must at least do);
- kernels:   the floor's read plus only the dense kernels analyze runs for the numbers it prints (blocked Gram
             matrices and eigenvalues of the MLP matrices, the heads' N x N products for the (1,1)-norms, the head
             factors' QRs and core SVDs): the least any analyze with the same output can take;
- reference: the published ``ours`` from full LAPACK SVDs of every matrix (each N x N QK_h and Vt_h formed), the
             p grid vectorised: an independent implementation of the same number;
- authors:   the authors' route re-implemented: torch float64 ``svdvals`` of each matrix in turn (one torch thread),
             then a Python loop over the p grid per matrix.

The variants run interleaved (every variant, then every variant again), and the minimum of ``--repeats`` runs is kept, so
load from elsewhere hits all alike.  Also printed: the whole ``python -m sabounds analyze --json`` process (start-up
and imports included, minimum of the same runs), each route's ``ours`` against analyze's, and peak memory.
Targets (issue 33): BERT-base analyze <= 0.5x the floor, >= 10x faster than the reference, >= 20x faster than the
authors' route; all-MiniLM-L6-v2's whole ``analyze --json`` process <= 1 s.

Usage: python benchmarks/bench_analyze.py [--repeats R] [--only bert-base|minilm]
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
BERT_BASE = {"num_hidden_layers": 12, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072}
LAYER_TENSORS = {
    "attention.self.query": "NN",
    "attention.self.key": "NN",
    "attention.self.value": "NN",
    "attention.output.dense": "NN",
    "intermediate.dense": "IN",
    "output.dense": "NI",
}
WARM_UP = ROOT / "tests" / "data" / "golden" / "random_bert"
VARIANTS = ("analyze", "floor", "kernels", "reference", "authors")


def build_checkpoint(directory: Path) -> None:
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    n, inner = BERT_BASE["hidden_size"], BERT_BASE["intermediate_size"]
    sizes = {"N": n, "I": inner}
    tensors = {"bert.embeddings.word_embeddings.weight": rng.standard_normal((30522, n), dtype=np.float32) * 0.02}
    for l in range(BERT_BASE["num_hidden_layers"]):
        for name, (rows, cols) in LAYER_TENSORS.items():
            w = rng.standard_normal((sizes[rows], sizes[cols]), dtype=np.float32) * np.float32(0.02)
            tensors[f"bert.encoder.layer.{l}.{name}.weight"] = w
            tensors[f"bert.encoder.layer.{l}.{name}.bias"] = np.zeros(sizes[rows], dtype=np.float32)
    save_file(tensors, str(directory / "model.safetensors"), metadata={"format": "pt"})
    config = {"model_type": "bert", **BERT_BASE, "hidden_act": "gelu"}
    (directory / "config.json").write_text(json.dumps(config))


def shape_of(directory: Path) -> tuple[int, int, int]:
    """(L, N, heads) from config.json."""
    c = json.loads((directory / "config.json").read_text())
    return c["num_hidden_layers"], c["hidden_size"], c["num_attention_heads"]


def read_layers(directory: Path):
    """Every encoder weight matrix as float64, one layer at a time (what any analysis must read)."""
    from safetensors import safe_open

    with safe_open(str(directory / "model.safetensors"), framework="numpy") as f:
        probe = "encoder.layer.0.attention.self.query.weight"
        prefix = next(k[: -len(probe)] for k in f.keys() if k.endswith(probe))
        for l in range(shape_of(directory)[0]):
            yield {
                name: f.get_tensor(f"{prefix}encoder.layer.{l}.{name}.weight").astype(np.float64)
                for name in LAYER_TENSORS
            }


def run_floor(directory: Path) -> dict:
    for layer in read_layers(directory):
        np.linalg.svd(layer["intermediate.dense"].T, compute_uv=False)
        np.linalg.svd(layer["output.dense"].T, compute_uv=False)
    return {}


def head_products(layer: dict, heads: int) -> tuple[np.ndarray, np.ndarray]:
    """QK_h = Wq_h^T Wk_h and Vt_h = Wv_h^T Wo_h (each N x N), stacked over heads."""
    q, k, v = (layer[f"attention.self.{x}"] for x in ("query", "key", "value"))
    o = layer["attention.output.dense"]
    n = q.shape[1]
    dh = n // heads
    split = lambda w: w.reshape(heads, dh, n)
    return (
        np.matmul(split(q).transpose(0, 2, 1), split(k)),
        np.matmul(split(v).transpose(0, 2, 1), split(np.ascontiguousarray(o.T))),
    )


def run_kernels(directory: Path) -> dict:
    """The dense linear algebra analyze cannot skip without changing a printed digit, alone: the floor's read, then
    per layer, through the package's own kernels on the same matrices, the MLP matrices' blocked Gram matrices and
    their eigenvalues, each head's N x N products for ``||QK_h||_{1,1}`` and ``||Vt_h||_{1,1}``, the head factors'
    QRs and d_h x d_h core SVDs (spectra) and the balanced factors' QRs (the (2,1)-norms).  No certificates, no
    proxies, no norms' bookkeeping: analyze / floor cannot fall below kernels / floor while its output is fixed."""
    from sabounds.numerics.certified_spectra import gram_matrix
    from sabounds.numerics.checkpoints.layers import assemble
    from sabounds.numerics.norms import product_norm_11, product_norm_21
    from sabounds.numerics.spectra import product_singular_values

    _, _, heads = shape_of(directory)
    for i, w in enumerate(read_layers(directory)):
        layer = assemble(
            i,
            w["attention.self.query"],
            w["attention.self.key"],
            w["attention.self.value"],
            w["attention.output.dense"],
            w["intermediate.dense"],
            w["output.dense"],
            heads,
            heads,
        )
        for m in (layer.m_in, layer.m_out):
            m = m if m.shape[0] <= m.shape[1] else m.T
            np.linalg.eigvalsh(gram_matrix(m, factor=1.0 / float(np.max(np.abs(m)))))
        for left, right in ((layer.qk_left, layer.qk_right), (layer.vt_left, layer.vt_right)):
            product_singular_values(left, right)
            product_norm_11(left, right)
            product_norm_21(left, right)
    return {}


def published_ours(spectra: list, n: int, lphi: float = 1.13, loop: bool = False) -> float:
    """The published ``ours`` (docs/definitions.md) from per-layer (QK_h values, Vt_h values, M_in, M_out); the
    p grid ``{0, 1/m, ..., 2}``, ``m = ceil(L + ln N)``, as a Python loop per matrix (``loop``) or vectorised."""
    L = len(spectra)
    m = math.ceil(L + math.log(n))
    grid = np.arange(2 * m + 1) / m
    lip = [lphi * fi[0] * fo[0] * sum(s[0] * (1 + 4 * t[0]) for s, t in zip(vt, qk)) for qk, vt, fi, fo in spectra]
    total = 0.0
    for l, (qk, vt, fi, fo) in enumerate(spectra):
        alpha = math.prod(lip[l + 1 :])
        terms = [(s, 2 * t[0] * fo[0] * fi[0]) for s, t in zip(qk, vt)] + [(s, fo[0] * fi[0]) for s in vt]
        for sigma, gamma in terms + [(fi, fo[0]), (fo, 1.0)]:
            scale = gamma * alpha * L
            rank = int(np.sum(sigma > 1e-10 * len(sigma) * max(sigma[0], 1.0)))
            if loop:
                best = math.inf
                for p in grid:
                    s_p = rank if p == 0 else float(np.sum(sigma**p))
                    best = min(best, s_p ** (1 / (p + 2)) * scale ** (p / (p + 2)) * n ** ((p + 1) / (p + 2)))
            else:
                with np.errstate(divide="ignore"):
                    s_p = np.exp(np.outer(grid[1:], np.log(sigma))).sum(axis=1)
                s_p = np.concatenate([[rank], s_p])
                best = float(
                    np.min(s_p ** (1 / (grid + 2)) * scale ** (grid / (grid + 2)) * n ** ((grid + 1) / (grid + 2)))
                )
            total += best
    return total + math.sqrt(L)


def run_reference(directory: Path) -> dict:
    """Full LAPACK SVDs of every matrix (the N x N head products formed), the p grid vectorised."""
    _, n, heads = shape_of(directory)
    spectra = []
    for layer in read_layers(directory):
        qk, vt = head_products(layer, heads)
        spectra.append(
            (
                np.linalg.svd(qk, compute_uv=False),
                np.linalg.svd(vt, compute_uv=False),
                np.linalg.svd(layer["intermediate.dense"].T, compute_uv=False),
                np.linalg.svd(layer["output.dense"].T, compute_uv=False),
            )
        )
    return {"ours": published_ours(spectra, n)}


def run_authors(directory: Path) -> dict:
    """The authors' route: torch float64 ``svdvals`` of each matrix in turn, a Python loop over the p grid."""
    import torch

    torch.set_num_threads(1)
    _, n, heads = shape_of(directory)
    svd = lambda w: torch.linalg.svdvals(torch.from_numpy(np.ascontiguousarray(w))).numpy()
    spectra = []
    for layer in read_layers(directory):
        qk, vt = head_products(layer, heads)
        spectra.append(
            (
                [svd(m) for m in qk],
                [svd(m) for m in vt],
                svd(layer["intermediate.dense"].T),
                svd(layer["output.dense"].T),
            )
        )
    return {"ours": published_ours(spectra, n, loop=True)}


def analyze_json(directory: Path) -> dict:
    from sabounds.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["analyze", str(directory), "--json"]) == 0
    return json.loads(out.getvalue())


def run_analyze(directory: Path) -> dict:
    return {"ours": analyze_json(directory)["totals"]["ours"]}


RUNS = {
    "analyze": run_analyze,
    "floor": run_floor,
    "kernels": run_kernels,
    "reference": run_reference,
    "authors": run_authors,
}


def child(variant: str, directory: Path) -> None:
    if variant == "analyze":
        analyze_json(WARM_UP)
    elif variant == "authors":
        import torch  # noqa: F401
    from safetensors import safe_open  # noqa: F401

    start = time.perf_counter()
    extra = RUNS[variant](directory)
    seconds = time.perf_counter() - start
    print(
        json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra})
    )


def one_thread() -> dict:
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    return env


def measure(variant: str, directory: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", variant, str(directory)],
        cwd=ROOT,
        env=one_thread(),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def whole_process(directory: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sabounds", "analyze", str(directory), "--json"],
        cwd=ROOT,
        env=one_thread(),
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def bench(label: str, directory: Path, repeats: int) -> None:
    L, n, heads = shape_of(directory)
    print(
        f"\n{label}: L={L} N={n} heads={heads}, {(directory / 'model.safetensors').stat().st_size / 2**20:.0f} MiB; "
        f"load average before {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    runs: dict[str, list] = {v: [] for v in (*VARIANTS, "process")}
    for _ in range(repeats):
        for variant in VARIANTS:
            runs[variant].append(measure(variant, directory))
        runs["process"].append({"seconds": whole_process(directory)})
    best = {v: min(r["seconds"] for r in rs) for v, rs in runs.items()}
    print(f"{'variant':<10}{'min s':>8}{'max s':>8}{'peak MiB':>10}   (min and max of {repeats} interleaved runs)")
    for v in VARIANTS:
        worst, peak = max(r["seconds"] for r in runs[v]), max(r["peak_mib"] for r in runs[v])
        print(f"{v:<10}{best[v]:>8.2f}{worst:>8.2f}{peak:>10.0f}")
    print(f"whole process `python -m sabounds analyze --json`: {best['process']:.2f} s (start-up and imports included)")
    ours = runs["analyze"][0]["ours"]
    for v in ("reference", "authors"):
        print(f"{v} ours vs analyze's: relative difference {abs(runs[v][0]['ours'] - ours) / ours:.1e}")
    floor_ratio = best["analyze"] / best["floor"]
    reference, authors = best["reference"] / best["analyze"], best["authors"] / best["analyze"]
    kernels = best["kernels"]
    print(
        f"kernels / floor = {kernels / best['floor']:.2f}, reference / kernels = {best['reference'] / kernels:.1f}, "
        f"authors / kernels = {best['authors'] / kernels:.1f}: the best ratios any analyze printing these numbers "
        "can reach"
    )
    if label == "bert-base":
        print(f"analyze / floor = {floor_ratio:.2f} (target <= 0.5: {verdict(floor_ratio <= 0.5)})")
        print(f"reference / analyze = {reference:.1f} (target >= 10: {verdict(reference >= 10)})")
        print(f"authors / analyze = {authors:.1f} (target >= 20: {verdict(authors >= 20)})")
    else:
        print(
            f"analyze / floor = {floor_ratio:.2f}; reference / analyze = {reference:.1f}; "
            f"authors / analyze = {authors:.1f}"
        )
        print(f"whole process {best['process']:.2f} s (target <= 1 s: {verdict(best['process'] <= 1.0)})")
    print(f"load average after {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs of every variant (minimum kept)")
    parser.add_argument("--only", choices=("bert-base", "minilm"))
    parser.add_argument("--child", nargs=2, metavar=("VARIANT", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    print(
        f"cpus={os.cpu_count()}, one BLAS thread, {sys.platform}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    if args.only != "minilm":
        with tempfile.TemporaryDirectory(prefix="bench-bert-base-") as tmp:
            build_checkpoint(Path(tmp))
            bench("bert-base", Path(tmp), args.repeats)
    if args.only != "bert-base":
        from sabounds import default_model

        bench("minilm", Path(default_model()), args.repeats)


if __name__ == "__main__":
    main()
