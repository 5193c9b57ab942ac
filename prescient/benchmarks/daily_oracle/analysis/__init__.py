"""The analysis of forecasting scores: accuracy over time and Table 3 (Daily Oracle),
dataset statistics, and the analyze stage's tables (FreshBench's tests on the same scores
come from :mod:`prescient.benchmarks.freshbench.analysis`). Pure functions, frames in and
out."""
