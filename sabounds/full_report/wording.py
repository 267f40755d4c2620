"""Words for the report's conditions and claims: which regimes, alphas and aggregations a claim holds in, said as a
reader would say them."""

from __future__ import annotations

from sabounds.proofs_check.verdict import Outcome
from sabounds.render.plain_text import plain

_COORDINATES = ("regime", "alpha", "aggregation")
_VALUE_WORDS = {
    "alpha": {"bounded": "bounded alpha", "exponential": "exponential alpha (alpha^(l) = C^(L-l))"},
    "aggregation": {"rss": "rss aggregation", "sum": "sum aggregation", "edelman": "Edelman's bound"},
}


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
        return ("the " + ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "the " + words[0]) + (
            " regimes" if len(words) > 1 else " regime"
        )
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


_AGGREGATION_WORDS = {
    "best": "the better aggregation",
    "sum": "sum aggregation",
    "rss": "rss aggregation",
    "sum, sharp": "sum aggregation with the sharp tail",
    "rss, sharp": "rss aggregation with the sharp tail",
    "edelman": "Edelman's bound",
}


def _law_words(var: str, power: str, log_power: str | None) -> str:
    return growth_law(var, {"exponent": power, "log_power": log_power or "0"})


def condition_words(condition: str, var: str | None = None) -> str:
    """``frobenius/bounded/sum: ...`` as ``Frobenius regime, bounded alpha, sum aggregation: ...``; other text as is.
    With ``var`` (the claim's variable), growth orders such as ``ours 1/2 log^1/2`` read ``ours L^(1/2) (log L)^(1/2)``."""
    import re

    if var is not None:
        condition = re.sub(
            r"\b(edelman|ours) (\d+(?:/\d+)?|exponential)(?:[ *]log\^(\d+(?:/\d+)?))?(?=[ ,;(]|$)",
            lambda g: f"{g.group(1)} {_law_words(var, g.group(2), g.group(3))}",
            condition,
        )
    m = re.match(r"^(\w+)/(\w+)/([\w, ]+): ", condition)
    if not m:
        return condition
    regime, alpha, agg = m.groups()
    words = f"{regime.replace('_', ' ')} regime, {_VALUE_WORDS['alpha'].get(alpha, alpha)}, {_AGGREGATION_WORDS.get(agg, agg)}"
    return words[:1].upper() + words[1:] + ": " + condition[m.end() :]


CLAIM_VARIABLE = {"claims.1_depth": "L"}
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
