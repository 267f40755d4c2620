"""docs/bounds.md: every bound given as data (the catalog's, and the worked user example), generated from its
:class:`sabounds.theory.bound.Bound`: fields, LaTeX, and its regime rows (exponents in L, N, T)."""

from __future__ import annotations

from pathlib import Path

import sympy as sp

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "bound_example" / "spectral_product.toml"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _rows(bound) -> list[str]:
    from sabounds.render.regime_tables import exponent_cell, token_text
    from sabounds.theory import regimes as R

    out = ["| regime | alpha | depth L | width N | tokens T |", "| --- | --- | --- | --- | --- |"]
    for regime in R.REGIMES:
        for alpha in R.ALPHAS:
            row = R.bound_row(bound, R.single_head(), R.REGIMES[regime](), R.ALPHAS[alpha])
            out.append(
                f"| {regime} | {alpha} | {exponent_cell(row.depth, 'L')} | {exponent_cell(row.width, 'N')} | "
                f"{_cell(token_text(row.token, row.expr))} |"
            )
    return out


def _section(bound, heading: str) -> list[str]:
    lines = [
        f"## {heading}",
        "",
        f"Id `{bound.id}`, source label **{bound.source}**. {_cell(bound.citation)}.",
        "",
        "| field | value |",
        "| --- | --- |",
        f"| slot term | `{_cell(bound.term)}` |",
        f"| aggregation | `{bound.aggregation}` |",
        f"| propagation | `{bound.propagation}` |",
        f"| log factor ell | `{_cell(bound.log_factor)}` |",
        f"| form | `{_cell(bound.form)}` |",
        f"| assumptions | {_cell(bound.assumptions)} |",
    ]
    if bound.symbolic:
        lines.append(f"| kept symbolic | {_cell(bound.symbolic)} |")
    lines += [
        "",
        "LaTeX: $"
        + sp.latex(bound.form)
        + "$ with $W = $ aggregation of $"
        + sp.latex(bound.term)
        + "$ over the slots and $\\ell = "
        + sp.latex(bound.log_factor)
        + "$ at the widest slot.",
        "",
    ]
    if bound.proxies:
        lines += ["On a checkpoint (`sabounds analyze`):", ""]
        over = {"raw": "each layer's stored weight factors", "slots": "every matrix"}
        lines += [
            f"- `{bound.id}.{p.name}` [{p.source}]: `{p.aggregation}` of `{_cell(p.term)}` over {over[p.tensors]}"
            + (f", offset {p.offset}" if p.offset else "")
            for p in bound.proxies
        ]
        lines.append("")
    lines += [
        "Regime rows (architecture `single_head`; `sabounds regimes` adds them to every table):",
        "",
        *_rows(bound),
        "",
    ]
    return lines


def bounds_page(marker: str) -> str:
    from sabounds.theory.catalog import bounds
    from sabounds.user_bound import load_bound

    lines = [
        f"<!-- {marker} -->",
        "# Bounds given as data",
        "",
        "A bound is a `Bound` (`sabounds.theory.bound`): one slot's term in the named symbols of "
        "`sabounds.theory.symbols` (`rho = gamma alpha`, `w_11`, `w_21`, `F2`, `s`, `d_in`, `d_out`), an "
        "aggregation (`sum`, `rss`, `power_mean_2/3`, `exp`), a propagation factor (`none` or `gamma_edelman`: "
        "`rho_k = gamma^E_k alpha^(l)`), a log factor, a form and a source label. Its regime rows, its numbers on a "
        "checkpoint (compiled from the same sympy in log space) and this page come from that one object.",
        "",
    ]
    for entry in bounds():
        b = entry.bound()
        lines += _section(b, b.title)
    example = load_bound(EXAMPLE)
    lines += _section(example, "Worked example: your own bound from a file")
    lines += [
        "The file (`docs/bound_example/spectral_product.toml`):",
        "",
        "```toml",
        EXAMPLE.read_text().rstrip(),
        "```",
        "",
        "`sabounds regimes --bound FILE` adds its row to every regime table, `sabounds analyze --bound FILE` prints "
        "its value on the checkpoint (`spectral_product.spectral_product`, the capacity `W`, source label `user`), "
        "and `sabounds.api.regimes(user_bound=FILE)`, `sabounds.api.analyze(MODEL, user_bound=FILE)` do the same. "
        "Expressions are parsed by the whitelisted parser (`sabounds.theory.expression`; never evaluated as code); "
        "a malformed file gets one line naming the entry and exit status 2. The file is read by the one bounded "
        "reader (`numerics/user_files.py`: a regular file of at most 64 KiB, keys of at most 4 dotted parts, "
        "numbers of at most 100 digits). A `term` or `log_factor` that is not positive for positive values of "
        "its symbols (`-s`) is refused, and one whose value on a checkpoint is negative, complex, zero or "
        "beyond float64 (`gamma(s*1e6)`) is refused naming the entry, never made positive.",
        "",
    ]
    return "\n".join(lines) + "\n"
