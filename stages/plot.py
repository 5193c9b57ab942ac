"""Stage ``plot``: the paper's figures as PNG files (DVC plots) from reports/tables."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from prescient import io
from prescient.analysis.pipeline import TABLE_NAMES
from prescient.report.figures import FIGURES
from prescient.report.tables import read_tables

logger = logging.getLogger("stages.plot")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tables", default="reports/tables")
    ap.add_argument("--out", default="reports/figures")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    tables = read_tables(args.tables, TABLE_NAMES)
    if not tables:
        logger.error("no tables in %s: run the analyze stage first", args.tables)
        return 2
    for spec in FIGURES:
        fig = spec.draw(tables)
        # No "Software" metadata: identical inputs give byte-identical PNGs.
        with io.atomic_path(Path(args.out) / f"{spec.name}.png") as tmp:
            fig.savefig(tmp, format="png", metadata={"Software": None})
        logger.info("wrote %s", spec.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
