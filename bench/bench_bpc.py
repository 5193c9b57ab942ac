"""Benchmark: the ``bpc`` stage's embedded scorer (SmolLM2-135M through llama.cpp).

1. Development corpus: the shipped sampling rule with ``--docs-per-bucket`` documents in
   each of the 42 two-month buckets of 2019-2025, each read up to ``--token-limit``
   tokens (default 512, the sanity figure: about 1.0-1.1 BPC on news). Reports tokens per
   second (wall and CPU), the time for the whole sample, the mean BPC, and what the
   paper's budget (50 per bucket) and every article would cost at that rate.
2. Demo: the stage's library on the demo corpus with the shipped config and a fresh
   ledger (what ``dvc repro`` pays), then again from the ledger.

CPU seconds are reported beside wall seconds because the machine may be shared: on a
loaded machine wall time grows while CPU time stays close to what a quiet one needs.

    .venv/bin/python bench/bench_bpc.py [--docs-per-bucket 1] [--token-limit 512]
        [--corpus ../shared/data/news/rtqa_news_2019_2025.jsonl.gz]

Exits 0 with a note when the development corpus is absent (the demo part still runs).
Results also go to bench/results/bpc.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient import params  # noqa: E402
from prescient.bpc.documents import sample_documents  # noqa: E402
from prescient.bpc.local import LlamaScorer  # noqa: E402
from prescient.bpc.pipeline import run_bpc  # noqa: E402
from prescient.bpc.scorers import Retry  # noqa: E402
from prescient.bpc.settings import BpcSettings  # noqa: E402
from prescient.corpus.ingest import IngestSettings, ingest_rows  # noqa: E402
from prescient.corpus.readers import read_rows  # noqa: E402
from prescient.llm.registry import load_registry  # noqa: E402
from prescient.settings import load_settings  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "news" / "rtqa_news_2019_2025.jsonl.gz"
DEMO = ROOT / "data" / "raw" / "demo" / "news.jsonl.gz"
RESULTS = ROOT / "bench" / "results" / "bpc.json"
ARTICLES_IN_CORPUS_BUCKET = 50  # FreshBench's texts per period


def _articles(path: Path, p: dict[str, Any]) -> pd.DataFrame:
    columns = p["corpus"]["columns"]
    settings = IngestSettings.from_params({**p["ingest"], "max_date": "2025-12-31"}, p["corpus"])
    articles, _ = ingest_rows(read_rows(path, "jsonl", columns), settings)
    return articles


def _timed(fn: Any) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def corpus_run(path: Path, docs_per_bucket: int, token_limit: int) -> dict[str, Any]:
    p = params.compose(
        ROOT, [f"bpc.docs_per_bucket={docs_per_bucket}", f"bpc.token_limit={token_limit}"]
    )
    settings = load_settings(BpcSettings, p, "bpc")
    articles = _articles(path, p)
    sample = sample_documents(articles, settings, int(p["base"]["seed"]))
    docs = sample.documents
    print(f"corpus: {len(articles)} articles, {len(sample.buckets)} buckets, {len(docs)} drawn")
    scorer, load_w, _ = _timed(
        lambda: LlamaScorer(
            "smollm2-135m",
            token_limit,
            settings.local.condition_token,
            settings.local.n_ubatch,
        )
    )
    scores, wall, cpu = _timed(lambda: [scorer.score(t, token_limit) for t in docs["text"]])
    scorer.close()
    tokens = sum(s.n_tokens for s in scores)
    read = tokens + len(scores)  # plus the condition token each
    tps_cpu = read / cpu
    bpc = [s.bpc for s in scores]
    per_doc = (token_limit + 1) / tps_cpu
    return {
        "articles": len(articles),
        "buckets": len(sample.buckets),
        "documents": len(docs),
        "token_limit": token_limit,
        "tokens_read": read,
        "model_load_s": round(load_w, 2),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "tokens_per_s_wall": round(read / wall, 1),
        "tokens_per_s_cpu": round(tps_cpu, 1),
        "bpc_mean": round(float(np.mean(bpc)), 4),
        "bpc_median": round(float(np.median(bpc)), 4),
        "bpc_by_year": {
            str(y): round(
                float(np.mean([b for b, d in zip(bpc, docs["date"], strict=True) if d.year == y])),
                4,
            )  # fmt: skip
            for y in sorted({d.year for d in docs["date"]})
        },
        "projected_cpu_h": {
            f"{ARTICLES_IN_CORPUS_BUCKET}_per_bucket": round(
                ARTICLES_IN_CORPUS_BUCKET * len(sample.buckets) * per_doc / 3600, 2
            ),
            "every_article": round(len(articles) * per_doc / 3600, 2),
        },
    }


def demo_run() -> dict[str, Any]:
    p = params.compose(ROOT, ["llm.progress=false"])
    settings = load_settings(BpcSettings, p, "bpc")
    articles = _articles(DEMO, p)
    llm = p["llm"]
    retry = Retry(llm["max_tries"], llm["backoff_base_s"], llm["backoff_max_s"], llm["timeout_s"])
    registry = load_registry(p)
    seed = int(p["base"]["seed"])
    with tempfile.TemporaryDirectory() as tmp:
        first, wall, cpu = _timed(
            lambda: run_bpc(articles, settings, registry, seed, tmp, retry, progress=False)
        )
        _, wall2, cpu2 = _timed(
            lambda: run_bpc(articles, settings, registry, seed, tmp, retry, progress=False)
        )
    m = first.metrics
    return {
        "documents": m["documents"]["drawn"],
        "buckets": m["buckets"],
        "docs_per_bucket": settings.docs_per_bucket,
        "token_limit": settings.token_limit,
        "tokens": {k: v["tokens"] for k, v in m["models"].items()},
        "fresh_wall_s": round(wall, 1),
        "fresh_cpu_s": round(cpu, 1),
        "from_ledger_wall_s": round(wall2, 1),
        "from_ledger_cpu_s": round(cpu2, 1),
        "bpc_mean": {k: v["bpc_mean"] for k, v in m["models"].items()},
        "tbi": {k: v["tbi"] for k, v in m["models"].items()},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", type=Path, default=SHARED)
    ap.add_argument("--docs-per-bucket", type=int, default=1)
    ap.add_argument("--token-limit", type=int, default=512)
    ap.add_argument("--skip-demo", action="store_true")
    args = ap.parse_args()
    out: dict[str, Any] = {"load_average_start": [round(x, 2) for x in os.getloadavg()]}
    if not args.skip_demo:
        out["demo"] = demo_run()
        print("demo:", json.dumps(out["demo"]))
    if args.corpus.exists():
        out["corpus"] = corpus_run(args.corpus, args.docs_per_bucket, args.token_limit)
        print("corpus:", json.dumps(out["corpus"]))
    else:
        print(f"{args.corpus} is absent: the development-corpus part is skipped")
    out["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(f"load average {out['load_average_start']} -> {out['load_average_end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
