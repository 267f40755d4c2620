"""The main job's report: every check, the regime tables, the model analysis and its depth scaling, in one folder.

``build_report(folder, model_dir, settings, advance)`` writes ``report.md`` (summary first), every table as
CSV and JSON, and the figures as PNG into ``folder``; the command writes into an atomic partial folder, so an
interrupted run leaves nothing.  The numbers come from the same functions as the individual commands.
"""

from __future__ import annotations

import dataclasses
import shlex
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import mpmath

from sabounds.numerics.proxies.model_analysis import ModelAnalysis, analyze_measured, measure_model, open_checkpoint
from sabounds.numerics.proxies.scaling import ScalingResult, truncation_points, with_fits
from sabounds.proofs_check.registry import Check, all_checks, run_all
from sabounds.proofs_check.report import failing_steps, outcome_record, summary, summary_text
from sabounds.proofs_check.verdict import Outcome, Settings
from sabounds import __version__
from sabounds.commands.analyze import summary_lines
from sabounds.output_files import write_analysis_files, write_csv, write_scaling_files
from sabounds.numerics.log_real import dumps
from sabounds.checkpoint_names import checkpoint_label, is_bundled
from sabounds.plain_text import PRIVATE_WORDS, plain  # noqa: F401  (PRIVATE_WORDS: the report's vocabulary)
from sabounds.numerics.checkpoints.storage_info import storage_info, storage_line
from sabounds.provenance import checkpoint_digests, package_versions, platform_line
from sabounds.user_text import markdown_text

Advance = Callable[[str], None]


@dataclass(frozen=True)
class ReportData:
    """Everything the report states, as computed (no formatting)."""

    checks: list[tuple[Check, Outcome]]
    regimes: dict
    regimes_markdown: str
    analysis: ModelAnalysis
    scaling: ScalingResult
    model_dir: Path
    settings: Settings
    digests: dict[str, str]
    versions: dict[str, str]
    seconds: float
    bound: object = None
    """The whole bound (``sabounds.numerics.bound.analysis.BoundAnalysis``) at ``BOUND_SETTING``."""
    source: dict | None = None
    """Source format, stored tensor types and dequantization (``numerics.checkpoints.storage_info``)."""
    figures: object = None
    """The ``sabounds.plots.FigureOptions`` asked for (None: the defaults), repeated in the Reproduce command."""


def stage_sizes(model_dir: Path) -> dict[str, int]:
    """How many progress steps each stage takes: one per check, one for the regimes, one per layer read."""
    second = second_trained_model(model_dir)
    return {"checks": len(all_checks()), "regimes": 1, "bound": 1, "layers": open_checkpoint(model_dir).shape.layers
            + (open_checkpoint(second).shape.layers if second is not None else 0)}


def second_trained_model(model_dir: Path) -> Path | None:
    """paraphrase-MiniLM-L3-v2 (ONNX) beside the bundled all-MiniLM-L6-v2, when both are the ones in use and installed:
    the scaling study then shows two models trained at different depths beside the truncations."""
    from sabounds.numerics.checkpoints.reader import CheckpointError, default_model_dir, minilm_l3_onnx
    try:
        if Path(model_dir).resolve() != default_model_dir().resolve():
            return None
        return minilm_l3_onnx()
    except CheckpointError:
        return None


def compute(model_dir: Path, settings: Settings, advance: Advance) -> ReportData:
    """Run every stage; ``advance(note)`` is called once per progress step of :func:`stage_sizes`."""
    from sabounds.regime_tables import json_data, markdown as regimes_markdown
    from sabounds.theory.architecture import ARCHITECTURES
    from sabounds.theory.regimes import table

    start = time.perf_counter()
    checks = run_all(all_checks(), settings, progress=lambda c, o: advance(c.id))
    results = table(None, ARCHITECTURES["single_head"]())
    regimes, table_md = json_data(results), regimes_markdown(results)
    advance("regime tables")
    checkpoint = open_checkpoint(model_dir)
    measured = measure_model(checkpoint, None, lambda note: advance(f"reading {note}"))
    analysis = analyze_measured(measured)
    depth = checkpoint.shape.layers
    depth_scaling = with_fits(truncation_points(checkpoint_label(model_dir), measured.layers, checkpoint.shape,
                                                range(1, depth + 1)))
    second = second_trained_model(model_dir)
    if second is not None:  # fits stay those of the main model's truncations; the second model's points sit beside
        other = open_checkpoint(second)
        spectra = measure_model(other, None, lambda note: advance(f"reading {second.stem} {note}")).layers
        extra = truncation_points(checkpoint_label(second), spectra, other.shape, range(1, other.shape.layers + 1))
        depth_scaling = ScalingResult(depth_scaling.points + extra, depth_scaling.fits)
    whole = whole_bound(measured.layers, checkpoint)
    advance("whole bound")
    return ReportData(checks, regimes, table_md, analysis, depth_scaling, Path(model_dir), settings,
                      checkpoint_digests(model_dir), package_versions(), time.perf_counter() - start, whole,
                      source=storage_info(checkpoint))


