"""Figure file formats and PNG resolution: what ``--figure-format`` and ``--dpi`` accept, without matplotlib.

Kept apart from ``sabounds.render.plots`` so that parsing the arguments of a command that draws nothing imports no
plotting library (matplotlib takes ~0.4 s to import).
"""

from __future__ import annotations

from dataclasses import dataclass

FORMATS = ("png", "pdf", "svg")


@dataclass(frozen=True)
class FigureOptions:
    """Which file formats to write (any of :data:`FORMATS`) and the PNG resolution."""

    formats: tuple[str, ...] = ("png",)
    dpi: int = 150

    def __post_init__(self):
        bad = [f for f in self.formats if f not in FORMATS]
        if bad or not self.formats:
            raise ValueError(
                f"figure formats must be among {', '.join(FORMATS)}, got {', '.join(self.formats) or 'none'}"
            )
        from sabounds.limits import CAPS

        cap = CAPS["dpi"]  # the one limit, also checked on the command line before any work
        if not cap.low <= self.dpi <= cap.high:
            raise ValueError(f"--dpi {self.dpi} is outside {cap.low:g}..{cap.high:g} ({cap.why})")


def parse_formats(text: str) -> tuple[str, ...]:
    """``"png,pdf"`` -> ``("png", "pdf")``, validated."""
    formats = tuple(dict.fromkeys(t.strip().lower() for t in text.split(",") if t.strip()))
    FigureOptions(formats)
    return formats
