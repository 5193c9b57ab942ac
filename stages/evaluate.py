"""Stage ``evaluate`` (one DVC stage per model): a model answers every question in every
setting of the grid.

Params: ``models.<model>`` (the model's registry entry), ``eval.settings`` (answered one
after another, in their order), ``eval.elicitation`` (how forecasts are asked for: each
setting is asked once per elicitation), ``eval.generation`` with
``eval.elicitation_generation`` laid over it, ``eval.max_questions`` (a model
with a budget answers the first that many questions in the evaluated table's seeded
sample order), ``eval.elicitation_max_questions`` (an elicitation asked of the first
that many of them) and ``llm.max_failed_share``; the model comes from the command line (the
``foreach`` item), so each stage depends only on its own registry entry.

Inputs: the evaluated questions, the contexts directory (``<setting>.parquet`` per
setting, written by ``retrieve``) and the prompts (the label prompts, and those of
``verbal_probability`` in their subdirectory).

Output: the model's predictions directory (``--out``), one ``<setting>.parquet`` per
setting (raw responses, one row per question and elicitation; columns in
prescient.evaluation.predictions.PREDICTION_COLUMNS; a failed call is a
row with ``error`` set), written as a whole; and the model's gateway ledger
(``--ledger``: persisted). All settings go through the one ledger, so a request two
settings share (the same prompt: a question resolved before a RAG cutoff, under that
cutoff and under ``rag_dynamic``) is paid once, and a rerun (a new cutoff, a new
question) pays only for requests the ledger has not answered. When more calls failed
than ``llm.max_failed_share`` allows, only the ledger is written (the predictions
directory is removed) and the stage exits with status 3, so the next ``dvc repro`` runs
it again and pays only for the failures.

A model whose entry states its context window (``context_tokens``) has every prompt
that would not fit with the request's ``max_tokens`` fitted to it by one rule
(:mod:`prescient.llm.fit`: every article cut to the same, largest number of words that
fits); such prompts are logged, carry ``context_words_kept`` on their rows and are
counted by the score stage (``context_fit`` in its metrics).

With ``--plan FILE`` the stage sends nothing and writes nothing but that file: the
requests the run would make, how many the ledger and the response store already answer,
and the worst-case cost of the rest (:mod:`prescient.evaluation.plan`; ``python -m
prescient plan`` runs it for every model). ``--plan-also QUESTIONS CONTEXTS LEDGER``
adds another partition's tables and ledger to the plan, so one process plans every
partition of a model.
"""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from prescient import io
from prescient.evaluation.contexts import shown_texts
from prescient.evaluation.plan import PlanningGateway, merge_plans, quiet
from prescient.evaluation.prompts import elicitation_prompts
from prescient.evaluation.run import Ask, model_sample, run_model
from prescient.evaluation.settings import EvalSettings, setting_file
from prescient.llm.fit import ContextWindow, reply_budget
from prescient.llm.gateway import Gateway, stage_failed, stage_gateway
from prescient.llm.tokens import context_window
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import DONE, FAILED_CALLS, StageRun, entry
from prescient.settings import load_settings

logger = logging.getLogger("stages.evaluate")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--model", required=True, help="registry name (conf/model/<name>.yaml)")
    ap.add_argument("--questions", required=True, help="the evaluated questions (parquet)")
    ap.add_argument("--contexts", required=True, help="directory of the settings' contexts")
    ap.add_argument("--prompts", required=True, help="the evaluation prompt templates")
    ap.add_argument("--out", required=True, help="the model's predictions (directory)")
    ap.add_argument("--ledger", required=True, help="the model's gateway ledger (JSON Lines)")
    ap.add_argument(
        "--plan-also",
        nargs=3,
        action="append",
        default=[],
        metavar=("QUESTIONS", "CONTEXTS", "LEDGER"),
        help="with --plan: another partition's questions, contexts and ledger, planned in "
        "the same process; the plan is the model's over every partition (repeatable)",
    )
    ap.add_argument(
        "--plan",
        default=None,
        help="send nothing and write nothing but this JSON file: the requests the run would "
        "make, those already answered, and the worst-case cost of the rest "
        "(python -m prescient plan)",
    )


