"""The analysis of forecasting scores: accuracy over time and Table 3 (Daily Oracle),
FreshBench's temporal tests, dataset statistics. Pure functions, frames in and out."""
