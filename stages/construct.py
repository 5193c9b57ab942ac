"""Stage ``construct``: selected articles -> forecasting questions, through the LLM gateway.

Params: ``base.seed``, ``base.through`` (the last day built, on top of
``construct.date_end``), ``construct``, ``llm.max_failed_share`` and the ``models.<name>``
entries the construction steps use (the other ``llm`` keys only change how requests
travel). Prompt templates are read from ``--prompts`` (a DVC dependency).
Writes data/processed/questions.parquet (accepted questions),
data/interim/qa_candidates.parquet (every article and question with its status) and
reports/metrics/construct.json; every model reply goes to the ledger (``--ledger``), so a
rerun only pays for requests it has not seen. With nothing to do (no selected article in
the date window) it writes empty tables and an empty ledger and succeeds. Failed calls beyond
``llm.max_failed_share`` write no output and exit with status 3.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import pandas as pd

from prescient import duplicates, io
from prescient.benchmarks.daily_oracle.construct import build_questions
from prescient.benchmarks.daily_oracle.construct_settings import ConstructSettings
from prescient.kept import KeptStore
from prescient.llm.gateway import stage_failed, stage_gateway
from prescient.llm.tokens import step_windows
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, FAILED_CALLS, StageRun, entry
from prescient.settings import load_settings
from prescient.step_templates import load_step_templates
from prescient.through import capped, read_through

logger = logging.getLogger("stages.construct")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--selected", required=True, help="the selected articles (parquet)")
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument("--prompts", required=True, help="the construction prompt templates")
    ap.add_argument("--questions", required=True, help="the accepted questions (parquet)")
    ap.add_argument("--candidates", required=True, help="every article and question (parquet)")
    ap.add_argument("--ledger", required=True, help="the gateway ledger (JSON Lines)")
    ap.add_argument("--metrics", required=True, help="construction metrics (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    start = time.perf_counter()
    settings = load_settings(ConstructSettings, p, "construct")
    # base.through bounds the construction window (daily updates).
    end = capped(settings.date_end, read_through(p))
    settings = settings.model_copy(update={"date_end": end})
    templates = load_step_templates(args.prompts, settings.templates)
    gateway = stage_gateway(
        p, "construct", args.ledger, list(settings.models.values()), dvc_cache_dir()
    )
    windows = step_windows(gateway.spec, settings.models, settings.generation)
    selected = pd.read_parquet(args.selected)
    # Only the selected articles are read, never the whole corpus.
    articles = io.read_parquet_where(
        args.articles,
        "article_id",
        selected["article_id"].astype(str),
        ["article_id", "title", "text"],
    )
    with gateway:
        result = build_questions(
            selected,
            articles,
            templates,
            settings,
            int(p["base"]["seed"]),
            gateway.complete_many,
            windows,
            KeptStore.in_cache(dvc_cache_dir(), duplicates.STORE),
        )
    # Nothing to ask (a date window that selects no article) gives an empty ledger and
    # empty tables, not a failed stage. Failed calls beyond llm.max_failed_share: the
    # ledger keeps every answer, no output is written, and the non-zero exit makes the
    # next `dvc repro` run the stage again.
    if stage_failed(gateway, logger, [args.candidates, args.questions, args.metrics]):
        return FAILED_CALLS
    io.write_parquet(args.candidates, result.candidates)
    io.write_parquet(args.questions, result.questions)
    io.write_json(
        args.metrics, {**result.metrics, "model_calls": gateway.failure_report().metrics()}
    )
    q = result.metrics["questions"]
    logger.info(
        "%d articles -> %d candidate questions -> %d accepted (threshold %d) in %.0fs",
        result.metrics["articles"]["total"],
        q["candidates"],
        q["accepted"],
        settings.accept_threshold,
        time.perf_counter() - start,
    )
    return DONE


main = entry("construct", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
