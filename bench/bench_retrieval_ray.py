"""Benchmark: the retrieve stage's queries on the ``local`` engine and on Ray with 1 and 2
(or more) workers, on one article table, with identical tables required.

The index is built once from the table on disk (texts streamed, as the stage does), then
the same queries are answered by each engine: the titles of a seeded sample of articles
as questions, resolved on their own date, under the dynamic cutoff and two fixed ones
(the first and second third of the span), their own article excluded. Each Ray run
starts its own local Ray with ``num_cpus`` workers (its start-up time is included) and
its table must equal the local one byte for byte (the frame checksum).

    .venv/bin/python bench/bench_retrieval_ray.py --articles ARTICLES.parquet
        [--questions 3000] [--cpus 1 2] [--queries-per-task 2000]

An article table of the paper's shape at any scale: ``bench/bench_scale.py
--write-articles-table`` on a corpus of ``bench/scale_corpus.py``. Results go to
bench/results/retrieval_ray.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient import io  # noqa: E402
from prescient.plumbing import params  # noqa: E402
from prescient.retrieval.search import ArticleIndex, RetrievalSettings, read_meta  # noqa: E402
from prescient.settings import load_settings  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "retrieval_ray.json"


def questions_of(path: Path, n: int, seed: int) -> pd.DataFrame:
    meta = read_meta(path)
    rows = np.sort(
        np.random.default_rng(seed).choice(len(meta), size=min(n, len(meta)), replace=False)
    )
    picked = meta.iloc[rows]
    titles = io.read_parquet_where(path, "article_id", picked["article_id"].astype(str))
    title = dict(zip(titles["article_id"].astype(str), titles["title"], strict=True))
    return pd.DataFrame(
        {
            "question_id": [f"q{i:06d}" for i in range(len(picked))],
            "question": [str(title[a]) for a in picked["article_id"].astype(str)],
            "resolution_date": pd.to_datetime(picked["date"]).dt.date.to_numpy(),
            "article_id": picked["article_id"].astype(str).to_numpy(),
        }
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", required=True, type=Path)
    ap.add_argument("--questions", type=int, default=3000)
    ap.add_argument("--cpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--queries-per-task", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    base = load_settings(
        RetrievalSettings, params.compose(ROOT, ["retrieval.exclude_gold=true"]), "retrieval"
    )
    t0 = time.perf_counter()
    index = ArticleIndex.from_parquet(args.articles, base)
    build = time.perf_counter() - t0
    questions = questions_of(args.articles, args.questions, args.seed)
    days = index.article_dates
    span = (days.max() - days.min()).astype(int)
    first = pd.Timestamp(days.min()).date()
    cutoffs = [None, *(first + dt.timedelta(days=int(span * f)) for f in (1 / 3, 2 / 3))]
    result: dict[str, Any] = {
        "articles": len(index),
        "postings": int(len(index.bm25.post_docs)),
        "queries": len(questions) * len(cutoffs),
        "index_s": round(build, 1),
        "runs": {},
    }
    print(json.dumps({k: v for k, v in result.items() if k != "runs"}), flush=True)
    reference = None
    for engine, cpus in [("local", None), *(("ray", c) for c in args.cpus)]:
        settings = base.model_copy(
            update={
                "engine": engine,
                "ray": base.ray.model_copy(
                    update={"num_cpus": cpus, "queries_per_task": args.queries_per_task}
                ),
            }
        )
        index.settings = settings
        t0 = time.perf_counter()
        table = index.retrieve_table(questions, cutoffs)
        wall = time.perf_counter() - t0
        checksum = io.frame_checksum(table)
        reference = reference or checksum
        name = engine if cpus is None else f"ray_{cpus}"
        result["runs"][name] = {
            "wall_s": round(wall, 1),
            "queries_per_s": round(result["queries"] / wall, 1),
            "rows": len(table),
            "identical_to_local": checksum == reference,
        }
        print(name, json.dumps(result["runs"][name]), flush=True)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(r["identical_to_local"] for r in result["runs"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
