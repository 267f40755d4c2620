"""Measure a trained checkpoint: per-matrix spectra, post hoc p and the paper's proxies (docs/definitions.md).

MODEL is a folder with config.json and model.safetensors (or a sharded model.safetensors.index.json), an
.onnx file or a .gguf file (llama.cpp; needs the gguf package); without it, the bundled all-MiniLM-L6-v2 checkpoint is used.  Families (from config.json's
model_type): BERT, DistilBERT, MPNet, GPT-2, LLaMA/Mistral/Qwen2, ViT; anything else through --mapping FILE.
The published proxy is reported where the family's layer is the published one, a labelled extension elsewhere.
Exit status 0 on success, 2 for a bad argument or checkpoint.
"""

from __future__ import annotations

import argparse
import math

from rich.console import Console
from rich.table import Table

from sabounds.numerics.checkpoints.architectures import FAMILIES
from sabounds.numerics.checkpoints.reader import CheckpointError, default_model_dir
from sabounds.numerics.proxies.model_analysis import (ModelAnalysis, analyze_measured, check_depth, measure_model,
                                                      open_checkpoint)
from sabounds.numerics.spectra import RANK_TOL
from sabounds.errors import UserError
from sabounds.numerics.log_real import dumps
from sabounds.progress import progress_bar


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


MAX_GRID_M = 10_000


def grid_m(text: str) -> int:
    """``--grid-m``: a positive integer up to 10^4 (the contribution table has ``2m + 1`` columns per matrix)."""
    value = positive_int(text)
    if value > MAX_GRID_M:
        raise argparse.ArgumentTypeError(f"at most {MAX_GRID_M}, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text!r}")
    return value


