"""Stage ``chains``: complex event chains, one row per atomic event (OpenForecast, COLING
2025, section 3).

Params: ``chains`` (the source and its options) and, for the cluster source's key points,
``llm`` and the summary model's registry entry. Reads the ingested articles (to map
source URLs to article ids, or to link stories), the source file ``chains.path``, the
construction prompts (the summary step) and the construction ledger (answers already
paid for). Writes data/interim/chains.parquet, reports/metrics/chains.json and the
stage's ledger (empty unless the cluster source asks for key points).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.chains import AtomicEvent, chain_frame, chain_stats
from prescient.benchmarks.openforecast.demo import read_timelines
from prescient.benchmarks.openforecast.importer import read_import
from prescient.benchmarks.openforecast.keypoints import story_events
from prescient.benchmarks.openforecast.linking import link_articles
from prescient.benchmarks.openforecast.settings import ChainsSettings
from prescient.llm.failures import FailureReport, failed_stage
from prescient.llm.gateway import stage_gateway
from prescient.llm.tokens import fitting
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, FAILED_CALLS, StageRun, entry
from prescient.settings import load_settings
from prescient.step_templates import load_step_template

logger = logging.getLogger("stages.chains")


def _cluster(
    s: ChainsSettings, articles: pd.DataFrame, p: dict[str, Any], args: argparse.Namespace
) -> tuple[list[AtomicEvent], dict[str, Any], FailureReport]:
    """Link stories, then ask for the key points of the kept ones (longest first)."""
    c = s.cluster
    template = load_step_template(Path(args.prompts) / f"{c.keypoints.template}.yaml", "summary")
    frame, kept, counts = link_articles(articles, c, progress=True)
    if c.max_chains is not None:
        counts["budget_dropped"] = max(0, len(kept) - c.max_chains)
        kept = kept[: c.max_chains]
    with stage_gateway(p, "chains", args.ledger, [c.keypoints.model], dvc_cache_dir()) as gateway:
        events, kp = story_events(
            frame,
            kept,
            template,
            c.keypoints,
            gateway.complete_many,
            gateway.key_for,
            (args.reuse_ledger, gateway.ledger),
            c.min_dates,
            fitting(gateway.spec(c.keypoints.model), c.keypoints.generation),
        )
        gateway.finish()
    return events, {**counts, "keypoints": kp}, gateway.failure_report()


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--articles", required=True)
    ap.add_argument("--prompts", required=True, help="the construction prompts (summary step)")
    ap.add_argument("--reuse-ledger", required=True, help="the construction stage's ledger")
    ap.add_argument("--ledger", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--metrics", required=True)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    start = time.perf_counter()
    s = load_settings(ChainsSettings, p, "chains")
    articles = io.read_table(args.articles)
    known = set(articles["article_id"].astype(str))
    metrics: dict[str, Any] = {"source": s.source}
    if s.source == "demo":
        events, counts = read_timelines(s.demo.path, known)
        origin = "demo"
    elif s.source == "import":
        events, counts = read_import(s.import_, known)
        origin = f"import:{s.import_.name}"
    else:
        events, counts, failures = _cluster(s, articles, p, args)
        origin = "cluster"
        if failed_stage(failures, logger, "chains", [args.out, args.metrics]):
            return FAILED_CALLS
    frame, extra = chain_frame(events, origin)
    metrics.update({"read": counts, **extra, **chain_stats(frame)})
    Path(args.ledger).parent.mkdir(parents=True, exist_ok=True)
    Path(args.ledger).touch()  # a declared output even when no model was asked
    io.write_parquet(args.out, frame)
    io.write_json(args.metrics, metrics)
    logger.info(
        "%s: %d chains, %d atomic events in %.1fs",
        origin,
        frame["chain_id"].nunique(),
        len(frame),
        time.perf_counter() - start,
    )
    return DONE


main = entry("chains", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
