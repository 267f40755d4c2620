"""``sabounds.bound``: the whole bound (Theorem 3.1 [reconstructed], sum and rss aggregation) and Edelman et al.'s
on a checkpoint's weights, term by term, with vacuity verdicts and the n each bound needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabounds.api._common import model_or_default
from sabounds.errors import InputError
from sabounds.numerics.bound.context_tokens import MAX_TOKENS, checkpoint_tokens

if TYPE_CHECKING:  # sympy and the numerics load on the first call: ``import sabounds.api`` stays light
    import pandas as pd
    from matplotlib.figure import Figure

    from sabounds.numerics.bound.analysis import BoundAnalysis
    from sabounds.numerics.bound.slots import Model
    from sabounds.numerics.bound.whole import BoundInputs, WholeBound
    from sabounds.render.figure_formats import FigureOptions


@dataclass(frozen=True)
class Bound:
    """``sabounds.bound``'s result.  ``analysis`` is the underlying ``BoundAnalysis``; ``primary`` the bound at the
    published constants (``ours_sum``, ``ours_rss``, ``edelman``: each with ``terms``, ``total``, ``vacuous``),
    ``needed`` the n at which each falls below the target, ``setting`` what it was computed at."""

    analysis: BoundAnalysis = field(repr=False)

    @property
    def primary(self) -> WholeBound:
        return self.analysis.primary

    @property
    def setting(self) -> BoundInputs:
        return self.analysis.setting

    @property
    def needed(self) -> dict[str, Any]:
        return self.analysis.needed

    @property
    def sound(self) -> bool:
        """False where the network has maps the bookkeeping leaves out (the family's, or stored nonzero linear
        biases): then the totals are not a bound."""
        return self.analysis.sound

    @property
    def unmodelled(self) -> list[dict[str, str]]:
        """The maps left out, each ``{"component", "why"}`` (empty when :attr:`sound`)."""
        return [u.to_json() for u in self.analysis.unmodelled]

    @property
    def assumed_not_derived(self) -> list[str]:
        """Derivation steps the totals rest on that are assumed, not derived (RoPE's joint cover over offsets)."""
        return list(self.analysis.assumed_not_derived)

    @property
    def lines(self) -> list[str]:
        """What ``sabounds bound`` prints."""
        from sabounds.render.bound_text import bound_text_lines

        return bound_text_lines(self.analysis)

    def to_json(self) -> dict[str, Any]:
        """The record ``sabounds bound --json`` prints."""
        return self.analysis.to_json()

    def to_frame(self) -> pd.DataFrame:
        """One row per term of each bound of :attr:`primary`: bound, term, value (float)."""
        from sabounds.api._common import frame

        return frame(
            [
                {"bound": name, "term": t.label, "value": float(t.value)}
                for name in ("ours_sum", "ours_rss", "edelman")
                for t in getattr(self.primary, name).terms
            ]
        )

    def plot(self) -> Figure:
        """The bounds against n (log-log), if the call asked for ``curve_points`` and the totals are a bound."""
        if self.analysis.curve is None and not self.sound:
            raise InputError("no curve: the totals are not a bound on this network (see unmodelled)")
        if self.analysis.curve is None:
            raise InputError("no curve: call sabounds.bound with curve_points > 0")
        from sabounds.render.bound_figure import bound_axes

        figure: Figure = bound_axes(self.analysis)
        return figure

    def write(self, out: str | Path, *, figures: FigureOptions | None = None) -> list[Path]:
        """``bound.json``, ``bound.txt`` and, with a curve, ``bound_vs_n`` figures into the existing folder ``out``."""
        from sabounds.outputs.bound_files import write_files

        return write_files(self.analysis, out, figures)


def _check(
    delta: float,
    margin: float,
    input_norm: float | None,
    empirical_risk: float,
    exact: dict[str, Any],
    tokens: int | None,
) -> None:
    if not (0 < delta < 1):
        raise InputError(f"delta must lie in (0, 1), got {delta}")
    for name, value in (("margin", margin), ("input_norm", input_norm)):
        if value is not None and not value > 0:
            raise InputError(f"{name} must be positive, got {value}")
    if not 0 <= empirical_risk <= 1:
        raise InputError(f"empirical_risk must lie in [0, 1], got {empirical_risk}")
    for k, v in exact.items():
        if not v > 0:
            raise InputError(f"constant {k} must be positive, got {v}")
    if tokens is not None and not 0 < tokens <= MAX_TOKENS:
        raise InputError(f"tokens must lie in 1..{MAX_TOKENS}, got {tokens if tokens < 10**30 else 'more'}")


def bound(
    model: Any = None,
    *,
    n: float | int | str,
    delta: float,
    margin: float,
    input_norm: float | None = None,
    tokens: int | None = None,
    target: float = 1,
    empirical_risk: float = 0.0,
    constants: dict[str, float | int | str] | None = None,
    precision: int = 30,
    layers: int | None = None,
    curve_points: int = 0,
    allow_pickle: bool = False,
    rms_floor: float | None = None,
) -> Bound:
    """The whole bound (Theorem 3.1, sum and rss aggregation) and Edelman et al.'s on a checkpoint's weights.

    ``model`` may be a :func:`sabounds.analyze` result: its measurement (every head's decompositions) is used, not
    done again (``layers``: its first ``layers`` layers).  ``constants`` maps names of :data:`sabounds.theory.whole_bound.CONSTANTS` to exact values (numbers or decimal
    strings, taken as exact rationals).  Without ``model`` the bundled all-MiniLM-L6-v2 (:func:`default_model`).  A
    family whose layer departs from BERT's (GPT-2, LLaMA, ViT, ...) is bounded under the premises in
    ``model.family.premises``; where the network has maps the bookkeeping leaves out (Gemma 2/3's post-norms, any
    stored nonzero bias of a linear map but a key bias without RoPE: BERT's, GPT-2's, Qwen2's) the result's ``sound``
    is False, ``unmodelled`` names them and no n is solved for.  ``tokens``
    defaults to the checkpoint's context length (``setting.tokens_source`` says where T came from); ``input_norm``
    (B, the norm bound of layer 1's tokens) to the embedding LayerNorm's output bound ``sqrt(N) max|g| + ||b||``
    rounded up to its dyadic shell (and priced) where a post-LN checkpoint has one, else 1 (``setting.input_norm_source``
    says which); ``rms_floor`` is the pre-LN normalisation premise (every norm input has rms >= it).
    """
    import sympy as sp

    from sabounds.numerics.bound.analysis import analyze_bound
    from sabounds.numerics.bound.checkpoint_inputs import resolve_input_norm
    from sabounds.numerics.bound.compiled import constants_key
    from sabounds.numerics.bound.slots import VARIANTS
    from sabounds.numerics.bound.whole import BoundInputs
    from sabounds.numerics.checkpoints.errors import CheckpointError

    try:
        exact = {k: sp.Rational(str(v)) for k, v in (constants or {}).items()}
    except (TypeError, ValueError, sp.SympifyError) as exc:
        raise InputError(f"constants must be numbers or decimal strings ({exc})") from None
    _check(delta, margin, input_norm, empirical_risk, exact, tokens)
    try:
        built, info = _measured(model, layers, allow_pickle, rms_floor)
        t, t_source = checkpoint_tokens(info["context"], tokens)
        b = resolve_input_norm(input_norm, info["input_norm"])
        built = b.apply(built)
        setting = BoundInputs(
            n=n,
            delta=delta,
            margin=margin,
            input_norm=b.value,
            input_norm_source=b.source,
            tokens=t,
            tokens_source=t_source,
            empirical=empirical_risk,
            constants=constants_key(exact),
            dps=precision,
        )
        return Bound(analyze_bound(built, setting, target, VARIANTS, curve_points))
    except (CheckpointError, ValueError) as exc:
        raise InputError(" ".join(str(exc).split())) from None
    except OSError as exc:
        raise InputError(f"cannot read the model ({exc.strerror or type(exc).__name__})") from None


def _measured(
    model: Any, layers: int | None, allow_pickle: bool, rms_floor: float | None
) -> tuple[Model, dict[str, Any]]:
    """The bound's model and the checkpoint's facts: from an :class:`~sabounds.api._analysis.Analysis`'s own
    measurement where ``model`` is one, else measured here."""
    from sabounds.api._analysis import Analysis
    from sabounds.numerics.bound.checkpoint_inputs import model_from_checkpoint, model_from_measurement
    from sabounds.numerics.proxies.layer_factors import premise_for
    from sabounds.numerics.proxies.layer_measurement import check_depth

    if not isinstance(model, Analysis):
        return model_from_checkpoint(model_or_default(model), layers, allow_pickle, rms_floor=rms_floor)
    source, measured = model.opened
    if source is None or measured is None:
        raise InputError("this analysis keeps no measurement to bound: pass the checkpoint itself")
    premise_for(source.shape, rms_floor)
    depth = check_depth(source, len(measured.layers) if layers is None else layers)
    if depth > len(measured.layers):
        raise InputError(f"--layers {layers}: the analysis measured {len(measured.layers)} layers")
    return model_from_measurement(source, measured.layers[:depth], rms_floor)
