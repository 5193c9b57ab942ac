"""``reports/index.html``: one self-contained page with every table and figure.

Self-contained means it opens from a file, offline, years later: figures are embedded as
base64 PNG, the style is inline (``page/style.css``), there is no script, and a
Content-Security-Policy forbids the browser from fetching anything that is not a
``data:`` image, so an external reference would fail loudly in the browser test rather
than load silently. The page is a pure function of its inputs: the same tables, figures
and params give the same bytes.

Layout: the first screen says what was run, shows the headline table and lists the
contents; then the parts of the outline in order (Daily Oracle, FreshBench,
OpenForecast, Dataset, Provenance), each with one line on what its numbers are; the
notes close the page, collapsed. A figure or table with nothing to show is one line
saying why; so is a part whose every figure and table is empty, or which is not part of
the run.
"""

from __future__ import annotations

import base64
import functools
import html
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import pandas as pd

from prescient.report import tables as fmt

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE_FILE = "assets/style.css"


@functools.cache
def style() -> str:
    """The page's style sheet (``prescient/report/assets/style.css``)."""
    return resources.files("prescient.report").joinpath(STYLE_FILE).read_text(encoding="utf-8")


@dataclass(frozen=True)
class EmbeddedFigure:
    """A figure for the page.

    Attributes:
        name: file stem and HTML id.
        caption: what it shows.
        png: the image, or None when the file was not produced.
        empty: one line saying why it has nothing to show ("" when it has data); shown
            instead of the image.
    """

    name: str
    caption: str
    png: bytes | None
    empty: str = ""


@dataclass(frozen=True)
class TableSection:
    """A rendered table with its heading, a note under it, and the line shown instead
    of it when it has no rows."""

    table_id: str
    title: str
    frame: pd.DataFrame
    note: str = ""
    scroll: bool = False
    empty: str = fmt.NO_ROWS


@dataclass(frozen=True)
class PartSection:
    """One part of the outline as rendered.

    Attributes:
        part_id: its anchor.
        title: its heading.
        depth: 0 for a top-level part, 1 for a sub-part.
        lines: what its numbers are (and, on the demo corpus, what they are worth).
        status: one line replacing its figures and tables ("" to show them).
        figures: its figures, in registry order.
        tables: its tables, in registry order.
        pairs: key-value lines shown first (the provenance).
        children: its sub-parts.
    """

    part_id: str
    title: str
    depth: int
    lines: tuple[str, ...] = ()
    status: str = ""
    figures: tuple[EmbeddedFigure, ...] = ()
    tables: tuple[TableSection, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    children: tuple[PartSection, ...] = ()


@dataclass(frozen=True)
class FirstScreen:
    """What was run, the demo warning (or ""), the leaderboard of the headline setting
    (None: no proper scores) and the headline accuracy table."""

    facts: tuple[tuple[str, tuple[str, ...]], ...]
    warning: str
    headline: TableSection
    leaderboard: TableSection | None = None


def _figure(fig: EmbeddedFigure) -> str:
    cap = html.escape(fig.caption)
    if fig.empty:
        return (
            f'<p class="empty" id="{fig.name}"><b>{html.escape(fig.caption.split(":")[0])}'
            f":</b> {html.escape(fig.empty)}</p>"
        )
    if fig.png is None:
        return (
            f'<figure id="{fig.name}"><div class="missing">Figure {html.escape(fig.name)} '
            f"was not produced.</div><figcaption>{cap}</figcaption></figure>"
        )
    data = base64.b64encode(fig.png).decode("ascii")
    return (
        f'<figure id="{fig.name}"><img alt="{cap}" src="data:image/png;base64,{data}">'
        f"<figcaption>{cap}</figcaption></figure>"
    )


def _table(section: TableSection, level: int = 4, note_after: bool = False) -> str:
    """A table with its heading and note (under the heading, or under the table with
    ``note_after``: the first screen's leaderboard shows its rows first)."""
    title = f"<h{level}>{html.escape(section.title)}</h{level}>"
    if section.frame.empty:
        return f'{title}<p class="empty" id="{section.table_id}">{html.escape(section.empty)}</p>'
    note = f'<p class="note">{html.escape(section.note)}</p>' if section.note else ""
    body = fmt.to_html(section.frame, section.table_id)
    table = f'<div class="{"scroll" if section.scroll else "wide"}">{body}</div>'
    return f"{title}{table}{note}" if note_after else f"{title}{note}{table}"


def _pairs(pairs: Sequence[tuple[str, str]]) -> str:
    if not pairs:
        return ""
    rows = "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(v or fmt.MISSING)}</dd>" for k, v in pairs
    )
    return f'<dl class="prov">{rows}</dl>'


