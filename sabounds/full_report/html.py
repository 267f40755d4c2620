"""``report.html``: the report's Markdown rendered by markdown-it-py, with only the report's own figures linked."""

from __future__ import annotations

_HTML_STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
table{border-collapse:collapse;margin:1rem 0;font-size:0.9rem}th,td{border:1px solid #bbb;padding:0.25rem 0.5rem;
vertical-align:top}th{background:#eee}img{max-width:100%}code{background:#f4f4f4;padding:0 0.2rem}
pre{overflow-x:auto;max-width:100%;background:#f7f7f7;padding:0.5rem}table{display:block;max-width:100%;overflow-x:auto}
td code{overflow-wrap:anywhere}"""


def code_block(text: str) -> list[str]:
    """A fenced code block holding ``text`` verbatim (a user path in it may hold backticks and newlines): the
    fence is longer than any run of backticks inside, so nothing in ``text`` can close it."""
    import re

    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", text)), default=0))
    return [fence, text, fence]


_OWN_FIGURE = r"(analysis|scaling|bound)/[a-z_]+\.png"
"""The only link targets report.html renders: the report's own figures (a user string cannot add one)."""


def html(text: str) -> str:
    """``report.html``: the Markdown rendered by markdown-it-py (CommonMark plus tables), figures inline; raw HTML
    is escaped and any link or image other than the report's own figures is left as text."""
    import re

    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    renderer.validateLink = lambda url: re.fullmatch(_OWN_FIGURE, url) is not None
    body = renderer.render(text)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>sabounds report</title><style>" + _HTML_STYLE + "</style></head><body>\n" + body + "</body></html>\n"
    )
