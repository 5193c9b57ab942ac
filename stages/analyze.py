"""Stage ``analyze``: the shared analysis of a scores table (accuracy per cell and over
time, proper scores, accuracy by forecast horizon, dataset statistics) and each
benchmark's own (found through :mod:`prescient.benchmarks.registry`: Daily Oracle's
Table 3, headline and Fig. 6 slopes, FreshBench's tests, ...).

Params: ``base.seed``, ``analysis`` and ``models`` (knowledge cutoffs and release dates).
dvc.yaml passes ``analysis.scores``, ``analysis.questions``, ``analysis.articles`` and
``analysis.candidates`` as ``--scores``, ``--questions``, ``--articles`` and
``--candidates``: by default the pipeline's scores, the evaluated question table, the
corpus and the construct stage's candidates (the construction funnel). A scores table produced elsewhere is analysed
alone with ``-S analysis_inputs=scores_file -S analysis.scores=path.parquet``: an input
naming the scores file itself is not read again (the scores table's own columns describe
its questions; there is no corpus), so DVC runs nothing upstream. Writes one directory
of tables (CSV, plus Markdown copies of the paper's tables), the metrics file (keyed by
model and cell), the summary (``--summary``: each model's accuracy and proper scores
per setting under keys that hold no swept value, :mod:`prescient.analysis.compare`, so
experiments line up in ``dvc exp show``), the dated RAG setting's cutoff with each
model's TF Brier score there (``--rag``, one short column per model in ``dvc exp
show``) and the DVC plot data
(``--plots``: CSVs that ``dvc plots diff`` overlays across experiments). Each benchmark
validates its own sections of ``analysis``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import logging
import sys
from pathlib import Path

import pandas as pd

from prescient import io
from prescient.analysis.parts import ARTICLE_COLUMNS, BenchmarkAnalysis
from prescient.analysis.pipeline import AnalysisResult, load_all, run_analysis, table_names
from prescient.benchmarks import registry
from prescient.kept import CHECKSUMS, KeptChecksums, KeptStore
from prescient.page.contents import markdown_tables
from prescient.plumbing.locations import dvc_cache_dir
from prescient.plumbing.stage import BAD_INPUT, DONE, StageRun, entry, reworded
from prescient.report.tables import markdown_document

logger = logging.getLogger("stages.analyze")

STORE = "analysis"
"""The analysis's kept work under DVC's cache directory: each day's near-duplicate flags
of the evaluated questions and the monthly proper scores' rows."""


def _read_optional(
    path: Path, scores: Path, what: str, columns: tuple[str, ...] | None = None
) -> pd.DataFrame | None:
    """The table at ``path`` (only ``columns`` of it, those it has, when given); None when
    it names the scores file (the scores table stands in for it) or is absent (the
    statistics that need it say so)."""
    if path.resolve() == scores.resolve():
        logger.info("%s: the scores table (its own columns stand in)", what)
        return None
    if path.exists():  # a file, or a table's directory of parts (prescient.io.table_files)
        if columns is None:
            return io.read_table(path)
        present = set(io.table_columns(path))
        return io.read_table(path, columns=[c for c in columns if c in present])
    logger.warning("%s %s not found: the statistics that need it are left empty", what, path)
    return None


def _write_tables(
    out_dir: Path,
    result: AnalysisResult,
    provenance: dict[str, str],
    parts: tuple[BenchmarkAnalysis, ...],
) -> None:
    tables = dict(result.tables)
    tables["notes"] = pd.DataFrame({"note": result.notes}, columns=["note"])
    tables["provenance"] = pd.DataFrame(
        {"key": list(provenance), "value": list(provenance.values())}
    )
    with io.atomic_dir(out_dir) as tmp:
        for name in table_names(parts):
            with io.atomic_open(tmp / f"{name}.csv") as fh:
                tables[name].to_csv(fh, index=False, float_format="%.10g", lineterminator="\n")
        for spec in markdown_tables():
            if spec.name not in tables:
                continue
            with io.atomic_open(tmp / f"{spec.name}.md") as fh:
                fh.write(markdown_document(spec, tables[spec.name]))


