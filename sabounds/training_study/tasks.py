"""The study's three tasks as arrays: tokens ``x`` of shape (n, T, d), integer labels ``y``, a fixed held-out test set.

* ``digits``: scikit-learn's 8x8 handwritten digits (1797 images, shipped with scikit-learn, no download), each image
  a sequence of T = 8 row tokens of 8 pixel values scaled to [0, 1]; 10 classes; the test set is a fixed 500 images
  (the same for every data seed) and the training set ``size`` images drawn from the other 1297 by the data seed.
* ``parity``: the sparse Boolean functions of Edelman et al. (2022): T tokens, each a uniform bit embedded as
  (bit, 1 - bit); the label is the parity (XOR) of ``SPARSITY`` positions fixed per T (not per data seed); 2 classes;
  1000 test strings, drawn with the training strings by the data seed.
* ``modadd``: modular addition (a + b) mod P with P = 23: two tokens, each a one-hot of size P; 23 classes; the training
  set is a fraction of the P^2 = 529 pairs and the test set the rest (its size is then 529 - train).

``size`` is the number of training examples; ``noise`` the fraction of training labels replaced by a uniformly
drawn other class (test labels are never noisy); ``data_seed`` fixes the draw (the grids set it to the run's seed, so
seed-to-seed variation covers the training sample as well as the initialisation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TASKS = ("digits", "parity", "modadd")
DIGITS_TEST = 500
PARITY_TEST = 1000
SPARSITY = 3
MODULUS = 23


@dataclass(frozen=True)
class Data:
    """Training and test tokens and labels of one task instance."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: int

    @property
    def tokens(self) -> int:
        return int(self.x_train.shape[1])

    @property
    def features(self) -> int:
        return int(self.x_train.shape[2])


def make_data(task: str, size: int, noise: float = 0.0, tokens: int = 8, data_seed: int = 0) -> Data:
    """The task's data with ``size`` training examples (ValueError for an unknown task or an impossible size)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose one of {', '.join(TASKS)}")
    if not 0 <= noise < 1:
        raise ValueError(f"label noise must lie in [0, 1), got {noise}")
    rng = np.random.default_rng([data_seed, TASKS.index(task)])
    x_tr, y_tr, x_te, y_te, classes = {"digits": _digits, "parity": _parity, "modadd": _modadd}[task](size, tokens, rng)
    return Data(x_tr.astype(np.float32), _noisy(y_tr, noise, classes, rng), x_te.astype(np.float32), y_te, classes)


def _noisy(y: np.ndarray, noise: float, classes: int, rng: np.random.Generator) -> np.ndarray:
    y = y.copy()
    flip = rng.random(len(y)) < noise
    y[flip] = (y[flip] + rng.integers(1, classes, flip.sum())) % classes
    return y


def _digits(size: int, tokens: int, rng):
    from sklearn.datasets import load_digits

    images, labels = load_digits(return_X_y=True)
    if not 1 <= size <= len(labels) - DIGITS_TEST:
        raise ValueError(f"digits: training size must lie in 1..{len(labels) - DIGITS_TEST}, got {size}")
    split = np.random.default_rng(TASKS.index("digits")).permutation(len(labels))
    x = (images / 16.0).reshape(-1, 8, 8)
    test, train = split[:DIGITS_TEST], rng.permutation(split[DIGITS_TEST:])[:size]
    return x[train], labels[train], x[test], labels[test], 10


def _parity(size: int, tokens: int, rng):
    if not SPARSITY <= tokens <= 64:
        raise ValueError(f"parity: the number of tokens must lie in {SPARSITY}..64, got {tokens}")
    if size < 1:
        raise ValueError(f"parity: training size must be positive, got {size}")
    support = np.random.default_rng([tokens, TASKS.index("parity")]).choice(tokens, SPARSITY, replace=False)
    bits = rng.integers(0, 2, (size + PARITY_TEST, tokens))
    labels = bits[:, support].sum(axis=1) % 2
    x = np.stack([bits, 1 - bits], axis=-1)
    return x[:size], labels[:size], x[size:], labels[size:], 2


def _modadd(size: int, tokens: int, rng):
    total = MODULUS * MODULUS
    if not 1 <= size < total:
        raise ValueError(f"modadd: training size must lie in 1..{total - 1}, got {size}")
    a, b = np.divmod(rng.permutation(total), MODULUS)
    eye = np.eye(MODULUS)
    x = np.stack([eye[a], eye[b]], axis=1)
    labels = (a + b) % MODULUS
    return x[:size], labels[:size], x[size:], labels[size:], MODULUS
