"""The whole bound as a reader sees it (``sabounds bound`` and ``bound/bound.txt``): every term of both bounds at a
resolution where the printed terms sum to the printed total, the verdicts, the break-even factors and the variants."""

from __future__ import annotations

import math
from decimal import Decimal

import mpmath

from sabounds.numerics.bound.slots import token_norm_record
from sabounds.render.plain_text import plain

SIG = 10
"""Significant digits of a printed total."""
GUARD = 2
"""Extra decimals of the printed terms, so that their sum, rounded like the total, equals the printed total."""


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


def bound_lines(b, sound: bool = True) -> tuple[list[str], Decimal, Decimal, int]:
    """The terms (at ``10^(e - GUARD)``) and the total (at ``10^e``); the sum of the printed terms rounded to ``10^e``.
    Where the totals are not a bound (``sound`` False) the total's verdict says so rather than "not vacuous"."""
    exponent = resolution(b.total)
    top = exponent + SIG - 1
    width = max(len(t.label) for t in b.terms) + 2
    printed = [fixed(t.value, exponent - GUARD) for t in b.terms]
    total = fixed(b.total, exponent)
    lines = [f"  {t.label:<{width}} {show(v, exponent - GUARD, top):>26}" for t, v in zip(b.terms, printed)]
    verdict = "VACUOUS (>= 1)" if b.vacuous else "not vacuous (< 1)" if sound else "< 1, but not a bound"
    lines.append(f"  {'total':<{width}} {show(total, exponent, top):>{26 - GUARD}}{'':{GUARD}}   {verdict}")
    return lines, sum(printed, Decimal(0)).quantize(Decimal(1).scaleb(exponent)), total, top


def sci(x, digits: int = 4) -> str:
    return mpmath.nstr(x, digits, min_fixed=-4, max_fixed=6)