BOUND_SETTING = {"n": 10**9, "delta": 0.05, "margin": 1.0}
"""The report's whole bound: n = 1e9 samples, delta = 0.05, margin 1, B = 1, T = max_position_embeddings."""


def whole_bound(spectra, checkpoint):
    """The whole bound of the measured layers (the same numbers as ``sabounds bound`` with ``BOUND_SETTING``);
    None for a family whose layer departs from BERT's (the bound is reconstructed for that layer only)."""
    from sabounds.bound_api import config_tokens
    from sabounds.numerics.bound.analysis import analyze_bound
    from sabounds.numerics.bound.slots import build_model
    from sabounds.numerics.bound.source import layer_inputs
    from sabounds.numerics.bound.whole import Setting
    if not checkpoint.shape.published:
        return None
    model = build_model(layer_inputs(spectra, checkpoint.shape.intermediate), checkpoint.shape.hidden)
    return analyze_bound(model, Setting(**BOUND_SETTING, tokens=config_tokens(checkpoint.model_dir)), curve_points=17)


def bound_summary(data: ReportData) -> list[str]:
    """One summary line: the whole bound's totals, vacuity and the n each needs (reconstructed)."""
    if data.bound is None:
        return []
    b, need = data.bound.primary, data.bound.needed
    parts = [f"{x.label} {mpmath.nstr(x.total, 6)} ({'vacuous' if x.vacuous else 'not vacuous'}; "
             + (f"below 1 from n = {mpmath.nstr(need[x.name].n, 4)})" if need[x.name].n is not None else need[x.name].note + ")")
             for x in (b.ours_sum, b.ours_rss, b.edelman)]
    return [f"- Whole bound [reconstructed] at n = 1e9, delta = 0.05, margin 1: " + "; ".join(parts) + "."]


def bound_section(data: ReportData) -> list[str]:
    """``## The whole bound``: the printed lines of ``sabounds bound`` and the figure."""
    if data.bound is None:
        return ["## The whole bound", "", "Not computed: the whole bound is reconstructed for the BERT layer only, and this "
                "model's layer departs from it (see the model analysis).", ""]
    from sabounds.commands.bound import report_lines
    s = BOUND_SETTING
    return ["## The whole bound", "",
            f"`sabounds bound --n {s['n']:.0e} --delta {s['delta']} --margin {s['margin']}` on this model (reconstructed "
            "Theorem 3.1 and Edelman et al. through the same margin bound; `bound/bound.json`):", "",
            "```", *map(plain, report_lines(data.bound)), "```", "", "![whole bound against n](bound/bound_vs_n.png)", ""]


def _write_json(path: Path, data) -> None:
    path.write_text(dumps(data, indent=2) + "\n", encoding="utf-8")


