"""Stage ``evaluate`` (one DVC matrix cell): a model answers every question in one setting.

Params: ``models.<model>`` (the model's registry entry), ``eval.generation``,
``eval.max_questions`` (a model with a budget answers the first that many questions in
the evaluated table's seeded sample order) and ``llm.max_failed_share``; the cell's
setting and model come from the command line (the matrix item), so each cell depends
only on its own model, its own setting's context table and the prompts.

Output: the cell's predictions (``--out``: raw responses; columns in
prescient.evaluation.run.PREDICTION_COLUMNS) and its gateway ledger (``--ledger``:
persisted, so a rerun costs nothing); a failed call is a row with ``error`` set.
When more calls failed than ``llm.max_failed_share`` allows, only the ledger is written
and the cell exits with status 3, so the next ``dvc repro`` runs it again and pays only
for the failures.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io, params
from prescient.evaluation.prompts import load_prompts
from prescient.evaluation.run import model_sample, run_cell
from prescient.evaluation.settings import EvalSettings, parse_setting
from prescient.settings import load_settings

logger = logging.getLogger("stages.evaluate")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--model", required=True, help="registry name (conf/model/<name>.yaml)")
    ap.add_argument("--setting", required=True, help="closed_book | gold | rag_<cutoff>")
    ap.add_argument("--questions", required=True, help="the evaluated questions (parquet)")
    ap.add_argument("--contexts", required=True, help="the setting's context table")
    ap.add_argument("--prompts", required=True, help="the evaluation prompt templates")
    ap.add_argument("--out", required=True, help="the cell's predictions (parquet)")
    ap.add_argument("--ledger", required=True, help="the cell's gateway ledger (JSON Lines)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from prescient.llm.failures import FAILED_CALLS_EXIT, failed_stage
    from prescient.llm.gateway import Gateway

    p = params.load(args.params)
    try:
        grid = load_settings(EvalSettings, p, "eval")
        setting = parse_setting(args.setting)
        prompt = load_prompts(args.prompts)[setting.kind]
        if args.model not in (p.get("models") or {}):
            raise ValueError(
                f"model {args.model!r} is not in the registry (params.models): add "
                f"conf/model/{args.model}.yaml to the defaults of conf/config.yaml"
            )
        gateway = Gateway.from_params(p, stage="evaluate", ledger_path=args.ledger)
        # A malformed entry or an unset key variable stops here, before any call.
        gateway.check([args.model])
    except (ValueError, FileNotFoundError) as exc:  # ParamsError, ModelConfigError too
        logger.error("%s", exc)
        return 2
    budget = grid.max_questions.get(args.model)
    questions = model_sample(pd.read_parquet(args.questions), budget)
    if budget is not None:
        logger.info(
            "%s answers a sample of %d questions (eval.max_questions)", args.model, len(questions)
        )
    contexts = pd.read_parquet(args.contexts)
    with gateway:
        predictions = run_cell(
            gateway,
            args.model,
            setting,
            questions,
            contexts,
            prompt,
            grid.generation,
        )
    # The ledger is a declared output even when the cell made no call (e.g. no gold
    # article for any question).
    Path(args.ledger).parent.mkdir(parents=True, exist_ok=True)
    Path(args.ledger).touch()
    if failed_stage(
        gateway.failure_report(), logger, f"evaluate {args.model} {args.setting}", [args.out]
    ):
        return FAILED_CALLS_EXIT
    io.write_parquet(args.out, predictions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
