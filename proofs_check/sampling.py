"""Seeded sampling shared by the deciders: a generator per check (reproducible from the seed and the check's key),
the box a symbol's own assumptions imply, and a sampled point as a witness (numbers where finite, text otherwise).
"""

from __future__ import annotations

import zlib

import numpy as np
import sympy as sp

from sabounds.proofs_check.verdict import Settings
from sabounds.theory import checks


def rng_for(key: str, settings: Settings) -> np.random.Generator:
    """A generator seeded by the settings' seed and a stable hash of ``key``: reproducible per check."""
    return np.random.default_rng([settings.seed, zlib.crc32(key.encode())])


def _fmt(v) -> float | str:
    try:
        f = float(v)
        return f if np.isfinite(f) else str(v)
    except (TypeError, ValueError):
        return str(v)


def point_witness(point: dict) -> dict:
    return {str(k): _fmt(v) for k, v in point.items()}


def assumed_domain(symbols) -> dict | None:
    """A sampling box implied by the symbols' own assumptions (what an Identity or Inequality without a domain
    quantifies over): positive -> log-uniform [1/10, 10], positive integer -> [1, 50], nonnegative -> [0, 10],
    real -> [-10, 10]; ``None`` if some symbol has no usable assumption."""
    out = {}
    for s_ in sorted(symbols, key=str):
        if s_.is_integer and s_.is_positive:
            out[s_] = checks.Interval(1, 50, integer=True)
        elif s_.is_positive:
            out[s_] = checks.Interval(sp.Rational(1, 10), 10, log=True)
        elif s_.is_nonnegative:
            out[s_] = checks.Interval(0, 10)
        elif s_.is_real:
            out[s_] = checks.Interval(-10, 10)
        else:
            return None
    return out