def write_tables(data: ReportData, folder: Path, figures=None) -> None:
    """Every table as CSV and JSON, and the figures (PNG unless ``figures``, a ``sabounds.plots.FigureOptions``, says)."""
    records = [outcome_record(c, o) for c, o in data.checks]
    _write_json(folder / "checks.json", {"checks": records, "summary": summary(data.checks)})
    columns = ["id", "claim", "verdict", "method", "precision_digits", "samples", "margin", "seconds", "is_step", "detail"]
    write_csv(folder / "checks.csv", columns, [[r[c] for c in columns] for r in records])
    _write_json(folder / "regimes.json", data.regimes)
    rows = [[reg["name"], reg["alpha"], bound, b["depth_exponent"], b["width_exponent"], b["token_dependence"], b["expr"]]
            for reg in data.regimes["regimes"] for bound, b in reg["bounds"].items()]
    write_csv(folder / "regimes.csv", ["regime", "alpha", "bound", "depth_exponent", "width_exponent",
                                       "token_dependence", "expr"], rows)
    (folder / "analysis").mkdir()
    write_analysis_files(data.analysis, folder / "analysis", plots=True, figures=_with_png(figures))
    _write_json(folder / "analysis" / "analysis.json", data.analysis.to_json())
    (folder / "scaling").mkdir()
    write_scaling_files(data.scaling, folder / "scaling", plots=True, figures=_with_png(figures))
    _write_json(folder / "scaling" / "scaling.json", data.scaling.to_json())
    _write_json(folder / "provenance.json", provenance(data))
    if data.bound is not None:
        from sabounds.commands.bound import write_files
        (folder / "bound").mkdir()
        write_files(data.bound, folder / "bound", _with_png(figures))


def provenance(data: ReportData) -> dict:
    return {"sabounds": __version__, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "platform": platform_line(), "versions": data.versions, "model": checkpoint_label(data.model_dir),
            "checkpoint_sha256": data.digests, "source": getattr(data, "source", None),
            "settings": {"precision_digits": data.settings.precision, "samples": data.settings.samples,
                         "seed": data.settings.seed, "lphi": data.analysis.lphi, "grid_m": data.analysis.grid_m,
                         "rank_tol": data.analysis.rank_tol},
            "seconds": round(data.seconds, 1)}


_COORDINATES = ("regime", "alpha", "aggregation")
_VALUE_WORDS = {"alpha": {"bounded": "bounded alpha", "exponential": "exponential alpha (alpha^(l) = C^(L-l))"},
                "aggregation": {"rss": "rss aggregation", "sum": "sum aggregation", "edelman": "Edelman's bound"}}


def _keys(conditions: list[str]) -> list[tuple[str, ...]] | None:
    """``regime/alpha/aggregation`` keys of conditions written ``key: note``; None when they are not keyed."""
    keys = []
    for c in conditions:
        parts = tuple(c.split(":", 1)[0].split("/"))
        if len(parts) != len(_COORDINATES) or " " in parts[0] + parts[1]:
            return None
        keys.append(parts)
    return keys


def _value_words(i: int, values: set[str]) -> str:
    words = [_VALUE_WORDS.get(_COORDINATES[i], {}).get(v, v.replace("_", " ")) for v in sorted(values)]
    if _COORDINATES[i] == "regime":
        return ("the " + ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "the " + words[0]) + \
            (" regimes" if len(words) > 1 else " regime")
    return " or ".join(words)


def describe_conditions(subset: list[tuple[str, ...]], universe: list[tuple[str, ...]]) -> str:
    """Words for a set of condition keys (``with bounded alpha and the better aggregation, in the frobenius, rank and
    spectral regimes``) when it is a product of values per coordinate; else how many of the universe it is."""
    sub, everything = set(subset), set(universe) | set(subset)
    values = [{k[i] for k in sub} for i in range(len(_COORDINATES))]
    size = 1
    for v in values:
        size *= len(v)
    if not sub or size != len(sub):
        return f"under {len(sub)} of {len(everything)} conditions"
    words, regime = [], ""
    for i, v in enumerate(values):
        if v == {k[i] for k in everything}:
            regime = "in every regime" if _COORDINATES[i] == "regime" else regime
            continue
        if _COORDINATES[i] == "regime":
            regime = "in " + _value_words(i, v)
        else:
            words.append(_value_words(i, v))
    return ", ".join(x for x in ("with " + " and ".join(words) if words else "", regime) if x)


_AGGREGATION_WORDS = {"best": "the better aggregation", "sum": "sum aggregation", "rss": "rss aggregation",
                      "sum, sharp": "sum aggregation with the sharp tail", "rss, sharp": "rss aggregation with the sharp tail",
                      "edelman": "Edelman's bound"}


def _law_words(var: str, power: str, log_power: str | None) -> str:
    return growth_law(var, {"exponent": power, "log_power": log_power or "0"})


