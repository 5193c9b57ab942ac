"""Reading the analysis tables back and rendering them for people (Markdown, HTML).

The ``analyze`` stage writes CSV; ``plot`` and ``report`` read the same CSV through
:func:`read_tables`, so the files in ``reports/tables`` are the one contract between
the stages. Formatting rules live here once: percentages with two decimals, p-values in
scientific notation when small, and an en dash for a missing value (a labelled gap).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

MISSING = "–"
# A cell that reads as a number (optionally with a bracketed interval): right-aligned.
NUMERIC_RE = re.compile(r"[-+]?\d[\d.,e+-]*( \[[-+\d.e, ]+\])?")
# Columns that hold text even when every value looks numeric or is empty.
TEXT_COLUMNS = (
    "model",
    "setting",
    "rag_cutoff",
    "cell",
    "qtype",
    "month",
    "window",
    "present_window",
    "window_start",
    "window_end",
    "period_start",
    "period_end",
    "first_post_period",
    "anchor",
    "anchor_date",
    "knowledge_cutoff",
    "release_date",
    "source",
    "verdict",
    "mark",
    "status",
    "reason",
    "category",
    "mc_type",
    "key",
    "value",
    "first_month",
    "last_month",
)


def read_tables(
    directory: str | Path, names: Sequence[str] | None = None
) -> dict[str, pd.DataFrame]:
    """CSV tables of a directory keyed by file stem, text columns kept as text.

    Args:
        directory: where the tables are.
        names: the stems to read (those missing are left out); None reads every CSV.
            Stages pass the names they declare as DVC dependencies, so a table written
            there by another stage never slips into their output unnoticed.
    """
    out = {}
    paths = (
        sorted(Path(directory).glob("*.csv"))
        if names is None
        else [
            Path(directory) / f"{n}.csv" for n in names if (Path(directory) / f"{n}.csv").exists()
        ]
    )
    for path in paths:
        head = pd.read_csv(path, nrows=0)
        dtypes = {c: str for c in head.columns if c in TEXT_COLUMNS}
        df = pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values=[""])
        for c in dtypes:
            df[c] = df[c].fillna("").astype(str)
        out[path.stem] = df
    return out


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
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return MISSING
    return MISSING if math.isnan(x) else str(int(x))


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
    """An escaped HTML table of string cells; the missing mark gets a gap class."""
    parts = [f'<table id="{html.escape(table_id)}">']
    if caption:
        parts.append(f"<caption>{html.escape(caption)}</caption>")
    parts.append("<thead><tr>")
    parts.extend(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    parts.append("</tr></thead><tbody>")
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            text = str(v)
            if text == MISSING:
                cls = ' class="gap" title="no data"'
            elif NUMERIC_RE.fullmatch(text):
                cls = ' class="num"'
            else:
                cls = ""
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def table3_display(t3: pd.DataFrame) -> pd.DataFrame:
    """Table 3 as in the paper: yearly accuracy (%) and average YoY change (%) with CIs."""
    years = sorted(c[4:] for c in t3.columns if c.startswith("acc_"))
    cols: list[Column] = [
        ("model", "Model", fmt_text),
        ("cell", "Setting", fmt_text),
        ("qtype", "Type", lambda v: str(v).upper()),
        ("knowledge_cutoff", "K-cutoff", fmt_text),
    ]
    cols += [(f"acc_{y}", y, fmt_number) for y in years]
    out = display_frame(t3, cols)
    for regime, header in (
        ("pre", "Pre-cutoff YoY"),
        ("post", "Post-cutoff YoY"),
        ("all", "Avg YoY"),
    ):
        out[header] = [
            _with_ci(v, lo, hi)
            for v, lo, hi in zip(
                t3.get(f"yoy_{regime}", []),
                t3.get(f"yoy_{regime}_low", []),
                t3.get(f"yoy_{regime}_high", []),
                strict=True,
            )
        ]
    return out


def _with_ci(value: object, low: object, high: object) -> str:
    v = fmt_number(value)
    if v == MISSING:
        return v
    lo, hi = fmt_number(low), fmt_number(high)
    return v if lo == MISSING else f"{v} [{lo}, {hi}]"


BIAS_COLUMNS: list[Column] = [
    ("model", "Model", fmt_text),
    ("cell", "Setting", fmt_text),
    ("qtype", "Type", lambda v: str(v).upper()),
    ("anchor", "Anchor", fmt_text),
    ("anchor_date", "Date", fmt_text),
    ("window", "Months before", fmt_text),
    ("acc_past", "Acc. past (%)", fmt_pct),
    ("n_past", "n past", fmt_int),
    ("acc_present", "Acc. present (%)", fmt_pct),
    ("n_present", "n present", fmt_int),
    ("p_neophilia", "p Neophilia", fmt_p),
    ("p_nostalgia", "p Nostalgia", fmt_p),
    ("verdict", "Bias", fmt_text),
    ("status", "Status", fmt_text),
]

DEGENERATION_COLUMNS: list[Column] = [
    ("model", "Model", fmt_text),
    ("cell", "Setting", fmt_text),
    ("qtype", "Type", lambda v: str(v).upper()),
    ("anchor", "Anchor", fmt_text),
    ("period_start", "From", fmt_text),
    ("period_end", "To (excl.)", fmt_text),
    ("acc_future", "Acc. (%)", fmt_pct),
    ("n_future", "n", fmt_int),
    ("acc_present", "Acc. present (%)", fmt_pct),
    ("z", "z", fmt_number),
    ("p", "p", fmt_p),
    ("mark", "Sig.", fmt_text),
    ("status", "Status", fmt_text),
]

DECLINE_COLUMNS: list[Column] = [
    ("model", "Model", fmt_text),
    ("cell", "Setting", fmt_text),
    ("qtype", "Type", lambda v: str(v).upper()),
    ("anchor", "Anchor", fmt_text),
    ("anchor_date", "Date", fmt_text),
    ("pre_release_accuracy", "Pre-release acc. (%)", fmt_pct),
    ("n_pre", "n pre", fmt_int),
    ("first_post_accuracy", "First post-release acc. (%)", fmt_pct),
    ("n_post", "n post", fmt_int),
    ("first_post_period", "Post period", fmt_text),
    ("decline", "Decline (pp)", fmt_pct),
    ("pct_decline", "Decline (%)", fmt_number),
    ("status", "Status", fmt_text),
]

MONTHLY_COLUMNS: list[Column] = [
    ("model", "Model", fmt_text),
    ("cell", "Setting", fmt_text),
    ("qtype", "Type", lambda v: str(v).upper()),
    ("month", "Month", fmt_text),
    ("n", "n", fmt_int),
    ("accuracy", "Acc. (%)", fmt_pct),
    ("ci_low", "95% low", fmt_pct),
    ("ci_high", "95% high", fmt_pct),
    ("accuracy_ma", "Moving avg (%)", fmt_pct),
    ("refusal_rate", "Refusals (%)", fmt_pct),
    ("accuracy_excl_refusals", "Acc. excl. refusals (%)", fmt_pct),
]

SLOPE_COLUMNS: list[Column] = [
    ("model", "Model", fmt_text),
    ("cell", "Setting", fmt_text),
    ("qtype", "Type", lambda v: str(v).upper()),
    ("window_start", "From", fmt_text),
    ("window_end", "To", fmt_text),
    ("n_months", "Months", fmt_int),
    ("n_points", "Defined", fmt_int),
    ("slope_pp_per_month", "Slope (pp/month)", lambda v: fmt_number(v, 3)),
]


MARKDOWN_TITLES = {
    "table3": "Table 3: yearly average accuracy (%) and average YoY change (%) [95% CI]",
    "freshbench_bias": "FreshBench bias tests (past windows vs the present window)",
    "freshbench_degeneration": "FreshBench temporal degeneration (post-anchor periods vs present)",
    "freshbench_decline": "FreshBench decline table",
}


def markdown_document(name: str, df: pd.DataFrame) -> str:
    """One analysis table as a titled Markdown document (empty tables say so)."""
    renderers: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
        "table3": table3_display,
        "freshbench_bias": lambda d: display_frame(d, BIAS_COLUMNS),
        "freshbench_degeneration": lambda d: display_frame(d, DEGENERATION_COLUMNS),
        "freshbench_decline": lambda d: display_frame(d, DECLINE_COLUMNS),
    }
    title = MARKDOWN_TITLES.get(name, name)
    body = to_markdown(renderers[name](df)) if not df.empty else "No rows: nothing to report.\n"
    return f"# {title}\n\n{body}\n{MISSING} marks a value the data could not provide.\n"
