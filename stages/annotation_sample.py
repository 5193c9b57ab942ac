"""Stage ``annotation_sample``: draw the human-evaluation sample and write the packets.

Params: ``base.seed``, ``annotation.annotators``, ``annotation.accept_threshold``,
``annotation.sample``. Writes, under ``--out`` (data/annotations/packets/):
``manifest.json`` (items, sample accounting), ``rubric.json`` and ``rubric.md`` (the
filter's rubric), and per annotator ``<name>.jsonl`` and ``<name>.csv``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd

from prescient import io, params
from prescient.annotation.principles import PRINCIPLES, load_rubric
from prescient.annotation.sample import (
    SampleSettings,
    build_items,
    draw_sample,
    manifest,
    packet_csv,
    packet_jsonl,
    packet_order,
)

logger = logging.getLogger("stages.annotation_sample")


def write_packets_dir(out: Path, files: dict[str, str]) -> None:
    """Write all packet files into a fresh directory and swap it in at the end.

    A killed run leaves the previous packets untouched (never a mix of old and new).
    The CSVs get a UTF-8 byte-order mark so spreadsheet programs detect the encoding.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; packets are shared with annotators
    try:
        for name, text in files.items():
            encoding = "utf-8-sig" if name.endswith(".csv") else "utf-8"
            with open(tmp / name, "w", encoding=encoding, newline="") as fh:
                fh.write(text)
        old = out.with_name(f".{out.name}.old")
        if old.exists():
            shutil.rmtree(old)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
        if old.exists():
            shutil.rmtree(old)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--candidates", default="data/interim/qa_candidates.parquet")
    ap.add_argument("--articles", default="data/interim/articles.parquet")
    ap.add_argument(
        "--rubric",
        default="conf/prompts/construct/filter.yaml",
        help="the LLM filter's prompt template: annotators get the same rubric",
    )
    ap.add_argument("--out", default="data/annotations/packets")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    try:
        settings = SampleSettings.from_params(p["annotation"], p["base"]["seed"])
        candidates = pd.read_parquet(args.candidates)
        articles = pd.read_parquet(args.articles)
        rubric = load_rubric(args.rubric)
        sample, report = draw_sample(candidates, settings)
        items = build_items(sample, articles)
    except (ValueError, KeyError) as exc:  # RubricError is a ValueError
        logger.error("cannot write the annotation packets: %s", exc)
        return 2

    files: dict[str, str] = {}
    for annotator in settings.annotators:
        ordered = packet_order(items, annotator, settings)
        files[f"{annotator}.jsonl"] = packet_jsonl(ordered)
        files[f"{annotator}.csv"] = packet_csv(ordered)
    files["rubric.json"] = json.dumps(rubric.to_dict(), indent=2, ensure_ascii=False) + "\n"
    files["rubric.md"] = rubric.to_markdown()
    # Checksum of the columns the sample depends on (frame_checksum cannot hash the list
    # column ``choices``): ties the packets, and so the ratings, to the scored candidates.
    scored_cols = [c for c in ("question_id", "qtype", *PRINCIPLES) if c in candidates.columns]
    rubric_ref = {"source": rubric.source, "template": rubric.template}
    man = manifest(items, report, settings, rubric_ref, io.frame_checksum(candidates[scored_cols]))
    files["manifest.json"] = json.dumps(man, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_packets_dir(Path(args.out), files)

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
