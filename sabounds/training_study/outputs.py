"""A study's files: ``study.json`` (settings, every run, every ranking), ``runs.csv`` (one row per run),
``table.md`` (per task: tau with its interval, granulated Psi, sign-error) and figures per task:
``scatter_<task>`` (each measure against the gap, tau in the legend) and ``granulated_<task>`` (heat map of the
granulated tau, measure x axis), in the chosen formats among PNG, PDF and SVG."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sabounds.training_study.measures import MEASURES


def fmt(x, digits: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and not np.isfinite(x)) else f"{x:+.{digits}f}"


def table_rows(task: str, ranking: list[dict]) -> list[list[str]]:
    """``[measure, runs, tau [low, high], Psi, worst sign-error, mean sign-error]`` per measure."""
    out = []
    for r in ranking:
        se = r["sign_error"]
        out.append([r["measure"], str(r["runs"]), f"{fmt(r['tau'])} [{fmt(r['tau_low'])}, {fmt(r['tau_high'])}]",
                    fmt(r["granulated"]["Psi"]),
                    "n/a" if se["worst"] is None else f"{se['worst']:.2f}",
                    "n/a" if se["mean"] is None else f"{se['mean']:.2f}"])
    return out


HEADER = ["measure", "runs", "tau [95% CI]", "granulated Psi", "sign-error worst", "sign-error mean"]


def markdown(result: dict) -> str:
    lines = [f"# sabounds study: grid {result['settings']['grid']}", "",
             "Gap = test error - train error.  " + result["settings"]["rule"], ""]
    for task, t in result["tasks"].items():
        lines += [f"## {task}: {t['used']} of {t['runs']} runs used (axes: {', '.join(t['axes'])})", "",
                  "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(row) + " |" for row in table_rows(task, t["rankings"]["gap_error"])]
        lines += ["", *(f"- excluded: {e['label']}: {e['status']}" for e in t["excluded"]), ""]
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


def scatter_figure(task: str, rows: list[dict], ranking: list[dict]):
    import matplotlib.pyplot as plt
    used = [r for r in rows if r["status"] == "ok" and r["spec"]["task"] == task]
    taus = {r["measure"]: r["tau"] for r in ranking}
    cols = 4
    fig, axes = plt.subplots(int(np.ceil(len(MEASURES) / cols)), cols, figsize=(4 * cols, 3 * 3), squeeze=False)
    for ax, m in zip(axes.flat, MEASURES):
        pts = [(r["measures"][m], r["record"]["gap_error"]) for r in used if r["measures"][m] is not None]
        if pts:
            x, y = zip(*pts)
            ax.scatter(x, y, s=12, label=f"tau = {fmt(taus[m])}")
            ax.legend(loc="best", fontsize=8)
        ax.set_xlabel(f"ln {m}")
        ax.set_ylabel("test - train error")
    for ax in list(axes.flat)[len(MEASURES):]:
        ax.axis("off")
    fig.suptitle(f"{task}: measure vs generalization gap ({len(used)} converged runs)")
    fig.tight_layout()
    return fig


def heatmap_figure(task: str, t: dict):
    import matplotlib.pyplot as plt
    ranking, axes = t["rankings"]["gap_error"], t["axes"]
    grid = np.array([[np.nan if r["granulated"]["per_axis"].get(a) is None else r["granulated"]["per_axis"][a]
                      for a in axes] for r in ranking], dtype=float)
    fig, ax = plt.subplots(figsize=(1.0 * len(axes) + 3, 0.4 * len(ranking) + 1.5))
    image = ax.imshow(grid, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set_xticks(range(len(axes)), axes, rotation=45, ha="right")
    ax.set_yticks(range(len(ranking)), [r["measure"] for r in ranking])
    for (i, j), v in np.ndenumerate(grid):
        ax.text(j, i, "n/a" if np.isnan(v) else f"{v:+.2f}", ha="center", va="center", fontsize=7,
                color="white" if abs(v) > 0.6 else "black")
    fig.colorbar(image, ax=ax, label="granulated tau")
    ax.set_title(f"{task}: granulated Kendall tau (measure x axis)")
    fig.tight_layout()
    return fig


def write_study(result: dict, folder: Path, options) -> None:
    """Every file into ``folder`` (an empty folder the caller created)."""
    from sabounds.render.plots import _save
    folder = Path(folder)
    (folder / "study.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    write_csv(result["runs"], folder / "runs.csv")
    (folder / "table.md").write_text(markdown(result) + "\n", encoding="utf-8")
    for task, t in result["tasks"].items():
        _save(scatter_figure(task, result["runs"], t["rankings"]["gap_error"]), folder, f"scatter_{task}", options)
        _save(heatmap_figure(task, t), folder, f"granulated_{task}", options)