def sci_up(x, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, rounded up: a printed "from n = ..." must not be an n below the root."""
    x = mpmath.mpf(x)
    scale = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(x)) - digits + 1)
    return sci(mpmath.ceil(x / scale) * scale, digits)


def slot_name(model, i) -> str:
    s = model.slots[i]
    return f"layer {s.layer} {s.type}" + (f" head {s.head}" if s.head >= 0 else "")


def _input_source(s, m) -> str:
    """`` (where B came from)``; the embedding LayerNorm's bound before its dyadic shell."""
    if not s.input_norm_source:
        return ""
    if m.input_radius is None:
        return f" ({s.input_norm_source})"
    return (
        f" ({s.input_norm_source}: sqrt(N) max|g| + ||b|| = {m.input_radius:.6g}, rounded up to its dyadic shell "
        "and priced)"
    )


def bound_text_lines(a) -> list[str]:
    """The lines ``sabounds bound`` prints for the analysis ``a`` (a ``BoundAnalysis``), in plain words."""
    s, m = a.setting, a.model
    consts = ", ".join(f"{k} = {v}" for k, v in s.constants)
    lines = (
        []
        if a.sound
        else [
            "not a bound: the network has maps the bookkeeping leaves out, so the totals below do not bound it and "
            "no n is solved for; not modelled:",
            *(f"  - {u.describe()}" for u in a.unmodelled),
            "",
        ]
    )
    if a.sound and a.assumed_not_derived:
        lines += [
            f"a bound only if these steps hold: they are assumed, not derived: {', '.join(a.assumed_not_derived)} "
            "(see the premises below)",
            "",
        ]
    lines += [
        f"Whole bound [reconstructed Theorem 3.1 and Edelman et al. (2022), same margin bound] on L = {m.layers}, "
        f"N = {m.hidden}, H = {m.heads} ({m.K} matrices, grid m = {m.grid_m})",
        f"n = {sci(s.n, 6)}, delta = {s.delta}, margin = {s.margin}, input norm B = {s.input_norm:g}{_input_source(s, m)}, tokens T = {s.tokens}"
        f"{' (' + s.tokens_source + ')' if s.tokens_source else ''}, "
        f"empirical margin risk = {s.empirical}; constants: {consts}; mpmath {s.dps} digits",
        f"each total printed to {SIG} significant digits and its terms to {GUARD} more decimals (half-even); "
        "p chosen per matrix on P_m to minimise the whole bound",
        "",
    ]
    if m.family is not None:
        lines += [
            f"Family {m.family.name}: the layer departs from BERT's; bound under these premises "
            "(derivation whole_bound.families):",
            *(f"  - {x}" for x in m.family.premises),
            "",
        ]
    tokens = token_norm_record(m, s.input_norm)
    if tokens is not None:
        shown_norms = ", ".join(f"{b:.4g}" for b in tokens["layer_token_norm"])
        lines += [
            f"Token norms B_l per layer: {shown_norms}"
            + ("" if tokens["capped_by_norms"] else " (no LayerNorm weights read: propagated only)"),
            f"  - {tokens['premise']}",
            "",
        ]
    primary = a.primary
    lines.append(f"Variant: {a.label(primary.variant)}")
    for name in ("ours_sum", "ours_rss", "edelman"):
        b = getattr(primary, name)
        body, printed_sum, total, top = bound_lines(b, a.sound)
        lines += [
            f"{b.label}:",
            *body,
            f"  (sum of the printed terms, rounded to the total's {SIG} digits: {show(printed_sum, resolution(b.total), top)}, "
            + (
                "equal to the printed total"
                if printed_sum == total
                else f"NOT equal to the printed total (rounding of {len(b.terms)} terms)"
            )
            + ")",
        ]
        if b.p_opt is not None:
            zero = int((b.p_opt == 0).sum())
            lines.append(
                f"  p_opt = 0 for {zero} of {m.K} matrices; post hoc price {sum(b.cost_parts.values()):.2f} nats "
                f"({', '.join(f'{k} {v:.2f}' for k, v in b.cost_parts.items())})"
            )
    lines += ["", f"Verdicts (target {sci(a.target)}; a [0, 1]-bounded loss makes any bound >= 1 vacuous):"]
    for name in ("ours_sum", "ours_rss", "edelman"):
        b, need = getattr(primary, name), a.needed[name]
        if not a.sound:
            lines.append(f"  {b.label}: {need.note.removeprefix('not solved: ')}")
            continue
        lines.append(
            f"  {b.label}: {'vacuous' if b.vacuous else 'not vacuous'} at n = {sci(s.n)}; "
            + (f"below the target from n = {sci_up(need.n)}" if need.n is not None else need.note)
        )
    pb, wb = a.proxy_break_even, a.whole_break_even
    lines += ["", "Break-even: the factor by which a matrix's scale must shrink before some p > 0 beats p = 0"]
    for be, what in (
        (pb, "published proxy (gamma alpha L)"),
        (wb, f"whole bound, sum aggregation, n = {sci(s.n)} (rho_k)"),
    ):
        known = sorted(f for f in be.per_slot if f is not None)
        if be.model_factor is None:
            lines.append(f"  {what}: no matrix can break even")
            continue
        lines.append(
            f"  {what}: model {sci(be.model_factor)} (set by {slot_name(m, be.model_slot)}); per matrix median "
            f"{sci(known[len(known) // 2])}, largest {sci(known[-1])}"
        )
    lines += ["", "Variants (tighter constants, same weights):"]
    for key, wbv in a.bounds.items():
        need = a.needed_by_variant[key]
        lines.append(f"  {a.label(wbv.variant)} [{wbv.variant.status}]:")
        lines.append(
            "    "
            + "; ".join(
                f"{name.replace('_', ' ')} {sci(getattr(wbv, name).total, 6)} (n needed "
                f"{sci_up(need[name].n) if need[name].n is not None else need[name].note})"
                for name in ("ours_sum", "ours_rss", "edelman")
            )
        )
    return [plain(line) for line in lines]
