"""Output folders and files (internal): atomic folders (:mod:`.atomic` over :mod:`.marker`, :mod:`.lock`,
:mod:`.swap`, :mod:`.recovery`, :mod:`.signals`), the files of a run (:mod:`.files`, :mod:`.sweep_files`) and
their provenance (:mod:`.provenance`).  Not part of the public API (see :mod:`sabounds`)."""
