"""Stage ``select``: each day's random and hot-topic articles -> the selected-articles table.

Params: ``base.seed``, ``select`` and ``base.through`` (the last day selected, on top of
``select.date_end``).
"""

from __future__ import annotations

import argparse
import logging
import sys

import pandas as pd

from prescient import io
from prescient.benchmarks.daily_oracle.select import SelectSettings, select_articles
from prescient.plumbing.stage import DONE, StageRun, entry
from prescient.settings import load_settings
from prescient.through import capped, read_through

logger = logging.getLogger("stages.select")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument("--out", required=True, help="the selected articles (parquet)")
    ap.add_argument("--metrics", required=True, help="selection metrics (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    settings = load_settings(SelectSettings, p, "select")
    # base.through bounds the selection window (daily updates).
    end = capped(settings.date_end, read_through(p))
    settings = settings.model_copy(update={"date_end": end})
    seed = int(p["base"]["seed"])
    articles = pd.read_parquet(args.articles)
    selected, metrics = select_articles(articles, settings, seed)
    io.write_parquet(args.out, selected)
    io.write_json(args.metrics, metrics)
    logger.info("selected %d articles over %d days", metrics["articles_selected"], metrics["days"])
    return DONE


main = entry("select", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
