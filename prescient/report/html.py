"""``reports/index.html``: one self-contained page with every table and figure.

Self-contained means it opens from a file, offline, years later: figures are embedded as
base64 PNG, the style is inline, there is no script, and a Content-Security-Policy
forbids the browser from fetching anything that is not a ``data:`` image, so an external
reference would fail loudly in the browser test rather than load silently.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from prescient.report import tables as fmt

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
  color: #1d1d1f; background: #fff; line-height: 1.45; }
header { background: #1f3b57; color: #fff; padding: 1.2rem 2rem; }
header h1 { margin: 0; font-size: 1.6rem; }
header p { margin: 0.3rem 0 0; opacity: 0.85; }
nav { padding: 0.6rem 2rem; background: #eef2f6; border-bottom: 1px solid #d5dde5; }
nav a { margin-right: 1rem; color: #1f3b57; text-decoration: none; font-size: 0.92rem; }
main { padding: 1rem 2rem 3rem; max-width: 1400px; }
h2 { border-bottom: 2px solid #1f3b57; padding-bottom: 0.2rem; margin-top: 2.2rem; }
h3 { margin-top: 1.6rem; }
table { border-collapse: collapse; margin: 0.6rem 0 1.2rem; font-size: 0.85rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; text-align: left;
  white-space: nowrap; }
.wide { overflow-x: auto; max-width: 100%; }
th { background: #f3f5f7; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.gap { color: #9a9a9a; background: repeating-linear-gradient(45deg, #fafafa, #fafafa 4px,
  #f0f0f0 4px, #f0f0f0 8px); text-align: center; }
.scroll { max-height: 32rem; overflow: auto; max-width: 100%; border: 1px solid #e3e7eb; }
figure { margin: 1rem 0 2rem; }
figure img { max-width: 100%; border: 1px solid #e3e7eb; }
figcaption { font-size: 0.9rem; color: #444; margin-top: 0.3rem; }
.missing { padding: 1rem; background: #fff4e5; border: 1px solid #f0c36d; }
ul.notes li { margin: 0.2rem 0; }
dl.prov { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
dl.prov dt { font-weight: 600; }
dl.prov dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }
"""


@dataclass(frozen=True)
class EmbeddedFigure:
    """A figure for the page; ``png`` is None when the file was missing."""

    name: str
    caption: str
    png: bytes | None


@dataclass(frozen=True)
class TableSection:
    """A rendered table with its heading and an optional note under it."""

    table_id: str
    title: str
    frame: pd.DataFrame
    note: str = ""
    scroll: bool = False


def _figure(fig: EmbeddedFigure) -> str:
    cap = html.escape(fig.caption)
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


def _table(section: TableSection) -> str:
    body = (
        fmt.to_html(section.frame, section.table_id)
        if not section.frame.empty
        else f'<p class="missing" id="{section.table_id}">No rows: nothing to report.</p>'
    )
    if not section.frame.empty:
        body = f'<div class="{"scroll" if section.scroll else "wide"}">{body}</div>'
    note = f"<p>{html.escape(section.note)}</p>" if section.note else ""
    return f"<h3>{html.escape(section.title)}</h3>{note}{body}"


def render_page(
    title: str,
    provenance: Sequence[tuple[str, str]],
    notes: Sequence[str],
    overview: Sequence[TableSection],
    figures: Sequence[EmbeddedFigure],
    tables: Sequence[TableSection],
) -> str:
    """The whole page as a string (UTF-8, no external reference of any kind)."""
    prov = "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(v or fmt.MISSING)}</dd>" for k, v in provenance
    )
    note_items = "".join(f"<li>{html.escape(n)}</li>" for n in notes) or "<li>None.</li>"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<header><h1>{html.escape(title)}</h1>",
        "<p>Daily Oracle analysis: accuracy over time, Table 3, FreshBench temporal tests "
        "and dataset statistics.</p></header>",
        '<nav><a href="#provenance">Provenance</a><a href="#overview">Models and counts</a>'
        '<a href="#notes">Notes and gaps</a><a href="#figures">Figures</a>'
        '<a href="#tables">Tables</a></nav><main>',
        f'<section id="provenance"><h2>Provenance</h2><dl class="prov">{prov}</dl></section>',
        '<section id="overview"><h2>Models and counts</h2>',
        *(_table(s) for s in overview),
        "</section>",
        '<section id="notes"><h2>Notes and gaps</h2><p>Missing values are shown as '
        f"{fmt.MISSING} (hatched): the data had nothing to compute them from.</p>"
        f'<ul class="notes">{note_items}</ul></section>',
        '<section id="figures"><h2>Figures</h2>',
        *(_figure(f) for f in figures),
        "</section>",
        '<section id="tables"><h2>Tables</h2>',
        *(_table(s) for s in tables),
        "</section></main></body></html>",
    ]
    return "\n".join(parts) + "\n"
