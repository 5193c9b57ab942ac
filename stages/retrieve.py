"""Stage ``retrieve``: the evaluated questions, their BM25 retrieval and every setting's context.

Params: ``base.seed``, ``questions`` (which sources make up the evaluated table, and the
sample size), ``retrieval`` (index, truncation, the visibility gap) and
``eval.settings`` (which RAG cutoffs and contexts to prepare).

Inputs: ``--questions``, the directory where stage ``questions`` wrote one normalised
table per source (``<name>.parquet``; tables of sources no longer configured are
ignored), and the ingested articles, read from their file: ids, dates and URLs, then the
texts streamed into the index a row group at a time and, afterwards, those of the
articles a context shows (the corpus is never held).

Outputs:
- ``--questions-out``: the evaluated question table, the one question table every later
  stage reads: the union of the sources, sampled, gold articles matched, with each row's
  source, sample rank and retrieval gap;
- ``--retrieval``: question_id, rag_cutoff, rank, article_id, score, article_date,
  window_end for every RAG cutoff (for audits);
- ``--partitions``: the evaluation's partitions (``eval.partitions``,
  :mod:`prescient.evaluation.partitions`), one directory each: ``questions.parquet``,
  its rows of the evaluated question table (without ``source_checksum``, the checksum
  of the whole source file), and ``contexts/<setting>.parquet``, what
  each setting shows the model for them. A partition's files depend on its questions
  alone, so a new day rewrites the other partitions' files with the same bytes and DVC
  skips their ``evaluate`` stages. Written as a whole (a partition or setting no longer
  listed leaves nothing behind);
- ``--metrics``: counts per source, gold-article matching (unmatched gold URLs
  included), the visibility rule, retrieval and context summaries.

A question outside every partition stops the stage before the index is built, naming
the months to add. A retrieved article outside its question's visibility window stops the stage with exit
4 (:mod:`prescient.plumbing.stage`) before anything is written. ``retrieval.engine: ray``
answers the queries in Ray tasks (:mod:`prescient.retrieval.ray_queries`), with the same
tables. ``retrieval.reuse`` keeps finished months of tokens and answered queries in DVC's
cache directory between runs (:mod:`prescient.retrieval.reuse`), and each partition's
context files (:mod:`prescient.evaluation.kept_contexts`), so a daily update tokenizes
the newest month, asks the new questions only and builds the contexts of the partitions
that changed; the tables are the same.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.evaluation.kept_contexts import STORE_NAME as CONTEXTS_STORE
from prescient.evaluation.kept_contexts import (
    KeptContexts,
    PartitionWriter,
    kept_settings,
)
from prescient.evaluation.partitions import QUESTIONS, assign, rows_of
from prescient.evaluation.prepare import prepare_contexts
from prescient.evaluation.question_sources import (
    QuestionTableError,
    load_questions_settings,
)
from prescient.evaluation.questions import evaluated_table
from prescient.evaluation.settings import EvalSettings
from prescient.kept import KeptStore
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, StageRun, entry
from prescient.retrieval.reuse import STORE_NAME
from prescient.retrieval.search import RetrievalSettings
from prescient.settings import load_settings

logger = logging.getLogger("stages.retrieve")


def _read_sources(directory: Path, names: list[str]) -> dict[str, pd.DataFrame]:
    missing = [n for n in names if not (directory / f"{n}.parquet").exists()]
    if missing:
        raise QuestionTableError(
            f"no normalised table for sources {missing} in {directory}: run the stage "
            f"questions@<name> first (dvc repro runs it)"
        )
    stale = sorted(p.stem for p in directory.glob("*.parquet") if p.stem not in names)
    if stale:
        logger.info("ignoring tables of sources no longer configured: %s", stale)
    return {n: pd.read_parquet(directory / f"{n}.parquet") for n in names}


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument("--questions", required=True, help="directory of the sources' tables")
    ap.add_argument("--questions-out", required=True, help="the evaluated questions (parquet)")
    ap.add_argument("--retrieval", required=True, help="the retrieval table (parquet)")
    ap.add_argument(
        "--partitions", required=True, help="directory of the partitions' questions and contexts"
    )
    ap.add_argument("--metrics", required=True, help="retrieval metrics (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    questions_settings = load_questions_settings(p)
    grid = load_settings(EvalSettings, p, "eval")
    settings = load_settings(RetrievalSettings, p, "retrieval")
    seed = int(p["base"]["seed"])
    tables = _read_sources(Path(args.questions), list(questions_settings.sources))
    questions = evaluated_table(tables, questions_settings.max_questions, seed, settings.gap_days)
    of = assign(questions["resolution_date"], grid.partitions)  # one outside stops here
    partition_of = dict(zip(questions["question_id"].astype(str), of, strict=True))
    rows = rows_of(of, grid.partitions)
    logger.info("partitions: %s", {label: len(at) for label, at in rows.items()})
    with io.atomic_dir(args.partitions) as out:
        # The corpus is streamed from its file, never held (prescient/evaluation/prepare.py).
        # A VisibilityError (a table that would show the future) exits 4 before any
        # table is in place; each context table is written as soon as it is built.
        cache = dvc_cache_dir() if settings.reuse else None
        store = KeptStore.in_cache(cache, STORE_NAME)
        contexts = KeptStore.in_cache(cache, CONTEXTS_STORE)
        prepared = prepare_contexts(
            questions,
            Path(args.articles),
            settings,
            grid,
            progress=True,
            store=store,
            partitions=rows,
            writer=PartitionWriter(out, partition_of),
            kept=KeptContexts(contexts, kept_settings(settings, grid), cache / "files" / "md5")
            if contexts is not None and cache is not None
            else None,
        )
        # Without the checksum of the whole source file, which a new day changes for
        # every row: a partition's questions are its rows alone.
        for label, at in rows.items():
            part = prepared.questions.take(at).reset_index(drop=True)
            io.write_parquet(out / label / QUESTIONS, part.drop(columns=["source_checksum"]))
    io.write_parquet(args.questions_out, prepared.questions)
    io.write_parquet(args.retrieval, prepared.retrieval)
    metrics = {**prepared.metrics, "partitions": {k: len(at) for k, at in rows.items()}}
    io.write_json(args.metrics, metrics)
    return DONE


main = entry("retrieve", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
