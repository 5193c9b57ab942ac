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
- ``--contexts``: a directory with what each setting shows the model,
  ``<setting>.parquet``, one file per setting (tables of settings no longer in the grid
  are removed);
- ``--metrics``: counts per source, gold-article matching (unmatched gold URLs
  included), the visibility rule, retrieval and context summaries.

A retrieved article outside its question's visibility window stops the stage with exit
4 (:mod:`prescient.plumbing.stage`) before anything is written. ``retrieval.engine: ray``
answers the queries in Ray tasks (:mod:`prescient.retrieval.ray_queries`), with the same
tables.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.evaluation.prepare import prepare_contexts
from prescient.evaluation.question_sources import (
    QuestionTableError,
    load_questions_settings,
)
from prescient.evaluation.questions import evaluated_table
from prescient.evaluation.settings import EvalSettings
from prescient.plumbing.stage import DONE, StageRun, entry
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
    ap.add_argument("--contexts", required=True, help="directory of context tables")
    ap.add_argument("--metrics", required=True, help="retrieval metrics (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    questions_settings = load_questions_settings(p)
    grid = load_settings(EvalSettings, p, "eval")
    settings = load_settings(RetrievalSettings, p, "retrieval")
    seed = int(p["base"]["seed"])
    tables = _read_sources(Path(args.questions), list(questions_settings.sources))
    questions = evaluated_table(tables, questions_settings.max_questions, seed, settings.gap_days)
    contexts = Path(args.contexts)

    def write(name: str, table: pd.DataFrame) -> None:
        io.write_parquet(contexts / f"{name}.parquet", table)

    # The corpus is streamed from its file, never held (prescient/evaluation/prepare.py).
    # A VisibilityError (a table that would show the future) exits 4 before any table
    # is written; each context table is written as soon as it is built.
    prepared = prepare_contexts(
        questions, Path(args.articles), settings, grid, progress=True, sink=write
    )
    names = {s.name for s in grid.settings}
    for stale in contexts.glob("*.parquet"):  # tables of settings no longer in the grid
        if stale.stem not in names:
            stale.unlink()
    io.write_parquet(args.questions_out, prepared.questions)
    io.write_parquet(args.retrieval, prepared.retrieval)
    io.write_json(args.metrics, prepared.metrics)
    return DONE


main = entry("retrieve", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
