"""Stage ``analyze``: accuracy over time, Table 3, Fig. 6 slopes, FreshBench tests and
dataset statistics, from a scores table.

Params: ``base.seed``, ``analysis`` (``analysis.scores`` is the scores table, so results
produced elsewhere are analysed with ``-S analysis.scores=path.parquet``) and ``models``
(knowledge cutoffs and release dates).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io, params
from prescient.analysis.pipeline import MARKDOWN_NAMES, TABLE_NAMES, run_analysis
from prescient.analysis.schema import ScoresSchemaError
from prescient.analysis.settings import AnalysisSettings
from prescient.report.tables import markdown_document

logger = logging.getLogger("stages.analyze")


def _read_optional(path: Path, what: str) -> pd.DataFrame | None:
    if path.exists():
        return pd.read_parquet(path)
    logger.warning("%s %s not found: the statistics that need it are left empty", what, path)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--scores", default=None, help="scores table (default: analysis.scores)")
    ap.add_argument("--questions", default="data/processed/questions.parquet")
    ap.add_argument("--articles", default="data/interim/articles.parquet")
    ap.add_argument("--tables", default="reports/tables")
    ap.add_argument("--metrics", default="reports/metrics/analysis.json")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    p = params.load(args.params)
    settings = AnalysisSettings.from_params(p.get("analysis") or {}, p["base"]["seed"])
    scores_path = Path(args.scores or p["analysis"]["scores"])
    if not scores_path.exists():
        logger.error("scores table %s not found (set analysis.scores or --scores)", scores_path)
        return 2
    raw = pd.read_parquet(scores_path)
    questions = _read_optional(Path(args.questions), "questions table")
    articles = _read_optional(Path(args.articles), "articles table")
    try:
        result = run_analysis(raw, questions, articles, p.get("models"), settings)
    except ScoresSchemaError as exc:
        logger.error("%s: %s", scores_path, exc)
        return 2

    tables = dict(result.tables)
    tables["notes"] = pd.DataFrame({"note": result.notes}, columns=["note"])
    provenance = {
        "scores_path": str(scores_path),
        "scores_checksum": io.frame_checksum(raw),
        "scores_rows": str(len(raw)),
        "questions_checksum": io.frame_checksum(questions) if questions is not None else "",
    }
    tables["provenance"] = pd.DataFrame(
        {"key": list(provenance), "value": list(provenance.values())}
    )
    out_dir = Path(args.tables)
    for name in TABLE_NAMES:
        with io.atomic_open(out_dir / f"{name}.csv") as fh:
            tables[name].to_csv(fh, index=False, float_format="%.10g", lineterminator="\n")
    for name in MARKDOWN_NAMES:
        with io.atomic_open(out_dir / f"{name}.md") as fh:
            fh.write(markdown_document(name, tables[name]))
    io.write_json(args.metrics, result.metrics)
    logger.info(
        "analysed %d scored rows of %d models; %d tables in %s",
        result.metrics["scored_rows"],
        result.metrics["models"],
        len(TABLE_NAMES),
        out_dir,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
