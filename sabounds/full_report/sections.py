"""The sections of ``report.md``: the summary first, then claims, checks, regimes, the model, its scaling, the
whole bound and how to reproduce; each a function of :class:`~sabounds.full_report.compute.ReportData`."""

from __future__ import annotations

import shlex
from collections.abc import Callable

import mpmath

from sabounds.checkpoint_names import checkpoint_label, is_bundled
from sabounds.full_report.compute import BOUND_SETTING, ReportData, provenance
from sabounds.full_report.html import code_block
from sabounds.full_report.wording import CLAIM_VARIABLE, claim_conditions, condition_words, growth_law
from sabounds.numerics.checkpoints.storage_info import storage_line
from sabounds.proofs_check.outcome_records import failing_steps, summary, summary_text
from sabounds.proofs_check.registry import Check
from sabounds.proofs_check.verdict import Outcome
from sabounds.render.analysis_text import summary_lines
from sabounds.render.bound_text import sci_up
from sabounds.render.plain_text import plain
from sabounds.render.user_text import markdown_text
from sabounds.version import installed_version


def bound_summary(data: ReportData) -> list[str]:
    """One summary line: the whole bound's totals, vacuity and the n each needs (reconstructed)."""
    if data.bound is None:
        return []
    b, need = data.bound.primary, data.bound.needed
    if not data.bound.sound:
        left_out = "; ".join(u.component for u in data.bound.unmodelled)
        totals = ", ".join(f"{x.label} {mpmath.nstr(x.total, 6)}" for x in (b.ours_sum, b.ours_rss, b.edelman))
        return [
            f"- Whole bound [reconstructed] at n = 1e9, delta = 0.05, margin 1: not a bound on this network, which has "
            f"maps the bookkeeping leaves out ({left_out}); the formula's totals on its matrices: {totals}."
        ]
    parts = [
        f"{x.label} {mpmath.nstr(x.total, 6)} ({'vacuous' if x.vacuous else 'not vacuous'}; "
        + (f"below 1 from n = {sci_up(need[x.name].n)})" if need[x.name].n is not None else need[x.name].note + ")")
        for x in (b.ours_sum, b.ours_rss, b.edelman)
    ]
    return ["- Whole bound [reconstructed] at n = 1e9, delta = 0.05, margin 1: " + "; ".join(parts) + "."]


def bound_section(data: ReportData) -> list[str]:
    """``## The whole bound``: the printed lines of ``sabounds bound`` and the figure."""
    if data.bound is None:
        return [
            "## The whole bound",
            "",
            "Not computed: the whole bound is not derived for this model's layer (a post-LN layer with a gated MLP; "
            "see the model analysis).",
            "",
        ]
    from sabounds.render.bound_text import bound_text_lines

    s = BOUND_SETTING
    figure = (
        ["![whole bound against n](bound/bound_vs_n.png)"]
        if data.bound.curve is not None
        else ["No figure of the bound against n: the totals are not a bound on this network (listed above)."]
    )
    return [
        "## The whole bound",
        "",
        f"`sabounds bound --n {s['n']:.0e} --delta {s['delta']} --margin {s['margin']}` on this model (reconstructed "
        "Theorem 3.1 and Edelman et al. through the same margin bound; `bound/bound.json`):",
        "",
        "```",
        *map(plain, bound_text_lines(data.bound)),
        "```",
        "",
        *figure,
        "",
    ]


def _claims(data: ReportData) -> list[tuple[Check, Outcome]]:
    return [(c, o) for c, o in data.checks if c.id.startswith("claims.")]


def is_negative_control(check: Check) -> bool:
    """A claim check that is expected to be refuted: it shows that its check can fail."""
    return not check.is_step and (check.decide.__doc__ or "").lstrip().lower().startswith("expected refuted")


def _fits(data: ReportData):
    from sabounds.numerics.proxies.growth import depth_growths

    return {q: depth_growths(data.scaling.points, q) for q in ("ours", "edelman")}


def _model_name(data: ReportData) -> str:
    return markdown_text(checkpoint_label(data.model_dir))


