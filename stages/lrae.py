"""Stage ``lrae``: the open-form forecasts judged by LRAE (OpenForecast, COLING 2025,
section 5 and appendix B.3).

Params: ``base.seed``, ``openforecast.lrae``, ``openforecast.predict.models`` and
``openforecast.predict.tasks`` (which prediction files belong to the grid), ``llm`` and
the judge's registry entry. Reads the samples, the predictions of every model x task, the
ingested articles (the evidence) and the judge's prompt templates. Writes
data/processed/lrae_judgements.parquet (one row per atomic prediction),
data/processed/lrae_scores.parquet (one row per sample and model),
reports/metrics/lrae.json and the judge's ledger.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.lrae.evidence import EvidenceIndex
from prescient.benchmarks.openforecast.lrae.run import evaluate, summarize
from prescient.benchmarks.openforecast.prompts import load_role_templates
from prescient.benchmarks.openforecast.settings import LraeSettings, PredictSettings
from prescient.dates import as_date
from prescient.llm.gateway import stage_failed, stage_gateway
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, FAILED_CALLS, StageRun, entry
from prescient.retrieval.tokenize import Tokenizer, TokenizerSettings
from prescient.settings import load_settings

logger = logging.getLogger("stages.lrae")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--samples", required=True)
    ap.add_argument("--predictions", required=True, help="directory of <model>-<task>.parquet")
    ap.add_argument("--articles", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--judgements", required=True)
    ap.add_argument("--scores", required=True)
    ap.add_argument("--ledger", required=True)
    ap.add_argument("--metrics", required=True)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    start = time.perf_counter()
    s = load_settings(LraeSettings, p, "openforecast.lrae")
    grid = load_settings(PredictSettings, p, "openforecast.predict")
    tokenizer = Tokenizer.from_settings(load_settings(TokenizerSettings, p, "retrieval.tokenizer"))
    templates = load_role_templates(args.prompts, s.templates)
    paths = [Path(args.predictions) / f"{m}-{t}.parquet" for m in grid.models for t in grid.tasks]
    missing = [str(x) for x in paths if not x.exists()]
    if missing:
        raise FileNotFoundError(f"predictions missing (run stage of_predict): {missing}")
    gateway = stage_gateway(p, "lrae", args.ledger, [s.judge_model], dvc_cache_dir())
    samples = pd.read_parquet(args.samples)
    predictions = pd.concat([pd.read_parquet(x) for x in paths], ignore_index=True)
    judged = samples[samples["sample_id"].isin(predictions["sample_id"])]
    index = None
    if not judged.empty:
        articles = io.read_table(args.articles, columns=["article_id", "date", "title", "text"])
        first = min(as_date(d) for d in judged["split_date"])
        index = EvidenceIndex(articles, s.evidence, tokenizer, start=first, progress=True)
    with gateway:
        result = evaluate(samples, predictions, templates, s, gateway.complete_many, index)
    seed = int(p["base"]["seed"])
    metrics = {"cells": summarize(result.scores, result.judgements, s, seed), "calls": result.calls}
    if stage_failed(gateway, logger, [args.judgements, args.scores, args.metrics]):
        return FAILED_CALLS
    io.write_parquet(args.judgements, result.judgements)
    io.write_parquet(args.scores, result.scores)
    io.write_json(args.metrics, metrics)
    for model, tasks in metrics["cells"].items():
        for task, cell in tasks.items():
            logger.info(
                "%s %s: %d samples, F1 %.3f (labels only %.3f)",
                model,
                task,
                cell["samples"],
                cell["f1"]["value"],
                cell["f1_gold"]["value"],
            )
    logger.info(
        "%d atomic predictions judged in %.1fs", len(result.judgements), time.perf_counter() - start
    )
    return DONE


main = entry("lrae", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
