"""The Python API: what the commands compute, as objects with pandas tables and matplotlib figures.

    import sabounds
    result = sabounds.analyze("path/to/model")        # a folder, an .onnx file, a dict of arrays, a state_dict
    result.table                                       # one row per matrix (pandas DataFrame)
    result.totals                                      # ours, edelman, their variants, the rank count
    fig = result.plot_spectra()                        # matplotlib Figure
    sabounds.verify(only="thm41.*").table              # the checks, as `sabounds verify --json` lists them
    sabounds.regimes().json                            # as `sabounds regimes --format json`
    sabounds.conjecture("gelu-lipschitz", value="1.13").verdict
    sabounds.api.study("tiny", tasks=["digits"]).ranking  # trains a grid (needs the `study` extra)

Each result's ``json`` is the same content as its command's ``--json`` output.  Bad input raises
``sabounds.api.InputError`` (a ``ValueError``) with the command's one-line message.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Sequence

from sabounds.errors import UserError


class InputError(ValueError):
    """Bad input to an API call; the message is the one line the command would print."""


def _frame(rows: list[dict], columns: Sequence[str] | None = None):
    import pandas as pd
    return pd.DataFrame(rows, columns=columns)


@dataclass(frozen=True)
class Analysis:
    """``sabounds.analyze``'s result: ``table`` (one row per matrix), ``totals``, ``json`` and figures.

    ``analysis`` is the underlying ``sabounds.numerics.proxies.model_analysis.ModelAnalysis``; ``proxy`` says whether
    the published proxy applies unchanged (``"published"``) or the labelled extension (``"extension"``, with
    ``departures``)."""

    analysis: object
    json: dict = field(repr=False)

    @property
    def table(self):
        """Per-matrix rows: layer, head (-1 for MLP matrices), type, rank, norms, alpha, gamma, scale, p_opt, ..."""
        return _frame(self.json["matrices"])

    @property
    def totals(self) -> dict:
        """``ours``, ``edelman``, the two section-3 variants and the rank count ``sum sqrt(rank N) + sqrt(L)``."""
        a = self.analysis
        return {"ours": a.ours, "edelman": a.edelman, "ours_lphi_in_gamma": a.variants.ours_lphi_in_gamma,
                "edelman_qk_factor_2": a.variants.edelman_qk_factor_2, "rank_count": a.rank_count}

    @property
    def proxy(self) -> str:
        return self.analysis.proxy

    @property
    def departures(self) -> tuple[str, ...]:
        return self.analysis.departures

    def _panels(self, title: str):
        import matplotlib.pyplot as plt
        types = self.analysis.types()
        fig, axes = plt.subplots(1, len(types), figsize=(3.2 * len(types), 3.4), constrained_layout=True,
                                 squeeze=False)
        fig.suptitle(title)
        return fig, dict(zip(types, axes[0]))

    def _colour(self, layer: int):
        import matplotlib.pyplot as plt
        return plt.cm.viridis(layer / max(1, self.analysis.shape.layers - 1))

    def _colour_bar(self, fig, axes) -> None:
        import matplotlib.pyplot as plt
        from matplotlib.colors import Normalize
        mappable = plt.cm.ScalarMappable(norm=Normalize(0, max(1, self.analysis.shape.layers - 1)), cmap="viridis")
        fig.colorbar(mappable, ax=list(axes.values()), label="layer")

    def plot_spectra(self):
        """``sigma_i / sigma_1`` against ``i`` (log scale) for every matrix, one panel per type, colour = layer."""
        import numpy as np
        fig, axes = self._panels("Normalised singular values")
        for m in self.analysis.matrices:
            s = m.sigma[m.sigma > 0]
            if s.size:
                axes[m.type].semilogy(np.arange(1, s.size + 1), s / s[0], lw=0.7, alpha=0.6,
                                      color=self._colour(m.layer))
        for kind, ax in axes.items():
            ax.set(title=kind, xlabel="index i", ylabel="sigma_i / sigma_1")
        self._colour_bar(fig, axes)
        return fig

    def plot_contributions(self):
        """Each matrix's contribution ``S_p^{1/(p+2)} scale^{p/(p+2)} N^{(p+1)/(p+2)}`` over the p grid, p_opt dotted."""
        fig, axes = self._panels(f"Contribution against p (grid m = {self.analysis.grid_m})")
        for m in self.analysis.matrices:
            colour = self._colour(m.layer)
            axes[m.type].semilogy(self.analysis.ps, m.contributions, lw=0.7, alpha=0.6, color=colour)
            axes[m.type].plot([m.p_opt], [m.min_contribution], "o", ms=3, color=colour)
        for kind, ax in axes.items():
            ax.set(title=kind, xlabel="p", ylabel="contribution")
        self._colour_bar(fig, axes)
        return fig

    def plot_p_opt(self):
        """p_opt of every matrix against its layer, one marker per type."""
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
        types = self.analysis.types()
        for i, kind in enumerate(types):
            rows = [m for m in self.analysis.matrices if m.type == kind]
            offset = 0.12 * (i - (len(types) - 1) / 2)
            ax.plot([m.layer + offset for m in rows], [m.p_opt for m in rows], "o", ms=4, alpha=0.6, label=kind)
        ax.set(xlabel="layer", ylabel="p_opt", ylim=(-0.1, 2.1), title="Optimal Schatten index per layer")
        ax.legend()
        return fig


