"""The whole bound on a checkpoint's weights: Theorem 3.1 [reconstructed], term by term, beside Edelman et al. (2022).

Prints every term of both bounds (they sum to the printed total at the printed resolution), the vacuity verdict for a
[0, 1]-bounded loss, the n at which each bound falls below the target, and the break-even factors of the proxy and
of the whole bound.  MODEL_DIR defaults to the bundled all-MiniLM-L6-v2.  Exit status 0, or 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import math
from decimal import Decimal

import mpmath

from sabounds.commands.analyze import model_dir_or_default, positive_float, positive_int
from sabounds.errors import UserError

SIG = 10
"""Significant digits of a printed total."""
GUARD = 2
"""Extra decimals of the printed terms, so that their sum, rounded like the total, equals the printed total."""


def probability(text: str) -> float:
    value = positive_float(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


def sample_size(text: str) -> mpmath.mpf:
    try:
        with mpmath.workdps(40):  # 1e400 stays 1e400 when echoed to 17 digits (not 9.9999999999999997e+399)
            value = mpmath.mpf(text.strip())
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(f"expected a number of samples such as 1e9, got {text!r}") from None
    if not (mpmath.isfinite(value) and value >= 8):
        raise argparse.ArgumentTypeError(f"expected a finite n >= 8, got {text!r}")
    return value


def constant(text: str) -> tuple[str, str]:
    from sabounds.theory.whole_bound import CONSTANTS
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or name not in CONSTANTS:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with NAME one of {', '.join(CONSTANTS)}, got {text!r}")
    try:
        number = Decimal(value)
    except ArithmeticError:
        raise argparse.ArgumentTypeError(f"{name}: expected a decimal number, got {value!r}") from None
    if not (number.is_finite() and number > 0 and len(value) <= 40):
        raise argparse.ArgumentTypeError(f"{name}: expected a positive finite decimal of at most 40 characters, got {value!r}")
    return name, value


def risk(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def precision(text: str) -> int:
    value = positive_int(text)
    if not 20 <= value <= 200:
        raise argparse.ArgumentTypeError(f"expected 20..200 digits, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model_dir", nargs="?", metavar="MODEL_DIR", help="model directory (default: all-MiniLM-L6-v2)")
    parser.add_argument("--n", type=sample_size, required=True, metavar="N", help="number of samples (e.g. 1e9)")
    parser.add_argument("--delta", type=probability, required=True, metavar="D", help="the bound holds with probability 1 - D")
    parser.add_argument("--margin", type=positive_float, required=True, metavar="G", help="margin gamma of the ramp loss")
    parser.add_argument("--input-norm", type=positive_float, default=1.0, metavar="B", help="token norm bound B (default 1)")
    parser.add_argument("--tokens", type=positive_int, metavar="T", help="tokens T (default: max_position_embeddings)")
    parser.add_argument("--target", type=positive_float, default=1.0, metavar="X", help="solve for the n at which each bound is X (default 1)")
    parser.add_argument("--empirical-risk", type=risk, default=0.0, metavar="R", help="empirical margin risk (default 0: no data)")
    parser.add_argument("--constant", type=constant, action="append", default=[], metavar="NAME=VALUE",
                        help="substitute a constant of a cited lemma (repeatable; see --json setting.constants)")
    parser.add_argument("--precision", type=precision, default=30, metavar="DIGITS", help="mpmath digits (default 30)")
    parser.add_argument("--layers", type=positive_int, metavar="K", help="the first K layers as an L = K model")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--out", metavar="DIR", help="write bound.json, bound.txt and the figure bound_vs_n into the new DIR")
    from sabounds.commands.analyze import add_figure_arguments
    add_figure_arguments(parser, default=("png", "pdf", "svg"))
    parser.add_argument("--force", action="store_true", help="replace DIR if it exists")
    parser.add_argument("--allow-pickle", action="store_true", help="read pytorch_model.bin through PyTorch's weights-only loader")


def resolution(total) -> int:
    """The exponent ``e`` of the printed unit ``10^e``: ``SIG`` significant digits of ``total``."""
    top = 0 if total == 0 else int(mpmath.floor(mpmath.log10(abs(total))))
    return top - (SIG - 1)


def fixed(value, exponent: int) -> Decimal:
    """``value`` rounded half-even to a multiple of ``10^exponent``, exactly as printed."""
    text = mpmath.nstr(value, max(mpmath.mp.dps, 40), strip_zeros=False, min_fixed=-math.inf, max_fixed=math.inf)
    return Decimal(text).quantize(Decimal(1).scaleb(exponent))


def show(d: Decimal, exponent: int, top: int) -> str:
    """``d`` (a multiple of ``10^exponent``) in fixed notation, or with the common power ``10^top`` of its total."""
    if -3 <= top <= 9:
        return f"{d:f}"
    return f"{d.scaleb(-top).quantize(Decimal(1).scaleb(exponent - top)):f}e{top:+d}"


def bound_lines(b) -> tuple[list[str], Decimal, Decimal, int]:
    """The terms (at ``10^(e - GUARD)``) and the total (at ``10^e``); the sum of the printed terms rounded to ``10^e``."""
    exponent = resolution(b.total)
    top = exponent + SIG - 1
    width = max(len(t.label) for t in b.terms) + 2
    printed = [fixed(t.value, exponent - GUARD) for t in b.terms]
    total = fixed(b.total, exponent)
    lines = [f"  {t.label:<{width}} {show(v, exponent - GUARD, top):>26}" for t, v in zip(b.terms, printed)]
    verdict = "VACUOUS (>= 1)" if b.vacuous else "not vacuous (< 1)"
    lines.append(f"  {'total':<{width}} {show(total, exponent, top):>{26 - GUARD}}{'':{GUARD}}   {verdict}")
    return lines, sum(printed, Decimal(0)).quantize(Decimal(1).scaleb(exponent)), total, top


def sci(x, digits: int = 4) -> str:
    return mpmath.nstr(x, digits, min_fixed=-4, max_fixed=6)


def slot_name(model, i) -> str:
    s = model.slots[i]
    return f"layer {s.layer} {s.type}" + (f" head {s.head}" if s.head >= 0 else "")


def report_lines(a) -> list[str]:
    s, m = a.setting, a.model
    consts = ", ".join(f"{k} = {v}" for k, v in s.constants)
    lines = [f"Whole bound [reconstructed Theorem 3.1 and Edelman et al. (2022), same margin bound] on L = {m.layers}, "
             f"N = {m.hidden}, H = {m.heads} ({m.K} matrices, grid m = {m.grid_m})",
             f"n = {sci(s.n, 6)}, delta = {s.delta}, margin = {s.margin}, input norm B = {s.input_norm}, tokens T = {s.tokens}, "
             f"empirical margin risk = {s.empirical}; constants: {consts}; mpmath {s.dps} digits",
             f"each total printed to {SIG} significant digits and its terms to {GUARD} more decimals (half-even); "
             "p chosen per matrix on P_m to minimise the whole bound", ""]
    primary = a.primary
    lines.append(f"Variant: {primary.variant.label}")
    for name in ("ours_sum", "ours_rss", "edelman"):
        b = getattr(primary, name)
        body, printed_sum, total, top = bound_lines(b)
        lines += [f"{b.label}:", *body,
                  f"  (sum of the printed terms, rounded to the total's {SIG} digits: {show(printed_sum, resolution(b.total), top)}, "
                  + ("equal to the printed total" if printed_sum == total else
                     f"NOT equal to the printed total (rounding of {len(b.terms)} terms)") + ")"]
        if b.p_opt is not None:
            zero = int((b.p_opt == 0).sum())
            lines.append(f"  p_opt = 0 for {zero} of {m.K} matrices; post hoc price {sum(b.cost_parts.values()):.2f} nats "
                         f"({', '.join(f'{k} {v:.2f}' for k, v in b.cost_parts.items())})")
    lines += ["", f"Verdicts (target {sci(a.target)}; a [0, 1]-bounded loss makes any bound >= 1 vacuous):"]
    for name in ("ours_sum", "ours_rss", "edelman"):
        b, need = getattr(primary, name), a.needed[name]
        lines.append(f"  {b.label}: {'vacuous' if b.vacuous else 'not vacuous'} at n = {sci(s.n)}; "
                     + (f"below the target from n = {sci(need.n)}" if need.n is not None else need.note))
    pb, wb = a.proxy_break_even, a.whole_break_even
    lines += ["", "Break-even: the factor by which a matrix's scale must shrink before some p > 0 beats p = 0"]
    for be, what in ((pb, "published proxy (gamma alpha L)"), (wb, f"whole bound, sum aggregation, n = {sci(s.n)} (rho_k)")):
        known = sorted(f for f in be.per_slot if f is not None)
        if be.model_factor is None:
            lines.append(f"  {what}: no matrix can break even")
            continue
        lines.append(f"  {what}: model {sci(be.model_factor)} (set by {slot_name(m, be.model_slot)}); per matrix median "
                     f"{sci(known[len(known) // 2])}, largest {sci(known[-1])}")
    lines += ["", "Variants (tighter constants, same weights):"]
    for key, wbv in a.bounds.items():
        need = a.needed_by_variant[key]
        lines.append(f"  {wbv.variant.label} [{wbv.variant.status}]:")
        lines.append("    " + "; ".join(f"{name.replace('_', ' ')} {sci(getattr(wbv, name).total, 6)} (n needed "
                                        f"{sci(need[name].n) if need[name].n is not None else need[name].note})"
                                        for name in ("ours_sum", "ours_rss", "edelman")))
    from sabounds.render.plain_text import plain
    return [plain(line) for line in lines]


def compute(args):
    from sabounds.bound_api import bound
    from sabounds.numerics.checkpoints.reader import CheckpointError
    try:
        return bound(model_dir_or_default(args.model_dir), n=args.n, delta=args.delta, margin=args.margin,
                     input_norm=args.input_norm, tokens=args.tokens, target=args.target, empirical_risk=args.empirical_risk,
                     constants=dict(args.constant), precision=args.precision, layers=args.layers,
                     curve_points=17 if args.out is not None else 0, allow_pickle=args.allow_pickle)
    except (CheckpointError, ValueError) as exc:
        raise UserError(" ".join(str(exc).split())) from None
    except OSError as exc:
        raise UserError(f"cannot read the model ({exc.strerror or type(exc).__name__})") from None


def run(args) -> int:
    if args.out is not None:
        from sabounds.outputs.atomic import atomic_directory
        from sabounds.commands.analyze import figure_options
        protect = [model_dir_or_default(args.model_dir)]  # never write into, over or around the checkpoint
        figures = figure_options(args)
        with atomic_directory(args.out, force=args.force, protect=protect) as work:  # refuses before any work
            analysis = compute(args)
            write_files(analysis, work, figures)
    else:
        analysis = compute(args)
    if args.json:
        print(json.dumps(analysis.to_json(), indent=2))
        return 0
    print("\n".join(report_lines(analysis)))
    if args.out is not None:
        print(f"wrote {args.out}")
    return 0


def write_files(analysis, directory, figures=None) -> list:
    """``bound.json``, ``bound.txt`` (what the command prints) and, with a curve, ``bound_vs_n.{png,pdf,svg}``."""
    from pathlib import Path
    directory = Path(directory)
    (directory / "bound.json").write_text(json.dumps(analysis.to_json(), indent=2) + "\n", encoding="utf-8")
    (directory / "bound.txt").write_text("\n".join(report_lines(analysis)) + "\n", encoding="utf-8")
    written = [directory / "bound.json", directory / "bound.txt"]
    if analysis.curve is not None:
        from sabounds.render.bound_figure import bound_figure
        written += bound_figure(analysis, directory, figures)
    return written
