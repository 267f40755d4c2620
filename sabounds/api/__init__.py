"""The Python API: what the commands compute, as result objects with pandas tables and matplotlib figures.

    import sabounds
    result = sabounds.analyze(sabounds.default_model())    # a folder, an .onnx/.gguf file, a dict of arrays, a state_dict
    result.to_frame()                                       # one row per matrix (pandas DataFrame)
    result.totals                                           # ours, edelman, their variants, the rank count
    fig = result.plot("spectra")                            # matplotlib Figure
    sabounds.verify(only="thm41.*").to_frame()              # the checks, as `sabounds verify --json` lists them
    sabounds.regimes().to_json()                            # as `sabounds regimes --format json`
    sabounds.conjecture("gelu-lipschitz", value="1.13").verdict
    sabounds.bound(n=1e9, delta=0.05, margin=1.0).lines     # the whole bound, as `sabounds bound` prints it
    sabounds.derivation("thm41").text
    sabounds.sweep(["models/*"], workers=0).to_frame()
    sabounds.report("report")                               # the main job's report folder
    sabounds.study("tiny", tasks=["digits"]).ranking        # trains a grid (needs the `study` extra)

Each result's ``to_json()`` is the same content as its command's ``--json`` output.  Bad input raises
:class:`InputError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

from sabounds.api._analysis import Analysis, analysis_depth, analyze  # noqa: F401  (analysis_depth, count_checks:
from sabounds.api._bound import Bound, bound
from sabounds.api._checks import Checks, count_checks, verify  # noqa: F401  the command line's progress totals)
from sabounds.api._common import default_model
from sabounds.api._conjecture import Conjecture, conjecture
from sabounds.api._derivation import Derivation, derivation, derivations
from sabounds.api._regimes import Regimes, regimes
from sabounds.api._report import Report, report
from sabounds.api._scaling import Scaling, scaling
from sabounds.api._study import Study, rank_runs, study
from sabounds.api._sweep import Sweep, sweep
from sabounds.api._vocabulary import (
    architecture_names,
    checks_summary_line,
    conjecture_families,
    default_lphi,
    default_rank_tol,
    json_text,
    regime_names,
    storage_line,
    study_grids,
    study_tasks,
)
from sabounds.errors import InputError, UserError

__all__ = [
    "Analysis",
    "Bound",
    "Checks",
    "Conjecture",
    "Derivation",
    "InputError",
    "Regimes",
    "Report",
    "Study",
    "Sweep",
    "UserError",
    "analyze",
    "bound",
    "conjecture",
    "default_model",
    "derivation",
    "derivations",
    "rank_runs",
    "regimes",
    "report",
    "study",
    "sweep",
    "verify",
    "Scaling",
    "scaling",
    # the command line's choices, defaults and printing (sabounds.api._vocabulary)
    "architecture_names",
    "checks_summary_line",
    "conjecture_families",
    "default_lphi",
    "default_rank_tol",
    "json_text",
    "regime_names",
    "storage_line",
    "study_grids",
    "study_tasks",
]
