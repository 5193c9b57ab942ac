"""How the report shows Daily Oracle's analysis tables (ICML 2025: Table 3, the headline
decline, accuracy by month, RAG cutoff and horizon, the slopes and the dataset's tables).

Each table is a :class:`~prescient.report.tables.ReportTable` in :data:`DAILY_ORACLE_TABLES`,
in page order within each part; the HTML report and the Markdown copies render the same
specification.
"""

from __future__ import annotations

import pandas as pd

from prescient.benchmarks.daily_oracle.analysis.reading_report import coverage_note
from prescient.report import tables as fmt


def table3_display(t3: pd.DataFrame) -> pd.DataFrame:
    """Table 3 as in the paper: yearly accuracy (%) with its questions, average YoY change
    (%) with its bootstrap interval and the months averaged, and the cutoff windows."""
    years = sorted(c[4:] for c in t3.columns if c.startswith("acc_"))
    cols: list[fmt.Column] = [*fmt.KEY_COLUMNS, ("knowledge_cutoff", "K-cutoff", fmt.fmt_text)]
    out = fmt.display_frame(t3, cols)
    for y in years:
        counts = t3.get(f"n_{y}", pd.Series([None] * len(t3)))
        out[y] = [
            _with_n(fmt.fmt_number(v), n) for v, n in zip(t3[f"acc_{y}"], counts, strict=True)
        ]
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
    count = fmt.fmt_int(n)
    return text if fmt.MISSING in (text, count) else f"{text} n={count}"


def _span(row: pd.Series, regime: str) -> str:
    first, last = (
        fmt.fmt_text(row.get(f"yoy_{regime}_from")),
        fmt.fmt_text(row.get(f"yoy_{regime}_to")),
    )
    return fmt.MISSING if fmt.MISSING in (first, last) else f"{first}..{last}"


def _flag(value: object) -> bool:
    return str(value).strip().lower() in ("true", "1")


def _with_ci(value: object, low: object, high: object, excludes: object = False) -> str:
    v = fmt.fmt_number(value)
    if v == fmt.MISSING:
        return v
    lo, hi = fmt.fmt_number(low), fmt.fmt_number(high)
    if lo == fmt.MISSING:
        return v
    return f"{v} [{lo}, {hi}]" + (f" {fmt.EXCLUDES_MARK}" if _flag(excludes) else "")


MONTHLY_COLUMNS: tuple[fmt.Column, ...] = (
    *fmt.KEY_COLUMNS,
    ("month", "Month", fmt.fmt_text),
    ("n", "n", fmt.fmt_int),
    ("accuracy", "Acc. (%)", fmt.fmt_pct),
    ("ci_low", "95% low", fmt.fmt_pct),
    ("ci_high", "95% high", fmt.fmt_pct),
    ("accuracy_ma", "Moving avg (%)", fmt.fmt_pct),
    ("refusal_rate", "Refusals (%)", fmt.fmt_pct),
    ("accuracy_excl_refusals", "Acc. excl. refusals (%)", fmt.fmt_pct),
)


HORIZON_COLUMNS: tuple[fmt.Column, ...] = (
    *fmt.KEY_COLUMNS,
    ("source", "Source", fmt.fmt_text),
    ("bucket", "Horizon", fmt.fmt_text),
    ("n", "n", fmt.fmt_int),
    ("accuracy", "Acc. (%)", fmt.fmt_pct),
    ("ci_low", "95% low", fmt.fmt_pct),
    ("ci_high", "95% high", fmt.fmt_pct),
)


RAG_ACCURACY_COLUMNS: tuple[fmt.Column, ...] = (
    ("model", "Model", fmt.fmt_text),
    ("qtype", "Type", fmt.upper),
    ("rag_cutoff", "RAG cutoff", fmt.fmt_text),
    ("accuracy", "Acc. (%) [95%]", fmt.fmt_text),
    ("n", "n", fmt.fmt_int),
    ("closed_book_accuracy", "Closed book (%)", fmt.fmt_pct),
    ("key", "Summary key", fmt.fmt_text),
)


