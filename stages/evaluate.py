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
prescient plan`` runs it for every model).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.evaluation.contexts import shown_texts
from prescient.evaluation.plan import PlanningGateway, quiet
from prescient.evaluation.prompts import elicitation_prompts
from prescient.evaluation.run import Ask, model_sample, run_model
from prescient.evaluation.settings import EvalSettings, setting_file
from prescient.llm.fit import reply_budget
from prescient.llm.gateway import stage_failed, stage_gateway
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
        "--plan",
        default=None,
        help="send nothing and write nothing but this JSON file: the requests the run would "
        "make, those already answered, and the worst-case cost of the rest "
        "(python -m prescient plan)",
    )


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    grid = load_settings(EvalSettings, p, "eval")
    if args.model not in (p.get("models") or {}):
        raise ValueError(
            f"model {args.model!r} is not in the registry (params.models): add "
            f"conf/model/{args.model}.yaml to the defaults of conf/config.yaml"
        )
    tables = {s.name: Path(args.contexts) / setting_file(s) for s in grid.settings}
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
        args.ledger,
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
    questions = model_sample(pd.read_parquet(args.questions), budget)
    if budget is not None:
        logger.info(
            "%s answers a sample of %d questions (eval.max_questions)", args.model, len(questions)
        )
    # One setting's context table in memory at a time (settings are planned in turn).
    contexts = io.TablesOnDisk(tables)
    if args.plan is not None:
        with gateway, quiet("prescient.evaluation.run"):  # every stand-in is an error
            planner = PlanningGateway(gateway, args.model)
            run_model(
                planner, args.model, grid.settings, questions, contexts, asks, window, spec.batch
            )
        io.write_json(args.plan, planner.result().to_json())
        return DONE
    with gateway:
        predictions = run_model(
            gateway,
            args.model,
            grid.settings,
            questions,
            contexts,
            asks,
            window,
            together=spec.batch,
        )
    # The ledger: the entries these predictions came from (a declared output even when
    # the model made no call, e.g. only gold settings and no gold article).
    if stage_failed(gateway, logger, [args.out], f"evaluate {args.model}"):
        return FAILED_CALLS
    with io.atomic_dir(args.out) as tmp:
        for setting in grid.settings:
            predictions[setting.name].to_parquet(tmp / setting_file(setting), index=False)
    return DONE


main = entry("evaluate", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
