"""Stage ``ingest``: read the configured news source into data/interim/articles.parquet.

Params: ``corpus`` (source, path, column mapping) and ``ingest`` (filters). A corpus
outside the project is named ``remote://<location>/<path>`` (prescient.locations).
"""

from __future__ import annotations

import argparse
import logging
import sys

from prescient import io, params
from prescient.corpus.ingest import IngestSettings, ingest_rows, log_examples, summarize
from prescient.corpus.readers import CorpusConfigError, read_rows
from prescient.locations import resolve

logger = logging.getLogger("stages.ingest")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--out", default="data/interim/articles.parquet")
    ap.add_argument("--metrics", default="reports/metrics/ingest.json")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    corpus, ingest = p["corpus"], p["ingest"]
    try:
        settings = IngestSettings.from_params(ingest, corpus)
        rows = read_rows(
            resolve(corpus["path"]), corpus["format"], corpus.get("columns"), corpus.get("glob")
        )
        articles, report = ingest_rows(rows, settings)
    except (CorpusConfigError, ValueError) as exc:
        logger.error("corpus %r: %s", corpus.get("name"), exc)
        return 2

    log_examples(report)
    metrics = summarize(articles, report, io.frame_checksum(articles))
    io.write_parquet(args.out, articles)
    io.write_json(args.metrics, metrics)
    logger.info(
        "kept %d of %d rows (%d dropped) from corpus %r",
        metrics["rows_kept"],
        metrics["rows_read"],
        metrics["dropped_total"],
        corpus.get("name"),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