DAILY_ORACLE_TABLES: tuple[fmt.ReportTable, ...] = (
    fmt.ReportTable(
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
        render=fmt.interval_columns(
            RAG_ACCURACY_COLUMNS, {"accuracy": ("accuracy", "ci_low", "ci_high", 2, 100.0, "n")}
        ),
        part="rag-cutoffs",
        empty="No RAG setting in this run (eval.settings lists no rag_dynamic or rag_YYYY-MM-DD).",
        context_note=coverage_note,
    ),
    fmt.ReportTable(
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
        f"{fmt.EXCLUDES_MARK}: the interval does not contain its estimate (the YoY statistic is "
        "strongly biased under resampling there); do not read it as an interval.",
        markdown=True,
        render=table3_display,
        part="yearly",
        empty="No series has monthly accuracy to average by year.",
    ),
    fmt.ReportTable(
        "headline_decline",
        "headline-decline",
        "Closed-book accuracy (%) in the first and the last month of the period, mean over models",
        (
            ("qtype", "Type", fmt.upper),
            ("first_month", "First month", fmt.fmt_text),
            ("first_accuracy", "Accuracy first (%)", fmt.fmt_number),
            ("n_first", "n first", fmt.fmt_int),
            ("last_month", "Last month", fmt.fmt_text),
            ("last_accuracy", "Accuracy last (%)", fmt.fmt_number),
            ("n_last", "n last", fmt.fmt_int),
            ("change_pct", "Change (%)", fmt.fmt_number),
            ("n_models", "Models (n)", fmt.fmt_int),
            ("models", "Models", fmt.fmt_text),
            ("left_out", "Left out", fmt.fmt_text),
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
    fmt.ReportTable(
        "slopes",
        "slopes",
        "Fig. 6 data: expanding-window slopes",
        (
            *fmt.KEY_COLUMNS,
            ("window_start", "From", fmt.fmt_text),
            ("window_end", "To", fmt.fmt_text),
            ("n_months", "Months", fmt.fmt_int),
            ("n_points", "Defined", fmt.fmt_int),
            ("slope_pp_per_month", "Slope (pp/month)", fmt.digits(3)),
        ),
        scroll=True,
        part="decline-slopes",
        empty="No series has enough months with a defined moving average for a slope.",
    ),
    fmt.ReportTable(
        "monthly_accuracy",
        "monthly-accuracy",
        "Monthly accuracy with Wilson 95% intervals",
        MONTHLY_COLUMNS,
        "Months without questions are kept as rows with n = 0 and empty rates; a month "
        "with one question shows no interval.",
        scroll=True,
        render=fmt.interval_bounds(MONTHLY_COLUMNS, [("ci_low", "ci_high", "n")]),
        part="accuracy-over-time",
        empty="No scored questions.",
    ),
    fmt.ReportTable(
        "horizon_accuracy",
        "horizon-accuracy",
        "Accuracy by forecast horizon",
        HORIZON_COLUMNS,
        "Horizon: days from a question's forecast date to its resolution date (questions "
        "without a forecast date are not in this table). Wilson 95% intervals (none for a "
        "bucket with one question).",
        scroll=True,
        render=fmt.interval_bounds(HORIZON_COLUMNS, [("ci_low", "ci_high", "n")]),
        part="horizon",
        empty="No evaluated question has a forecast date (map a source's forecast_date column).",
    ),
    fmt.ReportTable(
        "dataset_horizons",
        "dataset-horizons",
        "Questions per forecast horizon",
        (
            ("source", "Source", fmt.fmt_text),
            ("bucket", "Horizon", fmt.fmt_text),
            ("n", "Questions", fmt.fmt_int),
        ),
        part="sources",
        empty="No evaluated question has a forecast date.",
    ),
    fmt.ReportTable(
        "dataset_source_categories",
        "dataset-source-categories",
        "Question categories per source",
        (
            ("source", "Source", fmt.fmt_text),
            ("category", "Category", fmt.fmt_text),
            ("n", "n", fmt.fmt_int),
            ("share_pct", "%", fmt.fmt_number),
        ),
        scroll=True,
        part="categories",
        empty="The evaluated questions have no categories.",
    ),
    fmt.ReportTable(
        "dataset_mc_types",
        "dataset-mc-types",
        "MC question types",
        (
            ("mc_type", "Type", fmt.fmt_text),
            ("n", "n", fmt.fmt_int),
            ("share_pct", "%", fmt.fmt_number),
        ),
        part="categories",
        empty="The evaluated questions have no MC types (no MC questions, or none typed).",
    ),
    fmt.ReportTable(
        "dataset_categories",
        "dataset-categories",
        "Question categories",
        (
            ("category", "Category", fmt.fmt_text),
            ("n", "n", fmt.fmt_int),
            ("share_pct", "%", fmt.fmt_number),
            ("n_tf", "TF", fmt.fmt_int),
            ("n_mc", "MC", fmt.fmt_int),
        ),
        part="categories",
        empty="The evaluated questions have no categories.",
    ),
    fmt.ReportTable(
        "dataset_questions_by_month",
        "dataset-questions-by-month",
        "Questions per month",
        (
            ("month", "Month", fmt.fmt_text),
            ("n_tf", "TF", fmt.fmt_int),
            ("n_mc", "MC", fmt.fmt_int),
            ("n", "All", fmt.fmt_int),
        ),
        scroll=True,
        part="sources",
        empty="No evaluated questions.",
    ),
    fmt.ReportTable(
        "anderson_schooler_fit",
        "anderson-schooler-fit",
        "Anderson-Schooler linear fits",
        (
            ("source", "Source", fmt.fmt_text),
            ("n_days", "Days", fmt.fmt_int),
            ("vocabulary", "Words", fmt.fmt_int),
            ("n_bins", "Frequencies", fmt.fmt_int),
            ("slope", "Slope", fmt.digits(4)),
            ("intercept", "Intercept", fmt.digits(4)),
            ("r2", "R²", fmt.digits(3)),
            ("status", "Status", fmt.fmt_text),
        ),
        part="anderson-schooler",
        empty="Nothing to count words in: no article titles or questions.",
    ),
)
"""Daily Oracle's analysis tables, in page order."""
