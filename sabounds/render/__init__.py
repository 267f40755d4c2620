"""Presentation (internal): figures (:mod:`.plots`, :mod:`.bound_figure`, :mod:`.figure_formats`), tables
(:mod:`.regime_tables`), wording (:mod:`.plain_text`) and escaping for each format (:mod:`.user_text`).
Nothing here computes a number that is checked; not part of the public API (see :mod:`sabounds`)."""
