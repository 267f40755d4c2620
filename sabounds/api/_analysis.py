"""``sabounds.analyze``: a checkpoint's spectra, post hoc p and the paper's proxies, as a result object with pandas
tables and matplotlib figures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabounds.api._common import frame, model_or_default, renamed
from sabounds.api._common import user_bound as load_user_bound
from sabounds.errors import InputError

if TYPE_CHECKING:  # the numerics, pandas and matplotlib load on the first call: ``import sabounds.api`` stays light
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from sabounds.numerics.checkpoints.source import CheckpointSource
    from sabounds.numerics.log_real import LogReal
    from sabounds.numerics.proxies.analysis_results import ModelAnalysis
    from sabounds.numerics.proxies.layer_measurement import MeasuredModel
    from sabounds.numerics.proxies.storage_rank import StorageRank


@dataclass(frozen=True)
class Analysis:
    """``sabounds.analyze``'s result: ``table`` (one row per matrix), ``totals``, ``json`` and figures.

    ``analysis`` is the underlying ``sabounds.numerics.proxies.model_analysis.ModelAnalysis``; ``proxy`` says whether
    the published proxy applies unchanged (``"published"``) or the labelled extension (``"extension"``, with
    ``departures``)."""

    analysis: ModelAnalysis
    json: dict[str, Any] = field(repr=False)
    opened: tuple[CheckpointSource | None, MeasuredModel | None] = field(repr=False, default=(None, None))
    """The opened checkpoint and its measured layers (for :meth:`storage_rank` without reading the weights again)."""

    @property
    def table(self) -> pd.DataFrame:
        """Per-matrix rows: layer, head (-1 for MLP matrices), type, rank, norms, alpha, gamma, scale, p_opt, ..."""
        return frame(self.json["matrices"])

    def to_frame(self) -> pd.DataFrame:
        """The per-matrix table (:attr:`table`)."""
        return self.table

    def to_json(self) -> dict[str, Any]:
        """The record ``sabounds analyze --json`` prints (without its labelled ``storage_rank``)."""
        return self.json

    def plot(self, kind: str = "spectra") -> Figure:
        """One figure: ``"spectra"``, ``"contributions"`` or ``"p_opt"`` (see the ``plot_*`` methods)."""
        plots = {"spectra": self.plot_spectra, "contributions": self.plot_contributions, "p_opt": self.plot_p_opt}
        if kind not in plots:
            raise InputError(f"unknown figure {kind!r}; choose from {', '.join(plots)}")
        return plots[kind]()

    def storage_rank(self) -> StorageRank:
        """The labelled storage-aware rank beside the published one (``numerics/proxies/storage_rank.py``)."""
        from sabounds.numerics.checkpoints.errors import CheckpointError
        from sabounds.numerics.proxies.storage_rank import storage_rank_of

        source, measured = self.opened
        try:
            return storage_rank_of(source, self.analysis, measured)
        except (CheckpointError, ValueError, OSError) as exc:
            raise InputError(str(exc)) from None

    @property
    def totals(self) -> dict[str, float | LogReal]:
        """``ours``, ``edelman``, the two section-3 variants and the rank count ``sum sqrt(rank N) + sqrt(L)``."""
        a = self.analysis
        return {
            "ours": a.ours,
            "edelman": a.edelman,
            "ours_lphi_in_gamma": a.variants.ours_lphi_in_gamma,
            "edelman_qk_factor_2": a.variants.edelman_qk_factor_2,
            "rank_count": a.rank_count,
        }

    @property
    def proxy(self) -> str:
        return self.analysis.proxy

    @property
    def departures(self) -> tuple[str, ...]:
        return self.analysis.departures

    def _panels(self, title: str) -> tuple[Figure, dict[str, Axes]]:
        import matplotlib.pyplot as plt

        types = self.analysis.types()
        fig, axes = plt.subplots(1, len(types), figsize=(3.2 * len(types), 3.4), constrained_layout=True, squeeze=False)
        fig.suptitle(title)
        return fig, dict(zip(types, axes[0]))

    def _colour(self, layer: int) -> Any:
        import matplotlib.pyplot as plt

        return plt.cm.viridis(layer / max(1, self.analysis.shape.layers - 1))

    def _colour_bar(self, fig: Figure, axes: dict[str, Axes]) -> None:
        import matplotlib.pyplot as plt
        from matplotlib.colors import Normalize

        mappable = plt.cm.ScalarMappable(norm=Normalize(0, max(1, self.analysis.shape.layers - 1)), cmap="viridis")
        fig.colorbar(mappable, ax=list(axes.values()), label="layer")

    def plot_spectra(self) -> Figure:
        """``sigma_i / sigma_1`` against ``i`` (log scale) for every matrix, one panel per type, colour = layer."""
        import numpy as np

        fig, axes = self._panels("Normalised singular values")
        for m in self.analysis.matrices:
            s = m.sigma[m.sigma > 0]
            if s.size:
                axes[m.type].semilogy(
                    np.arange(1, s.size + 1), s / s[0], lw=0.7, alpha=0.6, color=self._colour(m.layer)
                )
        for kind, ax in axes.items():
            ax.set(title=kind, xlabel="index i", ylabel="sigma_i / sigma_1")
        self._colour_bar(fig, axes)
        return fig

    def plot_contributions(self) -> Figure:
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

    def plot_p_opt(self) -> Figure:
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


@renamed(source="model", bound="user_bound")
def analyze(
    model: Any = None,
    *,
    layers: int | None = None,
    architecture: str | None = None,
    mapping: dict[str, Any] | str | Path | None = None,
    config: dict[str, Any] | str | Path | None = None,
    lphi: float | None = None,
    grid_m: int | None = None,
    rank_tol: float | None = None,
    allow_pickle: bool = False,
    rms_floor: float | None = None,
    threads: int = 1,
    progress: Callable[[str], None] | None = None,
    user_bound: str | Path | None = None,
) -> Analysis:
    """Open -> measure -> analyse ``model`` (model folder, ``.onnx`` or ``.gguf`` file, dict of arrays with
    ``config=``, torch ``state_dict`` with ``config=`` or ``nn.Module``; None: :func:`default_model`); the first
    ``layers`` layers as an ``L = layers`` model.  ``rms_floor``: the pre-LN premise (every norm input has rms >= it;
    default none, the config's eps alone).  ``threads`` layers are measured at once; ``progress(note)`` is called
    once per layer read.  ``user_bound``: a TOML file of your own bound (docs/bounds.md), evaluated beside the others."""
    from sabounds.numerics.checkpoints.errors import CheckpointError
    from sabounds.numerics.checkpoints.storage_info import storage_info
    from sabounds.numerics.proxies.layer_measurement import MeasuredModel, check_depth
    from sabounds.numerics.proxies.model_analysis import analyze_measured, measure_model, open_checkpoint
    from sabounds.numerics.spectra import RANK_TOL

    user = load_user_bound(user_bound)
    try:
        opened = open_checkpoint(
            model_or_default(model), mapping, config=config, architecture=architecture, allow_pickle=allow_pickle
        )
        if threads > 1:
            from sabounds.numerics.proxies.certified_measure import measure_layers

            depth = check_depth(opened, layers)
            spectra = [s for s, _ in measure_layers(opened, depth, "certified", threads, progress or _quiet)]
            measured = MeasuredModel(opened.label, opened.shape.truncated(depth), spectra, opened.model_dir)
        else:
            measured = measure_model(opened, layers, progress)
        result = analyze_measured(
            measured, lphi=lphi, grid_m=grid_m, rank_tol=RANK_TOL if rank_tol is None else rank_tol, rms_floor=rms_floor
        )
        if user is not None:
            from dataclasses import replace

            from sabounds.numerics.proxies.baselines import proxy_values

            try:
                result = replace(
                    result,
                    baselines=result.baselines + proxy_values(result.matrices, result.raw_11, result.shape, [user]),
                )
            except (ValueError, ArithmeticError) as exc:  # e.g. a term that is not positive on this checkpoint
                raise InputError(f"{user_bound}: bound {user.id}: cannot evaluate on this checkpoint ({exc})") from None
        info = storage_info(opened, result.shape.layers)
    except (CheckpointError, ValueError) as exc:
        raise InputError(str(exc)) from None
    return Analysis(result, {**result.to_json(), "source": info}, (opened, measured))


@renamed(source="model")
def analysis_depth(
    model: Any = None,
    *,
    layers: int | None = None,
    architecture: str | None = None,
    mapping: dict[str, Any] | str | Path | None = None,
    allow_pickle: bool = False,
) -> int:
    """How many layers :func:`analyze` reads (for a progress bar); InputError as :func:`analyze` raises it."""
    from sabounds.numerics.checkpoints.errors import CheckpointError
    from sabounds.numerics.proxies.layer_measurement import check_depth
    from sabounds.numerics.proxies.model_analysis import open_checkpoint

    try:
        return check_depth(
            open_checkpoint(model_or_default(model), mapping, architecture=architecture, allow_pickle=allow_pickle),
            layers,
        )
    except (CheckpointError, ValueError) as exc:
        raise InputError(str(exc)) from None


def _quiet(note: str = "") -> None:
    """No progress display."""
