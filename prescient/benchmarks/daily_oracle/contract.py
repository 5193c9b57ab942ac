"""Daily Oracle's contract: its stages and conf groups, its analysis (Table 3, the
headline, the slopes, the construction funnel) and its part of the report."""

from __future__ import annotations

from prescient.contract.benchmark import Benchmark

BENCHMARK = Benchmark(
    name="daily_oracle",
    title="Daily Oracle",
    conf_groups=("select", "construct"),
    stages=("select", "construct"),
    analysis="prescient.benchmarks.daily_oracle.analysis.part:ANALYSIS",
    report="prescient.benchmarks.daily_oracle.report:PART",
)