def condition_words(condition: str, var: str | None = None) -> str:
    """``frobenius/bounded/sum: ...`` as ``Frobenius regime, bounded alpha, sum aggregation: ...``; other text as is.
    With ``var`` (the claim's variable), growth orders such as ``ours 1/2 log^1/2`` read ``ours L^(1/2) (log L)^(1/2)``."""
    import re
    if var is not None:
        condition = re.sub(r"\b(edelman|ours) (\d+(?:/\d+)?|exponential)(?:[ *]log\^(\d+(?:/\d+)?))?(?=[ ,;(]|$)",
                           lambda g: f"{g.group(1)} {_law_words(var, g.group(2), g.group(3))}", condition)
    m = re.match(r"^(\w+)/(\w+)/([\w, ]+): ", condition)
    if not m:
        return condition
    regime, alpha, agg = m.groups()
    words = f"{regime.replace('_', ' ')} regime, {_VALUE_WORDS['alpha'].get(alpha, alpha)}, {_AGGREGATION_WORDS.get(agg, agg)}"
    return words[:1].upper() + words[1:] + ": " + condition[m.end():]


_CLAIM_VARIABLE = {"claims.1_depth": "L"}
"""The variable whose growth orders a claim's conditions list (written as bare exponents in the witness)."""


def claim_conditions(outcome: Outcome, var: str | None = None) -> str:
    """One line: the verdict's headline, where the claim holds as stated, and a reading that fails, if any."""
    w = outcome.witness or {}
    holds, partial, fails = w.get("holds", []), w.get("holds_up_to_log", []), w.get("fails", [])
    scope = w.get("in_scope", holds + partial)
    head = w.get("headline", "")
    keys, universe = _keys(scope), _keys(holds + partial + fails)
    if keys and universe is not None:
        where = describe_conditions(keys, universe)
    else:
        where = f"in all {len(scope)} cases checked" if scope else ""
    parts = [" ".join(x for x in (head, where) if x)]
    if fails:
        in_scope = w.get("counterexample") or []
        words = "other readings fail" if scope and not in_scope else "fails"
        parts.append(f"{words}, e.g. {condition_words((in_scope or fails)[0], var)}")
    return plain("; ".join(p for p in parts if p)) or plain(outcome.detail.split(". ")[0])


_VALUE_WORDS["aggregation"]["best"] = "the better aggregation (rss)"


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
    rows = [f"| {i}. {plain(c.claim)} | **{o.verdict.value}** | {claim_conditions(o, _CLAIM_VARIABLE.get(c.id))} |"
            for i, (c, o) in enumerate(_claims(data), 1)]
    lines = [
        "## Summary", "",
        "### The paper's claims, decided by computation", "",
        "| claim | verdict | conditions |", "| --- | --- | --- |", *rows, "",
        "proved: by sympy or interval arithmetic (the check's method says which). verified: held at every sampled point, not proved. refuted: false as stated; the "
        "conditions say where it still holds. Conditions: the spectral regime, whether the Lipschitz product alpha "
        "stays bounded or grows as C^(L-l), and how Dudley's integral is aggregated (sum or rss).", "",
        f"### The model: {_model_name(data)}, L = {a.shape.layers} layers, width N = {a.shape.hidden}, "
        f"H = {a.shape.heads} heads", "",
        "| quantity | value | formula |", "| --- | --- | --- |",
        f"| ours | {a.ours:.8g} | sum over all {total} matrices W of min over p in P_m of "
        "S_p(W)^(1/(p+2)) scale^(p/(p+2)) N^((p+1)/(p+2)), plus sqrt(L) |",
        f"| edelman | {a.edelman:.4g} | (1 + sum_l alpha_l^(2/3) xi_l)^(3/2), the norm-based baseline of Edelman et al. (2022) |",
        f"| edelman / ours | {a.edelman / a.ours:.3g} | |", "",
        "Both are capacity proxies computed from the weights, not bounds on the risk: constants, log factors, the "
        "sample size and the margin are left out. S_p(W) is the sum of the p-th powers of W's singular values "
        "(S_0 = rank), scale = gamma alpha L with alpha the Lipschitz product of the layers above and gamma the factor "
        f"inside the layer, P_m = {{0, 1/m, ..., 2}} with m = {a.grid_m}, xi_l a sum of (2,1)-norm terms of layer l.", "",
        f"- p = 0 is optimal for {zero} of {total} matrices "
        f"({', '.join(f'{plain(k)} {z}/{n}' for k, (z, n) in counts.items())})"
        + (f": ours is the rank count sum sqrt(rank(W) N) + sqrt(L)." if zero == total else "."),
    ]
    several = len({g.model for fits in growth.values() for g in fits}) > 1
    for q in ("ours", "edelman"):
        for g in growth[q]:
            who = f" of {g.model}" if several else ""
            lines.append(f"- Over truncations{markdown_text(who)} to {g.depths[0]}..{g.depths[-1]} layers, {q} {g.describe()}.")
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
        lines += [f"### {plain(check.claim)}: {outcome.verdict.value}", "", f"Method: {plain(outcome.method)}.", "",
                  plain(outcome.detail.split(". HOLDS")[0]) + ".", ""]
        for key, title in (("holds", "Holds"), ("holds_up_to_log", "Holds only up to a log factor"), ("fails", "Fails")):
            if w.get(key):
                lines += [f"{title}:", "", *[f"- {plain(condition_words(c, _CLAIM_VARIABLE.get(check.id)))}" for c in w[key]], ""]
    return lines