def options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--scores", required=True, help="the scores table (analysis.scores)")
    ap.add_argument("--questions", required=True, help="questions table (may be absent)")
    ap.add_argument("--articles", required=True, help="ingested articles (may be absent)")
    ap.add_argument(
        "--candidates",
        required=True,
        help="the construct stage's candidates table (may be absent, or the scores file)",
    )
    ap.add_argument("--tables", required=True, help="output directory of the tables")
    ap.add_argument("--metrics", required=True, help="output metrics JSON")
    ap.add_argument("--summary", required=True, help="output summary metrics JSON")
    ap.add_argument(
        "--rag", required=True, help="output JSON: the dated RAG cutoff, each model's TF Brier"
    )
    ap.add_argument("--plots", required=True, help="output directory of the DVC plot data")


def _corpus_checksum(path: str) -> str:
    """The article table's checksum, kept by its bytes in DVC's cache directory when the
    project has one (ingest records it as it writes the table,
    :class:`prescient.kept.KeptChecksums`); the same checksum either way."""
    store = KeptStore.in_cache(dvc_cache_dir(), CHECKSUMS)
    return io.parquet_checksum(path) if store is None else KeptChecksums(store).checksum(path)


def work(run: StageRun) -> int:
    args, p = run.args, run.params
    parts = registry.analyses()
    settings, seed, _ = load_all(p, parts)  # before any input is read
    scores_path = Path(args.scores)
    if not scores_path.exists():
        logger.error("scores table %s not found (set analysis.scores)", scores_path)
        return BAD_INPUT
    raw = pd.read_parquet(scores_path)
    questions = _read_optional(Path(args.questions), scores_path, "questions table")
    articles = _read_optional(Path(args.articles), scores_path, "articles table", ARTICLE_COLUMNS)
    candidates = _read_optional(Path(args.candidates), scores_path, "candidates table")
    with concurrent.futures.ThreadPoolExecutor(1) as aside:
        # the corpus's checksum reads the article file, nothing the analysis touches, so
        # it is computed beside the analysis (mostly reading and hashing, on another core),
        # and so are the inputs' checksums, of shallow copies taken now (copy-on-write:
        # nothing the analysis does to its frames reaches them)
        corpus = aside.submit(_corpus_checksum, args.articles) if articles is not None else None
        scores_checksum = aside.submit(io.frame_checksum, raw.copy(deep=False))
        questions_checksum = (
            aside.submit(io.frame_checksum, questions.copy(deep=False))
            if questions is not None
            else None
        )
        with reworded(f"{{}} (scores {scores_path}, questions {args.questions})"):
            kept = KeptStore.in_cache(dvc_cache_dir(), STORE)
            result = run_analysis(
                raw, questions, articles, p, settings, seed, candidates, parts, kept
            )
        corpus_checksum = corpus.result() if corpus is not None else ""
    provenance = {
        "scores_path": str(scores_path),
        "scores_checksum": scores_checksum.result(),
        "scores_rows": str(len(raw)),
        "questions_path": args.questions if questions is not None else "(the scores table)",
        "questions_checksum": questions_checksum.result() if questions_checksum else "",
        "corpus_checksum": corpus_checksum,
        "articles": str(len(articles)) if articles is not None else "",
        **result.provenance,
    }
    _write_tables(Path(args.tables), result, provenance, parts)
    io.write_json(args.metrics, result.metrics)
    io.write_json(args.summary, result.summary)
    io.write_json(args.rag, result.rag)
    with io.atomic_dir(Path(args.plots)) as tmp:
        for name, frame in result.plots.items():
            with io.atomic_open(tmp / f"{name}.csv") as fh:
                frame.to_csv(fh, index=False, float_format="%.10g", lineterminator="\n")
    logger.info(
        "analysed %d scored rows of %d models; %d tables in %s",
        result.metrics["scored_rows"],
        result.metrics["models"],
        len(table_names(parts)),
        args.tables,
    )
    return DONE


main = entry("analyze", __doc__, options, work)

if __name__ == "__main__":
    sys.exit(main())
