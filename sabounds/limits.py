"""Documented caps on the work a command may be asked to do; above them, a one-line refusal (exit 2).

The caps bound memory and time, not correctness: a run inside them finishes (on the bundled model, ``verify``
at 1000 digits and ``report`` at 100000 samples take minutes, not hours).  Checked on the parsed arguments of
every command, before any work, by :func:`check_arguments`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sabounds.errors import UserError


@dataclass(frozen=True)
class Cap:
    """An inclusive range ``low..high`` for the argument ``--name``, and why it is bounded."""

    name: str
    low: float
    high: float
    why: str


CAPS = {
    "precision": Cap("precision", 15, 1000, "mpmath digits; the work grows faster than the square of the digits"),
    "samples": Cap("samples", 1, 100_000, "random draws per numeric check; the work is linear in them"),
    "seed": Cap("seed", 0, 2**63 - 1, "random seed"),
    "layers": Cap("layers", 1, 10_000, "layers read from the checkpoint"),
    "grid_m": Cap("grid-m", 1, 10_000, "the p grid has 2m + 1 points per matrix"),
    "lphi": Cap("lphi", 1e-300, 1.7976931348623157e308, "Lipschitz constant of the activation; a float64"),
    "dpi": Cap("dpi", 30, 1200, "PNG resolution; an 8 x 6 inch figure at 1200 dpi is already 69 megapixels"),
    "rank_tol": Cap("rank-tol", 1e-300, 1.0, "relative rank tolerance; above 1 no singular value counts"),
}
MAX_DEPTHS = 1000


def check_value(key: str, value) -> None:
    """Refuse ``value`` of argument ``key`` outside its cap, in one line."""
    cap = CAPS[key]
    if value is None:
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(f"--{cap.name} must be finite, got {value}")
    if not cap.low <= value <= cap.high:
        raise UserError(f"--{cap.name} {value} is outside {cap.low:g}..{cap.high:g} ({cap.why})")


def check_arguments(args) -> None:
    """Every capped argument the command has, and its paths (``user_paths``), checked before any work."""
    from sabounds.user_paths import check_user_paths

    check_user_paths(args)
    for key in CAPS:
        if hasattr(args, key):
            check_value(key, getattr(args, key))
    depths = getattr(args, "depths", None)
    if depths is not None and len(depths) > MAX_DEPTHS:
        raise UserError(f"--depths lists {len(depths)} depths; at most {MAX_DEPTHS}")
    if depths is not None:
        for d in depths:
            check_value("layers", d)