def checks_section(data: ReportData) -> list[str]:
    counts, failing = summary(data.checks), failing_steps(data.checks)
    controls = [c for c, _ in data.checks if is_negative_control(c)]
    floats = sum("float64" in o.method for _, o in data.checks)
    lines = [
        "## Every check", "",
        f"{len(data.checks)} checks: " + summary_text(counts) + ". "
        + ("Every derivation step is proved or verified." if not failing else
           "Failing derivation steps: " + ", ".join(c.id for c in failing) + "."), "",
        f"Numeric checks ran at {data.settings.precision} significant digits (mpmath) with {data.settings.samples} "
        f"random draws each (fewer where a check says so), except the {floats} marked float64, which compute in double "
        "precision (about 16 digits). The margin is the smallest relative slack found, (right - left) / |right|. A "
        "relation counts as violated only when it fails by more than its method's rounding tolerance (docs/definitions.md, "
        "'Tolerances'): a verified check with a tiny negative margin held within that tolerance, given beside it; a "
        "refuted check failed beyond it.", "",
    ]
    if controls:
        lines += ["Negative controls are refuted on purpose: each shows that its check can fail. "
                  + " ".join(f"`{c.id}`: {plain(' '.join((c.decide.__doc__ or '').split()))}" for c in controls), ""]
    lines += ["| check | verdict | method | precision | margin |", "| --- | --- | --- | --- | --- |"]
    for c, o in data.checks:
        note = " (negative control)" if is_negative_control(c) else ""
        margin = _margin(c, o)
        lines.append(f"| `{c.id}` | {o.verdict.value}{note} | {plain(o.method)} | {_precision(o)} | {margin} |")
    return lines + [""]


_REGIME_BOUND_WORDS = {"edelman": "Edelman et al.", "ours_sum": "ours: sum aggregation",
                       "ours_rss": "ours: rss aggregation", "ours_sum_sharp": "ours: sum aggregation, sharp tail",
                       "ours_rss_sharp": "ours: rss aggregation, sharp tail",
                       "ours_best_p_crude": "ours: better aggregation, crude tail", "ours_best_p": "ours: best of the four"}
"""The report's own names of the regime table's bounds (the JSON and CSV keep the identifiers)."""


def growth_law(var: str, record: dict) -> str:
    """The full growth law of a regime record's exponent entry: ``L^(1/2) (log L)^(1/2)``, ``N``, ``exponential``."""
    if record["exponent"] == "exponential":
        return "exponential"
    power, log_power = record["exponent"], record["log_power"]
    parts = []
    if power != "0":
        parts.append(var if power == "1" else f"{var}^{power}" if "/" not in power else f"{var}^({power})")
    if log_power != "0":
        parts.append(f"log {var}" if log_power == "1" else f"(log {var})^({log_power})")
    return (" ".join(parts) or "constant") + ("" if record.get("is_attained", True) else " (infimum, not attained)")


def _token_words(text: str) -> str:
    """``log^(1/4) at worst over p`` as ``(log T)^(1/4) at worst over p``; ``power T^(1/2)`` as ``T^(1/2)``."""
    import re
    text = re.sub(r"\blog\^\(([^)]*)\)", r"(log T)^(\1)", plain(text))
    return text.replace("power T^", "T^")


