"""A study's files and tables: ``study.json`` (settings, every run, every ranking), ``runs.csv`` (one row per run),
``table.md`` (per task: the verdict table and the conclusion below), and figures per task: ``scatter_<task>`` (gap
against each measure, coloured by training size, seed means with their range) and ``forest_<task>`` (granulated tau
per measure and axis with its interval), in the chosen formats among PNG, PDF and SVG.

``verdict_table`` and ``conclusion`` are the one rendering of a result: the command, ``table.md``, the README's study
table and ``docs/guide/study.md`` all print them (``python -m sabounds.render.study_pages`` writes the last two from the
stored result ``docs/study/default.json``, and a test fails when they differ)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sabounds.training_study.measures import MEASURES, WEIGHTS_ONLY
from sabounds.training_study.statistics import TAU

SHOWN = (
    "ours_sum",
    "edelman",
    "spectral_product",
    "frobenius_sum",
    "params",
    "bound_ours_sum",
    "bound_edelman",
    "bartlett",
    "inverse_margin",
)
"""The measures of the verdict table (every measure is in ``study.json``)."""
AXIS_NAMES = {"size": "training size n", "noise": "label noise", "width": "width N"}


def fmt(x, digits: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and not np.isfinite(x)) else f"{x:+.{digits}f}"


def kind(measure: str) -> str:
    return "weights only" if measure in WEIGHTS_ONLY else "with n" if measure.startswith("bound_") else "with margin"


KINDS = ("weights only", "with n", "with margin")
EVERY = tuple(sorted(MEASURES, key=lambda m: KINDS.index(kind(m))))
"""Every measure, in ``SHOWN``'s order of kinds: weights only, then with n, then with the margin."""


def left_out(t: dict, measures, where: str) -> list[str]:
    """The line (and a blank) naming the ranked measures a table of ``measures`` leaves out, and ``where`` they are."""
    names = [r["measure"] for r in t["rankings"]["gap_error"] if r["measure"] not in measures]
    total = len(t["rankings"]["gap_error"])
    return (
        [
            f"Not shown here: {', '.join(f'`{m}`' for m in names)} ({len(names)} of {total} measures); "
            f"every measure's ranking is in {where}.",
            "",
        ]
        if names
        else []
    )


def fmt_p(p) -> str:
    return "n/a" if p is None else "p<0.001" if p < 0.001 else f"p={p:.3f}"


def _cell(a: dict) -> str:
    if a["psi"] is None:
        return "n/a"
    return f"{fmt(a['psi'])} [{fmt(a['low'])}, {fmt(a['high'])}] {fmt_p(a['p'])} **{a['verdict']}**"


def _sign_cell(se: dict) -> str:
    """Worst sign-error per axis with the environments kept by the noise filter out of all."""
    return "; ".join(
        f"{a} {'n/a' if c['worst'] is None else format(c['worst'], '.2f')} ({c['kept']}/{c['environments']})"
        for a, c in se["per_axis"].items()
    )


def verdict_header(axes) -> list[str]:
    return (
        ["measure", "kind"]
        + [f"along {AXIS_NAMES.get(a, a)}: psi [95% CI] p" for a in axes]
        + [
            "overall tau [95% CI] p",
            "sign-error worst per axis (kept/all)",
            "range (ln): all / one architecture",
            "tau with n",
        ]
    )


def verdict_rows(t: dict, measures=SHOWN) -> list[list[str]]:
    """One row per measure: kind, per-axis granulated tau with interval, p and verdict, overall tau, sign-error,
    dynamic range and tau with the training size."""
    by_name = {r["measure"]: r for r in t["rankings"]["gap_error"]}
    rows = []
    for m in measures:
        r = by_name.get(m)
        if r is None:
            continue
        o, d = r["overall"], r["describe"]
        rows.append(
            [f"`{m}`", kind(m)]
            + [_cell(r["granulated"]["per_axis"][a]) for a in t["axes"]]
            + [
                f"{fmt(o['tau'])} [{fmt(o['low'])}, {fmt(o['high'])}] {fmt_p(o['p'])}"
                if o["tau"] is not None
                else "n/a",
                _sign_cell(r["sign_error"]),
                "n/a" if d["range"] is None else f"{d['range']:.2f} / {d['range_within_architecture']:.2f}",
                fmt(d["tau_with_size"]),
            ]
        )
    return rows


