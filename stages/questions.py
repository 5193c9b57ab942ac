"""Stage ``questions`` (one per source, a DVC foreach): read, validate and normalise one
question source into the evaluated table's schema.

Params: ``questions.sources.<name>`` only, so editing one source's mapping re-reads only
that source. dvc.yaml names the source's file as the stage's dependency, which is what
makes the stage that writes it (``construct`` for Daily Oracle's questions) run first,
and nothing else: importing a benchmark file runs no construction.

Output: ``--out``, the normalised table (prescient.evaluation.question_sources.SOURCE_SCHEMA).
A bad mapping or bad rows stop the stage (exit 2) with one message listing every
offending row.
"""

from __future__ import annotations

import argparse
import logging
import sys

from prescient import io
from prescient.evaluation.question_sources import load_source_settings
from prescient.evaluation.questions import load_source
from prescient.plumbing.locations import resolve
from prescient.plumbing.stage import DONE, StageRun, entry

logger = logging.getLogger("stages.questions")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--source", required=True, help="the source's name (questions.sources)")
    ap.add_argument("--out", required=True, help="the normalised questions (parquet)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    source = load_source_settings(p, args.source)
    table = load_source(args.source, source, resolve(source.path))
    io.write_parquet(args.out, table)
    return DONE


main = entry("questions", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
