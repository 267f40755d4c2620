"""Grids of runs: a base point per task and the values each hyperparameter axis takes.

``default`` asks one question on 2 cores in about 10 CPU-minutes: on the digits task, post-LN only (never pooled
across layouts: the layout switches Edelman's formula), the full product of training-set size (5 values, 50..800) x
label noise {0, 0.1, 0.2} x width {16, 32}, 2 seeds (60 runs).  ``parity`` and ``modadd`` are the same design on
those tasks (their own sizes).  ``star`` is a star design over every axis (the base point and each axis moved
alone), ``star5`` its three-value, five-seed version; ``factorial`` the full product of two values per axis
(Jiang et al.'s design, 2^8 or 2^9 points per task and seed), for a cluster; ``tiny`` converges in seconds (tests).
Every grid sets a run's data seed to its seed: the training sample is redrawn with the initialisation.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace

from sabounds.training_study.tasks import TASKS

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
        return (
            f"{self.task} {self.layout}-LN L={self.depth} N={self.width} H={self.heads} n={self.size} "
            f"T={self.tokens} wd={self.weight_decay:g} lr={self.lr:g} noise={self.noise:g} seed={self.seed}"
        )


BASE = {
    "digits": RunSpec(
        "digits",
        size=200,
        tokens=8,
        noise=0.0,
        layout="post",
        depth=1,
        width=16,
        heads=2,
        weight_decay=0.0,
        lr=3e-3,
        epochs=100,
        seed=0,
    ),
    "parity": RunSpec(
        "parity",
        size=300,
        tokens=10,
        noise=0.0,
        layout="post",
        depth=1,
        width=16,
        heads=2,
        weight_decay=0.0,
        lr=3e-3,
        epochs=100,
        seed=0,
    ),
    "modadd": RunSpec(
        "modadd",
        size=300,
        tokens=2,
        noise=0.0,
        layout="post",
        depth=1,
        width=16,
        heads=2,
        weight_decay=0.0,
        lr=3e-3,
        epochs=120,
        seed=0,
    ),
}

_TWO = {
    "tokens": (14,),
    "layout": ("pre",),
    "depth": (2,),
    "width": (32,),
    "heads": (1,),
    "weight_decay": (0.1,),
    "lr": (1e-2,),
    "noise": (0.1,),
}
_THREE = {
    "tokens": (6, 14),
    "layout": ("pre",),
    "depth": (2, 3),
    "width": (8, 32),
    "heads": (1, 4),
    "weight_decay": (0.01, 0.1),
    "lr": (1e-3, 1e-2),
    "noise": (0.05, 0.2),
}
SIZES = {"digits": (100, 400), "parity": (150, 600), "modadd": (200, 400)}
"""The other training-set sizes per task (``star5`` uses both, ``default`` the first)."""


def seeded(spec: RunSpec, seed: int) -> RunSpec:
    """``spec`` at ``seed``, its training sample redrawn with it (data seed = seed)."""
    return replace(spec, seed=seed, data_seed=seed)


FACTORIAL_SIZES = {
    "digits": (50, 100, 200, 400, 800),
    "parity": (100, 200, 400, 800, 1600),
    "modadd": (100, 175, 250, 325, 400),
}
NOISES = (0.0, 0.1, 0.2)
WIDTHS = (16, 32)
EPOCH_CAP = 400
FACTORIAL_LR = 5e-3


def size_noise_width(tasks, seeds=range(2)) -> list[RunSpec]:
    """Per task: training size x label noise x width, post-LN, every other axis at the base point."""
    runs = []
    for task in tasks:
        base = replace(BASE[task], epochs=EPOCH_CAP, lr=FACTORIAL_LR)
        for size, noise, width in itertools.product(FACTORIAL_SIZES[task], NOISES, WIDTHS):
            runs += [seeded(replace(base, size=size, noise=noise, width=width), seed) for seed in seeds]
    return runs


def star(tasks, seeds, moves: dict, sizes: dict) -> list[RunSpec]:
    """Per task and seed: the base run and each axis moved alone to each of its other values."""
    runs = []
    for task in tasks:
        base = BASE[task]
        for seed in seeds:
            b = seeded(base, seed)
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
                runs.append(seeded(replace(base, **dict(zip(axes, values))), seed))
    return runs


GRIDS = {
    "default": lambda tasks: size_noise_width(tasks or ("digits",)),
    "parity": lambda tasks: size_noise_width(tasks or ("parity",)),
    "modadd": lambda tasks: size_noise_width(tasks or ("modadd",)),
    "star": lambda tasks: star(tasks or TASKS, range(3), _TWO, {t: s[:1] for t, s in SIZES.items()}),
    "star5": lambda tasks: star(tasks or TASKS, range(5), _THREE, SIZES),
    "factorial": lambda tasks: factorial(tasks or TASKS, range(3)),
    "tiny": lambda tasks: _tiny(tasks or ("digits",)),
}


def _tiny(tasks) -> list[RunSpec]:
    """Two seeds x sizes {40, 80} x noise {0, 0.2}, width 8, post-LN, at most 300 epochs: reaches the stopping loss
    in seconds per run (tests)."""
    base = {t: replace(BASE[t], epochs=300, width=8, lr=1e-2) for t in TASKS}
    return [
        seeded(replace(base[t], size=size, noise=noise), seed)
        for t in tasks
        for size, noise in itertools.product((40, 80), (0.0, 0.2))
        for seed in range(2)
    ]


GRID_NOTES = {
    "default": "digits, post-LN: size (50..800) x noise {0, 0.1, 0.2} x width {16, 32}, 2 seeds (60 runs)",
    "parity": "the default design on parity (sizes 100..1600; untuned: at noise 0.2 the two runs tried "
    "did not reach the stopping loss in 400 epochs and are excluded)",
    "modadd": "the default design on modadd (sizes 100..400)",
    "star": "star design over every axis, 2 values per axis, 3 seeds, all tasks",
    "star5": "star design, 3 values per axis, 5 seeds",
    "factorial": "full product of 2 values per axis, 3 seeds (for a cluster)",
    "tiny": "digits, size {40, 80} x noise {0, 0.2}, width 8, 2 seeds (tests)",
}


def grid(name: str, tasks=None) -> list[RunSpec]:
    """The runs of the named grid for ``tasks`` (the grid's own by default); ValueError for an unknown name or task."""
    tasks = None if tasks is None else tuple(tasks)
    bad = [t for t in tasks or () if t not in TASKS]
    if bad or tasks == ():
        raise ValueError(f"unknown task {', '.join(bad) or '(none)'}; choose among {', '.join(TASKS)}")
    if name not in GRIDS:
        raise ValueError(f"unknown grid {name!r}; choose one of {', '.join(GRIDS)}")
    return GRIDS[name](tasks)