def analyze(source, *, layers: int | None = None, architecture: str | None = None, mapping=None, config=None,
            lphi: float | None = None, grid_m: int | None = None, rank_tol: float | None = None,
            allow_pickle: bool = False, rms_floor: float | None = None) -> Analysis:
    """Open -> measure -> analyse ``source`` (model folder, ``.onnx`` or ``.gguf`` file, dict of arrays with
    ``config=``, torch ``state_dict`` with ``config=`` or ``nn.Module``); the first ``layers`` layers as an
    ``L = layers`` model.  ``rms_floor``: the pre-LN premise (every norm input has rms >= it; default none, the
    config's eps alone)."""
    from sabounds.numerics.checkpoints.errors import CheckpointError
    from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint
    from sabounds.numerics.spectra import RANK_TOL
    try:
        opened = open_checkpoint(source, mapping, config=config, architecture=architecture, allow_pickle=allow_pickle)
        result = analyze_measured(measure_model(opened, layers), lphi=lphi, grid_m=grid_m,
                                  rank_tol=RANK_TOL if rank_tol is None else rank_tol, rms_floor=rms_floor)
        from sabounds.numerics.checkpoints.storage_info import storage_info
        info = storage_info(opened, result.shape.layers)
    except (CheckpointError, ValueError) as exc:
        raise InputError(str(exc)) from None
    return Analysis(result, {**result.to_json(), "source": info})


@dataclass(frozen=True)
class Checks:
    """``sabounds.verify``'s result: ``json`` is ``{"checks": [...], "summary": {...}}`` as ``verify --json``."""

    json: dict = field(repr=False)
    failing: tuple[str, ...] = ()

    @property
    def table(self):
        return _frame(self.json["checks"])

    @property
    def summary(self) -> dict:
        return self.json["summary"]


def verify(only: str | None = None, *, precision: int = 50, samples: int = 200, seed: int | None = None) -> Checks:
    """Decide the registered checks (those whose id matches ``only``: a glob or a substring)."""
    from sabounds.proofs_check.registry import run_all, select
    from sabounds.proofs_check.outcome_records import failing_steps, outcome_record, summary
    from sabounds.proofs_check.verdict import Settings
    try:
        settings = Settings(precision=precision, samples=samples, **({} if seed is None else {"seed": seed}))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    checks = select(only)
    if not checks:
        raise InputError(f"only={only!r} matches no check id")
    results = run_all(checks, settings)
    return Checks({"checks": [outcome_record(c, o) for c, o in results], "summary": summary(results)},
                  tuple(c.id for c in failing_steps(results)))


@dataclass(frozen=True)
class Regimes:
    """``sabounds.regimes``' result: ``json`` as ``regimes --format json``; ``table`` one row per regime and bound."""

    json: dict = field(repr=False)
    markdown: str = field(repr=False, default="")

    @property
    def table(self):
        rows = [{"regime": r["name"], "alpha": r["alpha"], "bound": bound, **b}
                for r in self.json["regimes"] for bound, b in r["bounds"].items()]
        return _frame(rows)