def summary_section(data: ReportData) -> list[str]:
    """The first screen: the paper's claims with verdicts and conditions, the model's numbers with their formulas."""
    a = data.analysis
    counts = a.p_zero_counts()
    total = sum(n for _, n in counts.values())
    zero = sum(z for z, _ in counts.values())
    growth = _fits(data)
    rows = [
        f"| {i}. {plain(c.claim)} | **{o.verdict.value}** | {claim_conditions(o, CLAIM_VARIABLE.get(c.id))} |"
        for i, (c, o) in enumerate(_claims(data), 1)
    ]
    lines = [
        "## Summary",
        "",
        "### The paper's claims, decided by computation",
        "",
        "| claim | verdict | conditions |",
        "| --- | --- | --- |",
        *rows,
        "",
        "proved: by sympy or interval arithmetic (the check's method says which). verified: held at every sampled point, not proved. refuted: false as stated; the "
        "conditions say where it still holds. Conditions: the spectral regime, whether the Lipschitz product alpha "
        "stays bounded or grows as C^(L-l), and how Dudley's integral is aggregated (sum or rss).",
        "",
        f"### The model: {_model_name(data)}, L = {a.shape.layers} layers, width N = {a.shape.hidden}, "
        f"H = {a.shape.heads} heads",
        "",
        "| quantity | value | formula |",
        "| --- | --- | --- |",
        f"| ours | {a.ours:.8g} | sum over all {total} matrices W of min over p in P_m of "
        "S_p(W)^(1/(p+2)) scale^(p/(p+2)) N^((p+1)/(p+2)), plus sqrt(L) |",
        f"| edelman | {a.edelman:.4g} | (1 + sum_l alpha_l^(2/3) xi_l)^(3/2), the norm-based baseline of Edelman et al. (2022) |",
        f"| edelman / ours | {a.edelman / a.ours:.3g} | |",
        "",
        "Both are capacity proxies computed from the weights, not bounds on the risk: constants, log factors, the "
        "sample size and the margin are left out. S_p(W) is the sum of the p-th powers of W's singular values "
        "(S_0 = rank), scale = gamma alpha L with alpha the Lipschitz product of the layers above and gamma the factor "
        f"inside the layer, P_m = {{0, 1/m, ..., 2}} with m = {a.grid_m}, xi_l a sum of (2,1)-norm terms of layer l.",
        "",
        f"- p = 0 is optimal for {zero} of {total} matrices "
        f"({', '.join(f'{plain(k)} {z}/{n}' for k, (z, n) in counts.items())})"
        + (": ours is the rank count sum sqrt(rank(W) N) + sqrt(L)." if zero == total else "."),
    ]
    several = len({g.model for fits in growth.values() for g in fits}) > 1
    for q in ("ours", "edelman"):
        for g in growth[q]:
            who = f" of {g.model}" if several else ""
            lines.append(
                f"- Over truncations{markdown_text(who)} to {g.depths[0]}..{g.depths[-1]} layers, {q} {g.describe()}."
            )
    lines += bound_summary(data)
    lines += ["", "Definitions of every quantity: `docs/definitions.md` in the sabounds repository.", ""]
    return lines


def _precision(o: Outcome) -> str:
    if o.precision_digits is None and o.samples is None:
        return "symbolic"
    if "float64" in o.method:
        return f"float64, {o.samples} samples"
    return f"{o.precision_digits} digits, {o.samples} samples"


_TOLERANCES = (("direct numeric minimisation", 5),)
"""Methods of ``proofs_check.deciders`` accepting a relative difference up to 10^-(digits - k), with their k (identities
state theirs, (operations + 1) 10^(2 - digits), in the detail)."""


def acceptance_tolerance(o: Outcome) -> str | None:
    """The relative tolerance within which ``o``'s method accepts a relation (docs/definitions.md, 'Tolerances'):
    as stated in the check's detail, else from the method at the check's precision; None for symbolic checks."""
    import re

    stated = re.search(r"tolerance (\d[\d.e+-]*\d)", o.detail or "")
    if stated:
        return stated.group(1)
    digits = o.precision_digits
    if digits is None:
        return None
    if o.method.startswith("adversarial search"):
        return f"1e-{digits // 2}"
    return next((f"1e-{digits - k}" for prefix, k in _TOLERANCES if o.method.startswith(prefix)), None)


def _margin(c: Check, o: Outcome) -> str:
    """The margin; a negative one of a check that held is rounding within its method's tolerance, and says so."""
    if o.margin is None:
        return ""
    text = f"{o.margin:.3g}"
    if o.margin < 0 and o.verdict.value in ("verified", "proved"):
        tol = acceptance_tolerance(o)
        text += f" (rounding, within tolerance {tol})" if tol else " (rounding)"
    return text


def claims_section(data: ReportData) -> list[str]:
    lines = ["## The claims in detail", ""]
    for check, outcome in _claims(data):
        w = outcome.witness or {}
        lines += [
            f"### {plain(check.claim)}: {outcome.verdict.value}",
            "",
            f"Method: {plain(outcome.method)}.",
            "",
            plain(outcome.detail.split(". HOLDS")[0]) + ".",
            "",
        ]
        for key, title in (
            ("holds", "Holds"),
            ("holds_up_to_log", "Holds only up to a log factor"),
            ("fails", "Fails"),
        ):
            if w.get(key):
                lines += [
                    f"{title}:",
                    "",
                    *[f"- {plain(condition_words(c, CLAIM_VARIABLE.get(check.id)))}" for c in w[key]],
                    "",
                ]
    return lines