AXIS_HEADER = ["measure", "psi [95% CI]", "p", "verdict", "sign-err."]
OVERALL_HEADER = ["measure", "tau [95% CI]", "p", "range", "tau(n)"]


def axis_rows(t: dict, axis: str, measures=SHOWN) -> list[list[str]]:
    """The verdict table along one axis, narrow enough for a terminal (weights-only measures marked ``*``)."""
    out = []
    for r in (r for m in measures for r in t["rankings"]["gap_error"] if r["measure"] == m):
        a, se = r["granulated"]["per_axis"][axis], r["sign_error"]["per_axis"][axis]
        worst = "n/a" if se["worst"] is None else f"{se['worst']:.2f}"
        out.append(
            [
                r["measure"] + ("*" if r["measure"] in WEIGHTS_ONLY else ""),
                "n/a" if a["psi"] is None else f"{fmt(a['psi'])} [{fmt(a['low'])}, {fmt(a['high'])}]",
                fmt_p(a["p"]),
                a["verdict"],
                f"{worst} ({se['kept']}/{se['environments']})",
            ]
        )
    return out


def overall_rows(t: dict, measures=SHOWN) -> list[list[str]]:
    out = []
    for r in (r for m in measures for r in t["rankings"]["gap_error"] if r["measure"] == m):
        o, d = r["overall"], r["describe"]
        out.append(
            [
                r["measure"],
                "n/a" if o["tau"] is None else f"{fmt(o['tau'])} [{fmt(o['low'])}, {fmt(o['high'])}]",
                fmt_p(o["p"]),
                "n/a" if d["range"] is None else f"{d['range']:.2f} / {d['range_within_architecture']:.2f}",
                fmt(d["tau_with_size"]),
            ]
        )
    return out


def markdown_table(header, rows) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def conclusion(task: str, t: dict, measures=SHOWN) -> list[str]:
    """Per axis, the measures grouped by verdict, weights-only and the rest side by side: what the intervals say."""
    by_name = {r["measure"]: r for r in t["rankings"]["gap_error"]}
    lines = []
    for axis in t["axes"]:
        parts = []
        for verdict in ("tracks", "anti-tracks", "inconclusive"):
            names = [
                m for m in measures if m in by_name and by_name[m]["granulated"]["per_axis"][axis]["verdict"] == verdict
            ]
            if names:
                parts.append(
                    f"{verdict}: "
                    + ", ".join(f"`{m}`" + (" (weights only)" if m in WEIGHTS_ONLY else "") for m in names)
                )
        lines.append(f"- along {AXIS_NAMES.get(axis, axis)}: " + "; ".join(parts) + ".")
    return lines


def task_summary(task: str, t: dict, settings: dict, measures=SHOWN, where: str = "`study.json`") -> list[str]:
    """The counts line, the verdict table of ``measures`` (naming those left out and ``where`` they are) and the
    conclusion of one task."""
    return [
        f"{task}: {t['used']} of {t['runs']} runs used ({len(t['excluded'])} excluded: did not reach training "
        f"cross-entropy {settings['stop_loss']:g} within the epoch cap, or failed); gap = test - train error "
        f"at that point; axes: {', '.join(t['axes'])}.",
        "",
        *markdown_table(verdict_header(t["axes"]), verdict_rows(t, measures)),
        "",
        *left_out(t, measures, where),
        *conclusion(task, t, measures),
    ]


def legend(settings: dict) -> str:
    return (
        f"Tau: {TAU}. psi: granulated tau along one axis (mean over blocks of one seed at one setting of the "
        f"other axes), its {settings['level']:.0%} block-bootstrap interval (expanded percentile) and two-sided "
        f"permutation p ({settings['permutations']} shuffles within blocks); a verdict is `tracks`/`anti-tracks` "
        f"only when the interval excludes 0 on that side and p < {settings['alpha']:g}. Sign-error: worst, per axis, over "
        "one-axis environments kept by Dziugaite et al.'s noise filter (|mean gap difference| > "
        f"{settings['z']:g} seed standard errors), kept/all. Range: max - min of the ln measure over all runs and the "
        "largest within one architecture (layout, depth, width, heads, T)."
    )


