"""The tables of the ``analyze`` stage as the report shows them: Daily Oracle's, the
proper scores beyond the papers and FreshBench's tests on the same scores, gathered from
the benchmarks' folders."""

from __future__ import annotations

from prescient.benchmarks.daily_oracle.analysis.proper_report import PROPER_REPORT_TABLES
from prescient.benchmarks.daily_oracle.analysis.reading_report import READING_REPORT_TABLES
from prescient.benchmarks.daily_oracle.analysis.report_tables import DAILY_ORACLE_TABLES
from prescient.benchmarks.freshbench.report_tables import FRESHBENCH_TABLES
from prescient.report.tables import ReportTable

ANALYSIS_TABLES: tuple[ReportTable, ...] = (
    *DAILY_ORACLE_TABLES,
    *PROPER_REPORT_TABLES,
    *READING_REPORT_TABLES,
    *FRESHBENCH_TABLES,
)
"""Every analysis table of the report (each part shows its own in this order)."""

MARKDOWN_TABLES: tuple[ReportTable, ...] = tuple(s for s in ANALYSIS_TABLES if s.markdown)
"""The tables the analyze stage also writes as Markdown."""
