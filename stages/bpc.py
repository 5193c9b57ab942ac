"""Stage ``bpc``: bits per character of the ingested news under each model, over time.

Writes the per-document table, the report tables (per-bucket BPC, Temporal Bias Index,
change after release, skipped models) and the metrics; every score goes through the
per-model ledgers in ``--ledger-dir``. Exits 1 when some document could not be scored
(after everything else is written, so a rerun retries only those), 2 on a configuration
error.

Params: ``base.seed``, ``bpc``, ``models`` (the registry) and ``llm`` (retries and
timeouts of remote scorers).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.benchmarks.freshbench.bpc.pipeline import run_bpc
from prescient.benchmarks.freshbench.bpc.scorers import Retry
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.llm.registry import load_registry
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, PARTIAL, StageRun, entry
from prescient.settings import load_settings, section

logger = logging.getLogger("stages.bpc")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--articles", required=True)
    ap.add_argument("--ledger-dir", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--metrics", required=True)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    settings = load_settings(BpcSettings, p, "bpc")
    seed = int(section(p, "base.seed"))
    llm = section(p, "llm")
    retry = Retry(
        int(llm["max_tries"]),
        float(llm["backoff_base_s"]),
        float(llm["backoff_max_s"]),
        float(llm["timeout_s"]),
    )
    registry = load_registry(p)
    result = run_bpc(
        pd.read_parquet(args.articles),
        settings,
        registry,
        seed,
        args.ledger_dir,
        retry,
        progress=bool(llm["progress"]),
        cache_dir=dvc_cache_dir(),
    )

    io.write_parquet(args.docs, result.docs)
    for stem, table in result.tables.items():
        with io.atomic_open(Path(args.tables) / f"{stem}.csv") as fh:
            table.to_csv(fh, index=False, lineterminator="\n")
    io.write_json(args.metrics, result.metrics)
    for name, m in result.metrics["models"].items():
        logger.info(
            "%s: %d of %d documents scored, BPC %s, TBI %s",
            name,
            m["scored"],
            m["documents"],
            m["bpc_mean"],
            m["tbi"],
        )
    if result.failed:
        logger.error(
            "%d document(s) could not be scored (see the error column of %s); "
            "a rerun retries only those",
            result.failed,
            args.docs,
        )
        return PARTIAL
    return DONE


main = entry("bpc", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
