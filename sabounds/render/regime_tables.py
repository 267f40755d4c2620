"""Render regime results (``sabounds.theory.regimes``) as Markdown, LaTeX or JSON-ready data: presentation only."""

from __future__ import annotations

import sympy as sp

from sabounds.theory.asymptotics import Growth
from sabounds.theory.joint import DIRECT_P, Joint, Pair, region_text
from sabounds.theory.printer import latex
from sabounds.theory.regime_exponents import BoundResult, Exponent
from sabounds.theory.regimes import RegimeResult

BOUNDS = ("edelman", "ours_sum", "ours_rss", "ours_sum_sharp", "ours_rss_sharp", "ours_best_p_crude", "ours_best_p")
"""The built-in rows; every bound given as data in the catalog follows (``bound_names``)."""


def bound_names(r: RegimeResult) -> tuple[str, ...]:
    """The rows of one result: the built-in ones present, then the catalog's data bounds (e.g. ``trauger_tewari``)."""
    return tuple(n for n in BOUNDS if n in r.bounds) + tuple(
        n for n in r.bounds if n not in BOUNDS and not n.startswith("ours_")
    )


def _num(x: sp.Expr) -> str:
    return str(sp.nsimplify(x)) if not x.free_symbols else str(sp.factor(x))


def exponent_text(g: Growth) -> str:
    """``"exponential"`` for a positive rate, else the power as an exact rational string (``"3/2"``)."""
    return "exponential" if g.exponential else _num(g.power)


def exponent_cell(e: Exponent, var: str) -> str:
    """The infimum's growth, marked when no fixed p attains it."""
    return growth_text(e.best, var) + ("" if e.attained else " (infimum, not attained)")


def growth_text(g: Growth, var: str) -> str:
    """Human form: ``exp(...)``, ``L^(3/2)``, ``L^(1/2) (log L)^(1/2)``, ``1``."""
    if g.exponential:
        return f"exponential in {var}"
    parts = []
    if g.power != 0:
        parts.append(var if g.power == 1 else f"{var}^{g.power}" if g.power.is_Integer else f"{var}^({_num(g.power)})")
    if g.log_power != 0:
        parts.append(f"(log {var})^({_num(g.log_power)})" if g.log_power != 1 else f"log {var}")
    return " ".join(parts) or "constant"


def token_text(e: Exponent, expr: sp.Expr) -> str:
    """How T enters: ``none``, ``log^(k)`` (power 0, log power k > 0), a power, or exponential; over p: best and worst."""
    from sabounds.theory.thm41 import T

    if T not in expr.free_symbols:
        return "none"

    def one(g: Growth) -> str:
        if g.exponential:
            return "exponential"
        if g.power != 0:
            return f"power T^({_num(g.power)})"
        return "none" if g.log_power == 0 else f"log^({_num(g.log_power)})"

    best, worst = one(e.best), one(e.worst or e.best)
    return best if best == worst else f"{worst} at worst over p; {best} at best ({e.argmin})"


def _exp_record(e: Exponent) -> dict:
    return {
        "exponent": exponent_text(e.best),
        "log_power": _num(e.best.log_power),
        "attained": e.argmin,
        "is_attained": e.attained,
        "by_p": {label: {"exponent": exponent_text(g), "log_power": _num(g.log_power)} for label, g in e.by_piece},
    }


def _growth_record(g: Growth) -> dict:
    return {"exponent": exponent_text(g), "rate": _num(g.rate), "power": _num(g.power), "log_power": _num(g.log_power)}


def _pair_record(x: Pair) -> dict:
    return {
        "form": x.variant,
        "p": None if x.p is None else _num(x.p),
        "depth": _growth_record(x.depth),
        "width": _growth_record(x.width),
        "tokens": _growth_record(x.token),
    }


def joint_record(j: Joint) -> dict:
    """Ours against the baseline at one p at a time: pairs, Pareto set, the kappa region along N = L^kappa."""
    return {
        "baseline": j.baseline,
        "definition": "pairs: at one fixed p, ours' growth in L (depth) and in N (width); along N = L^kappa a pair "
        "grows like L^(depth + kappa width); ours is smaller where that power (or the rate) is smaller "
        "than the baseline's: up to log factors",
        "pairs": [_pair_record(x) for x in j.pairs],
        "pareto_optimal": [x.label for x in j.pareto],
        "ours_smaller_jointly": region_text(j.region),
        "ours_smaller_by_pair": {label: region_text(r) for label, r in j.by_pair},
        "second_route": {
            "method": "growth in L of each closed form with N = L^kappa substituted (sympy limits), "
            "at p in " + ", ".join(_num(v) for v in DIRECT_P),
            "agrees": j.agrees,
            "samples": [
                {
                    "kappa": _num(x.kappa),
                    "ours": growth_text(x.ours, "L"),
                    "ours_at": x.ours_at,
                    "baseline": growth_text(x.base, "L"),
                    "ours_smaller": x.smaller,
                    "pairs_agree": x.pairs_agree,
                }
                for x in j.samples
            ],
        },
    }


