"""Stage ``of_tables``: OpenForecast's results tables and metrics (COLING 2025, Table 2).

Params: ``base.seed``, ``openforecast.lrae.bootstrap_reps``,
``openforecast.lrae.confidence``, ``openforecast.split.relative_to_cutoff`` and ``models``
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

from prescient import io, params
from prescient.openforecast.tables import (
    closed_accuracy,
    knowledge_cutoffs,
    open_scores,
    openforecast_metrics,
)

logger = logging.getLogger("stages.of_tables")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--scores", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--lrae-scores", required=True)
    ap.add_argument("--closed", required=True)
    ap.add_argument("--open", required=True)
    ap.add_argument("--metrics", required=True)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    lrae = p["openforecast"]["lrae"]
    relative = bool(p["openforecast"]["split"]["relative_to_cutoff"])
    cutoffs = knowledge_cutoffs(p["models"]) if relative else None
    closed = closed_accuracy(pd.read_parquet(args.scores), pd.read_parquet(args.questions), cutoffs)
    open_ = open_scores(
        pd.read_parquet(args.lrae_scores),
        int(lrae["bootstrap_reps"]),
        float(lrae["confidence"]),
        int(p["base"]["seed"]),
    )
    metrics = openforecast_metrics(closed, open_, pd.read_parquet(args.samples))
    with io.atomic_open(args.closed) as fh:
        closed.to_csv(fh, index=False)
    with io.atomic_open(args.open) as fh:
        open_.to_csv(fh, index=False)
    io.write_json(args.metrics, metrics)
    logger.info("%d closed-form cells, %d open-form rows", len(closed), len(open_))
    return 0


if __name__ == "__main__":
    sys.exit(main())
