"""The main job's report: every check, the regime tables, the model analysis and its depth scaling, in one folder.

``build_report(folder, model_dir, settings, advance)`` writes ``report.md`` (summary first), every table as
CSV and JSON, and the figures as PNG into ``folder``; the command writes into an atomic partial folder, so an
interrupted run leaves nothing.  The numbers come from the same functions as the individual commands.
"""

from __future__ import annotations

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
from sabounds.provenance import checkpoint_digests, package_versions, platform_line

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
    depth_scaling = with_fits(truncation_points(checkpoint.label, measured.layers, checkpoint.shape, range(1, depth + 1)))
    second = second_trained_model(model_dir)
    if second is not None:  # fits stay those of the main model's truncations; the second model's points sit beside
        other = open_checkpoint(second)
        spectra = measure_model(other, None, lambda note: advance(f"reading {second.stem} {note}")).layers
        extra = truncation_points(second.stem, spectra, other.shape, range(1, other.shape.layers + 1))
        depth_scaling = ScalingResult(depth_scaling.points + extra, depth_scaling.fits)
    whole = whole_bound(measured.layers, checkpoint)
    advance("whole bound")
    return ReportData(checks, regimes, table_md, analysis, depth_scaling, Path(model_dir), settings,
                      checkpoint_digests(model_dir), package_versions(), time.perf_counter() - start, whole)


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
            "```", *report_lines(data.bound), "```", "", "![whole bound against n](bound/bound_vs_n.png)", ""]


def _write_json(path: Path, data) -> None:
    path.write_text(dumps(data, indent=2) + "\n", encoding="utf-8")


def write_tables(data: ReportData, folder: Path) -> None:
    """Every table as CSV and JSON, and the figures as PNG."""
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
    write_analysis_files(data.analysis, folder / "analysis", plots=True)
    _write_json(folder / "analysis" / "analysis.json", data.analysis.to_json())
    (folder / "scaling").mkdir()
    write_scaling_files(data.scaling, folder / "scaling", plots=True)
    _write_json(folder / "scaling" / "scaling.json", data.scaling.to_json())
    _write_json(folder / "provenance.json", provenance(data))
    if data.bound is not None:
        from sabounds.commands.bound import write_files
        (folder / "bound").mkdir()
        write_files(data.bound, folder / "bound")


def provenance(data: ReportData) -> dict:
    return {"sabounds": __version__, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "platform": platform_line(), "versions": data.versions, "model_dir": str(data.model_dir),
            "checkpoint_sha256": data.digests,
            "settings": {"precision_digits": data.settings.precision, "samples": data.settings.samples,
                         "seed": data.settings.seed, "lphi": data.analysis.lphi, "grid_m": data.analysis.grid_m,
                         "rank_tol": data.analysis.rank_tol},
            "seconds": round(data.seconds, 1)}


def _keys(conditions: list[str]) -> list[list[str]]:
    return [c.split(":", 1)[0].split("/") for c in conditions]


def condense(holds: list[str], fails: list[str]) -> str:
    """One line for a claim's conditions: a coordinate of the ``regime/alpha/aggregation`` keys that separates
    the conditions where it holds from those where it fails, if there is one; else the counts."""
    if not fails:
        return f"holds under all {len(holds)} conditions checked"
    if not holds:
        return f"fails under {len(fails)} conditions"
    h, f = _keys(holds), _keys(fails)
    width = min(len(k) for k in h + f)
    for i in range(width if width > 1 else 0):
        yes, no = {k[i] for k in h}, {k[i] for k in f}
        if not yes & no:
            return f"holds exactly for {', '.join(sorted(yes))}; fails for {', '.join(sorted(no))}"
    return f"holds under {len(holds)}, fails under {len(fails)} conditions; e.g. fails: {fails[0]}"


def _conditions(w: dict) -> str:
    line = condense(w.get("holds", []), w.get("fails", []))
    partial = w.get("holds_up_to_log", [])
    if partial:
        keys = sorted({"/".join(k) for k in _keys(partial)})
        line += f"; holds only up to a log factor under {len(partial)}: {', '.join(keys)}"
    return line


def _claims(data: ReportData) -> list[tuple[Check, Outcome]]:
    return [(c, o) for c, o in data.checks if c.id.startswith("claims.")]


def _claim_rows(data: ReportData) -> list[str]:
    rows = ["| claim | verdict | conditions |", "| --- | --- | --- |"]
    for check, outcome in _claims(data):
        w = outcome.witness or {}
        headline = f" ({w['headline']})" if w.get("headline") and w["headline"] != "holds" else ""
        rows.append(f"| {check.claim} | **{outcome.verdict.value}**{headline} | {_conditions(w)} |")
    return rows


