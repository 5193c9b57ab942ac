"""FreshBench's contract: its stage and conf group (bits per character), its analysis
(the bias and degeneration tests) and its part of the report."""

from __future__ import annotations

from prescient.contract.benchmark import Benchmark

BENCHMARK = Benchmark(
    name="freshbench",
    title="FreshBench",
    conf_groups=("bpc",),
    stages=("bpc",),
    analysis="prescient.benchmarks.freshbench.part:ANALYSIS",
    report="prescient.benchmarks.freshbench.report:PART",
)
