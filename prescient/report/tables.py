"""Rendering the analysis tables for people (Markdown, HTML).

The ``analyze`` stage writes CSV, which ``plot`` and ``report`` read back through
:func:`prescient.report.table_files.read_tables`. Formatting rules live here once:
percentages with two decimals, p-values in scientific notation when small, and an en
dash for a missing value (a labelled gap). So does the display of a table
(:class:`ReportTable`): the HTML report and the Markdown copies render the same
specification. The shared analysis describes its tables with these
(:mod:`prescient.analysis.report_tables`), each benchmark its own in its folder, and the
page (:mod:`prescient.page.contents`) gathers them.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

MISSING = "–"
NO_ROWS = "No rows: nothing to report."
# A cell that reads as a number (optionally with a bracketed interval and its n):
# right-aligned.
NUMERIC_RE = re.compile(r"[-+]?\d[\d.,e+-]*( \[[-+\d.e, ]+\])?( †)?( n=[\d,]+)?")
MIN_INTERVAL_N = 10
"""The fewest samples (questions, documents, open-form samples) an interval is shown for,
in every table, figure and Markdown copy (beyond the papers, which state no floor): a
bootstrap interval from a handful of samples is mostly an artefact of which few were
drawn (from one it collapses onto its value, "100.00 [100.00, 100.00]"), and a 95%
interval from fewer than ten answers spans most of the scale. Below it the value is
shown with its n and "too few for an interval" in the interval's place. At the papers'
size (hundreds of questions a month, dozens of documents a bucket) every interval clears
it."""
DENSE_COLUMNS = 12
"""A table of more columns is set denser (smaller type, narrower padding) to fit the page."""
EXCLUDES_MARK = "†"
"""Marks a bootstrap interval that does not contain its estimate."""


def fmt_count(n: object) -> str:
    """A count as people read it, the one rule of the report and its notes: thousands
    separated by commas (``8,370``)."""
    return f"{int(n):,}"  # type: ignore[call-overload]


def fmt_number(value: object, digits: int = 2) -> str:
    """A number with fixed decimals, or the missing mark for NaN/None/''."""
    if value is None or value == "":
        return MISSING
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return MISSING
    return f"{x:.{digits}f}"


def fmt_pct(value: object, digits: int = 2) -> str:
    """A fraction shown as a percentage (0.5 -> ``50.00``)."""
    try:
        return fmt_number(100.0 * float(value), digits)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return MISSING


def fmt_p(value: object) -> str:
    """A p-value: three decimals, or scientific notation below 0.001."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return MISSING
    if math.isnan(x):
        return MISSING
    return f"{x:.2e}" if x < 0.001 else f"{x:.3f}"


def fmt_int(value: object) -> str:
    """A count, the report's one rule for counts (:func:`fmt_count`: ``8,370``)."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return MISSING
    return MISSING if math.isnan(x) else fmt_count(int(x))


def fmt_text(value: object) -> str:
    text = "" if value is None else str(value)
    return text if text and text != "nan" else MISSING


Column = tuple[str, str, Callable[[object], str]]


def display_frame(df: pd.DataFrame, columns: Sequence[Column]) -> pd.DataFrame:
    """Select, format and rename columns for display (all values become strings)."""
    data = {
        header: [fmt(v) for v in df[name]] if name in df.columns else [MISSING] * len(df)
        for name, header, fmt in columns
    }
    return pd.DataFrame(data, columns=[header for _, header, _ in columns])


def to_markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of string cells (pipes escaped)."""

    def cell(x: object) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(cell(c) for c in df.columns) + " |"
    rule = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body]) + "\n"


