"""Stage ``agreement``: Table 4 from the annotators' files and the LLM filter's scores.

Params: ``base.seed``, ``annotation.accept_threshold``, ``annotation.agreement``.
Reads the packets' manifest, every ``<annotator>.jsonl`` in the ratings directory and
the filter scores in qa_candidates; writes the Table 4 CSV and Markdown and the metrics
JSON. With no annotation file yet it writes a report that says so (and which packets
await annotation) and no statistic; with invalid files it fails listing every
offending row.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.annotation.agreement import compute_agreement
from prescient.annotation.agreement_report import awaiting_report
from prescient.annotation.annotators import load_ratings
from prescient.annotation.ratings import AnnotationError, ratings_files
from prescient.annotation.sample import scored_candidates
from prescient.annotation.settings import TableSettings, load_annotation_settings
from prescient.plumbing.stage import DONE, BadInput, StageRun, entry, reworded
from prescient.settings import section
from prescient.vocab import PRINCIPLES

logger = logging.getLogger("stages.agreement")


def write_outputs(
    table: pd.DataFrame, markdown: str, metrics: dict[str, object], args: argparse.Namespace
) -> None:
    with io.atomic_open(args.table_csv) as fh:
        table.to_csv(fh, index=False, float_format="%.6f", lineterminator="\n")
    with io.atomic_open(args.table_md) as fh:
        fh.write(markdown)
    io.write_json(args.metrics, metrics)


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--packets", required=True, help="the packets directory")
    ap.add_argument("--ratings", required=True, help="the annotators' ratings directory")
    ap.add_argument("--candidates", required=True, help="qa_candidates (parquet)")
    ap.add_argument("--table-csv", required=True, help="Table 4 (CSV)")
    ap.add_argument("--table-md", required=True, help="Table 4 (Markdown)")
    ap.add_argument("--metrics", required=True, help="agreement metrics (JSON)")


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    settings = load_annotation_settings(TableSettings, p)
    seed = int(section(p, "base.seed"))
    manifest = json.loads((Path(args.packets) / "manifest.json").read_text(encoding="utf-8"))
    item_ids: list[str] = list(manifest["item_ids"])
    ratings_dir = Path(args.ratings)
    files = ratings_files(ratings_dir)
    found = [f.name.removesuffix(".jsonl") for f in files]

    if not files:
        metrics, markdown, table = awaiting_report(manifest, found, str(ratings_dir))
        write_outputs(table, markdown, metrics, args)
        logger.warning(
            "no annotation file in %s: %d packets await annotation; no statistic reported",
            ratings_dir,
            len(metrics["packets_awaiting"]),
        )
        return DONE

    try:
        annotators = load_ratings(ratings_dir, item_ids)
    except AnnotationError as exc:  # every offending row, one line each
        raise BadInput(exc.summary, *(f"  {problem}" for problem in exc.problems)) from exc

    scored = scored_candidates(pd.read_parquet(args.candidates))
    llm_scores = scored.set_index("question_id")[list(PRINCIPLES)]
    with reworded("{} (were the packets drawn from another qa_candidates?)"):
        result = compute_agreement(annotators, item_ids, llm_scores, settings, seed)
    metrics = result.metrics()
    metrics["packets_awaiting"] = [a for a in manifest["annotators"] if a not in set(found)]
    write_outputs(result.table(), result.markdown(), metrics, args)
    logger.info(
        "%d annotators, %d items (%d rated by all): mean Fleiss' kappa %s, mean accuracy %s, "
        "accept-decision accuracy %s",
        len(annotators),
        result.n_items,
        result.n_items_complete,
        f"{result.kappa_average:.3f}",
        f"{result.accuracy_average:.3f}",
        f"{result.decision_accuracy:.3f}",
    )
    return DONE


main = entry("agreement", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
