"""Stage ``plot``: the report's figures as PNG files (DVC plots) from the analysis tables,
the BPC tables and OpenForecast's tables.

A directory holding none of a part's tables (``analysis.bpc`` or
``analysis.openforecast`` pointing elsewhere, as an imported benchmark's preset does)
leaves that part out of the run: its figures are not drawn.
"""

from __future__ import annotations

import argparse
import logging
import sys

from prescient import io
from prescient.page.contents import input_options, read_stage_inputs, report_figures
from prescient.plumbing.stage import BAD_INPUT, DONE, StageRun, entry

logger = logging.getLogger("stages.plot")


def options(ap: argparse.ArgumentParser) -> None:
    input_options(ap)
    ap.add_argument("--out", required=True, help="output directory of the figures")


def work(run: StageRun) -> int:
    args = run.args
    inputs = read_stage_inputs(args)
    if "provenance" not in inputs.tables:
        logger.error("no analysis tables in %s: run the analyze stage first", args.tables)
        return BAD_INPUT
    for line in inputs.absent.values():
        logger.info("%s", line)
    drawn = 0
    with io.atomic_dir(args.out) as tmp:
        for spec in report_figures():
            if spec.part in inputs.absent or not spec.drawable(inputs.tables):
                continue
            (tmp / f"{spec.name}.png").write_bytes(spec.png(inputs.tables))
            drawn += 1
            logger.info("drew %s", spec.name)
    logger.info("wrote %d figures to %s", drawn, args.out)
    return DONE


main = entry("plot", __doc__, options, work, with_params=False)

if __name__ == "__main__":
    sys.exit(main())
