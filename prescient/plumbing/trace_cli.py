"""``prescient trace MODEL SETTING [--type tf|mc] [--month YYYY-MM|YYYY]``: a report
cell's questions, prompts and raw responses (:mod:`prescient.analysis.trace`).

Prints the cell's count as the report gives it (``19/35 correct``), then one block per
question: id, question, gold and parsed answer, correct, ledger key, the prompt's
messages and the raw response; ``--format jsonl`` prints one JSON object per question
instead (the count goes to the log). Exits 2 when the cell cannot be traced (a bad cell
name, a missing file, a row whose ledger key the ledger lacks), naming why.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient.analysis.trace import (
    TraceError,
    cell_rows,
    of_sources,
    parse_cell,
    summary_line,
    text_block,
    trace_rows,
)
from prescient.plumbing.llm_cli import project_pool

logger = logging.getLogger(__name__)

SCORES = "data/processed/scores.parquet"
QUESTIONS = "data/interim/eval_questions.parquet"
LEDGER = "data/llm/evaluate/{model}"
"""A model's ledgers: one per partition of the evaluation (``<partition>.jsonl``)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ap = sub.add_parser(
        "trace",
        help="a report cell's questions, prompts and raw responses",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("model", help="registry name, as in the report")
    ap.add_argument(
        "setting",
        help="closed_book, gold, rag_dynamic or rag_YYYY-MM-DD (as in eval.settings)",
    )
    ap.add_argument("--type", dest="qtype", default=None, help="tf, mc or all (default: all)")
    ap.add_argument(
        "--elicitation",
        default="label",
        help="label (default; the papers' tables), verbal_probability or token_logprobs",
    )
    ap.add_argument("--month", default=None, help="resolution month YYYY-MM, or a year YYYY")
    ap.add_argument(
        "--source",
        action="append",
        default=[],
        help="only questions of this source (repeatable), e.g. daily_oracle: the report's "
        "time series and first-screen table keep Daily Oracle's questions (see its note)",
    )
    ap.add_argument("--scores", default=SCORES, help=f"scores table (default {SCORES})")
    ap.add_argument("--questions", default=QUESTIONS, help=f"evaluated questions ({QUESTIONS})")
    ap.add_argument(
        "--ledger",
        default=None,
        help=f"the model's ledger, or a directory of its ledgers (default {LEDGER})",
    )
    ap.add_argument("--format", choices=("text", "jsonl"), default="text")
    ap.add_argument(
        "--count-errors",
        action="store_true",
        help="count failed calls as incorrect (as the report does with "
        "analysis.exclude_errors=false); by default they are left out, as the report does",
    )
    ap.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        cell = parse_cell(args.model, args.setting, args.qtype, args.month, args.elicitation)
        ledger = Path(args.ledger or LEDGER.format(model=cell.model))
        for what, path in (("scores", args.scores), ("questions", args.questions)):
            if not Path(path).is_file():
                raise TraceError(f"no {what} table at {path} (--{what})")
        ledgers = sorted(ledger.glob("*.jsonl")) if ledger.is_dir() else [ledger]
        if not ledgers or not all(p.is_file() for p in ledgers):
            raise TraceError(f"no ledger at {ledger} (--ledger)")
        questions = pd.read_parquet(args.questions)
        rows = cell_rows(pd.read_parquet(args.scores), cell, args.count_errors)
        rows = of_sources(rows, questions, args.source)
        traced = trace_rows(rows, questions, ledgers, project_pool())
    except TraceError as exc:
        logger.error("trace: %s", exc)
        return 2
    out = sys.stdout
    if args.format == "jsonl":
        logger.info("%s", summary_line(cell, traced))
        for t in traced:
            out.write(json.dumps(t.record(), ensure_ascii=False, sort_keys=True) + "\n")
        return 0
    out.write(summary_line(cell, traced) + "\n")
    for t in traced:
        out.write("\n" + text_block(t) + "\n")
    return 0
