"""Reading the analysis tables back and rendering them for people (Markdown, HTML).

The ``analyze`` stage writes CSV; ``plot`` and ``report`` read the same CSV through
:func:`read_tables`, so the tables directory is the one contract between the stages.
Formatting rules live here once: percentages with two decimals, p-values in scientific
notation when small, and an en dash for a missing value (a labelled gap). So does the
display of each table (:class:`ReportTable`): the HTML report and the Markdown copies
render the same specification.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from prescient.benchmarks.daily_oracle.analysis.schema import fmt_count

MISSING = "–"
NO_ROWS = "No rows: nothing to report."
# A cell that reads as a number (optionally with a bracketed interval and its n):
# right-aligned.
NUMERIC_RE = re.compile(r"[-+]?\d[\d.,e+-]*( \[[-+\d.e, ]+\])?( †)?( n=[\d,]+)?")
MIN_INTERVAL_N = 2
"""The fewest samples (questions, documents, open-form samples) an interval is shown for:
from one sample a bootstrap interval collapses onto its value ("100.00 [100.00, 100.00]")
and a Wilson interval says only how little one answer tells, so the report shows the value
and its n alone."""
EXCLUDES_MARK = "†"
"""Marks a bootstrap interval that does not contain its estimate."""
# Columns that hold text even when every value looks numeric or is empty.
TEXT_COLUMNS = (
    "model",
    "setting",
    "rag_cutoff",
    "cell",
    "qtype",
    "month",
    "month_start",
    "month_end",
    "end_month_start",
    "end_month_end",
    "window",
    "present_window",
    "window_start",
    "window_end",
    "present_start",
    "present_end",
    "period_start",
    "period_end",
    "reference_start",
    "reference_end",
    "pre_start",
    "pre_end",
    "post_start",
    "post_end",
    "month_rule",
    "period_rule",
    "reference",
    "rounding",
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
    "note",
    "bucket",
    "path",
    "checksum",
    "first_date",
    "last_date",
    # BPC tables (prescient/benchmarks/freshbench/bpc/tables.py)
    "display_name",
    "bucket_start",
    "bucket_end",
    "span",
    "first_bucket",
    "last_bucket",
    "base_start",
    "base_end",
    "what",
    # OpenForecast tables (prescient/benchmarks/openforecast/tables.py)
    "task",
    "metric",
    "interval",
)


def read_tables(
    directory: str | Path, names: Sequence[str] | None = None
) -> dict[str, pd.DataFrame]:
    """CSV tables of a directory keyed by file stem, text columns kept as text.

    Args:
        directory: where the tables are.
        names: the stems to read (those missing are left out); None reads every CSV.
            Stages pass the analysis's table names, so a stray file in the directory
            never slips into their output unnoticed.
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


def _upper(value: object) -> str:
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
    ("qtype", "Type", _upper),
)


def table3_display(t3: pd.DataFrame) -> pd.DataFrame:
    """Table 3 as in the paper: yearly accuracy (%) with its questions, average YoY change
    (%) with its bootstrap interval and the months averaged, and the cutoff windows."""
    years = sorted(c[4:] for c in t3.columns if c.startswith("acc_"))
    cols: list[Column] = [*KEY_COLUMNS, ("knowledge_cutoff", "K-cutoff", fmt_text)]
    out = display_frame(t3, cols)
    for y in years:
        counts = t3.get(f"n_{y}", pd.Series([None] * len(t3)))
        out[y] = [_with_n(fmt_number(v), n) for v, n in zip(t3[f"acc_{y}"], counts, strict=True)]
    for regime, header in (
        ("pre", "Pre-cutoff YoY"),
        ("post", "Post-cutoff YoY"),
        ("all", "Avg YoY"),
    ):
        flags = t3.get(f"yoy_{regime}_ci_excludes", pd.Series([False] * len(t3)))
        pairs = t3.get(f"yoy_{regime}_pairs", pd.Series([None] * len(t3)))
        out[header] = [
            _with_n(_with_ci(v, lo, hi, flag), n)
            for v, lo, hi, flag, n in zip(
                t3.get(f"yoy_{regime}", []),
                t3.get(f"yoy_{regime}_low", []),
                t3.get(f"yoy_{regime}_high", []),
                flags,
                pairs,
                strict=True,
            )
        ]
    out["YoY months (pre; post; avg)"] = [
        "; ".join(_span(row, r) for r in ("pre", "post", "all")) for _, row in t3.iterrows()
    ]
    return out