def regimes(regime: str | None = None, architecture: str = "single_head") -> Regimes:
    """The closed-form regime tables (exponents in L and N, dependence on T) for one or all regimes."""
    from sabounds.render.regime_tables import json_data, markdown
    from sabounds.theory.architecture import ARCHITECTURES
    from sabounds.theory.regimes import REGIMES, table
    if regime is not None and regime not in REGIMES:
        raise InputError(f"unknown regime {regime!r}; choose from {', '.join(REGIMES)}")
    if architecture not in ARCHITECTURES:
        raise InputError(f"unknown architecture {architecture!r}; choose from {', '.join(ARCHITECTURES)}")
    results = table((regime,) if regime else None, ARCHITECTURES[architecture]())
    return Regimes(json_data(results), markdown(results))


@dataclass(frozen=True)
class Conjecture:
    """``sabounds.conjecture``'s result: ``json`` as ``conjecture --json``; ``verdict`` one of proved, verified,
    refuted, unresolved."""

    json: dict = field(repr=False)

    @property
    def verdict(self) -> str:
        return self.json["verdict"]

    @property
    def witness(self):
        return self.json["witness"]


def conjecture(target: str, value: str | float | None = None, variables: Sequence[str] = (), *,
               precision: int = 50, samples: int = 200, seed: int | None = None, time_limit: float = 4.0) -> Conjecture:
    """Decide a built-in family's proposed constant (``value``) or a relation ``"LHS <= RHS"`` over ``variables``
    (``"name:lo:hi"`` strings, as the command's ``--var``)."""
    import time

    from sabounds.commands.conjecture import conjecture_from, record
    from sabounds.proofs_check.verdict import Settings
    args = argparse.Namespace(target=target, value=None if value is None else str(value), var=list(variables),
                              time_limit=time_limit)
    try:
        proposed = conjecture_from(args)
        settings = Settings(precision=precision, samples=samples, **({} if seed is None else {"seed": seed}))
        if samples > 100_000 or precision > 1000:
            raise UserError("samples is limited to 100000 and precision to 1000")
    except (UserError, ValueError) as exc:
        raise InputError(str(exc)) from None
    start = time.perf_counter()
    outcome = proposed.decide(settings).with_seconds(0.0)
    return Conjecture(record(proposed, outcome.with_seconds(time.perf_counter() - start)))


@dataclass(frozen=True)
class Study:
    """``sabounds.api.study``'s result: ``json`` as ``sabounds study --json``; ``runs`` (one row per run) and
    ``ranking`` (one row per task and measure: tau, interval, granulated Psi, sign-error) as pandas tables."""

    json: dict = field(repr=False)

    @property
    def runs(self):
        return _frame([{"label": r["label"], "status": r["status"], **r["spec"], **(r["record"] or {}),
                        **{f"ln_{k}": v for k, v in (r["measures"] or {}).items()}} for r in self.json["runs"]])

    @property
    def ranking(self):
        return _frame([{"task": task, "measure": r["measure"], "runs": r["runs"], "tau": r["tau"],
                        "tau_low": r["tau_low"], "tau_high": r["tau_high"], "Psi": r["granulated"]["Psi"],
                        "sign_error_worst": r["sign_error"]["worst"], "sign_error_mean": r["sign_error"]["mean"]}
                       for task, t in self.json["tasks"].items() for r in t["rankings"]["gap_error"]])

    def write(self, out, *, force: bool = False, formats: Sequence[str] = ("png", "pdf", "svg"), dpi: int = 150):
        """study.json, runs.csv, table.md and the figures into the new folder ``out``."""
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.render.plots import FigureOptions
        from sabounds.study.outputs import write_study
        with atomic_directory(out, force=force) as work:
            write_study(self.json, work, FigureOptions(tuple(formats), dpi))


def study(grid: str = "default", *, tasks: Sequence[str] | None = None, workers: int | None = None,
          scheduler: str | None = None, cache_dir=None) -> Study:
    """Train, measure and rank the named grid (``sabounds study``); ``cache_dir`` None: no run cache."""
    from sabounds.study.pipeline import run_study
    try:
        return Study(run_study(grid, tasks, workers, scheduler, cache_dir))
    except ValueError as exc:
        raise InputError(str(exc)) from None
