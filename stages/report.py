"""Stage ``report``: reports/index.html, one self-contained page with what was run, the
headline table, every part's figures and tables (Daily Oracle, FreshBench with BPC,
OpenForecast, the dataset) and the run's provenance."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from prescient import io
from prescient.page.build import build_report
from prescient.page.contents import input_options, read_stage_inputs, report_figures
from prescient.plumbing.stage import DONE, StageRun, entry

logger = logging.getLogger("stages.report")


def options(ap: argparse.ArgumentParser) -> None:
    input_options(ap)
    ap.add_argument("--figures", required=True, help="directory of the figures")
    ap.add_argument("--out", required=True, help="the HTML page to write")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    inputs = read_stage_inputs(args)
    figures: dict[str, bytes | None] = {}
    for spec in report_figures():
        if spec.part in inputs.absent:
            continue
        path = Path(args.figures) / f"{spec.name}.png"
        figures[spec.name] = path.read_bytes() if path.exists() else None
        if not path.exists():
            logger.warning("figure %s missing: the page says so in its place", path)
    page = build_report(inputs, figures, p)
    with io.atomic_open(args.out) as fh:
        fh.write(page)
    logger.info("wrote %s (%.1f kB)", args.out, len(page.encode()) / 1024)
    return DONE


main = entry("report", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
