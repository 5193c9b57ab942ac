"""Stage ``retrieve``: the evaluated questions, their BM25 retrieval and every setting's context.

Params: ``base.seed``, ``questions`` (the question source), ``retrieval`` (index and
truncation) and ``eval.settings`` (which RAG cutoffs and contexts to prepare).

Outputs:
- ``--questions-out``: the validated, normalised question table;
- ``--retrieval``: question_id, rag_cutoff, rank, article_id, score, article_date,
  window_end for every RAG cutoff (for audits);
- ``--contexts``: a directory with what each setting shows the model,
  ``<setting>.parquet``, one file per setting so that an evaluation cell depends only on
  its own;
- ``--metrics``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io, params
from prescient.evaluation.prepare import VisibilityError, prepare_contexts
from prescient.evaluation.questions import (
    QuestionSource,
    QuestionTableError,
    load_questions,
    sample_questions,
)
from prescient.evaluation.settings import EvalSettings
from prescient.retrieval.search import RetrievalSettings
from prescient.settings import ParamsError, load_settings

logger = logging.getLogger("stages.retrieve")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument("--questions-out", required=True, help="the evaluated questions (parquet)")
    ap.add_argument("--retrieval", required=True, help="the retrieval table (parquet)")
    ap.add_argument("--contexts", required=True, help="directory of context tables")
    ap.add_argument("--metrics", required=True, help="retrieval metrics (JSON)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    try:
        source = load_settings(QuestionSource, p, "questions")
        grid = load_settings(EvalSettings, p, "eval")
        settings = load_settings(RetrievalSettings, p, "retrieval")
        questions = load_questions(source)
    except (ParamsError, QuestionTableError) as exc:
        logger.error("%s", exc)
        return 2
    questions = sample_questions(questions, source.max_questions, int(p["base"]["seed"]))
    articles = pd.read_parquet(args.articles)
    try:
        prepared = prepare_contexts(questions, articles, settings, grid, progress=True)
    except VisibilityError as exc:  # refuse to write a table that shows the future
        logger.error("%s", exc)
        return 3

    contexts = Path(args.contexts)
    if contexts.is_dir():  # tables of settings no longer in the grid
        for stale in contexts.glob("*.parquet"):
            if stale.stem not in prepared.contexts:
                stale.unlink()
    for name, table in prepared.contexts.items():
        io.write_parquet(contexts / f"{name}.parquet", table)
    io.write_parquet(args.questions_out, questions)
    io.write_parquet(args.retrieval, prepared.retrieval)
    io.write_json(args.metrics, prepared.metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
