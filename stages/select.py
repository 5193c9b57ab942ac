"""Stage ``select``: each day's random and hot-topic articles -> the selected-articles table.

Params: ``base.seed``, ``select``, ``base.through`` and ``corpus.arrival_grace_days``: the
last day selected is the last settled one (:func:`prescient.arrival.settled_through`), on
top of ``select.date_end``; articles that arrived late for their day are not candidates.
With ``select.reuse``, days selected by an earlier run are taken from DVC's cache
directory (:class:`prescient.benchmarks.daily_oracle.select.KeptDays`), with the same
table, and only the other days' texts are read.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterable, Iterator

import pandas as pd

from prescient import io
from prescient.arrival import settled_through
from prescient.benchmarks.daily_oracle.select import (
    SELECT_READS,
    KeptDays,
    SelectSettings,
    select_articles,
)
from prescient.kept import KeptStore
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, StageRun, entry
from prescient.settings import load_settings, section
from prescient.through import capped, read_through

logger = logging.getLogger("stages.select")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument("--out", required=True, help="the selected articles (parquet)")
    ap.add_argument("--metrics", required=True, help="selection metrics (JSON)")


def _numbered(parts: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """Each part with its rows' positions in the file (``row``)."""
    start = 0
    for part in parts:
        yield part.assign(row=range(start, start + len(part)))
        start += len(part)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    settings = load_settings(SelectSettings, p, "select")
    # base.through bounds the selection window to settled days (daily updates).
    grace = int(section(p, "corpus.arrival_grace_days"))
    end = capped(settings.date_end, settled_through(read_through(p), grace))
    settings = settings.model_copy(update={"date_end": end})
    seed = int(p["base"]["seed"])
    # one row group (a month of the ingested table) at a time, without the columns
    # selection never reads; with kept days, the texts only of the days the store lacks
    store = KeptStore.in_cache(dvc_cache_dir(), "select") if settings.reuse else None
    if store is None:
        parts: Iterable[pd.DataFrame] = io.parquet_parts(args.articles, SELECT_READS)
        kept = None
    else:
        reader = io.RowReader(args.articles, ["text"], keep_groups=2)
        kept = KeptDays(store, lambda rows: [t for (t,) in reader.rows(rows)])
        parts = _numbered(io.parquet_parts(args.articles, [c for c in SELECT_READS if c != "text"]))
    selected, metrics = select_articles(parts, settings, seed, grace, kept)
    if kept is not None:
        logger.info("kept work: %d days from the store, %d clustered", kept.reused, kept.computed)
    io.write_parquet(args.out, selected)
    io.write_json(args.metrics, metrics)
    logger.info("selected %d articles over %d days", metrics["articles_selected"], metrics["days"])
    return DONE


main = entry("select", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
