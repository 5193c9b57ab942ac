"""Stage ``select``: each day's random and hot-topic articles -> the selected-articles table.

Params: ``base.seed``, ``select`` and ``base.through`` (the last day selected, on top of
``select.date_end``).
"""

from __future__ import annotations

import argparse
import logging
import sys

import pandas as pd

from prescient import io, params
from prescient.qa.select import SelectSettings, select_articles
from prescient.settings import ParamsError, load_settings
from prescient.through import capped, read_through

logger = logging.getLogger("stages.select")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument("--out", required=True, help="the selected articles (parquet)")
    ap.add_argument("--metrics", required=True, help="selection metrics (JSON)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    try:
        settings = load_settings(SelectSettings, p, "select")
        # base.through bounds the selection window (daily updates).
        end = capped(settings.date_end, read_through(p))
        settings = settings.model_copy(update={"date_end": end})
        seed = int(p["base"]["seed"])
    except ParamsError as exc:
        logger.error("%s", exc)
        return 2
    articles = pd.read_parquet(args.articles)
    selected, metrics = select_articles(articles, settings, seed)
    io.write_parquet(args.out, selected)
    io.write_json(args.metrics, metrics)
    logger.info("selected %d articles over %d days", metrics["articles_selected"], metrics["days"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
