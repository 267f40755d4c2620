"""The whole bound on a checkpoint's weights: Theorem 3.1 [reconstructed], term by term, beside Edelman et al. (2022).

Prints every term of both bounds (they sum to the printed total at the printed resolution), the vacuity verdict for a
[0, 1]-bounded loss, the n at which each bound falls below the target, and the break-even factors of the proxy and
of the whole bound.  MODEL_DIR defaults to the bundled all-MiniLM-L6-v2; a .gguf file (LLaMA, Qwen2, Gemma, Gemma
2/3, GPT-2 architectures) or a model folder of any family analyze reads.  Where the network has maps the
bookkeeping leaves out (stored nonzero biases of linear maps, as in BERT, GPT-2 and Qwen2, a key bias without RoPE
excepted; Gemma 2/3's post-norms and Gemma 3's q/k norms) the output starts with "not a bound", --json says
"sound": false and lists them under "unmodelled", and no n is solved for.  T
defaults to the checkpoint's context length.  Exit status 0, or 2 for bad input.
"""

from __future__ import annotations

import argparse

from sabounds.api import bound, json_text
from sabounds.arguments import (
    add_figure_arguments,
    capped,
    figure_options,
    model_dir_or_default,
    positive_float,
    positive_int,
)
from sabounds.bound_arguments import constant, precision, probability, risk, sample_size
from sabounds.outputs.bound_files import write_files


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model_dir", nargs="?", metavar="MODEL_DIR", help="model directory (default: all-MiniLM-L6-v2)")
    parser.add_argument("--n", type=sample_size, required=True, metavar="N", help="number of samples (e.g. 1e9)")
    parser.add_argument(
        "--delta", type=probability, required=True, metavar="D", help="the bound holds with probability 1 - D"
    )
    parser.add_argument(
        "--margin", type=positive_float, required=True, metavar="G", help="margin gamma of the ramp loss"
    )
    parser.add_argument(
        "--input-norm",
        type=positive_float,
        default=None,
        metavar="B",
        help="norm bound B of the tokens layer 1 reads (default: the embedding LayerNorm's output bound "
        "sqrt(N) max|g| + ||b|| rounded up to its dyadic shell, where a post-LN checkpoint has one; else 1, said)",
    )
    parser.add_argument(
        "--tokens",
        type=positive_int,
        metavar="T",
        help="tokens T (default: the checkpoint's context length, GGUF <arch>.context_length or "
        "config.json max_position_embeddings; 512 if it states none)",
    )
    parser.add_argument(
        "--target",
        type=positive_float,
        default=1.0,
        metavar="X",
        help="solve for the n at which each bound is X (default 1)",
    )
    parser.add_argument(
        "--empirical-risk", type=risk, default=0.0, metavar="R", help="empirical margin risk (default 0: no data)"
    )
    parser.add_argument(
        "--constant",
        type=constant,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="substitute a constant of a cited lemma (repeatable; see --json setting.constants)",
    )
    parser.add_argument("--precision", type=precision, default=30, metavar="DIGITS", help="mpmath digits (default 30)")
    parser.add_argument("--layers", type=capped("layers"), metavar="K", help="the first K layers as an L = K model")
    parser.add_argument(
        "--rms-floor",
        type=positive_float,
        default=None,
        metavar="RHO",
        help="pre-LN premise: every normalisation input has rms >= RHO (default: none, eps alone)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--out", metavar="DIR", help="write bound.json, bound.txt and the figure bound_vs_n into the new DIR"
    )
    add_figure_arguments(parser, default=("png", "pdf", "svg"))
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    parser.add_argument(
        "--allow-pickle", action="store_true", help="read pytorch_model.bin through PyTorch's weights-only loader"
    )


def compute(args):
    return bound(
        model_dir_or_default(args.model_dir),
        n=args.n,
        delta=args.delta,
        margin=args.margin,
        input_norm=args.input_norm,
        tokens=args.tokens,
        target=args.target,
        empirical_risk=args.empirical_risk,
        constants=dict(args.constant),
        precision=args.precision,
        layers=args.layers,
        curve_points=17 if args.out is not None else 0,
        allow_pickle=args.allow_pickle,
        rms_floor=args.rms_floor,
    )


def run(args) -> int:
    if args.out is not None:
        from sabounds.outputs.atomic import atomic_directory

        protect = [model_dir_or_default(args.model_dir)]  # never write into, over or around the checkpoint
        figures = figure_options(args)
        with atomic_directory(args.out, force=args.force, protect=protect) as work:  # refuses before any work
            result = compute(args)
            write_files(result.analysis, work, figures)
    else:
        result = compute(args)
    if args.json:
        print(json_text(result.to_json()))
        return 0
    print("\n".join(result.lines))
    if args.out is not None:
        print(f"wrote {args.out}")
    return 0
