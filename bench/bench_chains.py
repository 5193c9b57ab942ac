"""The cluster chain source, measured: story linking against known arcs, and at scale.

Usage (from the repository root, with an ingested articles table)::

    python bench/bench_chains.py --articles data/interim/articles.parquet --gold demo
    python bench/bench_chains.py --articles /tmp/shared_articles.parquet --longest 10
    python bench/bench_chains.py --articles ... --gold demo --grid

``--gold demo`` scores the recovered stories against the demo generator's story arcs
with B-cubed precision, recall and F1 (Bagga and Baldwin, 1998): per article, the share
of its predicted story that shares its arc, and of its arc that shares its predicted
story. Gold arcs come from ``--timelines`` (the timelines file the demo generator writes
beside the news, data/raw/demo/timelines.jsonl by default: the source URLs of each
chain's events). Articles outside any arc, and articles the linker leaves out of every kept chain, are singletons. Scores are
given over the arc articles and over all articles. Only linking is measured: no model is
called (key points are the stage's business). Results are printed and written to
``bench/results/chains.json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient import io  # noqa: E402
from prescient.benchmarks.openforecast.linking import bcubed, link_articles  # noqa: E402
from prescient.benchmarks.openforecast.settings import ChainsSettings  # noqa: E402
from prescient.corpus.normalize import article_id, normalize_url  # noqa: E402
from prescient.plumbing import params  # noqa: E402
from prescient.settings import load_settings  # noqa: E402


def _aid(url: str) -> str:
    norm = normalize_url(url)
    assert norm is not None
    return article_id(norm, "", pd.Timestamp(0).date())


def gold_from_timelines(path: Path) -> dict[str, str]:
    """article id -> chain id, from the timelines file's source URLs."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            for url in obj["source_urls"]:
                out[_aid(url)] = obj["chain_id"]
    return out


def run(
    articles: pd.DataFrame, overrides: list[str], gold: dict[str, str] | None, longest: int
) -> dict[str, Any]:
    s = load_settings(ChainsSettings, params.compose(ROOT, overrides), "chains").cluster
    start = time.perf_counter()
    frame, kept, counts = link_articles(articles, s)
    seconds = time.perf_counter() - start
    ids = frame["article_id"].astype(str).tolist()
    pred = {ids[i]: k for k, st in enumerate(kept) for i in st.members}
    out: dict[str, Any] = {
        "overrides": overrides,
        "seconds": round(seconds, 2),
        "counts": counts,
        "chains_with_at_least_5_dates": sum(st.n_dates >= 5 for st in kept),
        "chains_with_at_least_10_dates": sum(st.n_dates >= 10 for st in kept),
    }
    if gold is not None:
        arc_items = [i for i in ids if i in gold]
        for key, items in (("bcubed_arc_articles", arc_items), ("bcubed_all_articles", ids)):
            out[key] = {k: round(v, 4) for k, v in bcubed(pred, gold, items).items()}
        out["chains_without_arc_articles"] = sum(
            all(ids[i] not in gold for i in st.members) for st in kept
        )
        purity = []
        for st in kept:
            arcs = Counter(gold.get(ids[i], "none") for i in st.members)
            purity.append(arcs.most_common(1)[0])
        out["kept_story_majorities"] = [f"{a}:{n}" for a, n in purity]
    out["longest"] = [
        {
            "dates": st.n_dates,
            "articles": len(st.members),
            "coherence": round(st.coherence, 3),
            "first": str(frame.loc[st.members[0], "date"]),
            "last": str(frame.loc[st.members[-1], "date"]),
            "titles": [str(frame.loc[i, "clean_title"]) for i in st.members[:4]],
        }
        for st in kept[:longest]
    ]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--articles", required=True)
    ap.add_argument("--gold", choices=["demo", "none"], default="none")
    ap.add_argument(
        "--timelines",
        default=str(ROOT / "data" / "raw" / "demo" / "timelines.jsonl"),
        help="the demo timelines file (gold arcs)",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        help="a Hydra override, e.g. chains.cluster.threshold=0.3",
    )
    ap.add_argument("--grid", action="store_true", help="sweep window_days x threshold")
    ap.add_argument("--longest", type=int, default=10)
    args = ap.parse_args()
    articles = io.read_table(args.articles, columns=["article_id", "date", "title", "text"])
    gold = None
    if args.gold == "demo":
        gold = gold_from_timelines(Path(args.timelines))
    results: dict[str, Any] = {"articles": len(articles)}
    if args.grid:
        grid = []
        for window in (30, 365, 1000):
            for threshold in (0.15, 0.2, 0.3):
                for names in (0.0, 0.2):
                    sets = [
                        *args.set,
                        f"chains.cluster.window_days={window}",
                        f"chains.cluster.threshold={threshold}",
                        f"chains.cluster.name_threshold={names}",
                    ]
                    r = run(articles, sets, gold, 0)
                    keys = [
                        k for k in r if k.startswith(("bcubed", "chains_with", "chains_without"))
                    ]
                    grid.append(
                        {"window_days": window, "threshold": threshold, "name_threshold": names}
                        | {k: r[k] for k in keys}
                    )
                    print(json.dumps(grid[-1]))
        results["grid"] = grid
    else:
        results["run"] = run(articles, args.set, gold, args.longest)
        results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        print(json.dumps(results, indent=2, ensure_ascii=False))
    out = ROOT / "bench" / "results" / "chains.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