def _with_n(text: str, n: object) -> str:
    """``text n=k``: the count behind a displayed number (the missing mark stays alone)."""
    count = fmt_int(n)
    return text if MISSING in (text, count) else f"{text} n={count}"


def _span(row: pd.Series, regime: str) -> str:
    first, last = fmt_text(row.get(f"yoy_{regime}_from")), fmt_text(row.get(f"yoy_{regime}_to"))
    return MISSING if MISSING in (first, last) else f"{first}..{last}"


def _flag(value: object) -> bool:
    return str(value).strip().lower() in ("true", "1")


def _with_ci(value: object, low: object, high: object, excludes: object = False) -> str:
    v = fmt_number(value)
    if v == MISSING:
        return v
    lo, hi = fmt_number(low), fmt_number(high)
    if lo == MISSING:
        return v
    return f"{v} [{lo}, {hi}]" + (f" {EXCLUDES_MARK}" if _flag(excludes) else "")


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
    samples (``n``), ``value (n=1: no interval)``."""

    def num(x: object) -> str:
        try:
            return fmt_number(scale * float(x), digits)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return MISSING

    v = num(value)
    if v == MISSING:
        return v
    if too_few_for_interval(n):
        return f"{v} (n={fmt_int(n)}: no interval)"
    lo, hi = num(low), num(high)
    return v if MISSING in (lo, hi) else f"{v} [{lo}, {hi}]"


Interval = tuple[str, str, str, int, float, str]
"""(value, low, high, digits, scale, n) columns of a table joined as ``value [low, high]``;
``n`` names the column counting the samples the interval comes from."""


def interval_columns(
    columns: Sequence[Column], intervals: dict[str, Interval]
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A display that joins values with their intervals (:func:`fmt_interval`).

    Args:
        columns: the displayed columns; a name that is a key of ``intervals`` is the
            joined text.
        intervals: display column -> :data:`Interval`.
    """

    def render(df: pd.DataFrame) -> pd.DataFrame:
        joined = df.copy()
        for name, (value, low, high, digits, scale, n) in intervals.items():
            joined[name] = [
                fmt_interval(v, lo, hi, digits, scale, k)
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

    def display(self, df: pd.DataFrame) -> pd.DataFrame:
        return self.render(df) if self.render is not None else display_frame(df, self.columns)


MODELS = ReportTable(
    "models",
    "models",
    "Models and their dates",
    (
        ("model", "Model", fmt_text),
        ("knowledge_cutoff", "Knowledge cutoff", fmt_text),
        ("release_date", "Release date", fmt_text),
        ("source", "Dates from", fmt_text),
    ),
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
FLOOR_NOTE = (
    "No test is run, and no mark printed, where a compared group has fewer questions than "
    "analysis.freshbench.min_n, or fewer correct or wrong answers than min_outcomes "
    "(status: too few questions)."
)
MONTHLY_COLUMNS: tuple[Column, ...] = (
    *KEY_COLUMNS,
    ("month", "Month", fmt_text),
    ("n", "n", fmt_int),
    ("accuracy", "Acc. (%)", fmt_pct),
    ("ci_low", "95% low", fmt_pct),
    ("ci_high", "95% high", fmt_pct),
    ("accuracy_ma", "Moving avg (%)", fmt_pct),
    ("refusal_rate", "Refusals (%)", fmt_pct),
    ("accuracy_excl_refusals", "Acc. excl. refusals (%)", fmt_pct),
)
HORIZON_COLUMNS: tuple[Column, ...] = (
    *KEY_COLUMNS,
    ("source", "Source", fmt_text),
    ("bucket", "Horizon", fmt_text),
    ("n", "n", fmt_int),
    ("accuracy", "Acc. (%)", fmt_pct),
    ("ci_low", "95% low", fmt_pct),
    ("ci_high", "95% high", fmt_pct),
)

RAG_ACCURACY_COLUMNS: tuple[Column, ...] = (
    ("model", "Model", fmt_text),
    ("qtype", "Type", _upper),
    ("rag_cutoff", "RAG cutoff", fmt_text),
    ("accuracy", "Acc. (%) [95%]", fmt_text),
    ("n", "n", fmt_int),
    ("closed_book_accuracy", "Closed book (%)", fmt_pct),
    ("key", "Summary key", fmt_text),
)


ANALYSIS_TABLES: tuple[ReportTable, ...] = (
    ReportTable(
        "rag_accuracy",
        "rag-accuracy",
        "Accuracy by RAG cutoff",
        RAG_ACCURACY_COLUMNS,
        "Accuracy (%) over the analysis period with the retrieval limited to articles "
        "before each RAG cutoff (dynamic: the day before resolution alone limits it), "
        "[Wilson 95% interval] (none for one question), beside the same model's "
        "closed-book accuracy on the same question type. Summary key: the name of the "
        "setting in reports/metrics/summary.json (rag for a run's one dated cutoff, "
        "rag_1, rag_2, ... in date order for several).",
        render=interval_columns(
            RAG_ACCURACY_COLUMNS, {"accuracy": ("accuracy", "ci_low", "ci_high", 2, 100.0, "n")}
        ),
        part="rag-cutoffs",
        empty="No RAG setting in this run (eval.settings lists no rag_dynamic or rag_YYYY-MM-DD).",
    ),
    ReportTable(
        "table3",
        "table3",
        "Table 3: yearly accuracy (%) and average YoY change (%)",
        note="A year's accuracy: correct / scored over its n questions "
        "(analysis.table3.yearly: pooled, the paper's) or the mean of its monthly "
        "accuracies (mean_of_months). YoY change at month m is 100 (acc(m) - acc(m-12)) / "
        "acc(m-12), from 12 months after the period's first month; each average is over "
        "the months in the last column (n: months with a YoY value). "
        "analysis.table3.windows: paper (the paper's) averages the pre_months (paper: 24) "
        "months before the knowledge-cutoff month (Pre) and the post_months (7) from it "
        "(Post); all_months every month up "
        "to and including it and every later one. Models without a cutoff have neither. "
        "Bootstrap 95% intervals in brackets (analysis.bootstrap). "
        f"{EXCLUDES_MARK}: the interval does not contain its estimate (the YoY statistic is "
        "strongly biased under resampling there); do not read it as an interval.",
        markdown=True,
        render=table3_display,
        part="yearly",
        empty="No series has monthly accuracy to average by year.",
    ),
    ReportTable(
        "headline_decline",
        "headline-decline",
        "Closed-book accuracy (%) in the first and the last month of the period, mean over models",
        (
            ("qtype", "Type", _upper),
            ("first_month", "First month", fmt_text),
            ("first_accuracy", "Accuracy first (%)", fmt_number),
            ("n_first", "n first", fmt_int),
            ("last_month", "Last month", fmt_text),
            ("last_accuracy", "Accuracy last (%)", fmt_number),
            ("n_last", "n last", fmt_int),
            ("change_pct", "Change (%)", fmt_number),
            ("n_models", "Models (n)", fmt_int),
            ("models", "Models", fmt_text),
            ("left_out", "Left out", fmt_text),
        ),
        "The paper's headline (Daily Oracle, section 4.2): each model's monthly accuracy "
        "in the period's first and last month, averaged over the models with questions in "
        "both (n: their questions), and the relative change 100 (last - first) / first. "
        "Left out: models without questions in either month, and baselines under "
        "analysis.headline.exclude_baselines.",
        markdown=True,
        part="yearly",
        empty="No closed-book series.",
    ),
    ReportTable(
        "freshbench_bias",
        "freshbench-bias",
        "FreshBench bias tests: each past window against the present window",
        (
            *KEY_COLUMNS,
            ("anchor", "Anchor", fmt_text),
            ("anchor_date", "Date", fmt_text),
            ("month_rule", "Months", fmt_text),
            ("window", "Months before", fmt_text),
            ("window_start", "From", fmt_text),
            ("window_end", "To (excl.)", fmt_text),
            ("acc_past", "Acc. past (%)", fmt_pct),
            ("n_past", "n past", fmt_int),
            ("acc_present", "Acc. present (%)", fmt_pct),
            ("n_present", "n present", fmt_int),
            ("p_neophilia", "p Neophilia", fmt_p),
            ("p_nostalgia", "p Nostalgia", fmt_p),
            ("verdict", "Bias", fmt_text),
            ("status", "Status", fmt_text),
        ),
        "One-sided two-proportion z-tests, p = 1 - Phi(z). Neophilia: past < present; "
        "Nostalgia: past > present. * p < 0.05, ** p < 0.01, *** p < 0.001. Months: "
        "calendar (calendar months before the anchor) or freshbench (FreshBench's 30-day "
        "months, the present window reaching 15 days past the anchor). " + FLOOR_NOTE,
        scroll=True,
        markdown=True,
        part="bias-tests",
        empty="No model with an anchor date has questions in a past and the present window.",
    ),
    ReportTable(
        "freshbench_degeneration",
        "freshbench-degeneration",
        "FreshBench temporal degeneration: periods after the anchor date against the "
        "reference accuracy",
        (
            *KEY_COLUMNS,
            ("anchor", "Anchor", fmt_text),
            ("period_rule", "Periods", fmt_text),
            ("period_start", "From", fmt_text),
            ("period_end", "To (excl.)", fmt_text),
            ("acc_future", "Acc. (%)", fmt_pct),
            ("n_future", "n", fmt_int),
            ("reference", "Reference", fmt_text),
            ("acc_reference", "Acc. reference (%)", fmt_pct),
            ("n_reference", "n reference", fmt_int),
            ("z", "z", fmt_number),
            ("p", "p", fmt_p),
            ("mark", "Sig.", fmt_text),
            ("status", "Status", fmt_text),
        ),
        "H1: accuracy in the period is lower than the reference: the present window "
        "(present) or every question resolved before the anchor date (pre_anchor). " + FLOOR_NOTE,
        scroll=True,
        markdown=True,
        part="bias-tests",
        empty="No model with an anchor date has questions after it.",
    ),
    ReportTable(
        "freshbench_decline",
        "freshbench-decline",
        "FreshBench decline table",
        (
            *KEY_COLUMNS,
            ("anchor", "Anchor", fmt_text),
            ("anchor_date", "Date", fmt_text),
            ("reference", "Reference", fmt_text),
            ("pre_accuracy", "Pre-release acc. (%)", fmt_pct),
            ("n_pre", "n pre", fmt_int),
            ("post_accuracy", "First post-release acc. (%)", fmt_pct),
            ("n_post", "n post", fmt_int),
            ("post_start", "Post from", fmt_text),
            ("post_end", "Post to (excl.)", fmt_text),
            ("n_post_periods", "Periods", fmt_int),
            ("decline", "Decline (pp)", fmt_pct),
            ("pct_decline", "Decline (%)", fmt_number),
            ("status", "Status", fmt_text),
        ),
        "Pre-release accuracy is the reference's; the first post-release accuracy is the "
        "mean accuracy of the first periods after the anchor date that have questions.",
        markdown=True,
        part="bias-tests",
        empty="No model with an anchor date has questions before and after it.",
    ),
    ReportTable(
        "freshbench_skipped",
        "freshbench-skipped",
        "Models skipped by the FreshBench tests",
        (
            ("model", "Model", fmt_text),
            ("anchor", "Anchor", fmt_text),
            ("reason", "Reason", fmt_text),
        ),
        part="bias-tests",
        empty="Every model has the dates the tests need.",
    ),
    ReportTable(
        "slopes",
        "slopes",
        "Fig. 6 data: expanding-window slopes",
        (
            *KEY_COLUMNS,
            ("window_start", "From", fmt_text),
            ("window_end", "To", fmt_text),
            ("n_months", "Months", fmt_int),
            ("n_points", "Defined", fmt_int),
            ("slope_pp_per_month", "Slope (pp/month)", digits(3)),
        ),
        scroll=True,
        part="decline-slopes",
        empty="No series has enough months with a defined moving average for a slope.",
    ),
    ReportTable(
        "monthly_accuracy",
        "monthly-accuracy",
        "Monthly accuracy with Wilson 95% intervals",
        MONTHLY_COLUMNS,
        "Months without questions are kept as rows with n = 0 and empty rates; a month "
        "with one question shows no interval.",
        scroll=True,
        render=interval_bounds(MONTHLY_COLUMNS, [("ci_low", "ci_high", "n")]),
        part="accuracy-over-time",
        empty="No scored questions.",
    ),
    ReportTable(
        "horizon_accuracy",
        "horizon-accuracy",
        "Accuracy by forecast horizon",
        HORIZON_COLUMNS,
        "Horizon: days from a question's forecast date to its resolution date (questions "
        "without a forecast date are not in this table). Wilson 95% intervals (none for a "
        "bucket with one question).",
        scroll=True,
        render=interval_bounds(HORIZON_COLUMNS, [("ci_low", "ci_high", "n")]),
        part="horizon",
        empty="No evaluated question has a forecast date (map a source's forecast_date column).",
    ),
    ReportTable(
        "dataset_horizons",
        "dataset-horizons",
        "Questions per forecast horizon",
        (
            ("source", "Source", fmt_text),
            ("bucket", "Horizon", fmt_text),
            ("n", "Questions", fmt_int),
        ),
        part="sources",
        empty="No evaluated question has a forecast date.",
    ),
    ReportTable(
        "dataset_source_categories",
        "dataset-source-categories",
        "Question categories per source",
        (
            ("source", "Source", fmt_text),
            ("category", "Category", fmt_text),
            ("n", "n", fmt_int),
            ("share_pct", "%", fmt_number),
        ),
        scroll=True,
        part="categories",
        empty="The evaluated questions have no categories.",
    ),
    ReportTable(
        "dataset_mc_types",
        "dataset-mc-types",
        "MC question types",
        (("mc_type", "Type", fmt_text), ("n", "n", fmt_int), ("share_pct", "%", fmt_number)),
        part="categories",
        empty="The evaluated questions have no MC types (no MC questions, or none typed).",
    ),
    ReportTable(
        "dataset_categories",
        "dataset-categories",
        "Question categories",
        (
            ("category", "Category", fmt_text),
            ("n", "n", fmt_int),
            ("share_pct", "%", fmt_number),
            ("n_tf", "TF", fmt_int),
            ("n_mc", "MC", fmt_int),
        ),
        part="categories",
        empty="The evaluated questions have no categories.",
    ),
    ReportTable(
        "dataset_questions_by_month",
        "dataset-questions-by-month",
        "Questions per month",
        (
            ("month", "Month", fmt_text),
            ("n_tf", "TF", fmt_int),
            ("n_mc", "MC", fmt_int),
            ("n", "All", fmt_int),
        ),
        scroll=True,
        part="sources",
        empty="No evaluated questions.",
    ),
    ReportTable(
        "anderson_schooler_fit",
        "anderson-schooler-fit",
        "Anderson-Schooler linear fits",
        (
            ("source", "Source", fmt_text),
            ("n_days", "Days", fmt_int),
            ("vocabulary", "Words", fmt_int),
            ("n_bins", "Frequencies", fmt_int),
            ("slope", "Slope", digits(4)),
            ("intercept", "Intercept", digits(4)),
            ("r2", "R²", digits(3)),
            ("status", "Status", fmt_text),
        ),
        part="anderson-schooler",
        empty="Nothing to count words in: no article titles or questions.",
    ),
)
"""Every analysis table of the report, in page order."""

MARKDOWN_TABLES: tuple[ReportTable, ...] = tuple(s for s in ANALYSIS_TABLES if s.markdown)
"""The tables the analyze stage also writes as Markdown."""


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
) -> ReportTable:
    """A table whose display joins values with intervals (the columns named as keys of
    ``intervals``, :func:`interval_columns`) and shows models by their display name."""
    joined = interval_columns(columns, intervals)
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
