"""Stage ``ingest``: read the configured news source into the article table.

Params: ``corpus`` (source, path, column mapping), ``ingest`` (filters and bounds) and
``base.through`` (an article known after it, by :mod:`prescient.arrival`, is not kept). A corpus outside
the project is named ``remote://<location>/<path>`` (prescient.plumbing.locations).
Exits 2 with one log line when the parameters cannot work or drop (nearly) everything.
With ``ingest.reuse``, the outcomes of input files read by earlier runs
(:class:`prescient.corpus.kept_files.KeptFiles`) and the language detector's verdicts
(:class:`prescient.corpus.language.KeptLanguages`) are taken from DVC's cache directory,
with the same table, and each part's checksum is recorded there for the stages that
identify the table by its checksum (:class:`prescient.kept.KeptChecksums`).

The table is a directory of month parts (:mod:`prescient.corpus.table`): a month whose
rows did not change keeps its file, so a daily update writes one month's part, and
DVC's ``persist`` keeps the directory for that between runs.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from prescient import io
from prescient.corpus import kept_files
from prescient.corpus.accounting import summarize
from prescient.corpus.ingest import ingest_corpus_to
from prescient.corpus.kept_files import KeptFiles
from prescient.corpus.language import KeptLanguages
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.kept import CHECKSUMS, KeptChecksums, KeptStore
from prescient.plumbing.locations import dvc_cache_dir, resolve
from prescient.plumbing.stage import DONE, StageRun, entry, reworded
from prescient.settings import load_settings
from prescient.through import read_through

logger = logging.getLogger("stages.ingest")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--out", required=True, help="the article table (a directory of month Parquet files)"
    )
    ap.add_argument("--metrics", required=True, help="the accounting (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    with reworded("ingest: {}"):
        corpus = load_settings(CorpusSettings, p, "corpus")
        corpus = corpus.model_copy(update={"path": str(resolve(corpus.path))})
        settings = load_settings(IngestSettings, p, "ingest")
        # base.through bounds the days an article is known from (daily updates).
        settings = settings.model_copy(update={"through": read_through(p)})
        store = (
            KeptStore.in_cache(dvc_cache_dir(), "ingest", kept_files.LEVEL)
            if settings.reuse
            else None
        )
        kept = KeptLanguages(store) if store is not None else None
        files = KeptFiles(store, corpus, settings) if store is not None else None
        sums = KeptStore.in_cache(dvc_cache_dir(), CHECKSUMS) if settings.reuse else None
        # each part's checksum, for the stages that identify the table by its checksum
        record = KeptChecksums(sums).record if sums is not None else None
        articles, report, checksum = ingest_corpus_to(
            corpus, settings, Path(args.out), kept, files, record
        )

    metrics = summarize(articles, report, checksum)
    io.write_json(args.metrics, metrics)
    logger.info(
        "kept %d of %d rows (%d dropped, %d damaged stretches) from corpus %r",
        metrics["rows_kept"],
        metrics["rows_read"],
        metrics["dropped_total"],
        len(metrics["damage"]),
        corpus.name,
    )
    return DONE


main = entry("ingest", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
