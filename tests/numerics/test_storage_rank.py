"""The storage-aware rank: its rounding bound sigma_{r+1}(W~) <= u/(1-u) ||W~||_F holds for stored rank-r matrices
(F64, F32, F16, BF16), is not vacuous, fails when u is understated (a mutant), and reaches analyze's output."""

import json

import numpy as np
import pytest

from sabounds.cli import main
from sabounds.numerics.proxies.storage_rank import UNIT_ROUNDOFF, published_threshold
from sabounds.numerics.spectra import RANK_TOL, numerical_rank, singular_values
from tests.support.bert_files import config, decoded, random_weights, write_model

DTYPES = ["F64", "F32", "F16", "BF16"]


def _stored_low_rank(rng, rank, rows, cols, dtype):
    w = rng.standard_normal((rows, rank)) @ rng.standard_normal((rank, cols)) / np.sqrt(rank)
    return decoded(w, dtype)


def _storage_rank(sigma, u):
    tau = u / (1 - u) * float(np.sqrt(np.sum(sigma**2)))
    return int(np.count_nonzero(sigma > max(tau, published_threshold(sigma, RANK_TOL))))


@pytest.mark.parametrize("dtype", DTYPES)
def test_exactly_rank_8_stays_rank_8_in_every_dtype(dtype):
    rng = np.random.default_rng(0)
    sigma = singular_values(_stored_low_rank(rng, 8, 64, 256, dtype))
    assert _storage_rank(sigma, UNIT_ROUNDOFF[dtype]) == 8
    if dtype in ("F32", "F16", "BF16"):  # the published rule counts the rounding (issue 10 item 7)
        assert numerical_rank(sigma) > 8


def test_rounding_bound_holds_on_random_stored_matrices():
    """200 draws of (rank, shape, scale, dtype): sigma_{r+1} <= max(tau, published threshold) always, and
    sigma_r above it (not vacuous).  The published threshold (1e-10 D sigma_1) covers the float64 product and
    SVD's own rounding (about D eps sigma_1), which the storage bound does not."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        dtype = DTYPES[int(rng.integers(4))]
        rank, rows, cols = int(rng.integers(1, 12)), int(rng.integers(16, 80)), int(rng.integers(16, 80))
        scale = 10.0 ** rng.uniform(-2, 2)
        sigma = singular_values(scale * _stored_low_rank(rng, rank, rows, cols, dtype) / scale)
        u = UNIT_ROUNDOFF[dtype]
        tau = max(u / (1 - u) * float(np.sqrt(np.sum(sigma**2))), published_threshold(sigma, RANK_TOL))
        assert sigma[rank] <= tau if rank < sigma.size else True
        assert sigma[rank - 1] > tau


def test_understating_the_roundoff_breaks_the_bound():
    """Mutant: u / 64 instead of u counts rounding as rank for some stored rank-8 matrix."""
    rng = np.random.default_rng(0)
    ranks = [
        _storage_rank(singular_values(_stored_low_rank(rng, 8, 64, 256, d)), UNIT_ROUNDOFF[d] / 64)
        for d in ("F16", "BF16")
    ]
    assert max(ranks) > 8


def test_analyze_reports_the_storage_aware_rank(tmp_path, capsys):
    """Rank-8 feed-forward matrices stored as F16: analyze --json says how many values lie between the
    thresholds; the storage-aware ranks of M_in and M_out are 8."""
    rng = np.random.default_rng(2)
    weights = random_weights(layers=2, hidden=32, heads=4, intermediate=128)
    for l in range(2):
        for name, shape in (("intermediate.dense", (128, 32)), ("output.dense", (32, 128))):
            w = rng.standard_normal((shape[0], 8)) @ rng.standard_normal((8, shape[1])) / 8
            weights[f"encoder.layer.{l}.{name}.weight"] = w.astype(np.float32)
    model = write_model(tmp_path / "m", weights, config(layers=2, hidden=32, heads=4, intermediate=128), dtype="F16")
    assert main(["analyze", str(model), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    storage = data["storage_rank"]
    assert storage["unit_roundoff"] == UNIT_ROUNDOFF["F16"]
    ff = [m for m in data["matrices"] if m["type"] in ("M_in", "M_out")]
    assert all(m["rank"] > 8 for m in ff)
    assert storage["between_thresholds"] >= sum(m["rank"] - 8 for m in ff)
    assert storage["ours"] < storage["published_ours"]


@pytest.mark.parametrize("header", [b"[" * 100000 + b"]" * 100000, b"{not json", b'["a list"]', b""])
def test_unreadable_headers_are_one_line_value_errors(tmp_path, header):
    import struct

    from sabounds.numerics.proxies.storage_rank import tensor_dtypes

    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header if header else b"\x01")
    with pytest.raises(ValueError) as info:
        tensor_dtypes(tmp_path)
    assert "\n" not in str(info.value)


def test_subnormal_entries_widen_the_threshold():
    """Issue 22: a rank-1 F16 matrix with entries near 3e-7 (subnormal in F16) rounds to a matrix whose sigma_2 is
    far above u ||W~||_F; the subnormal term s sqrt(k) brings tau above it again."""
    from sabounds.numerics.proxies.storage_rank import UNIT_ROUNDOFF, storage_error

    rng = np.random.default_rng(0)
    w = np.outer(rng.uniform(0.5, 1.5, 16), rng.uniform(0.5, 1.5, 16)) * 3e-7
    stored = w.astype(np.float16).astype(np.float64)
    sigma = np.linalg.svd(stored, compute_uv=False)
    u = UNIT_ROUNDOFF["F16"]
    assert sigma[1] > u / (1 - u) * np.linalg.norm(stored)  # the no-underflow bound fails here
    assert sigma[1] <= float(storage_error(stored, u, "F16"))
    assert float(storage_error(stored, u, None)) < float(storage_error(stored, u, "F16"))


def test_product_threshold_with_subnormal_factors_bounds_the_product_error():
    """QK_h = A B from F16 factors with subnormal entries: the stored product's distance to the exact one is within
    the layer threshold, which is e_A ||B|| + ||A|| e_B + e_A e_B."""
    from sabounds.numerics.checkpoints.layers import assemble
    from sabounds.numerics.proxies.storage_rank import UNIT_ROUNDOFF, rounding_thresholds, storage_error

    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((4, 8)) * 2e-6, rng.standard_normal((4, 8)) * 3e-7
    eye = np.eye(8)
    exact = assemble(0, q, k, q, eye[:, :4], eye, eye, 1, 1)
    stored = assemble(0, *(w.astype(np.float16).astype(np.float64) for w in (q, k, q)), eye[:, :4], eye, eye, 1, 1)
    u = UNIT_ROUNDOFF["F16"]
    tau = rounding_thresholds(stored, u, "F16")["QK"][0]
    ea, eb = storage_error(stored.qk_left[0], u, "F16"), storage_error(stored.qk_right[0], u, "F16")
    fa, fb = np.linalg.norm(stored.qk_left[0]), np.linalg.norm(stored.qk_right[0])
    assert tau == pytest.approx(ea * fb + fa * eb + ea * eb, rel=1e-12)
    assert np.linalg.norm(stored.qk(0) - exact.qk(0), 2) <= tau
    assert rounding_thresholds(stored, u)["QK"][0] < np.linalg.norm(stored.qk(0) - exact.qk(0), 2)
