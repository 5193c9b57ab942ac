"""Reading the analysis tables back: the CSV contract between the stages.

The ``analyze`` stage writes CSV; ``plot`` and ``report`` read the same CSV through
:func:`read_tables`, so the tables directory is the one contract between the stages. A
CSV reader guesses types, and a column of months (``2024-01``), cutoffs or ids that
happen to look numeric or empty would come back as numbers or NaN: the columns named in
:data:`TEXT_COLUMNS` are always read as text, empty cells as ``""``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

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
    # proper scores (prescient/analysis/proper*.py)
    "elicitation",
    "calibration",
    "strategy",
    "model_a",
    "model_b",
    "accuracy_better",
    "brier_better",
    # construction funnel, leakage audit and examples
    # (prescient/analysis/reading.py)
    "stage",
    "what",
    "step",
    "example",
    "flag",
    "question_id",
    "question",
    "options",
    "answer",
    "row",
    "shown",
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