def to_html(df: pd.DataFrame, table_id: str, caption: str = "") -> str:
    """An escaped HTML table of string cells; the missing mark gets a gap class, a
    number the num class; text may break after an underscore (:func:`_breakable`), a
    word of over 40 characters (a checksum, a path) anywhere; a table of more than
    :data:`DENSE_COLUMNS` columns is set dense."""
    dense = ' class="dense"' if len(df.columns) > DENSE_COLUMNS else ""
    parts = [f'<table id="{html.escape(table_id)}"{dense}>']
    if caption:
        parts.append(f"<caption>{html.escape(caption)}</caption>")
    parts.append("<thead><tr>")
    parts.extend(f"<th>{_breakable(str(c))}</th>" for c in df.columns)
    parts.append("</tr></thead><tbody>")
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            text = str(v)
            body = html.escape(text)
            if text == MISSING:
                cls = ' class="gap" title="no data"'
            elif NUMERIC_RE.fullmatch(text):
                cls = ' class="num"'
            else:
                cls = ' class="long"' if max(map(len, text.split()), default=0) > 40 else ""
                body = _breakable(text)
            cells.append(f"<td{cls}>{body}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def _breakable(text: str) -> str:
    """Escaped text that a narrow column may break after an underscore
    (``baseline_always_yes``, ``rag_2024-06-01``), and nowhere else inside a word."""
    return html.escape(text).replace("_", "_<wbr>")


def upper(value: object) -> str:
    """The value in capitals, as written (question types: ``tf`` -> ``TF``)."""
    return str(value).upper()


def digits(n: int) -> Callable[[object], str]:
    """A formatter with ``n`` decimals (:func:`fmt_number`)."""
    return lambda v: fmt_number(v, n)


def upper_text(value: object) -> str:
    """:func:`fmt_text` in capitals (task and question-type codes)."""
    return fmt_text(value).upper()


KEY_COLUMNS: tuple[Column, ...] = (
    ("model", "Model", fmt_text),
    ("cell", "Setting", fmt_text),
    ("qtype", "Type", upper),
)


def is_true(value: object) -> bool:
    """A flag as written (bool, 0/1) or as read back from CSV text."""
    return str(value).strip().lower() in ("true", "1")


def too_few_for_interval(n: object) -> bool:
    """Whether ``n`` samples are too few for an interval (:data:`MIN_INTERVAL_N`); an
    unknown n (None, NaN) is not judged."""
    try:
        x = float(n)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return not math.isnan(x) and x < MIN_INTERVAL_N


def fmt_interval(
    value: object,
    low: object,
    high: object,
    digits: int = 2,
    scale: float = 1.0,
    n: object = None,
) -> str:
    """``value [low, high]`` (each times ``scale``), the value alone when the interval is
    missing, the missing mark when the value is; from fewer than :data:`MIN_INTERVAL_N`
    samples (``n``), ``value (n=3: too few for an interval)``."""

    def num(x: object) -> str:
        try:
            return fmt_number(scale * float(x), digits)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return MISSING

    v = num(value)
    if v == MISSING:
        return v
    if too_few_for_interval(n):
        return f"{v} (n={fmt_int(n)}: too few for an interval)"
    lo, hi = num(low), num(high)
    return v if MISSING in (lo, hi) else f"{v} [{lo}, {hi}]"


Interval = tuple[str, str, str, int, float, str]
"""(value, low, high, digits, scale, n) columns of a table joined as ``value [low, high]``;
``n`` names the column counting the samples the interval comes from."""


def in_place_of(text: str, reason: object) -> str:
    """A reason a figure is left out (a floor it falls below), shown in the figure's
    place; the figure's own text where there is none (empty, or the missing mark)."""
    why = fmt_text(reason)
    return text if why == MISSING else why


def too_few(n: object) -> str:
    """What a change below the floor shows in its place (:data:`MIN_INTERVAL_N`)."""
    return f"too few (n={fmt_int(n)} < {MIN_INTERVAL_N})"


def interval_columns(
    columns: Sequence[Column], intervals: dict[str, Interval], changes: Sequence[str] = ()
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A display that joins values with their intervals (:func:`fmt_interval`).

    Args:
        columns: the displayed columns; a name that is a key of ``intervals`` is the
            joined text.
        intervals: display column -> :data:`Interval`.
        changes: display columns that are changes (a difference, a percentage change):
            from fewer than :data:`MIN_INTERVAL_N` samples they show :func:`too_few`
            instead of a value, not only no interval.
    """

    def render(df: pd.DataFrame) -> pd.DataFrame:
        joined = df.copy()
        for name, (value, low, high, digits, scale, n) in intervals.items():
            joined[name] = [
                too_few(k)
                if name in changes and too_few_for_interval(k) and fmt_number(v) != MISSING
                else fmt_interval(v, lo, hi, digits, scale, k)
                for v, lo, hi, k in zip(df[value], df[low], df[high], df[n], strict=True)
            ]
        return display_frame(joined, columns)

    return render


def interval_bounds(
    columns: Sequence[Column], bounds: Sequence[tuple[str, str, str]]
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A display that leaves interval bounds shown in columns of their own blank where
    their row has fewer than :data:`MIN_INTERVAL_N` samples.

    Args:
        columns: the displayed columns.
        bounds: (low, high, n) columns of the table.
    """

    def render(df: pd.DataFrame) -> pd.DataFrame:
        shown = df.copy()
        for low, high, n in bounds:
            few = [too_few_for_interval(k) for k in df[n]]
            shown[low] = shown[low].where(~pd.Series(few, index=df.index))
            shown[high] = shown[high].where(~pd.Series(few, index=df.index))
        return display_frame(shown, columns)

    return render


@dataclass(frozen=True)
class ReportTable:
    """How one analysis table is shown to people, in the HTML report and in Markdown.

    Attributes:
        name: the analysis table (``<name>.csv``).
        section_id: the HTML id of its section.
        title: heading (and Markdown title).
        columns: (column, header, formatter) of the displayed columns, in order.
        note: a sentence under the heading saying how the numbers are defined.
        scroll: long tables scroll inside a box.
        markdown: also written as ``<name>.md`` beside the CSV.
        render: a custom display (Table 3 joins values with their intervals).
        part: the id of the report part it belongs to (:mod:`prescient.report.outline`).
        empty: one line saying why the table can have no rows, shown in its place.
        context_note: a sentence the report adds to ``note`` from the tables of the run
            (which rows cover different questions); "" when there is nothing to add.
    """

    name: str
    section_id: str
    title: str
    columns: tuple[Column, ...] = ()
    note: str = ""
    scroll: bool = False
    markdown: bool = False
    render: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    part: str = field(kw_only=True)
    empty: str = NO_ROWS
    context_note: Callable[[Mapping[str, pd.DataFrame]], str] | None = field(
        default=None, kw_only=True
    )

    def full_note(self, tables: Mapping[str, pd.DataFrame]) -> str:
        """``note`` and, after it, the :attr:`context_note` of these tables."""
        extra = self.context_note(tables) if self.context_note is not None else ""
        return " ".join(t for t in (self.note, extra) if t)

    def display(self, df: pd.DataFrame) -> pd.DataFrame:
        return self.render(df) if self.render is not None else display_frame(df, self.columns)


MODELS = ReportTable(
    "models",
    "models",
    "Models, what served them and their dates",
    (
        ("model", "Model", fmt_text),
        ("litellm_model", "Asked as", fmt_text),
        ("served_model", "Served model", fmt_text),
        ("token_method", "Token probabilities read from", fmt_text),
        ("knowledge_cutoff", "Knowledge cutoff", fmt_text),
        ("release_date", "Release date", fmt_text),
        ("source", "Dates from", fmt_text),
    ),
    note="Asked as: the registry entry's litellm_model. Served model: the model that "
    "answered, as its server named it in its replies (an in-process model's weights "
    "file); several are listed when one registry entry "
    "was served by different models. Token probabilities read from: how the "
    "token-probability forecasts were read, the whole answer sequence (the embedded "
    "models) or the top tokens a chat server returns at the first position an answer "
    "appears (answers outside them and answers of several tokens unseen), so a "
    "comparison across the two compares methods too.",
    part="provenance",
)
CELLS = ReportTable(
    "cells",
    "cells",
    "Scored questions per model, setting and question source",
    (
        ("model", "Model", fmt_text),
        ("cell", "Setting", fmt_text),
        ("source", "Source", fmt_text),
        ("n", "Scored (n)", fmt_int),
        ("n_source_questions", "Of questions", fmt_int),
        ("n_tf", "TF", fmt_int),
        ("n_mc", "MC", fmt_int),
        ("n_errors", "Failed calls", fmt_int),
        ("n_fitted", "Fitted to context", fmt_int),
        ("first_month", "First month", fmt_text),
        ("last_month", "Last month", fmt_text),
    ),
    "n is what the cell scored; a model with a budget (eval.max_questions) answers a "
    "seeded sample, nested in every larger one, so it scores fewer than the source has. "
    "Fitted to context: prompts whose articles were cut to the most words that fit the "
    "model's context window.",
    part="provenance",
    empty="No cell scored a question.",
)
SOURCES = ReportTable(
    "dataset_sources",
    "question-sources",
    "The evaluated questions, by source",
    (
        ("source", "Source", fmt_text),
        ("path", "File", fmt_text),
        ("checksum", "sha256 of the file", fmt_text),
        ("n", "Questions", fmt_int),
        ("n_tf", "TF", fmt_int),
        ("n_mc", "MC", fmt_int),
        ("first_date", "First resolution", fmt_text),
        ("last_date", "Last resolution", fmt_text),
        ("n_categories", "Categories", fmt_int),
        ("n_with_forecast_date", "With forecast date", fmt_int),
        ("horizon_median_days", "Median horizon (days)", digits(1)),
    ),
    "The question table every model answered (after the seeded sample of "
    "questions.max_questions, if any). Horizon: days from the forecast date to the "
    "resolution date.",
    part="sources",
    empty="No evaluated questions.",
)


def display_names(df: pd.DataFrame) -> pd.DataFrame:
    """Models by their display name where a table has one (BPC tables name models by
    registry name and display name)."""
    if "display_name" not in df.columns:
        return df
    shown = [d if d else m for m, d in zip(df["model"], df["display_name"], strict=True)]
    return df.assign(model=shown)


def interval_table(
    name: str,
    title: str,
    columns: tuple[Column, ...],
    intervals: dict[str, Interval],
    note: str,
    part: str,
    empty: str,
    scroll: bool = False,
    changes: Sequence[str] = (),
) -> ReportTable:
    """A table whose display joins values with intervals (the columns named as keys of
    ``intervals``, :func:`interval_columns`, ``changes`` floored there) and shows models
    by their display name."""
    joined = interval_columns(columns, intervals, changes)
    return ReportTable(
        name,
        name.replace("_", "-"),
        title,
        columns,
        note,
        scroll,
        render=lambda df: joined(display_names(df)),
        part=part,
        empty=empty,
    )


def markdown_document(spec: ReportTable, df: pd.DataFrame) -> str:
    """One analysis table as a titled Markdown document (empty tables say so)."""
    body = to_markdown(spec.display(df)) if not df.empty else "No rows: nothing to report.\n"
    return f"# {spec.title}\n\n{body}\n{MISSING} marks a value the data could not provide.\n"
