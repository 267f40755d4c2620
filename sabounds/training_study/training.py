"""Train one run deterministically on CPU to a fixed training cross-entropy and record its errors there.

Jiang et al. (2020)'s protocol: AdamW (learning rate ``lr``, decoupled weight decay ``weight_decay``) on
cross-entropy, minibatches of ``BATCH``, until the whole training set's mean cross-entropy (on the labels trained on,
noisy ones included) is at most ``STOP_LOSS``, checked after every epoch; the gap is test minus train error at that
point.  A run that has not reached ``STOP_LOSS`` after ``spec.epochs`` epochs is recorded with ``converged`` false
and excluded from every statistic (so all compared runs stand at the same fit).  Deterministic:
``torch.manual_seed(seed)``, deterministic algorithms, one intra-op thread; the data come from ``data_seed``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from sabounds.training_study.grids import RunSpec
from sabounds.training_study.model import Encoder, export
from sabounds.training_study.tasks import Data, make_data

BATCH = 32
STOP_LOSS = 0.01


@dataclass
class Trained:
    """The trained model, its initial weights (exported), the data and the run's record."""

    model: Encoder
    initial: dict[str, np.ndarray]
    data: Data
    record: dict


def _evaluate(model: Encoder, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """(error, mean cross-entropy) on the whole set."""
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = float(nn.functional.cross_entropy(logits, y))
        error = float((logits.argmax(dim=1) != y).float().mean())
    model.train()
    return error, loss


def train(spec: RunSpec) -> Trained:
    """Train ``spec`` from its seed to ``STOP_LOSS``; the record holds train/test error and loss at the stop, the
    epochs run and ``converged`` (the stopping loss was reached within ``spec.epochs``)."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(spec.seed)
    data = make_data(spec.task, spec.size, spec.noise, spec.tokens, spec.data_seed)
    model = Encoder(data.features, data.tokens, data.classes, spec.depth, spec.width, spec.heads, spec.layout)
    initial = export(model)
    x_tr, y_tr = torch.from_numpy(data.x_train), torch.from_numpy(data.y_train).long()
    x_te, y_te = torch.from_numpy(data.x_test), torch.from_numpy(data.y_test).long()
    optimiser = torch.optim.AdamW(model.parameters(), lr=spec.lr, weight_decay=spec.weight_decay)
    generator = torch.Generator().manual_seed(spec.seed)
    start, epochs = time.perf_counter(), 0
    for epochs in range(1, spec.epochs + 1):  # noqa: B007  (read after the loop: the epochs run)
        order = torch.randperm(len(y_tr), generator=generator)
        for i in range(0, len(order), BATCH):
            batch = order[i : i + BATCH]
            optimiser.zero_grad()
            nn.functional.cross_entropy(model(x_tr[batch]), y_tr[batch]).backward()
            optimiser.step()
        if _evaluate(model, x_tr, y_tr)[1] <= STOP_LOSS:
            break
    train_error, train_loss = _evaluate(model, x_tr, y_tr)
    test_error, test_loss = _evaluate(model, x_te, y_te)
    record = {
        "train_error": train_error,
        "test_error": test_error,
        "train_loss": train_loss,
        "test_loss": test_loss,
        "gap_error": test_error - train_error,
        "gap_loss": test_loss - train_loss,
        "epochs_run": epochs,
        "converged": train_loss <= STOP_LOSS,
        "stop_loss": STOP_LOSS,
        "n_train": len(y_tr),
        "n_test": len(y_te),
        "train_seconds": round(time.perf_counter() - start, 3),
    }
    return Trained(model, initial, data, record)