def checks_section(data: ReportData) -> list[str]:
    counts, failing = summary(data.checks), failing_steps(data.checks)
    controls = [c for c, _ in data.checks if is_negative_control(c)]
    floats = sum("float64" in o.method for _, o in data.checks)
    lines = [
        "## Every check",
        "",
        f"{len(data.checks)} checks: "
        + summary_text(counts)
        + ". "
        + (
            "Every derivation step is proved or verified."
            if not failing
            else "Failing derivation steps: " + ", ".join(c.id for c in failing) + "."
        ),
        "",
        f"Numeric checks ran at {data.settings.precision} significant digits (mpmath) with {data.settings.samples} "
        f"random draws each (fewer where a check says so), except the {floats} marked float64, which compute in double "
        "precision (about 16 digits). The margin is the smallest relative slack found, (right - left) / |right|. A "
        "relation counts as violated only when it fails by more than its method's rounding tolerance (docs/definitions.md, "
        "'Tolerances'): a verified check with a tiny negative margin held within that tolerance, given beside it; a "
        "refuted check failed beyond it.",
        "",
    ]
    if controls:
        lines += [
            "Negative controls are refuted on purpose: each shows that its check can fail. "
            + " ".join(f"`{c.id}`: {plain(' '.join((c.decide.__doc__ or '').split()))}" for c in controls),
            "",
        ]
    lines += ["| check | verdict | method | precision | margin |", "| --- | --- | --- | --- | --- |"]
    for c, o in data.checks:
        note = " (negative control)" if is_negative_control(c) else ""
        margin = _margin(c, o)
        lines.append(f"| `{c.id}` | {o.verdict.value}{note} | {plain(o.method)} | {_precision(o)} | {margin} |")
    return lines + [""]


_REGIME_BOUND_WORDS = {
    "edelman": "Edelman et al.",
    "trauger_tewari": "Trauger and Tewari",
    "ours_sum": "ours: sum aggregation",
    "ours_rss": "ours: rss aggregation",
    "ours_sum_sharp": "ours: sum aggregation, sharp tail",
    "ours_rss_sharp": "ours: rss aggregation, sharp tail",
    "ours_best_p_crude": "ours: better aggregation, crude tail",
    "ours_best_p": "ours: best of the four",
}
"""The report's own names of the regime table's bounds (the JSON and CSV keep the identifiers)."""


def _token_words(text: str) -> str:
    """``log^(1/4) at worst over p`` as ``(log T)^(1/4) at worst over p``; ``power T^(1/2)`` as ``T^(1/2)``."""
    import re

    text = re.sub(r"\blog\^\(([^)]*)\)", r"(log T)^(\1)", plain(text))
    return text.replace("power T^", "T^")


