"""The rank (S_0) of a rotating head bounds the rank of every member ``Wq_h^T R_delta Wk_g`` of its RoPE family.

Horn's inequality bounds products of singular values, not each one: with ``Wq_h``, ``Wk_g`` of singular values
``(1, 3e-5)`` the family bound ``b = (1, 9e-10)`` has one value above the published threshold, while a member at
``delta = 1`` has ``sigma = (0.54, 1.7e-9)``: rank 2.  The analysis counted 1."""

from __future__ import annotations

import numpy as np

from sabounds.numerics.checkpoints.rope import family_member, rope_from_config
from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint
from sabounds.numerics.spectra import numerical_rank
from tests.support.bert_files import write_model
from tests.support.family_files import CONFIGS, raw_weights, sizes


def test_rotating_head_rank_bounds_every_members_rank(tmp_path):
    cfg = CONFIGS["llama"]
    _, hidden, heads, kv, d, _ = sizes(cfg)
    weights = raw_weights("llama", 0)
    rng = np.random.default_rng(5)
    u, _ = np.linalg.qr(rng.standard_normal((hidden, 2)))
    v, _ = np.linalg.qr(rng.standard_normal((hidden, 2)))
    for role, basis in (("q", u), ("k", v)):  # head 0 and its key group 0: rank 2 with values (1, 3e-5)
        w = weights[f"model.layers.0.self_attn.{role}_proj.weight"]
        w[:d] = 0.0
        w[0], w[d // 2] = basis[:, 0], 3e-5 * basis[:, 1]  # rotate_half pairs coordinates t and t + d/2
    write_model(tmp_path, weights, cfg)
    analysis = analyze_measured(measure_model(open_checkpoint(tmp_path)))
    head = next(m for m in analysis.matrices if m.layer == 0 and m.type == "QK" and m.head == 0)
    spec = rope_from_config(cfg, d, "test")
    q_left = weights["model.layers.0.self_attn.q_proj.weight"][:d].astype(np.float64).T
    k_right = weights["model.layers.0.self_attn.k_proj.weight"][:d].astype(np.float64)
    members = [
        numerical_rank(
            np.linalg.svd(family_member(q_left, k_right, spec, float(delta)), compute_uv=False), analysis.rank_tol
        )
        for delta in range(64)
    ]
    assert max(members) == 2
    assert head.rank >= max(members)
