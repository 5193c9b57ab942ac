"""Stage ``score``: parse and score every evaluation cell, without calling any model.

Params: ``eval.models``, ``eval.settings``, ``eval.elicitation`` and ``eval.partitions``
(which cells belong to the grid: it reads ``<predictions>/<model>/<partition>/<setting>.parquet``
for each, a model's partitions in their listed order; files of models, partitions or
settings no longer in it are ignored), ``eval.reuse_scores`` (each model's partition's scored
columns kept for the next run: :mod:`prescient.evaluation.kept_scores`; the same table
either way) and ``llm.max_failed_share`` (recorded beside each cell's share of failed
model calls).

Outputs: the scores table (``--out``; all cells: the prediction columns plus
parsed_answer, correct, refused, parse_failed, parse_rule, and the forecast: probs,
prob_source, prob_adjusted, brier, log_score; with rows of the model ``crowd`` where the
questions carry a crowd probability) and the metrics (accuracy, refusal and
parse-failure rates per model x setting x RAG cutoff, overall and per question type, of
the label answers; ``elicitations``: the same with mean Brier and log scores per
elicitation; ``model_calls``: requests, failed calls and their share per cell, and
the tolerance they were accepted under; ``context_fit``: per cell, the prompts whose
articles were cut to fit the model's context window, ``fitted_to_context``, and those
not sent because they did not fit at all, ``context_exceeded``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from prescient import io
from prescient.evaluation.kept_scores import STORE, KeptScores
from prescient.evaluation.scoring import (
    call_failures,
    context_fits,
    score_metrics,
    score_predictions,
    scored_columns,
    with_crowd,
)
from prescient.evaluation.settings import (
    EvalSettings,
    elicitation_of,
    setting_file,
)
from prescient.kept import KeptStore
from prescient.llm.settings import max_failed_share
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import BAD_INPUT, DONE, StageRun, entry
from prescient.settings import load_settings

logger = logging.getLogger("stages.score")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--questions", required=True, help="the evaluated questions (parquet)")
    ap.add_argument("--predictions", required=True, help="directory of every model's predictions")
    ap.add_argument("--out", required=True, help="every cell's scored predictions (parquet)")
    ap.add_argument("--metrics", required=True, help="accuracy and rates per cell (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    grid = load_settings(EvalSettings, p, "eval")
    tolerance = max_failed_share(p)
    # A model's rows: partition after partition (eval.partitions), each setting's.
    paths = {
        m: [
            Path(args.predictions) / m / part / setting_file(s)
            for part in grid.partitions
            for s in grid.settings
        ]
        for m in grid.models
    }
    missing = {m: [str(x) for x in xs if not x.exists()] for m, xs in paths.items()}
    missing = {m: xs for m, xs in missing.items() if xs}
    if missing:
        logger.error(
            "predictions missing for eval.models x eval.settings: %s; run the models' "
            "evaluate stages (%s)",
            [x for xs in missing.values() for x in xs],
            ", ".join(
                sorted(
                    {
                        f"dvc repro evaluate@{m}-{Path(x).parent.name}"
                        for m, xs in missing.items()
                        for x in xs
                    }
                )
            ),
        )
        return BAD_INPUT
    predictions, sizes = io.read_parquet_files([x for xs in paths.values() for x in xs])
    # each model's partition is one part of the kept work (a day re-reads its month)
    per_part = len(grid.settings)
    part_of = np.repeat(np.arange(len(sizes)) // per_part, sizes)
    how = elicitation_of(predictions)
    lacking = sorted(
        f"{m} {e}"
        for m in grid.models
        for e in grid.elicitation
        if not (predictions["model"].eq(m) & how.eq(e)).any()
    )
    if lacking and len(predictions):
        logger.error(
            "no predictions of eval.elicitation for %s: run the models' evaluate stages (%s)",
            lacking,
            ", ".join(
                sorted(
                    f"dvc repro evaluate@{x.split()[0]}-{part}"
                    for x in {y.split()[0] for y in lacking}
                    for part in grid.partitions
                )
            ),
        )
        return BAD_INPUT
    asked = how.isin(grid.elicitation).to_numpy(bool)
    predictions = predictions.loc[asked].reset_index(drop=True)
    parts = np.bincount(part_of[asked], minlength=int(part_of.max(initial=-1)) + 1)
    questions = pd.read_parquet(args.questions)
    store = KeptStore.in_cache(dvc_cache_dir(), STORE) if grid.reuse_scores else None
    kept = KeptScores(store) if store is not None else None
    scored = score_predictions(
        predictions,
        questions,
        parts=parts.tolist(),
        columns=kept if kept is not None else scored_columns,
    )
    if kept is not None:
        logger.info(
            "kept work: %d parts' scores from the store, %d parsed", kept.reused, kept.computed
        )
    scores = with_crowd(scored, questions)
    metrics = {
        **score_metrics(scores),
        "model_calls": call_failures(predictions, tolerance),
        "context_fit": context_fits(predictions),
    }
    io.write_parquet(args.out, scores)
    io.write_json(args.metrics, metrics)
    for model, cells in metrics["cells"].items():
        for cell, m in cells.items():
            a = m["all"]
            logger.info(
                "%-22s %-16s n=%d acc=%s refused=%s parse_failed=%s errors=%d",
                model,
                cell,
                a["n"],
                a["accuracy"],
                a["refusal_rate"],
                a["parse_failure_rate"],
                a["n_errors"],
            )
    return DONE


main = entry("score", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