def regimes_section(data: ReportData) -> list[str]:
    lines = [
        "## Growth of each bound by regime",
        "",
        "Growth of each bound in depth L and width N (the other quantities fixed; for ours the infimum over p), log "
        "factors included, and how it depends on the token length T, computed by sympy from the derivations. "
        "Regimes: Frobenius (||W||_F bounded), rank, spectral (only ||W||_2 bounded), power law and low rank plus "
        "tail; alpha bounded or exponential C^(L-l). Bounds: ours with sum or rss aggregation of Dudley's integral, "
        "with Theorem 4.1's crude tail or its sharp tail, the better aggregation with the crude tail only, and the "
        "best of the four.",
        "",
        "| regime | alpha | bound | depth L | width N | tokens T |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for reg in data.regimes["regimes"]:
        for name, b in reg["bounds"].items():
            lines.append(
                f"| {reg['name'].replace('_', ' ')} | {reg['alpha']} | {_REGIME_BOUND_WORDS.get(name, plain(name))} | "
                f"{growth_law('L', b['depth'])} | {growth_law('N', b['width'])} | {_token_words(b['token_dependence'])} |"
            )
    lines += [
        "",
        "'exponential': lim log(bound) / v > 0 as v grows. For ours each variable's infimum is taken on its own: "
        "the depth and the width infima may come from different p, and an infimum that no fixed p reaches is marked "
        "in regimes.json ('is_attained'). Compared at one p at a time, jointly in depth and width (N = L^kappa, "
        "up to log factors):",
        "",
        "| regime | alpha | ours grows slower than Edelman where | two routes agree |",
        "| --- | --- | --- | --- |",
    ]
    lines += [
        f"| {reg['name'].replace('_', ' ')} | {reg['alpha']} | {reg['joint']['ours_smaller_jointly']} | "
        f"{'yes' if reg['joint']['second_route']['agrees'] else 'no'} |"
        for reg in data.regimes["regimes"]
    ]
    return lines + [""]


def model_section(data: ReportData) -> list[str]:
    a = data.analysis
    lines = ["## The model in detail", ""]
    lines += [f"- {markdown_text(plain(line))}" for line in summary_lines(a)]
    lines += ["", "Per-matrix table: `analysis/matrices.csv`; totals: `analysis/totals.csv`.", ""]
    figures = (
        ("singular_value_decay", "Singular values of every matrix, normalised by the largest; colour: layer."),
        ("contribution_vs_p", "Each matrix's contribution to ours against p; dot: its optimal p."),
        ("p_opt_per_layer", "Optimal p of every matrix, layer by head."),
    )
    for stem, caption in figures:
        lines += [f"![{caption}](analysis/{stem}.png)", "", f"*{caption}*", ""]
    return lines


def scaling_section(data: ReportData) -> list[str]:
    lines = [
        "## Growth with depth",
        "",
        "ours and edelman of the model truncated to its first L layers (each truncation analysed as an L-layer "
        "model). One growth law per quantity, the same for every model: edelman, a product of per-layer Lipschitz "
        "factors, by its factor per layer (least-squares fit of its logarithm against L); ours by its power of L "
        "(fit against log L) or its factor per layer, whichever fits all models better. A fit to 3 depths has one "
        "residual degree of freedom and is weakly determined.",
        "",
        "A truncation is the first L layers of a deeper model, not a model trained at depth L; the figure fills the "
        "markers of trained models and leaves truncations hollow. Growth laws are fitted to each model's points.",
        "",
        "| model | L | kind | ours | edelman |",
        "| --- | --- | --- | --- | --- |",
        *[
            f"| {markdown_text(pt.model)} | {pt.layers} | {pt.kind} | {pt.ours:.8g} | {pt.edelman:.4g} |"
            for pt in data.scaling.points
        ],
        "",
    ]
    for q, fits in _fits(data).items():
        lines += [
            f"- {q}: {g.describe()} (power fit residual {g.rss_power:.3g}, exponential fit residual "
            f"{g.rss_exponential:.3g}, in log value)"
            for g in fits
        ]
    return lines + ["", "![ours and edelman against depth](scaling/scaling.png)", ""]


def reproduce_section(data: ReportData) -> list[str]:
    from sabounds.proofs_check.verdict import Settings

    prov = provenance(data)
    extra = "" if data.settings.seed == Settings.seed else f" --seed {data.settings.seed}"
    model = "" if is_bundled(data.model_dir) else f"--model {shlex.quote(str(data.model_dir))} "
    if data.figures is not None:
        from sabounds.render.plots import FigureOptions

        if tuple(data.figures.formats) != FigureOptions.formats:
            extra += f" --figure-format {','.join(data.figures.formats)}"
        if data.figures.dpi != FigureOptions.dpi:
            extra += f" --dpi {data.figures.dpi}"
    return [
        "## Reproduce",
        "",
        f"sabounds {installed_version()}, {prov['created']}, {prov['platform']}, {data.seconds:.0f} s.",
        "",
        *(
            [
                "Where the expensive parts came from (a stored or cached result is used only when current for this "
                "code; regenerate the stored ones with `python -m sabounds.full_report.cached_parts`):",
                "",
                *[f"- {markdown_text(line)}" for line in data.origins],
                "",
            ]
            if data.origins
            else []
        ),
        *code_block(
            f"sabounds report {model}--precision {data.settings.precision} --samples {data.settings.samples}{extra}"
        ),
        "",
        "| package | version |",
        "| --- | --- |",
        *[f"| {markdown_text(k)} | {markdown_text(v)} |" for k, v in data.versions.items()],
        "",
        "| checkpoint file | sha256 |",
        "| --- | --- |",
        *[f"| {markdown_text(k)} | `{v}` |" for k, v in data.digests.items()],
        "",
        *([storage_line(data.source), ""] if getattr(data, "source", None) else []),
    ]


Section = Callable[[ReportData], list[str]]
DETAIL_SECTIONS: list[Section] = [
    claims_section,
    checks_section,
    regimes_section,
    model_section,
    scaling_section,
    bound_section,
]
"""The report's sections after the summary, in order; a new section is one function appended here (before
:func:`reproduce_section`, which always comes last)."""


def markdown(data: ReportData) -> str:
    """``report.md``: title, the summary (first screen), then each of :data:`DETAIL_SECTIONS` and how to reproduce."""
    lines = [
        "# Spectrum-adaptive generalization bounds: verification report",
        "",
        "Claims of Sakai and Imaizumi (2026), decided by sabounds, and the paper's capacity proxies measured on a "
        "trained model.",
        "",
    ]
    lines += summary_section(data)
    for section in [*DETAIL_SECTIONS, reproduce_section]:
        lines += section(data)
    return "\n".join(lines)
