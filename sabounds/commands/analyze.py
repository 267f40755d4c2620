"""Measure a trained checkpoint: per-matrix spectra, post hoc p and the paper's proxies (docs/definitions.md).

MODEL is a folder with config.json and model.safetensors (or a sharded model.safetensors.index.json), an
.onnx file or a .gguf file (llama.cpp; needs the gguf package; a folder holding one .gguf or its split parts reads
as that file); without it, the bundled all-MiniLM-L6-v2 checkpoint is used.  Families (from config.json's
model_type, or a GGUF's general.architecture): BERT, DistilBERT, MPNet, GPT-2, LLaMA/Mistral, Qwen2, Gemma,
Gemma 2, Gemma 3, ViT; anything else through --mapping FILE.
The published proxy is reported where the family's layer is the published one, a labelled extension elsewhere.
Exit status 0 on success, 2 for a bad argument or checkpoint.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from sabounds.api import analyze, json_text, storage_line
from sabounds.api._analysis import analysis_depth
from sabounds.arguments import (
    add_common_arguments,
    capped,
    figure_options,
    grid_m,
    model_dir_or_default,
    positive_float,
    threads,
)
from sabounds.errors import UserError
from sabounds.progress import progress_bar
from sabounds.render.analysis_text import storage_words, summary_lines, type_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model_dir", nargs="?", metavar="MODEL", help="model directory, .onnx or .gguf file (default: all-MiniLM-L6-v2)"
    )
    parser.add_argument(
        "--layers", type=capped("layers"), metavar="K", help="analyse the first K layers as an L = K model"
    )
    parser.add_argument("--grid-m", type=grid_m, metavar="M", help="p grid {0, 1/M, ..., 2} (default ceil(L + ln N))")
    parser.add_argument("--plots", action="store_true", help="with --out, also write the figures (--figure-format)")
    parser.add_argument(
        "--bound",
        metavar="FILE",
        help="also evaluate your own bound, described in a TOML file (docs/bounds.md), on the checkpoint",
    )
    parser.add_argument(
        "--rms-floor",
        type=positive_float,
        default=None,
        metavar="RHO",
        help="pre-LN premise: every normalisation input has rms >= RHO, so Lip_LN = max|g| / "
        "sqrt(RHO^2 + eps) (default: no premise, the config's eps alone)",
    )
    parser.add_argument(
        "--threads",
        type=threads,
        default=1,
        metavar="T",
        help="measure T layers at once, one BLAS thread each (default 1; T layers resident)",
    )
    add_common_arguments(parser)


def run(args) -> int:
    if args.plots and not args.out:
        raise UserError("--plots needs --out DIR")
    if not args.plots and (tuple(args.figure_format) != ("png",) or args.dpi != 150):
        raise UserError("--figure-format and --dpi need --plots (without it no figure is drawn)")
    model = model_dir_or_default(args.model_dir)
    options = dict(
        layers=args.layers, architecture=args.architecture, mapping=args.mapping, allow_pickle=args.allow_pickle
    )
    if args.out is not None:
        from sabounds.outputs.atomic import check_target

        check_target(args.out, args.force, protect=[model])
    with progress_bar("reading layers", total=analysis_depth(model, **options), enabled=not args.json) as advance:
        result = analyze(
            model,
            **options,
            lphi=args.lphi,
            grid_m=args.grid_m,
            rank_tol=args.rank_tol,
            rms_floor=args.rms_floor,
            threads=args.threads,
            progress=advance,
            user_bound=args.bound,
        )
    if args.out is not None:
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.outputs.files import write_analysis_files

        with atomic_directory(args.out, force=args.force, protect=[model]) as work:
            write_analysis_files(result.analysis, work, plots=args.plots, figures=figure_options(args))
    storage = result.storage_rank()
    if args.json:
        print(json_text({**result.json, "storage_rank": storage.to_json()}))
        return 0
    console = Console()
    console.print(type_table(result.analysis))
    for line in summary_lines(result.analysis):
        console.print(line, highlight=False)
    console.print(storage_line(result.json["source"]), highlight=False)
    console.print(storage_words(storage), highlight=False)
    if args.out:
        console.print(f"wrote {args.out}", highlight=False)
    return 0