def regimes_section(data: ReportData) -> list[str]:
    lines = ["## Growth of each bound by regime", "",
             "Growth of each bound in depth L and width N (the other quantities fixed; for ours the infimum over p), log "
             "factors included, and how it depends on the token length T, computed by sympy from the derivations. "
             "Regimes: Frobenius (||W||_F bounded), rank, spectral (only ||W||_2 bounded), power law and low rank plus "
             "tail; alpha bounded or exponential C^(L-l). Bounds: ours with sum or rss aggregation of Dudley's integral, "
             "with Theorem 4.1's crude tail or its sharp tail, the better aggregation with the crude tail only, and the "
             "best of the four.", "",
             "| regime | alpha | bound | depth L | width N | tokens T |", "| --- | --- | --- | --- | --- | --- |"]
    for reg in data.regimes["regimes"]:
        for name, b in reg["bounds"].items():
            lines.append(f"| {reg['name'].replace('_', ' ')} | {reg['alpha']} | {_REGIME_BOUND_WORDS.get(name, plain(name))} | "
                         f"{growth_law('L', b['depth'])} | {growth_law('N', b['width'])} | {_token_words(b['token_dependence'])} |")
    lines += ["", "'exponential': lim log(bound) / v > 0 as v grows. For ours each variable's infimum is taken on its own: "
              "the depth and the width infima may come from different p, and an infimum that no fixed p reaches is marked "
              "in regimes.json ('is_attained'). Compared at one p at a time, jointly in depth and width (N = L^kappa, "
              "up to log factors):", "",
              "| regime | alpha | ours grows slower than Edelman where | two routes agree |", "| --- | --- | --- | --- |"]
    lines += [f"| {reg['name'].replace('_', ' ')} | {reg['alpha']} | {reg['joint']['ours_smaller_jointly']} | "
              f"{'yes' if reg['joint']['second_route']['agrees'] else 'no'} |" for reg in data.regimes["regimes"]]
    return lines + [""]


def model_section(data: ReportData) -> list[str]:
    a = data.analysis
    lines = ["## The model in detail", ""]
    lines += [f"- {markdown_text(plain(line))}" for line in summary_lines(a)]
    lines += ["", "Per-matrix table: `analysis/matrices.csv`; totals: `analysis/totals.csv`.", ""]
    figures = (("singular_value_decay", "Singular values of every matrix, normalised by the largest; colour: layer."),
               ("contribution_vs_p", "Each matrix's contribution to ours against p; dot: its optimal p."),
               ("p_opt_per_layer", "Optimal p of every matrix, layer by head."))
    for stem, caption in figures:
        lines += [f"![{caption}](analysis/{stem}.png)", "", f"*{caption}*", ""]
    return lines


def scaling_section(data: ReportData) -> list[str]:
    lines = ["## Growth with depth", "",
             "ours and edelman of the model truncated to its first L layers (each truncation analysed as an L-layer "
             "model). One growth law per quantity, the same for every model: edelman, a product of per-layer Lipschitz "
             "factors, by its factor per layer (least-squares fit of its logarithm against L); ours by its power of L "
             "(fit against log L) or its factor per layer, whichever fits all models better. A fit to 3 depths has one "
             "residual degree of freedom and is weakly determined.", "",
             "A truncation is the first L layers of a deeper model, not a model trained at depth L; the figure fills the "
             "markers of trained models and leaves truncations hollow. Growth laws are fitted to each model's points.", "",
             "| model | L | kind | ours | edelman |", "| --- | --- | --- | --- | --- |",
             *[f"| {markdown_text(pt.model)} | {pt.layers} | {pt.kind} | {pt.ours:.8g} | {pt.edelman:.4g} |"
               for pt in data.scaling.points], ""]
    for q, fits in _fits(data).items():
        lines += [f"- {q}: {g.describe()} (power fit residual {g.rss_power:.3g}, exponential fit residual "
                  f"{g.rss_exponential:.3g}, in log value)" for g in fits]
    return lines + ["", "![ours and edelman against depth](scaling/scaling.png)", ""]


