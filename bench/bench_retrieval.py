"""Benchmark: exact per-cutoff BM25 retrieval vs rank-bm25 rebuilt per distinct cutoff.

Targets: on the shared news corpus (16,217 articles), 2,000 questions x 7 RAG
cutoffs (6 dates + dynamic) at least 100x faster than the paper's approach (a rank-bm25
index rebuilt for every distinct visible window), with identical results; at 250k and
1M articles (the corpus replicated) peak RSS under 8 GB and roughly linear growth.

Questions are synthetic: the titles of 2,000 random articles (seeded) as queries, their
dates as resolution dates and the articles themselves as gold (excluded from results).

The reference is timed on every distinct window with ``--reference-windows 0``; by
default on a seeded sample of windows (always including the six fixed-cutoff windows),
from which the time of all windows is extrapolated with a least-squares fit of build
time and per-query time against the window's size. Every query of every sampled window
is compared with ours: ids, order and scores must be identical (exact float equality).

Scale runs replicate each article in place (so the corpus stays date-sorted) and give
each replica one unique token, as real corpora keep adding rare words; each size runs in
a fresh subprocess so its peak RSS is its own.

    .venv/bin/python bench/bench_retrieval.py [--reference-windows 40] [--scale 250000 1000000]

Needs ../shared/data/news/rtqa_news_2019_2025.jsonl.gz; exits 0 with a note when absent.
Results also go to bench/results/retrieval.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient.dates import parse_rag_cutoff  # noqa: E402
from prescient.plumbing import params  # noqa: E402
from prescient.retrieval.bm25 import PrefixBM25  # noqa: E402
from prescient.retrieval.search import ArticleIndex, RetrievalSettings  # noqa: E402
from prescient.retrieval.tokenize import Tokenizer  # noqa: E402
from prescient.retrieval.visibility import visible_window  # noqa: E402
from prescient.settings import load_settings  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "news" / "rtqa_news_2019_2025.jsonl.gz"
RESULTS = ROOT / "bench" / "results" / "retrieval.json"
CUTOFFS: list[dt.date | None] = [
    None,
    *(
        parse_rag_cutoff(d)
        for d in (
            "2020-06-01",
            "2021-06-01",
            "2022-06-01",
            "2023-09-01",
            "2024-03-01",
            "2025-03-01",
        )
    ),
]
N_QUESTIONS = 2000
SEED = 20240501


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def shipped_settings() -> RetrievalSettings:
    """The retrieval settings of the shipped config (tokenizer, k1, b, gap...)."""
    return load_settings(RetrievalSettings, params.compose(ROOT), "retrieval")


def load_corpus() -> pd.DataFrame:
    rows = []
    with gzip.open(SHARED, "rt", encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            o = json.loads(line)
            rows.append(
                {
                    "article_id": f"s{i:05d}",
                    "date": dt.date.fromisoformat(str(o["date"])[:10]),
                    "title": o.get("title") or "",
                    "text": o.get("text") or "",
                }
            )
    df = pd.DataFrame(rows)
    return df.sort_values(["date", "article_id"]).reset_index(drop=True)


def make_questions(corpus: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(SEED)
    pick = np.sort(rng.choice(len(corpus), size=N_QUESTIONS, replace=False))
    q = corpus.iloc[pick]
    return pd.DataFrame(
        {
            "question_id": [f"q{i:04d}" for i in range(len(q))],
            "question": q["title"].to_numpy(),
            "resolution_date": q["date"].to_numpy(),
            "article_id": q["article_id"].to_numpy(),
        }
    )


def reference(
    corpus: pd.DataFrame,
    questions: pd.DataFrame,
    ours: pd.DataFrame,
    n_windows: int,
    settings: RetrievalSettings,
) -> dict[str, Any]:
    """rank-bm25 rebuilt per distinct visible window (the paper's approach)."""
    from rank_bm25 import BM25Okapi

    tok = Tokenizer.from_settings(settings.tokenizer)
    docs = [tok(f"{t}\n{x}") for t, x in zip(corpus["title"], corpus["text"], strict=True)]
    days = np.array(corpus["date"].to_numpy(), dtype="datetime64[D]")
    ids = corpus["article_id"].to_numpy()
    queries: dict[int, list[tuple[str, str, list[str], str]]] = {}
    for cutoff in CUTOFFS:
        label = "dynamic" if cutoff is None else cutoff.isoformat()
        for qid, text, res, gold in zip(
            questions["question_id"],
            questions["question"],
            questions["resolution_date"],
            questions["article_id"],
            strict=True,
        ):
            w = visible_window(res, cutoff, gap_days=settings.gap_days)
            n = int(np.searchsorted(days, np.datetime64(w.end, "D"), side="left"))
            queries.setdefault(n, []).append((qid, label, tok(text), gold))
    windows = sorted(queries)
    if n_windows and n_windows < len(windows):
        rng = np.random.default_rng(SEED)
        shared = sorted(windows, key=lambda n: -len(queries[n]))[:6]  # the fixed cutoffs
        rest = [n for n in windows if n not in shared]
        sample = sorted(
            {*shared, *rng.choice(rest, size=n_windows - len(shared), replace=False).tolist()}
        )
    else:
        sample = windows
    got = {
        (q, c): list(zip(g["article_id"], g["score"], strict=True))
        for (q, c), g in ours.sort_values("rank").groupby(["question_id", "rag_cutoff"])
    }
    k = settings.top_k
    rows = []
    mismatches = 0
    compared = 0
    for n in sample:
        if n == 0:
            continue
        t0 = time.perf_counter()
        bm = BM25Okapi(
            docs[:n], k1=settings.bm25.k1, b=settings.bm25.b, epsilon=settings.bm25.epsilon
        )
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        for qid, label, q, gold in queries[n]:
            scores = bm.get_scores(q)
            cand = [i for i in range(n) if ids[i] != gold and any(t in bm.doc_freqs[i] for t in q)]
            cand.sort(key=lambda i: (-scores[i], -i))
            expected = [(ids[i], float(scores[i])) for i in cand[:k]]
            compared += 1
            mismatches += expected != got.get((qid, label), [])
        t_query = (time.perf_counter() - t0) / len(queries[n])
        rows.append((n, len(queries[n]), t_build, t_query))
        print(
            f"  window n={n:6d}: {len(queries[n]):4d} queries, build {t_build:6.2f} s, {t_query * 1000:6.1f} ms/query",
            flush=True,
        )
    arr = np.array(rows, dtype=float)
    measured = float((arr[:, 2] + arr[:, 1] * arr[:, 3]).sum())
    # Least squares with intercept: build time and per-query time against window size.
    ab = np.polyfit(arr[:, 0], arr[:, 2], 1)
    cd = np.polyfit(arr[:, 0], arr[:, 3], 1)
    total = 0.0
    for n in windows:
        if n:
            total += max(np.polyval(ab, n), 0.0) + len(queries[n]) * max(np.polyval(cd, n), 0.0)
    return {
        "distinct_windows": len(windows),
        "windows_timed": len(rows),
        "queries_compared": compared,
        "mismatches": mismatches,
        "seconds_measured": measured,
        "seconds_all_windows": measured if len(rows) >= len([w for w in windows if w]) else total,
        "extrapolated": len(rows) < len([w for w in windows if w]),
        "build_s_per_1k_docs": float(ab[0] * 1000),
        "query_ms_per_1k_docs": float(cd[0] * 1e6),
    }


def base_run(n_windows: int) -> dict[str, Any]:
    settings = shipped_settings()
    corpus = load_corpus()
    questions = make_questions(corpus)
    t0 = time.perf_counter()
    index = ArticleIndex(corpus, settings)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = index.retrieve_table(questions, CUTOFFS)
    t_query = time.perf_counter() - t0
    print(
        f"ours: {len(corpus)} articles, {index.bm25.n_terms} terms, {len(index.bm25.post_docs)} postings; "
        f"index {t_build:.2f} s (tokenizing included), {len(questions) * len(CUTOFFS)} queries "
        f"{t_query:.2f} s ({t_query / (len(questions) * len(CUTOFFS)) * 1e3:.2f} ms/query)",
        flush=True,
    )
    ref = reference(corpus, questions, ours, n_windows, settings)
    ours_total = t_build + t_query
    out = {
        "articles": len(corpus),
        "questions": len(questions),
        "cutoffs": len(CUTOFFS),
        "ours_index_s": t_build,
        "ours_query_s": t_query,
        "ours_total_s": ours_total,
        "reference": ref,
        "speedup": ref["seconds_all_windows"] / ours_total,
    }
    print(
        f"reference (rank-bm25 per distinct window, tokenizing not counted): "
        f"{ref['seconds_all_windows']:.0f} s over {ref['distinct_windows']} windows"
        f"{' (extrapolated from ' + str(ref['windows_timed']) + ' timed)' if ref['extrapolated'] else ''}; "
        f"speed-up {out['speedup']:.0f}x; {ref['queries_compared']} queries compared, "
        f"{ref['mismatches']} differ",
        flush=True,
    )
    return out


def replicated_tokens(texts: list[str], reps: int, tok: Tokenizer) -> Iterator[list[str]]:
    for i, text in enumerate(texts):
        for k in range(reps):
            tokens = tok(text)
            tokens.append(f"replica{k}x{i}")
            yield tokens


def scale_child(reps: int) -> None:
    settings = shipped_settings()
    corpus = load_corpus()
    questions = make_questions(corpus)
    texts = [f"{t}\n{x}" for t, x in zip(corpus["title"], corpus["text"], strict=True)]
    pos = {a: i for i, a in enumerate(corpus["article_id"])}
    days = np.repeat(np.array(corpus["date"].to_numpy(), dtype="datetime64[D]"), reps)
    del corpus
    t0 = time.perf_counter()
    checkpoints = [*np.searchsorted(days, np.unique(days), side="left").tolist(), len(days)]
    tok = Tokenizer.from_settings(settings.tokenizer)
    index = PrefixBM25(replicated_tokens(texts, reps, tok), settings.bm25, checkpoints=checkpoints)
    t_build = time.perf_counter() - t0
    rss_build = rss_mb()
    t0 = time.perf_counter()
    n_hits = 0
    for cutoff in CUTOFFS:
        for text, res, gold in zip(
            questions["question"],
            questions["resolution_date"],
            questions["article_id"],
            strict=True,
        ):
            w = visible_window(res, cutoff, gap_days=settings.gap_days)
            n = int(np.searchsorted(days, np.datetime64(w.end, "D"), side="left"))
            hits = index.search(tok(text), n, settings.top_k, exclude={pos[gold] * reps})
            n_hits += len(hits)
    t_query = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "articles": len(days),
                "terms": index.n_terms,
                "postings": int(len(index.post_docs)),
                "index_s": t_build,
                "query_s": t_query,
                "hits": n_hits,
                "peak_rss_mb_after_index": rss_build,
                "peak_rss_mb": rss_mb(),
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reference-windows", type=int, default=40, help="0: time every window")
    ap.add_argument("--scale", type=int, nargs="*", default=[250_000, 1_000_000])
    ap.add_argument("--skip-base", action="store_true")
    ap.add_argument("--child-reps", type=int)
    args = ap.parse_args()
    if args.child_reps:
        scale_child(args.child_reps)
        return 0
    if not SHARED.exists():
        print(f"skipped: {SHARED} is absent")
        return 0
    results: dict[str, Any] = {}
    if not args.skip_base:
        results["base"] = base_run(args.reference_windows)
    scale = []
    base_n = 16_217
    for size in [base_n, *args.scale]:
        reps = max(1, round(size / base_n))
        out = subprocess.run(
            [sys.executable, __file__, "--child-reps", str(reps)],
            check=True,
            capture_output=True,
            text=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1]) | {"replicas": reps}
        scale.append(r)
        print(
            f"scale x{reps:>3}: {r['articles']:>9,} articles, {r['terms']:>9,} terms, "
            f"{r['postings']:>11,} postings; index {r['index_s']:7.1f} s, "
            f"{N_QUESTIONS * len(CUTOFFS)} queries {r['query_s']:7.1f} s, "
            f"peak RSS {r['peak_rss_mb']:7.0f} MB",
            flush=True,
        )
    if scale:
        b = scale[0]
        for r in scale[1:]:
            f = r["articles"] / b["articles"]
            print(
                f"x{f:.1f} articles: index time x{r['index_s'] / b['index_s']:.1f}, "
                f"query time x{r['query_s'] / b['query_s']:.1f}, RSS x{r['peak_rss_mb'] / b['peak_rss_mb']:.1f}"
            )
    results["scale"] = scale
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