def add_figure_arguments(parser: argparse.ArgumentParser, default: tuple[str, ...] = ("png",)) -> None:
    """``--figure-format png,pdf,svg`` and ``--dpi`` (PNG resolution) for every command that draws figures."""
    from sabounds.render.figure_formats import FORMATS, parse_formats

    def formats(text):
        try:
            return parse_formats(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parser.add_argument("--figure-format", type=formats, default=tuple(default), metavar="FMT[,FMT]",
                        help=f"figure file formats, any of {','.join(FORMATS)} (default {','.join(default)})")
    parser.add_argument("--dpi", type=positive_int, default=150, metavar="D", help="PNG resolution (default 150)")


def figure_options(args):
    from sabounds.render.figure_formats import FigureOptions
    try:
        return FigureOptions(tuple(args.figure_format), args.dpi)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``analyze`` and ``scaling``."""
    parser.add_argument("--lphi", type=positive_float, default=None, metavar="X",
                        help="Lipschitz bound of the activation (default: GELU's published 1.13, or the derived "
                             "constant of the family's activation)")
    parser.add_argument("--rank-tol", type=positive_float, default=RANK_TOL, metavar="T",
                        help="numerical-rank tolerance (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--out", metavar="DIR", help="write CSV tables (and figures) into the new directory DIR")
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    add_figure_arguments(parser)
    parser.add_argument("--allow-pickle", action="store_true",
                        help="read pytorch_model.bin through PyTorch's weights-only loader (needs torch)")
    parser.add_argument("--mapping", metavar="FILE",
                        help="describe a model of no built-in family: tensor names and structure (TOML or JSON)")
    parser.add_argument("--architecture", choices=sorted(FAMILIES), metavar="FAMILY",
                        help=f"use this family instead of config.json's model_type ({', '.join(FAMILIES)})")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model_dir", nargs="?", metavar="MODEL",
                        help="model directory, .onnx or .gguf file (default: all-MiniLM-L6-v2)")
    parser.add_argument("--layers", type=positive_int, metavar="K", help="analyse the first K layers as an L = K model")
    parser.add_argument("--grid-m", type=grid_m, metavar="M", help="p grid {0, 1/M, ..., 2} (default ceil(L + ln N))")
    parser.add_argument("--plots", action="store_true", help="with --out, also write the figures (--figure-format)")
    parser.add_argument("--rms-floor", type=float, default=None, metavar="RHO",
                        help="pre-LN premise: every normalisation input has rms >= RHO, so Lip_LN = max|g| / "
                             "sqrt(RHO^2 + eps) (default: no premise, the config's eps alone)")
    parser.add_argument("--threads", type=positive_int, default=1, metavar="T",
                        help="measure T layers at once, one BLAS thread each (default 1; T layers resident)")
    add_common_arguments(parser)


def model_dir_or_default(model_dir: str | None):
    try:
        return model_dir if model_dir is not None else default_model_dir()
    except CheckpointError as exc:
        raise UserError(str(exc)) from None


def analyze(args) -> ModelAnalysis:
    """Run the analysis the arguments ask for, with a progress bar over layers; bad input becomes UserError."""
    try:
        source = open_checkpoint(model_dir_or_default(args.model_dir), args.mapping, architecture=args.architecture,
                                 allow_pickle=args.allow_pickle)
        depth = check_depth(source, args.layers)
        with progress_bar("reading layers", total=depth, enabled=not args.json) as advance:
            if getattr(args, "threads", 1) > 1:
                from sabounds.numerics.proxies.certified_measure import measure_layers
                from sabounds.numerics.proxies.model_analysis import MeasuredModel
                spectra = [s for s, _ in measure_layers(source, depth, "certified", args.threads, advance)]
                measured = MeasuredModel(source.label, source.shape.truncated(depth), spectra, source.model_dir)
            else:
                measured = measure_model(source, depth, advance)
        analysis = analyze_measured(measured, lphi=args.lphi, grid_m=args.grid_m, rank_tol=args.rank_tol,
                                    rms_floor=getattr(args, "rms_floor", None))
        args._opened = (source, measured)  # for the storage-aware rank, without reading the weights again
        return analysis
    except (CheckpointError, ValueError) as exc:
        raise UserError(str(exc)) from None


def type_table(analysis: ModelAnalysis) -> Table:
    table = Table(title=f"{analysis.shape.family}: L = {analysis.shape.layers}, N = {analysis.shape.hidden}, "
                        f"H = {analysis.shape.heads}, grid m = {analysis.grid_m}, {analysis.proxy} proxy",
                  caption="rank, ||W||_2: range; stable rank: median")
    for column in ("type", "count", "rank", "||W||_2", "stable rank", "p=0", "mean p", "sum min"):
        table.add_column(column, justify="left" if column == "type" else "right")
    for kind in analysis.types():
        rows = [m for m in analysis.matrices if m.type == kind]
        ranks = [m.rank for m in rows]
        norms = [m.spectral_norm for m in rows]
        table.add_row(kind, str(len(rows)), f"{min(ranks)}-{max(ranks)}", f"{min(norms):.2g}-{max(norms):.2g}",
                      f"{sorted(m.stable_rank for m in rows)[len(rows) // 2]:.3g}",
                      str(sum(m.p_opt == 0 for m in rows)), f"{sum(m.p_opt for m in rows) / len(rows):.3g}",
                      f"{sum(m.min_contribution for m in rows):.5g}")
    return table


def summary_lines(analysis: ModelAnalysis) -> list[str]:
    """What a reader needs: ours against edelman, p = 0 counts per type, and why when every matrix chose p = 0."""
    lines = [f"extension of the published proxy ({'; '.join(analysis.departures)})"] if analysis.departures else []
    lines += [f"ours = {analysis.ours:.8g}   edelman = {analysis.edelman:.6g}   "
             f"(edelman / ours = {analysis.edelman / analysis.ours:.3g})",
             f"variants: ours with L_phi inside gamma = {analysis.variants.ours_lphi_in_gamma:.8g}; "
             f"edelman with the QK factor 2 = {analysis.variants.edelman_qk_factor_2:.6g}"]
    counts = analysis.p_zero_counts()
    lines.append("p_opt = 0 chosen by: " + ", ".join(f"{k} {z}/{n}" for k, (z, n) in counts.items()))
    growths = [m.contributions[1] / m.contributions[0] for m in analysis.matrices if m.contributions[0] > 0]
    growth = min(growths) if growths else math.nan
    if all(z == n for z, n in counts.values()) and math.isfinite(growth) and growth > 1:
        scales = [m.scale for m in analysis.matrices]
        lines.append(
            f"Every matrix chose p = 0, so ours reduces to the rank count sum sqrt(rank * N) + sqrt(L) = "
            f"{analysis.rank_count:.8g}. Why: scale = gamma * alpha * L spans {min(scales):.3g} to {max(scales):.3g} "
            f"(alpha up to {max(m.alpha for m in analysis.matrices):.3g}); any p > 0 multiplies a term by "
            f"scale^(p/(p+2)), and already at p = 1/m every term is at least {growth:.3g} times its p = 0 value: "
            "the spectral decay never pays for the propagation factor.")
    else:
        lines.append(f"The rank count sum sqrt(rank * N) + sqrt(L) is {analysis.rank_count:.8g}; choosing p > 0 where "
                     f"it pays lowers ours by {analysis.rank_count - analysis.ours:.6g}.")
    return lines


def storage_rank(args, analysis: ModelAnalysis):
    """The labelled storage-aware rank beside the published one (numerics/proxies/storage_rank.py)."""
    from sabounds.numerics.proxies.storage_rank import storage_rank_of
    try:
        source, measured = getattr(args, "_opened", (None, None))
        if source is None:
            source = open_checkpoint(model_dir_or_default(args.model_dir), args.mapping,
                                     architecture=args.architecture, allow_pickle=args.allow_pickle)
        return storage_rank_of(source, analysis, measured)
    except (CheckpointError, ValueError, OSError) as exc:
        raise UserError(str(exc)) from None


def storage_words(storage) -> str:
    """The storage-aware rank's summary, saying "unchanged" where ours would be the same printed number."""
    same = f"{storage.ours:.8g}" == f"{storage.published_ours:.8g}"
    old = f"ours would be {storage.ours:.8g} instead of {storage.published_ours:.8g}"
    return storage.summary().replace(old, f"ours unchanged at {storage.ours:.8g}") if same else storage.summary()


def run(args) -> int:
    if args.plots and not args.out:
        raise UserError("--plots needs --out DIR")
    if not args.plots and (tuple(args.figure_format) != ("png",) or args.dpi != 150):
        raise UserError("--figure-format and --dpi need --plots (without it no figure is drawn)")
    if args.out is not None:
        from sabounds.outputs.atomic import check_target
        check_target(args.out, args.force, protect=[model_dir_or_default(args.model_dir)])
    analysis = analyze(args)
    if args.out is not None:
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.outputs.files import write_analysis_files
        with atomic_directory(args.out, force=args.force, protect=[model_dir_or_default(args.model_dir)]) as work:
            write_analysis_files(analysis, work, plots=args.plots, figures=figure_options(args))
    storage = storage_rank(args, analysis)
    from sabounds.numerics.checkpoints.storage_info import storage_info, storage_line
    source = getattr(args, "_opened", (None, None))[0]
    info = storage_info(source, analysis.shape.layers)
    if args.json:
        print(dumps({**analysis.to_json(), "source": info, "storage_rank": storage.to_json()}, indent=2))
        return 0
    console = Console()
    console.print(type_table(analysis))
    for line in summary_lines(analysis):
        console.print(line, highlight=False)
    console.print(storage_line(info), highlight=False)
    console.print(storage_words(storage), highlight=False)
    if args.out:
        console.print(f"wrote {args.out}", highlight=False)
    return 0