def _part(part: PartSection) -> str:
    level = 2 + part.depth
    head = f'<section id="{part.part_id}"><h{level}>{html.escape(part.title)}</h{level}>'
    if part.status:
        body = f'<p class="empty">{html.escape(part.status)}</p>'
    else:
        lines = "".join(
            f'<p class="{"about" if i == 0 else "demo"}">{html.escape(line)}</p>'
            for i, line in enumerate(part.lines)
        )
        body = (
            lines
            + _pairs(part.pairs)
            + "".join(_figure(f) for f in part.figures)
            + "".join(_table(t) for t in part.tables)
        )
    children = "".join(_part(c) for c in part.children)
    return f"{head}{body}{children}</section>"


def _contents(parts: Sequence[PartSection], notes: int) -> str:
    def entry(part: PartSection) -> str:
        status = ""
        if part.status:
            status = f' <span class="status">({html.escape(_short(part.status))})</span>'
        children = "".join(entry(c) for c in part.children)
        sub = f"<ol>{children}</ol>" if children else ""
        return f'<li><a href="#{part.part_id}">{html.escape(part.title)}</a>{status}{sub}</li>'

    items = "".join(entry(p) for p in parts)
    items += f'<li><a href="#notes">Notes</a> <span class="status">({notes})</span></li>'
    return f'<nav id="contents" aria-label="Contents"><h2>Contents</h2><ol>{items}</ol></nav>'


def _short(status: str) -> str:
    """A part's status as the contents list gives it."""
    return "not part of this run" if status.startswith("Not part of this run") else "empty"


def _first_screen(first: FirstScreen, contents: str) -> str:
    facts = "".join(
        f"<dt>{html.escape(label)}</dt>"
        + "".join(f"<dd>{html.escape(line)}</dd>" for line in lines)
        for label, lines in first.facts
    )
    warning = f'<p class="demo-corpus">{html.escape(first.warning)}</p>' if first.warning else ""
    board = (
        f'<div id="leaderboard-block">{_table(first.leaderboard, 2, note_after=True)}</div>'
        if first.leaderboard is not None
        else ""
    )
    # The leaderboard leads (its rows before its note), then what was run, then the
    # papers' accuracy; the demo warning stays above everything.
    return (
        f'<section id="run" class="first"><div class="run"><div class="lead">{warning}{board}'
        f'<div id="run-summary"><h2>What was run</h2><dl class="facts">{facts}</dl></div>'
        f'<div id="headline-block">{_table(first.headline, 2)}</div></div>'
        f"{contents}</div></section>"
    )


def render_page(
    title: str,
    subtitle: str,
    first: FirstScreen,
    parts: Sequence[PartSection],
    notes: Sequence[str],
) -> str:
    """The whole page as a string (UTF-8, no external reference of any kind)."""
    note_items = "".join(f"<li>{html.escape(n)}</li>" for n in notes) or "<li>None.</li>"
    parts_html = [_part(p) for p in parts]
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{html.escape(title)}</title><style>{style()}</style></head><body>",
        f"<header><h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p></header>",
        "<main>",
        _first_screen(first, _contents(parts, len(notes))),
        *parts_html,
        f'<section id="notes"><details><summary>Notes ({len(notes)}): gaps, skipped '
        "models, excluded rows</summary><p>Missing values are shown as "
        f"{fmt.MISSING} (hatched): the data had nothing to compute them from.</p>"
        f'<ul class="notes">{note_items}</ul></details></section>',
        "</main></body></html>",
    ]
    return "\n".join(page) + "\n"
