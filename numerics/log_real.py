"""Positive reals beyond float64, carried as their natural logarithm: never ``inf``, ``nan`` or ``Infinity``.

A proxy such as ``edelman`` or ``alpha`` is a product of many norms and can exceed 1.8e308 (or fall below
2.2e-308) for weights that are themselves representable.  :func:`from_ln` keeps a value as a float when it is
a normal float64 and as a :class:`LogReal` otherwise.  A LogReal prints as a decimal string (``1.2346e+412``)
with as many significant digits as its logarithm supports: ``ln`` is a float64 with absolute error at most
``eps |ln|``, so the value's relative error is about ``eps |ln|`` (1.6e-13 at ``|ln| = 709``).  In JSON it is
``{"decimal": "1.23456789012e+412", "log10": 412.0915...}`` (see :func:`dumps`).
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np

LN_MAX = math.log(sys.float_info.max)  # 709.78...
LN_MIN = math.log(sys.float_info.min)  # -708.39... (smallest normal float64)
_LN10 = math.log(10.0)


class LogReal:
    """``exp(ln)`` for a finite float ``ln``: a positive real, possibly outside float64's range."""

    __slots__ = ("ln",)

    def __init__(self, ln: float):
        ln = float(ln)
        if not math.isfinite(ln):
            raise ValueError(f"LogReal needs a finite logarithm, got {ln}")
        self.ln = ln

    @property
    def log10(self) -> float:
        return self.ln / _LN10

    @property
    def digits(self) -> int:
        """Significant decimal digits the float64 logarithm supports: ``floor(-log10(eps max(|ln|, 1)))``."""
        return max(1, int(-math.log10(sys.float_info.epsilon * max(abs(self.ln), 1.0))))

    def mantissa_exponent(self, digits: int | None = None) -> tuple[str, int]:
        """``(m, e)`` with ``value = m * 10^e`` and ``1 <= m < 10`` rounded to ``digits`` significant digits."""
        digits = min(digits or self.digits, self.digits)
        e = math.floor(self.log10)
        m = round(10.0 ** (self.log10 - e), digits - 1)
        if m >= 10.0:
            m, e = m / 10.0, e + 1
        return f"{m:.{digits - 1}f}".rstrip("0").rstrip(".") if digits > 1 else f"{m:.0f}", e

    def decimal(self, digits: int | None = None) -> str:
        m, e = self.mantissa_exponent(digits)
        return f"{m}e{e:+d}"

    def __str__(self) -> str:
        return self.decimal()

    def __repr__(self) -> str:
        return f"LogReal(ln={self.ln!r}) = {self.decimal()}"

    def __format__(self, spec: str) -> str:
        digits = None
        if spec and spec[-1] in "eEfFgG%":
            body = spec[:-1]
            if "." in body and body.split(".")[-1].isdigit():
                digits = int(body.split(".")[-1]) + (1 if spec[-1] in "eE" else 0)
        return self.decimal(max(digits or 6, 1))

    def __float__(self) -> float:
        raise OverflowError(f"{self.decimal()} is outside the float64 range")

    def log(self) -> float:
        """Natural logarithm (so that ``np.log`` of an object array of these works)."""
        return self.ln

    def to_json(self) -> dict:
        return {"decimal": self.decimal(), "log10": self.log10}

    # arithmetic and comparison with floats and with each other, through logarithms
    def __mul__(self, other):
        return from_ln(self.ln + ln_of(other))

    __rmul__ = __mul__

    def __truediv__(self, other):
        return from_ln(self.ln - ln_of(other))

    def __rtruediv__(self, other):
        return from_ln(ln_of(other) - self.ln)

    def __pow__(self, exponent: float):
        return from_ln(self.ln * float(exponent))

    def _cmp(self, other) -> float:
        return self.ln - ln_of(other) if not (isinstance(other, (int, float)) and other <= 0) else math.inf

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __le__(self, other):
        return self._cmp(other) <= 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __ge__(self, other):
        return self._cmp(other) >= 0

    def __eq__(self, other):
        if isinstance(other, (LogReal, int, float, np.floating)):
            return self._cmp(other) == 0
        return NotImplemented

    def __hash__(self):
        return hash(("LogReal", self.ln))


def ln_of(x) -> float:
    """Natural logarithm of a positive float or LogReal (``-inf`` for 0)."""
    if isinstance(x, LogReal):
        return x.ln
    x = float(x)
    if x < 0 or math.isnan(x):
        raise ValueError(f"expected a non-negative number, got {x}")
    return math.log(x) if x > 0 else -math.inf


def from_ln(ln: float) -> float | LogReal:
    """``exp(ln)`` as a float when it is 0 or a normal float64, else as a LogReal."""
    ln = float(ln)
    if math.isnan(ln) or ln == math.inf:
        raise ValueError(f"not a finite logarithm: {ln}")
    if ln == -math.inf:
        return 0.0
    if LN_MIN <= ln <= LN_MAX and math.exp(ln) < math.inf:
        return math.exp(ln)
    return LogReal(ln)


def to_plain(value):
    """JSON-ready form: a LogReal as ``{"decimal", "log10"}``, numpy scalars as Python numbers."""
    if isinstance(value, LogReal):
        return value.to_json()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def dumps(data, **kwargs) -> str:
    """``json.dumps`` that writes LogReals as ``{"decimal", "log10"}`` and refuses inf and nan (ValueError)."""
    return json.dumps(data, default=to_plain, allow_nan=False, **kwargs)


def finite_or_log(values) -> np.ndarray:
    """Floats for plotting: LogReals become NaN (not drawn), so a figure never shows an overflowed value."""
    return np.array([np.nan if isinstance(v, LogReal) else float(v) for v in values], dtype=np.float64)


def logsumexp(a, axis: int = -1) -> np.ndarray:
    """``ln sum exp(a)`` along ``axis`` without overflow (the package's one log-sum-exp): ``-inf`` for an empty or
    all ``-inf`` input, ``+inf`` if an entry is ``+inf``."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.shape[axis] == 0:
        return np.squeeze(np.full(np.delete(np.array(a.shape), axis % a.ndim), -np.inf))
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # +inf entries: answered below
        out = np.squeeze(top, axis=axis) + np.log(np.sum(np.exp(a - top), axis=axis))
    return np.where(np.any(a == np.inf, axis=axis), np.inf, out)
