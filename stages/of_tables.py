"""Stage ``of_tables``: OpenForecast's results tables and metrics (COLING 2025, Table 2).

Params: ``base.seed``, ``openforecast.lrae.bootstrap`` (``reps``, ``confidence``),
``openforecast.split.relative_to_cutoff`` and ``models``
(knowledge cutoffs). Reads the evaluation's scores (the closed forms are
the rows whose question_id is an OpenForecast question), the closed-form questions, the
samples and LRAE's per-sample scores. Writes reports/openforecast/closed_accuracy.csv,
reports/openforecast/open_scores.csv and reports/metrics/openforecast.json.
"""

from __future__ import annotations

import argparse
import logging
import sys

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.settings import LraeSettings, SplitSettings
from prescient.benchmarks.openforecast.tables import (
    closed_accuracy,
    knowledge_cutoffs,
    open_scores,
    openforecast_metrics,
)
from prescient.llm.registry import ModelRegistry
from prescient.plumbing.stage import DONE, StageRun, entry
from prescient.settings import load_settings

logger = logging.getLogger("stages.of_tables")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--scores", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--lrae-scores", required=True)
    ap.add_argument("--closed", required=True)
    ap.add_argument("--open", required=True)
    ap.add_argument("--metrics", required=True)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    lrae = load_settings(LraeSettings, p, "openforecast.lrae")
    split = load_settings(SplitSettings, p, "openforecast.split")
    scores = pd.read_parquet(args.scores)
    cutoffs = None
    if split.relative_to_cutoff:
        registry = ModelRegistry(p["models"])
        cutoffs = knowledge_cutoffs(registry, scores["model"].astype(str).unique())
    closed = closed_accuracy(scores, pd.read_parquet(args.questions), cutoffs)
    open_ = open_scores(
        pd.read_parquet(args.lrae_scores),
        lrae.bootstrap.reps,
        lrae.bootstrap.confidence,
        int(p["base"]["seed"]),
    )
    samples = pd.read_parquet(args.samples)
    metrics = openforecast_metrics(closed, open_, samples)
    with io.atomic_open(args.closed) as fh:
        closed.to_csv(fh, index=False)
    with io.atomic_open(args.open) as fh:
        open_.to_csv(fh, index=False)
    io.write_json(args.metrics, metrics)
    logger.info("%d closed-form cells, %d open-form rows", len(closed), len(open_))
    return DONE


main = entry("of_tables", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
