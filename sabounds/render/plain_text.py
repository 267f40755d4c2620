"""Words for a reader in place of the code's: the human-readable texts (report.md/html, bound.txt) pass through
:func:`plain`, which also keeps padded columns aligned when a name changes length."""

from __future__ import annotations

import re

PRIVATE_WORDS = (
    "seed",
    "ours_best_p",
    "ours_sum",
    "ours_rss",
    "sum min",
    "THEORY" + ".md",  # split so that this file does not name the file itself
    "V_tilde",
    "grid_union",
    "spectral_shells",
    "rank_choices",
    "schatten_shells",
    "norm_shells",
    "derivation '",
    "_sharp",
    "_crude",
)
"""Words of the code and of the project's notes that a reader of a text output would not know."""

_WORDS = (
    ("ours_best_p_crude", "ours (better aggregation, crude tail)"),
    ("ours_best_p", "ours (better aggregation)"),
    ("ours_sum_sharp", "ours (sum aggregation, sharp tail)"),
    ("ours_rss_sharp", "ours (rss aggregation, sharp tail)"),
    ("seed's word", "paper's word"),
    ("ours_sum", "ours (sum aggregation)"),
    ("ours_rss", "ours (rss aggregation)"),
    ("V_tilde", "Vt"),
    ("The seed's", "The paper's"),
    ("the seed's", "the paper's"),
    ("seed", "random state"),
    ("grid_union", "grid of p"),
    ("spectral_shells", "spectral-norm shells"),
    ("rank_choices", "rank choices"),
    ("schatten_shells", "Schatten shells"),
    ("norm_shells", "norm-radius shells"),
)

_CODE = (
    (re.compile(r"\*\*"), "^"),  # Python powers
    (re.compile(r"(?<=[\w)])\*(?=[\w(])"), " "),  # Python products: B^2*F^2 -> B^2 F^2
    (re.compile(r"derivation '(\w+)'"), r"the \1 derivation (docs/derivations.md)"),
    (re.compile(r"\b([A-Za-z]{2,}) \1\b"), r"\1"),
)  # a doubled word


def _replace_aligned(line: str, pattern, repl) -> str:
    """``pattern`` replaced in ``line``; a run of two or more spaces after the last change absorbs the difference in
    length, so a padded column stays where it was."""
    new = pattern.sub(repl, line) if hasattr(pattern, "sub") else line.replace(pattern, repl)
    if new == line or "   " not in line:
        return new
    shift = len(line) - len(new)
    runs = list(re.finditer(r" {2,}(?=\S)", new))
    if not runs:
        return new
    run = runs[-1]
    width = max(2, len(run.group()) + shift)
    return new[: run.start()] + " " * width + new[run.end() :]


def tex_to_plain(text: str) -> str:
    """Inline TeX (``$L^{3/2}$``, ``$\\sqrt{L}$``, ``$p=0$``) as plain text: ``L^(3/2)``, ``sqrt(L)``, ``p=0``."""

    def one(m):
        s = m.group(1)
        s = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", s)
        s = re.sub(r"\^\{([^{}]*)\}", lambda g: "^" + (g.group(1) if len(g.group(1)) == 1 else f"({g.group(1)})"), s)
        s = re.sub(r"_\{([^{}]*)\}", r"_\1", s)
        return re.sub(r"\\([A-Za-z]+)", r"\1", s).replace("{", "").replace("}", "")

    return re.sub(r"\$([^$]*)\$", one, text)


def plain(text: str) -> str:
    """``text`` with the code's names and Python syntax replaced by words and notation a reader knows, line by line
    (padded columns stay aligned)."""
    out = []
    for line in tex_to_plain(text).split("\n"):
        for a, b in _WORDS:
            line = _replace_aligned(line, a, b)
        for pattern, repl in _CODE:
            line = _replace_aligned(line, pattern, repl)
        out.append(line)
    return "\n".join(out)
