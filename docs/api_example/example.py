"""sabounds from Python, notebook style: run with `python docs/api_example/example.py` (the tests run it).

Each cell is a step a notebook would have; printed values are whatever the weights give.
"""

# %% 1. The bundled trained checkpoint (all-MiniLM-L6-v2), its first two layers as an L = 2 model
from pathlib import Path

import numpy as np

import sabounds

result = sabounds.analyze(sabounds.default_model(), layers=2)
print(result.proxy, result.totals["ours"], result.totals["edelman"])
print(result.table.groupby("type")[["rank", "p_opt"]].mean())

# %% 2. The same weights as a dict of arrays: the same table
from safetensors.numpy import load_file

weights = load_file(str(sabounds.default_model() / "model.safetensors"))
config = str(sabounds.default_model() / "config.json")
in_memory = sabounds.analyze(weights, config=config, layers=2)
assert in_memory.table.equals(result.table)

# %% 3. A model of no built-in family, described by a mapping file (random weights, LLaMA-like, renamed)
rng = np.random.default_rng(0)
n, inner, d = 32, 64, 8
shapes = {"attn.wq.weight": (4 * d, n), "attn.wk.weight": (2 * d, n), "attn.wv.weight": (2 * d, n),
          "attn.wo.weight": (n, 4 * d), "ffn.w1.weight": (inner, n), "ffn.w3.weight": (inner, n),
          "ffn.w2.weight": (n, inner), "ffn_norm.weight": (n,)}
custom = {f"blocks.{i}.{name}": rng.standard_normal(shape) / np.sqrt(shape[-1])
          for i in range(2) for name, shape in shapes.items()}
mapping = Path(__file__).with_name("custom_mapping.toml")
described = sabounds.analyze(custom, mapping=mapping)
print(described.proxy, "departs by:", "; ".join(described.departures))
print(described.table[["layer", "head", "type", "rank", "gamma", "p_opt"]].head(12))

# %% 4. Figures are matplotlib Figures (save them as SVG or PDF for vector output)
import io

fig = described.plot_spectra()
fig.savefig(io.BytesIO(), format="svg")

# %% 5. Checks, regime tables and a conjecture, as the commands' JSON
checks = sabounds.verify(only="thm41.constant_*")
print(checks.summary)
print(sabounds.regimes(regime="rank").table[["regime", "bound", "depth_exponent", "width_exponent"]])
print(sabounds.conjecture("gelu-lipschitz", value="1.13").verdict)
