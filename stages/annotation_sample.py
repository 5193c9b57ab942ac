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

from prescient import params
from prescient.annotation.principles import load_rubric
from prescient.annotation.sample import build_items, draw_sample, packet_files, write_packets
from prescient.annotation.settings import PacketSettings, load_annotation_settings
from prescient.settings import ParamsError, section

logger = logging.getLogger("stages.annotation_sample")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--candidates", required=True, help="qa_candidates (parquet)")
    ap.add_argument("--articles", required=True, help="the ingested articles (parquet)")
    ap.add_argument(
        "--rubric",
        required=True,
        help="the LLM filter's prompt template: annotators get the same rubric",
    )
    ap.add_argument("--out", required=True, help="the packets directory")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    try:
        settings = load_annotation_settings(PacketSettings, p)
        seed = int(section(p, "base.seed"))
        candidates = pd.read_parquet(args.candidates)
        rubric = load_rubric(args.rubric)
        sample, report = draw_sample(candidates, settings, seed)
        items = build_items(sample, pd.read_parquet(args.articles))
    except (ParamsError, ValueError, KeyError) as exc:  # RubricError is a ValueError
        logger.error("cannot write the annotation packets: %s", exc)
        return 2
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
