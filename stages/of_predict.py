"""Stage ``of_predict`` (one DVC matrix cell): a model's open-ended forecasts for one task.

Params: ``models.<model>``, ``openforecast.predict.templates``,
``openforecast.predict.generation``, ``openforecast.split.relative_to_cutoff`` (forecast only
after the model's knowledge cutoff), ``llm``; the model and task come from the matrix item.
Writes data/processed/of_predictions/<model>-<task>.parquet and the cell's ledger
data/llm/of_predict/<model>-<task>.jsonl.
"""

from __future__ import annotations

import argparse
import logging
import sys

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.predict import predict
from prescient.benchmarks.openforecast.prompts import load_role_template
from prescient.benchmarks.openforecast.settings import PredictSettings, SplitSettings
from prescient.dates import as_date
from prescient.llm.gateway import stage_failed, stage_gateway
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, FAILED_CALLS, StageRun, entry
from prescient.settings import load_settings

logger = logging.getLogger("stages.of_predict")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--model", required=True, help="registry name (conf/model/<name>.yaml)")
    ap.add_argument("--task", required=True, choices=["stf", "ltf", "aqa"])
    ap.add_argument("--samples", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ledger", required=True)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    s = load_settings(PredictSettings, p, "openforecast.predict")
    split = load_settings(SplitSettings, p, "openforecast.split")
    template = load_role_template(args.prompts, s.templates[args.task], args.task)
    gateway = stage_gateway(p, "of_predict", args.ledger, [args.model], dvc_cache_dir())
    samples = pd.read_parquet(args.samples)
    cutoff = gateway.spec(args.model).knowledge_cutoff
    after = as_date(cutoff) if split.relative_to_cutoff and cutoff else None
    with gateway:
        out = predict(
            samples,
            args.model,
            args.task,
            template,
            s.generation[args.task],
            gateway.complete_many,
            after,
        )
    if stage_failed(gateway, logger, [args.out], f"of_predict {args.model} {args.task}"):
        return FAILED_CALLS
    io.write_parquet(args.out, out)
    logger.info(
        "%s x %s: %d predictions, %d failed",
        args.model,
        args.task,
        len(out),
        int(out["error"].notna().sum()),
    )
    return DONE


main = entry("of_predict", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
