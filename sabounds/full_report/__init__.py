"""The main job's report: every check, the regime tables, the model analysis and its depth scaling, in one folder.

``build_report(folder, model_dir, settings, advance)`` writes ``report.md`` (summary first), every table as
CSV and JSON, and the figures as PNG into ``folder``; the command writes into an atomic partial folder, so an
interrupted run leaves nothing.  The numbers come from the same functions as the individual commands.

Parts: :mod:`.compute` (the numbers), :mod:`.wording` and :mod:`.sections` (report.md), :mod:`.html`
(report.html), :mod:`.files` (the folder).  Internal: the public entry is :func:`sabounds.report`.
"""