def bound_record(b: BoundResult) -> dict:
    """One bound as the JSON schema's object: expr, latex, depth/width exponents, token dependence, details."""
    depth, width = _exp_record(b.depth), _exp_record(b.width)
    return {
        "expr": str(b.expr),
        "latex": latex(b.expr),
        "depth_exponent": depth["exponent"],
        "width_exponent": width["exponent"],
        "token_dependence": token_text(b.token, b.expr),
        "depth": depth,
        "width": width,
        "note": b.note,
    }


def regime_record(r: RegimeResult) -> dict:
    bounds = {name: bound_record(r.bounds[name]) for name in bound_names(r)}
    for name in BOUNDS[1:]:
        bounds[name]["single_p"] = _single_p_text(r, name)
    return {
        "name": r.regime.name,
        "alpha": r.alpha.name,
        "architecture": r.architecture,
        "assumptions": f"{r.regime.assumptions}; alpha: {r.alpha.assumptions}",
        "bounds": bounds,
        "joint": joint_record(r.joint),
        "joint_other_baselines": {name: joint_record(j) for name, j in r.joints.items()},
    }


def _single_p_text(r: RegimeResult, name: str) -> str:
    b = r.bounds[name]
    if name in ("ours_best_p", "ours_best_p_crude") and r.single_p(name):
        return f"one p attains both: depth at {b.depth.argmin}, width at {b.width.argmin}"
    if name in ("ours_best_p", "ours_best_p_crude"):
        return (
            f"no single p attains both: depth infimum at {b.depth.argmin}, width infimum at {b.width.argmin}; "
            "compare jointly (joint)"
        )
    return f"depth infimum at {b.depth.argmin}, width infimum at {b.width.argmin}"


def json_data(results: list[RegimeResult]) -> dict:
    return {
        "regimes": [regime_record(r) for r in results],
        "exponent_definition": "lim log(bound)/log(v) as v -> oo with every other symbol fixed; for p-dependent "
        "bounds the infimum over fixed p in [0, 2], each variable separately (where: "
        "'attained'; 'is_attained' false for an infimum no fixed p reaches; 'single_p' says "
        "whether one p attains depth and width together); 'exponential' when "
        "lim log(bound)/v > 0; 'joint' compares at one p at a time, jointly in L and N",
    }


_HEADER = ("regime", "alpha", "bound", "depth L", "width N", "tokens T", "best p (L; N)")


def rows(results: list[RegimeResult]) -> list[tuple[str, ...]]:
    out = []
    for r in results:
        for name in bound_names(r):
            b = r.bounds[name]
            at = "-" if not name.startswith("ours") else f"{b.depth.argmin}; {b.width.argmin}"
            if name in ("ours_best_p", "ours_best_p_crude") and not r.single_p(name):
                at += " (no single p attains both)"
            out.append(
                (
                    r.regime.name,
                    r.alpha.name,
                    name,
                    exponent_cell(b.depth, "L"),
                    exponent_cell(b.width, "N"),
                    token_text(b.token, b.expr),
                    at,
                )
            )
    return out


_JOINT_HEADER = (
    "regime",
    "alpha",
    "Pareto-optimal (depth, width) of ours at one p",
    "ours < baseline along N = L^kappa",
)
"""The second route's agreement (slow to compute) is in the JSON (``joint.second_route``) and in ``verify``."""


def _pair_text(x: Pair) -> str:
    return f"{x.label}: {growth_text(x.depth, 'L')} x {growth_text(x.width, 'N')}"


def joint_rows(results: list[RegimeResult]) -> list[tuple[str, ...]]:
    """Per regime and alpha: ours' Pareto-optimal pairs (one p each) and the kappa where ours beats Edelman jointly."""
    return [
        (
            r.regime.name,
            r.alpha.name,
            "; ".join(_pair_text(x) for x in r.joint.pareto),
            "; ".join(
                f"{'Edelman' if j is r.joint else name}: {region_text(j.region)}"
                for name, j in {"edelman": r.joint, **r.joints}.items()
            )
            + " (up to logs)",
        )
        for r in results
    ]


def _md_table(header, body) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in body),
    ]


def markdown(results: list[RegimeResult]) -> str:
    """The per-variable table (infima over p, each variable separately) and the joint table (one p at a time)."""
    return "\n".join([*_md_table(_HEADER, rows(results)), "", *_md_table(_JOINT_HEADER, joint_rows(results))])


_TEX_REGIME = {
    "frobenius": "Frobenius",
    "rank": "rank",
    "spectral": "spectral",
    "power_law": "power law",
    "low_rank_tail": "low rank + tail",
}
_TEX_ALPHA = {"bounded": r"$\le 1$", "exponential": r"$C^{L-l}$"}
_TEX_BOUND = {
    "edelman": "Edelman",
    "ours_sum": "ours, sum",
    "ours_rss": "ours, rss",
    "ours_sum_sharp": "ours, sum, sharp",
    "ours_rss_sharp": "ours, rss, sharp",
    "ours_best_p_crude": "ours, best, crude",
    "ours_best_p": "ours, best",
}


