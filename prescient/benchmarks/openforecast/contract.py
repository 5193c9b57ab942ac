"""OpenForecast's contract: its stages and conf groups (event chains, samples,
predictions, LRAE) and its part of the report (its stages' tables)."""

from __future__ import annotations

from prescient.contract.benchmark import Benchmark

BENCHMARK = Benchmark(
    name="openforecast",
    title="OpenForecast",
    conf_groups=("chains", "openforecast"),
    stages=("chains", "of_samples", "of_predict", "lrae", "of_tables"),
    report="prescient.benchmarks.openforecast.report:PART",
)
