"""FreshBench's temporal tests (NAACL 2025, section 4) as a part of the analysis: the
bias and degeneration tests and the decline table on the shared analysis's series."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prescient.analysis.metrics import json_number
from prescient.analysis.parts import AnalysisContext, AnalysisPart, BenchmarkAnalysis, CellMetric
from prescient.benchmarks.freshbench.analysis import freshbench
from prescient.benchmarks.freshbench.settings import FreshBenchSettings
from prescient.settings import Settings

TABLES: tuple[str, ...] = (
    "freshbench_bias",
    "freshbench_degeneration",
    "freshbench_decline",
    "freshbench_skipped",
)
"""The CSVs FreshBench's tests add to the analysis tables."""
SECTIONS: dict[str, type[Settings]] = {"freshbench": FreshBenchSettings}
"""The sub-section of ``analysis`` the tests read (conf/analysis/)."""


def analyse(ctx: AnalysisContext, own: Mapping[str, Any]) -> AnalysisPart:
    """FreshBench's tables (:data:`TABLES`), the models it skipped, and each cell's
    decline from the release date for the metrics (``own``: :data:`SECTIONS`, validated)."""
    fresh = freshbench(ctx.inputs.series, ctx.models, own["freshbench"])
    decline = fresh.decline
    release = decline.loc[decline["anchor"] == "release_date"] if not decline.empty else decline
    cells: list[CellMetric] = [
        (
            str(rec["model"]),
            str(rec["cell"]),
            str(rec["qtype"]),
            "freshbench_pct_decline",
            json_number(rec["pct_decline"]),
        )
        for rec in release.to_dict("records")
    ]
    return AnalysisPart(
        tables={
            "freshbench_bias": fresh.bias,
            "freshbench_degeneration": fresh.degeneration,
            "freshbench_decline": fresh.decline,
            "freshbench_skipped": fresh.skipped,
        },
        notes=[
            f"FreshBench tests skipped for {row.model} ({row.anchor}): {row.reason}."
            for row in fresh.skipped.itertuples(index=False)
        ],
        cell_metrics=cells,
    )


ANALYSIS = BenchmarkAnalysis("freshbench", TABLES, SECTIONS, analyse)
"""FreshBench's tests, as the ``analyze`` stage runs them."""