def _tex_power(x: sp.Expr) -> str:
    """An exponent as it reads in a table: ``3/2``, not ``\\frac{3}{2}``."""
    x = sp.nsimplify(x) if not x.free_symbols else x
    return f"{x.p}/{x.q}" if isinstance(x, sp.Rational) and x.q != 1 else latex(x)


def _tex_cell(e: Exponent, var: str) -> str:
    return _tex_growth(e.best, var) + ("" if e.attained else r"$^{\dagger}$")


def _tex_growth(g: Growth, var: str) -> str:
    if g.exponential:
        return r"$e^{\Theta(" + var + ")}$"
    parts = []
    if g.power != 0:
        parts.append(f"{var}^{{{_tex_power(g.power)}}}" if g.power != 1 else var)
    if g.log_power != 0:
        parts.append(f"(\\log {var})^{{{_tex_power(g.log_power)}}}" if g.log_power != 1 else f"\\log {var}")
    return "$" + " ".join(parts) + "$" if parts else "$1$"


def _tex_token(e: Exponent, expr: sp.Expr) -> tuple[str, str | None]:
    """``(cell, note)``: the worst dependence on T over p, and where the best differs, what it is and where."""
    from sabounds.theory.thm41 import T

    if T not in expr.free_symbols:
        return "none", None
    best, worst = _tex_growth(e.best, "T"), _tex_growth(e.worst or e.best, "T")
    best = "none" if best == "$1$" else best
    if best == worst:
        return worst, None
    where = e.argmin.split("=")[-1].split("(")[0].strip()
    return worst + "$^{*}$", f"{best} at $p = {where}$"


def latex_table(results: list[RegimeResult], label: str = "tab:regimes") -> str:
    """One ``table`` float per regime (each ``\\label{label-<regime>}``; the first also ``\\label{label}``), one row
    per alpha model and bound, at natural size in ``\\small`` and scaled down to the line only when wider, never
    below 80% (``\\fittable`` of the documented preamble, ``sabounds.theory.printer.LATEX_PREAMBLE``)."""
    floats = []
    for r in results:
        body, notes = [], set()
        for name in bound_names(r):
            b = r.bounds[name]
            tok, note = _tex_token(b.token, b.expr)
            notes |= {note} if note else set()
            body.append(
                " & ".join(
                    (
                        _TEX_ALPHA.get(r.alpha.name, r.alpha.name),
                        _TEX_BOUND.get(name, name.replace("_", " ")),
                        _tex_cell(b.depth, "L"),
                        _tex_cell(b.width, "N"),
                        tok,
                    )
                )
                + r" \\"
            )
        floats.append((r, body, notes))
    by_regime: dict[str, list] = {}
    for r, body, notes in floats:
        by_regime.setdefault(r.regime.name, []).append((r, body, notes))
    out = []
    for i, (regime, parts) in enumerate(by_regime.items()):
        notes = set().union(*(n for _, _, n in parts))
        body = [row for k, (_, rows_, _) in enumerate(parts) for row in ([r"\hline"] if k else []) + rows_]
        star = (" $^{*}$Worst over $p$; at best: " + "; ".join(sorted(notes)) + ".") if notes else ""
        if any(not (b.depth.attained and b.width.attained) for r, _, _ in parts for b in r.bounds.values()):
            star += r" $^{\dagger}$Infimum over $p$, approached and not attained by any fixed $p$."
        star += (
            " Depth and width infima of ``ours'' may come from different $p$; the joint comparison at one $p$ is "
            "in \\texttt{sabounds regimes --format json} (key \\texttt{joint})."
        )
        name = _TEX_REGIME.get(regime, regime.replace("_", " "))
        labels = (rf"\label{{{label}}}" if i == 0 else "") + rf"\label{{{label}-{regime.replace('_', '-')}}}"
        out += [
            r"\begin{table}[htbp]",
            r"\centering\small\setlength{\tabcolsep}{4pt}",
            r"\fittable{\begin{tabular}{@{}lllll@{}}",
            r"\hline",
            r"$\alpha^{(l)}$ & bound & depth $L$ & width $N$ & tokens $T$ \\",
            r"\hline",
            *body,
            r"\hline",
            r"\end{tabular}}",
            (
                rf"\caption{{Growth of each bound in the {name} regime: in $L$ and in $N$ (the other quantities fixed; for "
                r"ours the infimum over $p$) and its dependence on $T$, computed by \texttt{sabounds regimes}. "
                r"Edelman: Edelman et al.\ (2022); ours, sum / rss: Theorem 3.1 with sum or rss aggregation of Dudley's "
                r"integral; sharp: with Theorem 4.1's sharp tail; ours, best: the best of the four; best, crude: the better "
                r"of sum and rss with the crude tail only; $\alpha^{(l)}$: the Lipschitz product above layer $l$."
                if i == 0
                else rf"\caption{{Growth of each bound in the {name} regime (columns as in Table~\ref{{{label}}})."
            )
            + star
            + "}",
            labels,
            r"\end{table}",
            "",
        ]
    return "\n".join(out).rstrip() + "\n"
