"""``sabounds analyze`` does each piece of work once (issue 33 item 4): counted, not timed.  On a BERT checkpoint
every weight tensor is read from the file once, every stored matrix's entrywise sums are formed once (the
storage-rank thresholds and the (1,1)- and (2,1)-norms share them) and each feed-forward Gram matrix once."""

from __future__ import annotations

import contextlib
import io
from collections import Counter

from sabounds.cli import main
from sabounds.numerics import certified_spectra
from sabounds.numerics.checkpoints.safetensors_folder import SafetensorsFile
from sabounds.numerics.proxies import storage_rank
from tests.data.golden.record import HERE

MODEL = HERE / "random_bert"
LAYERS, TENSORS_PER_LAYER = 3, 6


def counting(monkeypatch, owner, name: str, counts: Counter, key=lambda *a, **k: None):
    original = getattr(owner, name)

    def counted(*args, **kwargs):
        counts[key(*args, **kwargs)] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_analyze_reads_each_weight_once_and_forms_each_sum_and_gram_once(monkeypatch):
    reads, sums, grams = Counter(), Counter(), Counter()
    counting(monkeypatch, SafetensorsFile, "read", reads, key=lambda self, name: name)
    counting(monkeypatch, storage_rank, "entrywise_sums", sums)
    counting(monkeypatch, certified_spectra, "gram_matrix", grams)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["analyze", str(MODEL), "--json"]) == 0
    weights = {name: n for name, n in reads.items() if name.startswith("encoder.layer.") and name.endswith(".weight")}
    assert len(weights) == LAYERS * TENSORS_PER_LAYER and set(weights.values()) == {1}
    assert sums[None] == LAYERS * TENSORS_PER_LAYER
    assert grams[None] == LAYERS * 2  # one per MLP matrix, layer 1's M_in included (its certificate then refuses)
