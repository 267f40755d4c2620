"""Where the bound's inputs come from: a checkpoint directory, through the package's measurement of its layers.

The one place that knows the measurement's interface.  A family whose layer departs from BERT's gets a
:class:`~sabounds.numerics.bound.family.Family` (derivation ``whole_bound.families``) with its premises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from sabounds.numerics.bound.family import Family, NormRadii
from sabounds.numerics.bound.slots import LayerInput, Model, build_model, shell
from sabounds.numerics.checkpoints.architectures import PRE_LN, bias_unmodelled
from sabounds.numerics.proxies.layer_factors import departures, premise_for, token_norm, unmodelled
from sabounds.numerics.proxies.model_analysis import measure_model, open_checkpoint
from sabounds.numerics.spectra import RANK_TOL

FAMILY_PREMISES = (
    "read-out: the scalar read-out is applied to the last block's output; a final norm, where the family has one, is "
    "taken as part of the read-out (step whole_bound.families.read_out)",
)
PRE_LN_PREMISES = (
    "input norms: attention reads the pre-attention norm's outputs (norm <= B = sqrt(N) max|g1| + ||b1||), the MLP "
    "the pre-MLP norm's (<= R); --input-norm does not enter; B, R and max|g| rounded up to dyadic shells and priced "
    "(post hoc 'norm_shells')",
)
ROPE_STEP = "whole_bound.families.rope_cover"
"""The step a RoPE family's totals rest on without a derivation (listed in the JSON's ``assumed_not_derived``)."""
ROPE_PREMISE = (
    "RoPE: each QK_h slot is covered as one matrix with the family's uniform bounds b_i = sigma_i(Wq_h) "
    "sigma_i(Wk_g) (the product inequality prod_{i<=k} sigma_i <= prod_{i<=k} b_i at every offset, "
    "hence sigma_1 and S_p for p > 0; not sigma_i <= b_i one by one); that this covers the scores at every offset at once is assumed, not derived "
    f"(step {ROPE_STEP})"
)


def layer_inputs(spectra, intermediate: int) -> list[LayerInput]:
    """``LayerInput`` per measured layer (singular values and (2,1)-norms only; no weights kept)."""
    return [
        LayerInput(
            qk=list(s.qk),
            vt=list(s.vt),
            m_in=s.m_in,
            m_out=s.m_out,
            qk_21=[float(x) for x in s.qk_21],
            vt_21=[float(x) for x in s.vt_21],
            m_in_21=float(s.m_in_21),
            m_out_21=float(s.m_out_21),
            intermediate=intermediate,
            m_gate=s.m_gate,
            m_gate_21=None if s.m_gate_21 is None else float(s.m_gate_21),
        )
        for s in spectra
    ]


def family_of(shape, spectra, rms_floor: float | None = None) -> Family | None:
    """None for the BERT layer; else the family's bookkeeping, norms per layer and the premises to print."""
    if shape.published:
        return None
    premise = premise_for(shape, rms_floor)
    pre_ln = shape.layout == PRE_LN
    if not pre_ln and shape.gated:
        raise ValueError(
            f"the whole bound for a post-LN gated MLP ({shape.family}) is not derived: the MLP's input "
            "radius is not bounded by a norm; its proxies are in 'sabounds analyze'"
        )
    norms = []
    notes = []
    for s in spectra if pre_ln else ():
        attn, mlp = s.token_norms()
        norms.append(NormRadii(attn.gain, attn.radius, mlp.gain, mlp.radius))
        notes += [n.assumed for n in (attn, mlp) if n.assumed]
    premises = [*departures(shape, premise, tuple(notes), with_unmodelled=False), *FAMILY_PREMISES]
    if pre_ln:
        premises += PRE_LN_PREMISES
    assumed: tuple[str, ...] = ()
    if shape.rope is not None:
        premises.append(ROPE_PREMISE)
        assumed = (ROPE_STEP,)
    return Family(
        shape.family,
        pre_ln,
        shape.gated,
        shape.activation,
        shape.head_dim,
        premise,
        tuple(norms),
        tuple(premises),
        assumed,
    )


GIVEN = "given (--input-norm)"
EMBEDDING = "embedding LayerNorm output bound"


