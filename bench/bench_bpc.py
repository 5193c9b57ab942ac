"""Benchmark: the ``bpc`` stage's embedded scorer (SmolLM2-135M through llama.cpp).

1. Development corpus: the shipped sampling rule with ``--docs-per-bucket`` documents in
   each of the 42 two-month buckets of 2019-2025, each read whole in segments of the
   configured context (FreshBench's 2048 tokens; ``-S bpc.max_text_chars=...`` and other
   overrides apply). Reports tokens per second (wall and CPU), CPU seconds per 1,000
   tokens, segments, the mean BPC, and what the paper's budget (50 per bucket) and every
   article would cost at that rate.
2. Demo: the stage's library on the demo corpus with the shipped config plus
   ``--demo-set`` overrides (the demo budget's keys) and a fresh ledger (what ``dvc
   repro`` pays), then again from the ledger.

CPU seconds are reported beside wall seconds because the machine may be shared: on a
loaded machine wall time grows while CPU time stays close to what a quiet one needs.

    .venv/bin/python bench/bench_bpc.py [--docs-per-bucket 1] [-S bpc.context_tokens=2048]
        [--demo-set bpc.max_text_chars=400 ...]
        [--corpus ../shared/data/news/rtqa_news_2019_2025.jsonl.gz]

Exits 0 with a note when the development corpus is absent (the demo part still runs).
Results also go to bench/results/bpc.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
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

from prescient.benchmarks.freshbench.bpc.documents import sample_documents  # noqa: E402
from prescient.benchmarks.freshbench.bpc.pipeline import run_bpc  # noqa: E402
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings  # noqa: E402
from prescient.corpus.ingest import ingest_corpus  # noqa: E402
from prescient.corpus.settings import CorpusSettings, IngestSettings  # noqa: E402
from prescient.llm.embedded import LocalLlamaProvider  # noqa: E402
from prescient.llm.llama_eval import LlamaEval  # noqa: E402
from prescient.llm.llama_machine import default_threads  # noqa: E402
from prescient.llm.logprobs import windows  # noqa: E402
from prescient.llm.registry import load_registry  # noqa: E402
from prescient.llm.settings import GatewaySettings  # noqa: E402
from prescient.plumbing import params  # noqa: E402
from prescient.settings import load_settings  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "news" / "rtqa_news_2019_2025.jsonl.gz"
DEMO = ROOT / "data" / "raw" / "demo" / "news.jsonl.gz"
RESULTS = ROOT / "bench" / "results" / "bpc.json"
ARTICLES_IN_CORPUS_BUCKET = 50  # FreshBench's texts per period


def _articles(path: Path, p: dict[str, Any]) -> pd.DataFrame:
    corpus = load_settings(CorpusSettings, p, "corpus").model_copy(update={"path": str(path)})
    settings = load_settings(IngestSettings, p, "ingest").model_copy(
        update={"max_date": dt.date(2025, 12, 31)}
    )
    articles, _ = ingest_corpus(corpus, settings)
    return articles


def _timed(fn: Any) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def corpus_run(path: Path, docs_per_bucket: int, overrides: list[str]) -> dict[str, Any]:
    p = params.compose(
        ROOT, ["corpus=shared_news", f"bpc.docs_per_bucket={docs_per_bucket}", *overrides]
    )
    settings = load_settings(BpcSettings, p, "bpc")
    articles = _articles(path, p)
    sample = sample_documents(articles, settings, int(p["base"]["seed"]))
    docs = sample.documents
    print(f"corpus: {len(articles)} articles, {len(sample.buckets)} buckets, {len(docs)} drawn")
    segmenting = settings.windows()
    scorer, load_w, _ = _timed(
        lambda: LlamaEval(
            LocalLlamaProvider.GGUF["smollm2-135m"](),
            segmenting.context_tokens,
            settings.local.n_ubatch,
            default_threads(),
        )
    )
    texts = [settings.scored_text(str(t)) for t in docs["text"]]
    condition = settings.local.condition_token
    scores, wall, cpu = _timed(lambda: [scorer.score(t, segmenting, condition) for t in texts])
    scorer.close()
    tokens = sum(s.n_tokens for s in scores)
    lead = 1 if settings.local.condition_token is not None else 0
    read = sum(
        end - begin for s in scores for begin, _, end in windows(s.n_text_tokens + lead, segmenting)
    )
    bpc = [s.bpc for s in scores]
    per_doc_cpu = cpu / len(scores)
    return {
        "articles": len(articles),
        "buckets": len(sample.buckets),
        "documents": len(docs),
        "context_tokens": settings.context_tokens,
        "segmenting": settings.segmenting,
        "max_text_chars": settings.max_text_chars,
        "tokens_scored": tokens,
        "tokens_per_doc_mean": round(tokens / len(scores), 1),
        "positions_read": read,
        "segments": sum(s.n_segments for s in scores),
        "docs_over_one_segment": sum(s.n_segments > 1 for s in scores),
        "model_load_s": round(load_w, 2),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "tokens_per_s_wall": round(tokens / wall, 1),
        "tokens_per_s_cpu": round(tokens / cpu, 1),
        "cpu_s_per_1k_tokens": round(1000 * cpu / tokens, 2),
        "bpc_mean": round(float(np.mean(bpc)), 4),
        "bpc_median": round(float(np.median(bpc)), 4),
        "bpc_pooled": round(sum(s.bits for s in scores) / sum(s.n_chars for s in scores), 4),
        "bpc_by_year": {
            str(y): round(
                float(np.mean([b for b, d in zip(bpc, docs["date"], strict=True) if d.year == y])),
                4,
            )  # fmt: skip
            for y in sorted({d.year for d in docs["date"]})
        },
        "projected_cpu_h": {
            f"{ARTICLES_IN_CORPUS_BUCKET}_per_bucket": round(
                ARTICLES_IN_CORPUS_BUCKET * len(sample.buckets) * per_doc_cpu / 3600, 2
            ),
            "every_article": round(len(articles) * per_doc_cpu / 3600, 2),
        },
    }


def demo_run(overrides: list[str]) -> dict[str, Any]:
    p = params.compose(ROOT, ["llm.progress=false", *overrides])
    settings = load_settings(BpcSettings, p, "bpc")
    articles = _articles(DEMO, p)
    llm = GatewaySettings.from_params(p)
    registry = load_registry(p)
    seed = int(p["base"]["seed"])
    with tempfile.TemporaryDirectory() as tmp:
        first, wall, cpu = _timed(
            lambda: run_bpc(articles, settings, registry, seed, tmp, llm, None)
        )
        _, wall2, cpu2 = _timed(lambda: run_bpc(articles, settings, registry, seed, tmp, llm, None))
    m = first.metrics
    return {
        "documents": m["documents"]["drawn"],
        "buckets": m["buckets"],
        "overrides": overrides,
        "docs_per_bucket": settings.docs_per_bucket,
        "context_tokens": settings.context_tokens,
        "max_text_chars": settings.max_text_chars,
        "tokens": {k: v["tokens"] for k, v in m["models"].items()},
        "segments": {k: v["segments"] for k, v in m["models"].items()},
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
    ap.add_argument("-S", dest="overrides", action="append", default=[], help="a params override")
    ap.add_argument(
        "--demo-set", action="append", default=[], help="a params override for the demo"
    )
    ap.add_argument("--skip-demo", action="store_true")
    ap.add_argument("--skip-corpus", action="store_true")
    args = ap.parse_args()
    out: dict[str, Any] = {"load_average_start": [round(x, 2) for x in os.getloadavg()]}
    if not args.skip_demo:
        out["demo"] = demo_run(args.demo_set)
        print("demo:", json.dumps(out["demo"]))
    if args.skip_corpus:
        pass
    elif args.corpus.exists():
        out["corpus"] = corpus_run(args.corpus, args.docs_per_bucket, args.overrides)
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