def markdown(result: dict) -> str:
    s = result["settings"]
    lines = [f"# sabounds study: grid {s['grid']}", "", s["rule"], "", legend(s), ""]
    for task, t in result["tasks"].items():
        lines += [f"## {task}", "", *task_summary(task, t, s), ""]
        lines += [*(f"- excluded: {e['label']}: {e['status']}" for e in t["excluded"]), ""]
    return "\n".join(lines)


def write_csv(rows: list[dict], path: Path) -> None:
    import pandas as pd

    flat = []
    for r in rows:
        item = {"label": r["label"], "status": r["status"], **r["spec"]}
        item.update({k: v for k, v in (r["record"] or {}).items()})
        item.update({f"ln_{k}": v for k, v in (r["measures"] or {}).items()})
        profile = r["p_profile"] or {}
        item.update({"p_positive": profile.get("p_positive"), "matrices": profile.get("matrices")})
        flat.append(item)
    pd.DataFrame(flat).to_csv(path, index=False)


def scatter_figure(task: str, rows: list[dict], t: dict):
    """Gap against each measure: one point per configuration at its seed mean, a bar over its seeds' range, coloured
    by training size (the axis along which weights-only measures and the whole bound part ways)."""
    from collections import defaultdict

    import matplotlib.pyplot as plt

    used = [r for r in rows if r["status"] == "ok" and r["spec"]["task"] == task]
    sizes = sorted({r["spec"]["size"] for r in used}) or [1]
    cmap = plt.get_cmap("viridis")
    colour = {n: cmap(i / max(1, len(sizes) - 1)) for i, n in enumerate(sizes)}
    cols = 4
    fig, axes = plt.subplots(int(np.ceil(len(MEASURES) / cols)), cols, figsize=(4 * cols, 3 * 4), squeeze=False)
    for ax, m in zip(axes.flat, MEASURES):
        groups = defaultdict(list)
        for r in used:
            if r["measures"][m] is not None:
                key = tuple(sorted((k, v) for k, v in r["spec"].items() if k not in ("seed", "data_seed")))
                groups[key].append((r["measures"][m], r["record"]["gap_error"], r["spec"]["size"]))
        for pts in groups.values():
            x, y, n = np.array([p[0] for p in pts]), np.array([p[1] for p in pts]), pts[0][2]
            ax.errorbar(
                x.mean(),
                y.mean(),
                xerr=[[x.mean() - x.min()], [x.max() - x.mean()]],
                yerr=[[y.mean() - y.min()], [y.max() - y.mean()]],
                fmt="o",
                ms=3,
                color=colour[n],
                lw=0.8,
            )
        ax.set_xlabel(f"ln {m}")
        ax.set_ylabel("test - train error")
    for ax in list(axes.flat)[len(MEASURES) :]:
        ax.axis("off")
    handles = [plt.Line2D([], [], marker="o", ls="", color=colour[n], label=f"n = {n}") for n in sizes]
    fig.legend(handles=handles, loc="lower right", fontsize=8)
    fig.suptitle(f"{task}: gap vs measure, seed means with seed range ({len(used)} runs)")
    fig.tight_layout()
    return fig


def forest_figure(task: str, t: dict):
    """Granulated tau per measure and axis with its interval (filled: a verdict other than inconclusive)."""
    import matplotlib.pyplot as plt

    ranking, axes = t["rankings"]["gap_error"], t["axes"]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(ranking) * max(1, len(axes)) + 1.5))
    colours = plt.get_cmap("tab10")
    y, labels = 0, []
    for r in ranking:
        for k, a in enumerate(axes):
            cell = r["granulated"]["per_axis"][a]
            if cell["psi"] is not None:
                low = cell["psi"] if cell["low"] is None else cell["low"]
                high = cell["psi"] if cell["high"] is None else cell["high"]
                filled = cell["verdict"] != "inconclusive"
                ax.errorbar(
                    cell["psi"],
                    y,
                    xerr=[[cell["psi"] - low], [high - cell["psi"]]],
                    fmt="o",
                    color=colours(k),
                    mfc=colours(k) if filled else "white",
                    label=a if r is ranking[0] else None,
                )
            labels.append(f"{r['measure']} / {a}")
            y -= 1
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(0, y, -1), labels, fontsize=7)
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel("granulated tau with 95% interval (filled: tracks or anti-tracks)")
    ax.legend(loc="best", fontsize=8)
    ax.set_title(f"{task}: granulated tau per measure and axis")
    fig.tight_layout()
    return fig
