"""Stage ``questions`` (one per source, a DVC foreach): read, validate and normalise one
question source into the evaluated table's schema.

Params: ``questions.sources.<name>`` only, so editing one source's mapping re-reads only
that source. dvc.yaml names the source's file as the stage's dependency, which is what
makes the stage that writes it (``construct`` for Daily Oracle's questions) run first,
and nothing else: importing a benchmark file runs no construction.

Output: ``--out``, the normalised table (prescient.evaluation.questions.SOURCE_SCHEMA).
A bad mapping or bad rows stop the stage (exit 2) with one message listing every
offending row.
"""

from __future__ import annotations

import argparse
import logging
import sys

from prescient import io, params
from prescient.evaluation.questions import (
    QuestionTableError,
    load_source,
    load_source_settings,
)
from prescient.locations import LocationError, resolve
from prescient.settings import ParamsError

logger = logging.getLogger("stages.questions")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--source", required=True, help="the source's name (questions.sources)")
    ap.add_argument("--out", required=True, help="the normalised questions (parquet)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    try:
        source = load_source_settings(p, args.source)
        table = load_source(args.source, source, resolve(source.path))
    except (ParamsError, LocationError, QuestionTableError) as exc:
        logger.error("%s", exc)
        return 2
    io.write_parquet(args.out, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