def _claim_details(data: ReportData) -> list[str]:
    lines = []
    for check, outcome in _claims(data):
        w = outcome.witness or {}
        lines += [f"### `{check.id}`: {outcome.verdict.value}", "", f"{check.claim}. Method: {outcome.method}.", "",
                  outcome.detail.split(". HOLDS under")[0] + ".", ""]
        lines += ["Holds under:", "", *[f"- {c}" for c in w.get("holds", [])], ""] if w.get("holds") else []
        lines += ["Holds only up to a log factor under:", "", *[f"- {c}" for c in w["holds_up_to_log"]], ""] \
            if w.get("holds_up_to_log") else []
        lines += ["Fails under:", "", *[f"- {c}" for c in w.get("fails", [])], ""] if w.get("fails") else []
    return lines


def markdown(data: ReportData) -> str:
    """``report.md``: summary first (claims, ours against edelman, regime table), then the details."""
    a, counts = data.analysis, summary(data.checks)
    failing = failing_steps(data.checks)
    fits = {f.quantity: f for f in data.scaling.fits}
    slope = lambda q: f"{fits[q].slope_L:.3f}" if q in fits and fits[q].slope_L is not None else "n/a"  # noqa: E731
    prov = provenance(data)
    lines = [
        "# sabounds report", "",
        f"sabounds {__version__}, {prov['created']}, {prov['platform']}; {len(data.checks)} checks at "
        f"{data.settings.precision} digits and {data.settings.samples} samples (seed {data.settings.seed}); "
        f"model `{data.model_dir}`; {data.seconds:.0f} s.", "",
        "## Summary", "",
        "### The seed's claims", "", *_claim_rows(data), "",
        "### Checks", "",
        "Derivation steps and claims: " + summary_text(counts) + ". "
        + ("No derivation step is refuted or unresolved." if not failing else
           "Failing derivation steps: " + ", ".join(c.id for c in failing) + "."), "",
        f"### The model (L = {a.shape.layers}, N = {a.shape.hidden}, H = {a.shape.heads})", "",
        *[f"- {line}" for line in summary_lines(a)],
        f"- Depth truncations 1..{a.shape.layers}: d log ours / d log L = {slope('ours')}, "
        f"d log edelman / d log L = {slope('edelman')}.", *bound_summary(data), "",
        "### Regime table", "", data.regimes_markdown, "",
        "## The seed's claims in detail", "", *_claim_details(data),
        "## Checks", "",
        "| id | verdict | method | precision, samples | margin |", "| --- | --- | --- | --- | --- |",
        *[f"| `{c.id}` | {o.verdict.value} | {o.method} | "
          + ("symbolic" if o.precision_digits is None and o.samples is None else f"{o.precision_digits} digits, {o.samples} samples")
          + f" | {'' if o.margin is None else f'{o.margin:.3g}'} |" for c, o in data.checks], "",
        "## Model analysis", "",
        "Per-matrix table: `analysis/matrices.csv`; totals: `analysis/totals.csv`.", "",
        "![singular value decay](analysis/singular_value_decay.png)", "",
        "![contribution against p](analysis/contribution_vs_p.png)", "",
        "![p_opt per layer](analysis/p_opt_per_layer.png)", "",
        "## Depth scaling", "",
        "A truncation is the first L layers of a deeper model, not a model trained at depth L; the figure fills the "
        "markers of trained models and leaves truncations hollow. Slopes are fitted to the main model's truncations.", "",
        "| model | L | kind | ours | edelman |", "| --- | --- | --- | --- | --- |",
        *[f"| {Path(pt.model).name} | {pt.layers} | {pt.kind} | {pt.ours:.8g} | {pt.edelman:.6g} |"
          for pt in data.scaling.points], "",
        "![scaling](scaling/scaling.png)", "",
        *bound_section(data),
        "## Reproduce", "",
        "```", f"sabounds report --model {data.model_dir} --precision {data.settings.precision} "
        f"--samples {data.settings.samples} --seed {data.settings.seed}", "```", "",
        "| package | version |", "| --- | --- |", *[f"| {k} | {v} |" for k, v in data.versions.items()], "",
        "| checkpoint file | sha256 |", "| --- | --- |", *[f"| {k} | `{v}` |" for k, v in data.digests.items()], "",
    ]
    return "\n".join(lines)


def build_report(folder: Path, model_dir: Path, settings: Settings, advance: Advance) -> ReportData:
    """Compute everything and write it into ``folder`` (which the caller makes atomic)."""
    data = compute(model_dir, settings, advance)
    write_tables(data, folder)
    (folder / "report.md").write_text(markdown(data), encoding="utf-8")
    return data
