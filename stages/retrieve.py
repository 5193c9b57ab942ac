"""Stage ``retrieve``: the evaluated questions, their BM25 retrieval and every setting's context.

Params: ``base.seed``, ``questions`` (the question source), ``retrieval`` (index and
truncation) and ``eval.settings`` (which RAG cutoffs and contexts to prepare).

Outputs:
- ``data/interim/eval_questions.parquet``: the validated, normalised question table;
- ``data/interim/retrieval.parquet``: question_id, rag_cutoff, rank, article_id, score,
  article_date, window_end for every RAG cutoff (for audits);
- ``data/interim/contexts/<setting>.parquet``: what each setting shows the model, one
  file per setting so that an evaluation cell depends only on its own;
- ``reports/metrics/retrieve.json``.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from prescient import io, params
from prescient.evaluation.contexts import build_contexts
from prescient.evaluation.questions import (
    QuestionSource,
    QuestionTableError,
    load_questions,
    sample_questions,
)
from prescient.evaluation.settings import EvalSettings
from prescient.retrieval.search import ArticleIndex, RetrievalSettings

logger = logging.getLogger("stages.retrieve")


def leakage_violations(table: pd.DataFrame, questions: pd.DataFrame) -> int:
    """Retrieved rows dated on/after their question's resolution date or window end."""
    if table.empty:
        return 0
    res = questions.set_index("question_id")["resolution_date"]
    resolution = table["question_id"].map(res)
    late = (table["article_date"] >= resolution) | (table["article_date"] >= table["window_end"])
    return int(late.fillna(True).sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--articles", default="data/interim/articles.parquet")
    ap.add_argument("--questions-out", default="data/interim/eval_questions.parquet")
    ap.add_argument("--retrieval", default="data/interim/retrieval.parquet")
    ap.add_argument("--contexts", default="data/interim/contexts")
    ap.add_argument("--metrics", default="reports/metrics/retrieve.json")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    ret = p["retrieval"]
    try:
        source = QuestionSource.from_params(p["questions"])
        questions = load_questions(source)
        questions = sample_questions(questions, source.max_questions, int(p["base"]["seed"]))
        grid = EvalSettings.from_params(p["eval"])
        settings = RetrievalSettings.from_params(ret)
    except (QuestionTableError, ValueError) as exc:
        logger.error("%s", exc)
        return 2

    articles = pd.read_parquet(args.articles)
    start = time.perf_counter()
    index = ArticleIndex(articles, settings, progress=True)
    built = time.perf_counter()
    table = index.retrieve_table(questions, grid.rag_cutoffs, progress=True)
    logger.info(
        "indexed %d articles in %.1fs; %d queries in %.1fs",
        len(index),
        built - start,
        len(questions) * len(grid.rag_cutoffs),
        time.perf_counter() - built,
    )
    violations = leakage_violations(table, questions)
    if violations:  # cannot happen by construction; refuse to write a leaking table
        logger.error("%d retrieved articles are not before their window end", violations)
        return 3

    contexts_dir = Path(args.contexts)
    if contexts_dir.exists():
        shutil.rmtree(contexts_dir)
    per_setting: dict[str, Any] = {}
    for setting in grid.settings:
        ctx = build_contexts(
            setting,
            questions,
            articles,
            table,
            max_words=ret.get("max_words"),
            gold_max_words=ret.get("gold_max_words"),
        )
        io.write_parquet(contexts_dir / f"{setting.name}.parquet", ctx)
        shown = ctx.groupby("question_id").size()
        per_setting[setting.name] = {
            "questions_with_context": int(len(shown)),
            "questions_without_context": int(len(questions) - len(shown)),
            "mean_articles": round(
                float(shown.reindex(questions["question_id"]).fillna(0).mean()), 4
            )
            if len(questions)
            else 0.0,
        }
    io.write_parquet(args.questions_out, questions)
    io.write_parquet(args.retrieval, table)
    metrics = {
        "questions": {
            "n": len(questions),
            "tf": int((questions["qtype"] == "tf").sum()),
            "mc": int((questions["qtype"] == "mc").sum()),
        },
        "index": {
            "articles": len(index),
            "terms": index.bm25.n_terms,
            "postings": int(len(index.bm25.post_docs)),
        },
        "retrieval_rows": len(table),
        "leakage_violations": violations,
        "settings": per_setting,
    }
    io.write_json(args.metrics, metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
