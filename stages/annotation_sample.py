"""Stage ``annotation_sample``: draw the human-evaluation sample and write the packets.

Params: ``base.seed``, ``annotation.annotators``, ``annotation.accept_threshold``,
``annotation.sample``. Writes, under ``--out``: ``manifest.json`` (items, sample
accounting), ``rubric.json`` and ``rubric.md`` (the filter's rubric), and per annotator
``<name>.jsonl`` and ``<name>.csv``; the directory is replaced as a whole.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.annotation.principles import load_rubric
from prescient.annotation.sample import build_items, draw_sample, packet_files, write_packets
from prescient.annotation.settings import PacketSettings, load_annotation_settings
from prescient.plumbing.stage import DONE, StageRun, entry, reworded
from prescient.settings import section

logger = logging.getLogger("stages.annotation_sample")


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--candidates", required=True, help="qa_candidates (parquet)")
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument(
        "--rubric",
        required=True,
        help="the LLM filter's prompt template: annotators get the same rubric",
    )
    ap.add_argument("--out", required=True, help="the packets directory")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    # RubricError is a ValueError; a KeyError names a column the candidates lack.
    with reworded("cannot write the annotation packets: {}", also=(KeyError,)):
        settings = load_annotation_settings(PacketSettings, p)
        seed = int(section(p, "base.seed"))
        candidates = pd.read_parquet(args.candidates)
        rubric = load_rubric(args.rubric)
        sample, report = draw_sample(candidates, settings, seed)
        # Only the sampled questions' articles are read, never the whole corpus.
        cited = io.read_parquet_where(args.articles, "article_id", sample["article_id"].astype(str))
        items = build_items(sample, cited)
    write_packets(Path(args.out), packet_files(items, report, settings, seed, rubric, candidates))

    drawn = report.to_dict()
    logger.info(
        "%d items (%s) from %d scored of %d candidates; %d packets in %s%s",
        drawn["n_items"],
        ", ".join(f"{q}: {d}" for q, d in report.drawn.items()),
        report.candidates_scored,
        report.candidates_total,
        len(settings.annotators),
        args.out,
        f"; SHORTFALL {report.shortfall}" if report.shortfall else "",
    )
    return DONE


main = entry("annotation_sample", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
