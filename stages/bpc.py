"""Stage ``bpc``: bits per character of the ingested news under each model, over time.

Writes the per-document table, the report tables (per-bucket BPC, Temporal Bias Index,
change after release, skipped models) and the metrics; every score goes through the
per-model ledgers in ``--ledger-dir`` (each document one log-probability request
through the gateway). Documents that could not be scored beyond
``llm.max_failed_share`` make the stage exit 3 without its outputs (every score received
is kept in the ledgers, so a rerun asks only for the failed ones,
:mod:`prescient.llm.failures`); within the tolerance their rows are kept with the error.
Exits 2 on a configuration error.

Params: ``base.seed``, ``bpc``, ``models`` (the registry) and ``llm`` (retries,
timeouts, failure tolerance).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from prescient import io
from prescient.benchmarks.freshbench.bpc.pipeline import run_bpc
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.llm.failures import failed_stage
from prescient.llm.registry import load_registry
from prescient.llm.settings import GatewaySettings
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, FAILED_CALLS, StageRun, entry
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
    llm = GatewaySettings.from_params(p)
    registry = load_registry(p)
    result = run_bpc(
        Path(args.articles),  # the drawn documents' texts only are read
        settings,
        registry,
        seed,
        args.ledger_dir,
        llm,
        cache_dir=dvc_cache_dir(),
    )
    outputs = [args.docs, args.metrics]
    outputs += [Path(args.tables) / f"{stem}.csv" for stem in result.tables]
    if failed_stage(result.calls, logger, "bpc", outputs):
        return FAILED_CALLS

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
    return DONE


main = entry("bpc", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
