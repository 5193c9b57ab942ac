"""Stage ``select``: each day's random and hot-topic articles -> data/interim/selected.parquet.

Params: ``base.seed`` and ``select``.
"""

from __future__ import annotations

import argparse
import logging
import sys

import pandas as pd

from prescient import io, params
from prescient.qa.select import SelectSettings, select_articles

logger = logging.getLogger("stages.select")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--articles", default="data/interim/articles.parquet")
    ap.add_argument("--out", default="data/interim/selected.parquet")
    ap.add_argument("--metrics", default="reports/metrics/select.json")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    articles = pd.read_parquet(args.articles)
    selected, metrics = select_articles(
        articles, SelectSettings.from_params(p["select"]), int(p["base"]["seed"])
    )
    io.write_parquet(args.out, selected)
    io.write_json(args.metrics, metrics)
    logger.info("selected %d articles over %d days", metrics["articles_selected"], metrics["days"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