def reproduce_section(data: ReportData) -> list[str]:
    from sabounds.proofs_check.verdict import Settings
    prov = provenance(data)
    extra = "" if data.settings.seed == Settings.seed else f" --seed {data.settings.seed}"
    model = "" if is_bundled(data.model_dir) else f"--model {shlex.quote(str(data.model_dir))} "
    if data.figures is not None:
        from sabounds.plots import FigureOptions
        if tuple(data.figures.formats) != FigureOptions.formats:
            extra += f" --figure-format {','.join(data.figures.formats)}"
        if data.figures.dpi != FigureOptions.dpi:
            extra += f" --dpi {data.figures.dpi}"
    return ["## Reproduce", "",
            f"sabounds {__version__}, {prov['created']}, {prov['platform']}, {data.seconds:.0f} s.", "",
            *code_block(f"sabounds report {model}--precision {data.settings.precision} "
                        f"--samples {data.settings.samples}{extra}"), "",
            "| package | version |", "| --- | --- |",
            *[f"| {markdown_text(k)} | {markdown_text(v)} |" for k, v in data.versions.items()], "",
            "| checkpoint file | sha256 |", "| --- | --- |",
            *[f"| {markdown_text(k)} | `{v}` |" for k, v in data.digests.items()], "",
            *([storage_line(data.source), ""] if getattr(data, "source", None) else [])]


Section = Callable[[ReportData], list[str]]
DETAIL_SECTIONS: list[Section] = [claims_section, checks_section, regimes_section, model_section, scaling_section,
                                  bound_section]
"""The report's sections after the summary, in order; a new section is one function appended here (before
:func:`reproduce_section`, which always comes last)."""


def markdown(data: ReportData) -> str:
    """``report.md``: title, the summary (first screen), then each of :data:`DETAIL_SECTIONS` and how to reproduce."""
    lines = ["# Spectrum-adaptive generalization bounds: verification report", "",
             "Claims of Sakai and Imaizumi (2026), decided by sabounds, and the paper's capacity proxies measured on a "
             "trained model.", ""]
    lines += summary_section(data)
    for section in [*DETAIL_SECTIONS, reproduce_section]:
        lines += section(data)
    return "\n".join(lines)


_HTML_STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
table{border-collapse:collapse;margin:1rem 0;font-size:0.9rem}th,td{border:1px solid #bbb;padding:0.25rem 0.5rem;
vertical-align:top}th{background:#eee}img{max-width:100%}code{background:#f4f4f4;padding:0 0.2rem}
pre{overflow-x:auto;max-width:100%;background:#f7f7f7;padding:0.5rem}table{display:block;max-width:100%;overflow-x:auto}
td code{overflow-wrap:anywhere}"""


def code_block(text: str) -> list[str]:
    """A fenced code block holding ``text`` verbatim (a user path in it may hold backticks and newlines): the
    fence is longer than any run of backticks inside, so nothing in ``text`` can close it."""
    import re
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", text)), default=0))
    return [fence, text, fence]


_OWN_FIGURE = r"(analysis|scaling|bound)/[a-z_]+\.png"
"""The only link targets report.html renders: the report's own figures (a user string cannot add one)."""


def html(text: str) -> str:
    """``report.html``: the Markdown rendered by markdown-it-py (CommonMark plus tables), figures inline; raw HTML
    is escaped and any link or image other than the report's own figures is left as text."""
    import re

    from markdown_it import MarkdownIt
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    renderer.validateLink = lambda url: re.fullmatch(_OWN_FIGURE, url) is not None
    body = renderer.render(text)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>sabounds report</title><style>" + _HTML_STYLE + "</style></head><body>\n" + body + "</body></html>\n")


def _with_png(figures):
    """The report's pages show PNG: it is always written, beside any other format asked for."""
    from sabounds.plots import FigureOptions
    figures = figures or FigureOptions()
    return FigureOptions(tuple(dict.fromkeys(("png", *figures.formats))), figures.dpi)


def build_report(folder: Path, model_dir: Path, settings: Settings, advance: Advance, figures=None) -> ReportData:
    """Compute everything and write it into ``folder`` (which the caller makes atomic)."""
    data = dataclasses.replace(compute(model_dir, settings, advance), figures=figures)
    write_tables(data, folder, figures)
    text = markdown(data)
    (folder / "report.md").write_text(text, encoding="utf-8")
    (folder / "report.html").write_text(html(text), encoding="utf-8")
    return data
