"""Stage ``of_samples``: chains -> the six OpenForecast tasks (COLING 2025, section 4.3).

Params: ``base.seed``, ``openforecast.split``, ``openforecast.samples``, ``llm`` and the
registry entries of the models that write the questions and wrong options. Reads the
chains and the prompt templates; writes the samples table (every task, every sample
with its status), the closed forms as an evaluation question table (MCNC, MCAC, VQA:
retrieve / evaluate / score take them like any question source), metrics, and the
stage's ledger.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import pandas as pd

from prescient import io
from prescient.benchmarks.openforecast.prompts import load_role_templates
from prescient.benchmarks.openforecast.samples import build_samples
from prescient.benchmarks.openforecast.settings import SamplesSettings, SplitSettings
from prescient.benchmarks.openforecast.tasks import chains_from_frame
from prescient.llm.gateway import stage_failed, stage_gateway
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, FAILED_CALLS, StageRun, entry
from prescient.settings import load_settings

logger = logging.getLogger("stages.of_samples")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--chains", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--ledger", required=True)
    ap.add_argument("--metrics", required=True)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    start = time.perf_counter()
    s = load_settings(SamplesSettings, p, "openforecast.samples")
    split = load_settings(SplitSettings, p, "openforecast.split")
    templates = load_role_templates(args.prompts, s.templates)
    gateway = stage_gateway(p, "of_samples", args.ledger, list(s.models.values()), dvc_cache_dir())
    chains = chains_from_frame(pd.read_parquet(args.chains))
    with gateway:
        samples, questions, metrics = build_samples(
            chains, templates, s, split, int(p["base"]["seed"]), gateway.complete_many
        )
    if stage_failed(gateway, logger, [args.samples, args.questions, args.metrics]):
        return FAILED_CALLS
    io.write_parquet(args.samples, samples)
    io.write_parquet(args.questions, questions)
    io.write_json(args.metrics, metrics)
    logger.info(
        "%d chains -> %d samples (%d ok), %d closed-form questions in %.1fs",
        len(chains),
        len(samples),
        int((samples["status"] == "ok").sum()),
        len(questions),
        time.perf_counter() - start,
    )
    return DONE


main = entry("of_samples", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