@dataclass
class _Partition:
    """A partition's gateway (over its ledger), questions and context tables."""

    gateway: Gateway
    asks: list[Ask]
    window: ContextWindow | None
    questions: pd.DataFrame
    contexts: io.TablesOnDisk
    batch: bool


def _open(
    run: StageRun, grid: EvalSettings, questions: str, contexts: str, ledger: str
) -> _Partition:
    args, p = run.args, run.params
    tables = {s.name: Path(contexts) / setting_file(s) for s in grid.settings}
    missing = [str(t) for t in tables.values() if not t.exists()]
    if missing:
        raise FileNotFoundError(
            f"no context table {missing} for eval.settings: run the retrieve stage "
            "(dvc repro retrieve)"
        )
    # A malformed entry or an unset key variable stops here, before any call.
    # The articles its ledger's lines refer to come from the contexts (a pulled ledger).
    gateway = stage_gateway(
        p,
        "evaluate",
        ledger,
        [args.model],
        dvc_cache_dir(),
        texts=lambda: shown_texts(tables.values()),
    )
    spec = gateway.spec(args.model)
    window = context_window(spec)
    asks = [
        Ask(
            e,
            elicitation_prompts(args.prompts, e),
            grid.generation_for(e),
            reply_budget(spec.params, grid.generation_for(e)),
            grid.elicitation_max_questions.get(e),
        )
        for e in grid.elicitation
    ]
    if window is not None:
        logger.info("%s: context window %s", args.model, window.describe())
    budget = grid.max_questions.get(args.model)
    sample = model_sample(pd.read_parquet(questions), budget)
    if budget is not None:
        logger.info(
            "%s answers a sample of %d questions (eval.max_questions)", args.model, len(sample)
        )
    # One setting's context table in memory at a time (settings are planned in turn).
    return _Partition(gateway, asks, window, sample, io.TablesOnDisk(tables), spec.batch)


def _plan(run: StageRun, grid: EvalSettings, part: _Partition) -> dict[str, Any]:
    model = run.args.model
    with part.gateway, quiet("prescient.evaluation.run"):  # every stand-in is an error
        planner = PlanningGateway(part.gateway, model)
        run_model(
            planner,
            model,
            grid.settings,
            part.questions,
            part.contexts,
            part.asks,
            part.window,
            part.batch,
        )
    return planner.result().to_json()


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    grid = load_settings(EvalSettings, p, "eval")
    if args.model not in (p.get("models") or {}):
        raise ValueError(
            f"model {args.model!r} is not in the registry (params.models): add "
            f"conf/model/{args.model}.yaml to the defaults of conf/config.yaml"
        )
    if args.plan is not None:
        # This partition and those of --plan-also, one after another: the model's plan.
        parts = [(args.questions, args.contexts, args.ledger), *map(tuple, args.plan_also)]
        plans = [_plan(run, grid, _open(run, grid, *part)) for part in parts]
        io.write_json(args.plan, merge_plans(plans))
        return DONE
    part = _open(run, grid, args.questions, args.contexts, args.ledger)
    with part.gateway:
        predictions = run_model(
            part.gateway,
            args.model,
            grid.settings,
            part.questions,
            part.contexts,
            part.asks,
            part.window,
            together=part.batch,
        )
    # The ledger: the entries these predictions came from (a declared output even when
    # the model made no call, e.g. only gold settings and no gold article).
    if stage_failed(part.gateway, logger, [args.out], f"evaluate {args.model}"):
        return FAILED_CALLS
    with io.atomic_dir(args.out) as tmp:
        for setting in grid.settings:
            predictions[setting.name].to_parquet(tmp / setting_file(setting), index=False)
    return DONE


main = entry("evaluate", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
