"""Grids of runs: a base point per task and the values each hyperparameter axis takes.

``default`` is a star design: the base point, and each axis moved alone to its other value, for every task and
seed (every axis has two values; (9 + 9 + 10 points) x 3 seeds = 84 runs, minutes on 2 cores).  Every
non-base run then differs from the base run of its seed in exactly one axis: the one-axis pairs of the sign-error
and the groups of the granulated tau.  ``star5`` has three values per axis and five seeds; ``factorial`` is the full
product of two values per axis (Jiang et al.'s design: 2^8 or 2^9 points per task and seed), for a cluster.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace

AXES = ("layout", "depth", "width", "heads", "size", "tokens", "weight_decay", "lr", "noise")
"""The hyperparameter axes (``tokens`` moves for ``parity`` only: T is fixed by the other tasks' data); the seed is an
environment, not an axis."""


@dataclass(frozen=True)
class RunSpec:
    """One training run: the task, its data, the architecture, the optimiser and the seed."""

    task: str
    size: int
    tokens: int
    noise: float
    layout: str
    depth: int
    width: int
    heads: int
    weight_decay: float
    lr: float
    epochs: int
    seed: int
    data_seed: int = 0

    def to_json(self) -> dict:
        return asdict(self)

    def label(self) -> str:
        return (f"{self.task} {self.layout}-LN L={self.depth} N={self.width} H={self.heads} n={self.size} "
                f"T={self.tokens} wd={self.weight_decay:g} lr={self.lr:g} noise={self.noise:g} seed={self.seed}")


BASE = {
    "digits": RunSpec("digits", size=200, tokens=8, noise=0.0, layout="post", depth=1, width=16, heads=2,
                      weight_decay=0.0, lr=3e-3, epochs=100, seed=0),
    "parity": RunSpec("parity", size=300, tokens=10, noise=0.0, layout="post", depth=1, width=16, heads=2,
                      weight_decay=0.0, lr=3e-3, epochs=100, seed=0),
    "modadd": RunSpec("modadd", size=300, tokens=2, noise=0.0, layout="post", depth=1, width=16, heads=2,
                      weight_decay=0.0, lr=3e-3, epochs=120, seed=0),
}

_TWO = {"tokens": (14,), "layout": ("pre",), "depth": (2,), "width": (32,), "heads": (1,), "weight_decay": (0.1,), "lr": (1e-2,),
        "noise": (0.1,)}
_THREE = {"tokens": (6, 14), "layout": ("pre",), "depth": (2, 3), "width": (8, 32), "heads": (1, 4), "weight_decay": (0.01, 0.1),
          "lr": (1e-3, 1e-2), "noise": (0.05, 0.2)}
SIZES = {"digits": (100, 400), "parity": (150, 600), "modadd": (200, 400)}
"""The other training-set sizes per task (``star5`` uses both, ``default`` the first)."""


def star(tasks, seeds, moves: dict, sizes: dict) -> list[RunSpec]:
    """Per task and seed: the base run and each axis moved alone to each of its other values."""
    runs = []
    for task in tasks:
        base = BASE[task]
        for seed in seeds:
            b = replace(base, seed=seed)
            runs.append(b)
            for axis in AXES:
                if axis == "tokens" and task != "parity":
                    continue
                values = sizes[task] if axis == "size" else moves[axis]
                runs += [replace(b, **{axis: v}) for v in values]
    return runs


def factorial(tasks, seeds) -> list[RunSpec]:
    """The full product of the base value and the first other value of every axis."""
    runs = []
    for task in tasks:
        base = BASE[task]
        axes = [a for a in AXES if a != "tokens" or task == "parity"]
        choices = [(getattr(base, a), SIZES[task][0] if a == "size" else _TWO[a][0]) for a in axes]
        for values in itertools.product(*choices):
            for seed in seeds:
                runs.append(replace(base, seed=seed, **dict(zip(axes, values))))
    return runs


GRIDS = {
    "default": lambda tasks: star(tasks, range(3), _TWO, {t: s[:1] for t, s in SIZES.items()}),
    "star5": lambda tasks: star(tasks, range(5), _THREE, SIZES),
    "factorial": lambda tasks: factorial(tasks, range(3)),
    "tiny": lambda tasks: _tiny(tasks),
}


def _tiny(tasks) -> list[RunSpec]:
    """Two seeds, the base point (100 examples, width 8) and its depth-2 and pre-LN moves, at most 40 epochs: tests."""
    runs = []
    for task in tasks:
        for seed in range(2):
            b = replace(BASE[task], seed=seed, epochs=40, size=min(BASE[task].size, 100), width=8)
            runs += [b, replace(b, depth=2), replace(b, layout="pre")]
    return runs


GRID_NOTES = {"default": "star design, 2 values per axis, 3 seeds", "star5": "star design, 3 values per axis, 5 seeds",
              "factorial": "full product of 2 values per axis, 3 seeds (for a cluster)",
              "tiny": "3 points x 2 seeds per task, at most 40 epochs (tests)"}


def grid(name: str, tasks=None) -> list[RunSpec]:
    """The runs of the named grid for ``tasks`` (all by default); ValueError for an unknown name or task."""
    from sabounds.training_study.tasks import TASKS
    tasks = TASKS if tasks is None else tuple(tasks)
    bad = [t for t in tasks if t not in TASKS]
    if bad or not tasks:
        raise ValueError(f"unknown task {', '.join(bad) or '(none)'}; choose among {', '.join(TASKS)}")
    if name not in GRIDS:
        raise ValueError(f"unknown grid {name!r}; choose one of {', '.join(GRIDS)}")
    return GRIDS[name](tasks)
