"""One run end to end (train, then measure), as the plain dict a Dask task returns and the cache stores."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sabounds.training_study.grids import RunSpec
from sabounds.training_study.measures import baseline_measures, bound_measures, margin_measures, proxy_measures


def _margin_facts(trained) -> tuple[float, float, float]:
    """(largest embedded training token norm B, fraction of training points with margin below ``MARGIN``, the
    ``MARGIN_QUANTILE`` quantile of the training margins)."""
    import torch

    from sabounds.training_study.measures import MARGIN, MARGIN_QUANTILE

    model, data = trained.model, trained.data
    x = torch.from_numpy(data.x_train)
    y = torch.from_numpy(data.y_train).long()
    model.eval()
    with torch.no_grad():
        tokens = model.embed(x) + model.position
        logits = model(x)
    true = logits.gather(1, y[:, None])[:, 0]
    other = logits.scatter(1, y[:, None], -math.inf).max(dim=1).values
    margins = (true - other).double().numpy()
    return (
        float(tokens.norm(dim=-1).max()),
        float((margins < MARGIN).mean()),
        float(np.quantile(margins, MARGIN_QUANTILE)),
    )


def run_point(spec: RunSpec | dict, checkpoint: str | Path | None = None) -> dict:
    """Train ``spec`` and measure it: ``{"spec", "record", "measures", "p_profile", "settings"}`` (floats and
    strings only, so that two processes give byte-identical JSON).  ``checkpoint``: also save the trained weights
    there as a safetensors folder ``sabounds analyze`` reads."""
    from sabounds.training_study.model import export, matrices, save_checkpoint
    from sabounds.training_study.training import train

    spec = spec if isinstance(spec, RunSpec) else RunSpec(**spec)
    trained = train(spec)
    weights = export(trained.model)
    config = trained.model.config()
    measures, profile, _, measured = proxy_measures(weights, config)
    input_norm, empirical, margin = _margin_facts(trained)
    from sabounds.numerics.proxies.model_analysis import open_checkpoint

    biases = open_checkpoint(weights, config=config).linear_biases(spec.depth)
    measures.update(bound_measures(measured, trained.data.tokens, spec.size, input_norm, empirical, biases))
    params = sum(p.numel() for p in trained.model.parameters())
    final, initial = matrices(weights, spec.depth, spec.layout), matrices(trained.initial, spec.depth, spec.layout)
    measures.update(baseline_measures(final, initial, params))
    measures.update(margin_measures(final, initial, margin))
    if checkpoint is not None:
        save_checkpoint(trained.model, checkpoint)
    return {
        "spec": spec.to_json(),
        "record": trained.record,
        "measures": measures,
        "p_profile": profile,
        "settings": {"input_norm": input_norm, "empirical_margin_risk": empirical, "margin_quantile": margin},
    }
