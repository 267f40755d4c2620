"""``sabounds.scaling``: ours and edelman against depth and width, across checkpoints or depth truncations of one,
with log-log fits and, per checkpoint, each quantity's growth law in depth."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabounds.api._common import model_or_default
from sabounds.errors import InputError

if TYPE_CHECKING:
    from sabounds.numerics.proxies.growth import DepthGrowth
    from sabounds.numerics.proxies.scaling import ScalingResult
    from sabounds.render.figure_formats import FigureOptions


@dataclass(frozen=True)
class Scaling:
    """``sabounds.scaling``'s result: ``result`` (``points``: one per checkpoint and depth; ``fits``: log-log slopes
    in L and N per quantity); :meth:`growths` the depth law of one quantity per checkpoint."""

    result: ScalingResult = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        """The record ``sabounds scaling --json`` prints."""
        record: dict[str, Any] = self.result.to_json()
        return record

    def growths(self, quantity: str) -> list[DepthGrowth]:
        """``quantity``'s growth law in depth (``ours`` or ``edelman``), one per checkpoint with two depths or more."""
        from sabounds.numerics.proxies.growth import depth_growths

        return depth_growths(self.result.points, quantity)

    def write(
        self,
        out: str | Path,
        *,
        force: bool = False,
        protect: Sequence[str | Path] = (),
        figures: FigureOptions | None = None,
    ) -> None:
        """scaling.csv, fits.csv, growth.csv and the figure into the new folder ``out``."""
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.outputs.files import write_scaling_files

        with atomic_directory(out, force=force, protect=list(protect)) as work:
            write_scaling_files(self.result, work, figures=figures)


def scaling(
    models: Sequence[Any] = (),
    *,
    depths: Sequence[int] | None = None,
    lphi: float | None = None,
    rank_tol: float | None = None,
    allow_pickle: bool = False,
    mapping: str | Path | None = None,
    architecture: str | None = None,
    progress_bar: Callable[[int], AbstractContextManager[Callable[[str], None]]] | None = None,
) -> Scaling:
    """ours and edelman of every checkpoint of ``models`` (none: :func:`default_model`) at each of ``depths`` (its
    full depth when None); ``progress_bar(total)``: a context manager yielding ``advance(note)``, once per layer."""
    from sabounds.numerics.checkpoints.errors import CheckpointError
    from sabounds.numerics.proxies.scaling import plan_scaling
    from sabounds.numerics.proxies.scaling import scaling as measure
    from sabounds.numerics.spectra import RANK_TOL

    chosen = list(models) or [model_or_default(None)]
    try:
        plan = plan_scaling(chosen, depths, allow_pickle, mapping, architecture)
        with progress_bar(plan.layers_to_read) if progress_bar else nullcontext(lambda note: None) as advance:
            return Scaling(measure(plan, lphi, RANK_TOL if rank_tol is None else rank_tol, advance))
    except (CheckpointError, ValueError) as exc:
        raise InputError(str(exc)) from None
