"""Stage ``crawl@ccnews``: download the CC-NEWS WARC files of the configured date range.

Params: ``crawl`` and ``base.through`` (the last publication day wanted, on top of
``crawl.date_end``). Writes the files and their manifest (``manifest.jsonl``: size and
sha256 of every file) into ``--out``, and the crawl's summary to ``--metrics``. Killed
and started again, it downloads only what is missing. Exits 1 when a file failed after
every retry (the manifest records what completed and why the rest failed), 2 on bad
parameters or listings that cannot be fetched.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from prescient import io
from prescient.crawl.run import crawl
from prescient.crawl.settings import CrawlSettings
from prescient.plumbing.stage import DONE, PARTIAL, StageRun, entry
from prescient.settings import load_settings
from prescient.through import read_through

logger = logging.getLogger("stages.crawl")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--out", required=True, help="directory of the WARC files and manifest")
    ap.add_argument("--metrics", required=True, help="crawl summary (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    settings = load_settings(CrawlSettings, p, "crawl").bounded(read_through(p))
    report = crawl(settings, Path(args.out))
    io.write_json(args.metrics, report.metrics())
    files = report.metrics()["files"]
    rate = report.fetched_bytes / report.seconds / 1e6 if report.seconds else 0.0
    logger.info(
        "%d of %d files complete (%.2f GB; %d were already complete; %.1f MB received "
        "at %.1f MB/s)",
        files["complete"],
        len(report.rows),
        files["bytes"] / 1e9,
        report.reused,
        report.fetched_bytes / 1e6,
        rate,
    )
    for row in report.failed:
        logger.error("%s: %s", row.file, row.reason or row.status)
    if report.failed:
        logger.error(
            "%d files failed; run the stage again to retry them (completed files are kept)",
            len(report.failed),
        )
        return PARTIAL
    return DONE


main = entry("crawl", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
