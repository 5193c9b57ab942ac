"""How the report shows the shared analysis's accuracy tables: accuracy by month (Daily
Oracle's Fig. 3-5 as data), by RAG cutoff and by horizon, and the dataset's tables.

Each table is a :class:`~prescient.report.tables.ReportTable` in :data:`ACCURACY_TABLES`,
in page order within each part; the HTML report and the Markdown copies render the same
specification.
"""

from __future__ import annotations

from prescient.analysis.proper_report import PROPER_REPORT_TABLES
from prescient.analysis.reading_report import READING_REPORT_TABLES, coverage_note
from prescient.report import tables as fmt

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


ACCURACY_TABLES: tuple[fmt.ReportTable, ...] = (
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
        "monthly_accuracy",
        "monthly-accuracy",
        "Monthly accuracy with Wilson 95% intervals",
        MONTHLY_COLUMNS,
        "Months without questions are kept as rows with n = 0 and empty rates; a month "
        "with fewer than ten questions shows no interval (too few).",
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


SHARED_REPORT_TABLES: tuple[fmt.ReportTable, ...] = (
    *ACCURACY_TABLES,
    *PROPER_REPORT_TABLES,
    *READING_REPORT_TABLES,
)
"""Every table of the shared analysis as the report shows it (each part shows its own in
this order; each benchmark's part adds its own)."""
