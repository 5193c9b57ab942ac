"""Stage ``plot``: the paper's figures as PNG files (DVC plots) from the analysis tables."""

from __future__ import annotations

import argparse
import logging
import sys

from prescient import io
from prescient.analysis.pipeline import TABLE_NAMES
from prescient.report.figures import FIGURES
from prescient.report.tables import read_tables

logger = logging.getLogger("stages.plot")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tables", required=True, help="directory of the analysis tables")
    ap.add_argument("--out", required=True, help="output directory of the figures")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    tables = read_tables(args.tables, TABLE_NAMES)
    if not tables:
        logger.error("no tables in %s: run the analyze stage first", args.tables)
        return 2
    with io.atomic_dir(args.out) as tmp:
        for spec in FIGURES:
            (tmp / f"{spec.name}.png").write_bytes(spec.png(tables))
            logger.info("drew %s", spec.name)
    logger.info("wrote %d figures to %s", len(FIGURES), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
