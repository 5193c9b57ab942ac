"""Stage ``plot``: the report's figures as PNG files (DVC plots) from the analysis tables,
the BPC tables and OpenForecast's tables.

The figures are drawn on as many processes as the stage's threads
(``PRESCIENT_THREADS``; :mod:`prescient.page.drawing`), the same bytes as one by one.
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
from prescient.page.drawing import draw_figures
from prescient.plumbing.stage import BAD_INPUT, DONE, StageRun, entry
from prescient.threads import thread_count

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
    names = [
        spec.name
        for spec in report_figures()
        if spec.part not in inputs.absent and spec.drawable(inputs.tables)
    ]
    with io.atomic_dir(args.out) as tmp:
        for name, png in draw_figures(args, inputs, names, thread_count()):
            (tmp / f"{name}.png").write_bytes(png)
            logger.info("drew %s", name)
    logger.info("wrote %d figures to %s", len(names), args.out)
    return DONE


main = entry("plot", __doc__, options, work, with_params=False)

if __name__ == "__main__":
    sys.exit(main())