@dataclass(frozen=True)
class InputNorm:
    """``B_1``, the norm bound of the tokens layer 1 reads, and where it came from (``source``); ``radius`` the
    embedding LayerNorm's output bound when ``value`` is its dyadic shell (then priced, ``Model.input_radius``)."""

    value: float
    source: str
    radius: float | None = None

    def apply(self, model: Model) -> Model:
        """``model`` with the embedding radius it is priced for (None where B_1 is given or assumed)."""
        return replace(model, input_radius=self.radius)


def default_input_norm(checkpoint) -> InputNorm:
    """``B_1`` when none is given: a post-LN layer 1 reads the embedding LayerNorm's output, whose norm is at most
    ``sqrt(N) max|g| + ||b||`` (step whole_bound.norm_output), rounded up to its dyadic shell; else 1, said."""
    if checkpoint.shape.layout == PRE_LN:
        return InputNorm(1.0, "assumed 1: unused, a pre-LN layer's attention and MLP read their own norms' outputs")
    weight, bias, why = checkpoint.embedding_norm()
    if weight is None:
        return InputNorm(1.0, f"assumed 1: {why}; pass --input-norm B for the norm bound of the tokens layer 1 reads")
    radius = token_norm(checkpoint.shape.hidden, weight, bias, "embedding").radius
    return InputNorm(float(2.0 ** shell(radius)), EMBEDDING, radius)


def resolve_input_norm(given: float | None, checkpoint_default: InputNorm) -> InputNorm:
    """``given`` (``--input-norm``) as it is, else the checkpoint's default."""
    return checkpoint_default if given is None else InputNorm(float(given), GIVEN)


def model_from_measured(
    shape,
    spectra,
    rms_floor: float | None = None,
    grid_m: int | None = None,
    rank_tol: float = RANK_TOL,
    biases: dict[str, float] | None = None,
) -> Model:
    """The bound's :class:`Model` of measured layers (``spectra``): family, premises, the post-LN norm radii and what
    the bookkeeping leaves out: the family's maps and the stored linear ``biases`` (role -> largest norm,
    ``CheckpointSource.linear_biases``; None where the weights say nothing of biases, as in the study's models)."""
    family = family_of(shape, spectra, rms_floor)
    radii = [None if s.post_radii is None else tuple(float(r) for r in s.post_radii) for s in spectra]
    model = build_model(
        layer_inputs(spectra, shape.intermediate),
        shape.hidden,
        grid_m,
        rank_tol,
        family,
        radii if any(r is not None for r in radii) else None,
    )
    named = unmodelled(shape)
    return replace(model, unmodelled=(*named, *bias_unmodelled(biases or {}, shape.rope is not None, named)))


def model_from_checkpoint(
    model_dir: str | Path,
    layers: int | None = None,
    allow_pickle: bool = False,
    grid_m: int | None = None,
    rank_tol: float = RANK_TOL,
    progress: Callable[[str], None] | None = None,
    rms_floor: float | None = None,
) -> tuple[Model, dict]:
    """The bound's :class:`Model` of a checkpoint's first ``layers`` layers, and what the checkpoint says besides:
    ``model_dir``, ``context`` (its own context length and the field it came from, ``(None, "")`` if none) and
    ``input_norm`` (:func:`default_input_norm`)."""
    checkpoint = open_checkpoint(model_dir, allow_pickle=allow_pickle)
    premise_for(checkpoint.shape, rms_floor)  # a bad --rms-floor is refused before any layer is read
    return model_from_measurement(
        checkpoint, measure_model(checkpoint, layers, progress).layers, rms_floor, grid_m, rank_tol
    )


def model_from_measurement(
    checkpoint, spectra, rms_floor: float | None = None, grid_m: int | None = None, rank_tol: float = RANK_TOL
) -> tuple[Model, dict]:
    """:func:`model_from_checkpoint` of an opened checkpoint whose first ``len(spectra)`` layers are measured already
    (``sabounds.analyze``'s measurement: each head's decompositions shared, not done again)."""
    biases = checkpoint.linear_biases(len(spectra))
    model = model_from_measured(checkpoint.shape, spectra, rms_floor, grid_m, rank_tol, biases)
    return model, {
        "model_dir": str(checkpoint.model_dir),
        "context": checkpoint.context,
        "input_norm": default_input_norm(checkpoint),
    }
