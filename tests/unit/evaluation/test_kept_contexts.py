"""Partitions' context files kept between runs (:mod:`prescient.evaluation.kept_contexts`):
with an empty store, a full one or one of fewer partitions, every partition's file and the
metrics are the bytes and numbers built from scratch; a kept partition's articles are not
read; written a partition at a time, the files are those of the tables split afterwards."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from prescient.corpus.normalize import TEXT_DIGEST, text_hash
from prescient.evaluation import contexts
from prescient.evaluation.kept_contexts import KeptContexts, PartitionWriter, kept_settings
from prescient.evaluation.partitions import assign, rows_of
from prescient.evaluation.prepare import prepare_contexts
from prescient.evaluation.settings import EvalSettings
from prescient.kept import KeptStore
from prescient.plumbing import params
from prescient.settings import load_settings
from tests.conftest import ROOT
from tests.unit.retrieval.test_retrieval_search import WORDS, shipped
from tests.unit.retrieval.test_reuse import START, corpus

MONTHS = ("2024-01", "2024-02", "2024-03", "2024-04")


def grid() -> EvalSettings:
    p = params.compose(
        ROOT,
        [
            "eval.settings=[closed_book,gold,rag_dynamic,rag_2024-02-10]",
            f"eval.partitions=[{','.join(MONTHS)}]",
        ],
    )
    p["eval"]["elicitation_max_questions"] = {}  # a sample of the whole table: not here
    return load_settings(EvalSettings, p, "eval")


def question_table(days: int) -> pd.DataFrame:
    rows = [
        {
            "question_id": f"q{d:03d}",
            "question": f"Will the {WORDS[d % len(WORDS)]} w{d - 3} v{d % 5} continue?",
            "qtype": "TF",
            "resolution_date": START + dt.timedelta(days=d),
            "forecast_date": None,
            "article_id": f"d{d - 1:03d}-0",
            "gold_url": None,
            "source": "daily_oracle",
            "source_path": "questions.parquet",
            "source_checksum": f"sha256 of the source with {days} days",
        }
        for d in range(3, days, 2)
    ]
    return pd.DataFrame(rows)


def articles_file(tmp_path: Path, days: int) -> Path:
    df = corpus(np.random.default_rng(5), days)
    df[TEXT_DIGEST] = [text_hash(t) for t in df["text"]]
    df = df.sort_values(["date", "article_id"]).reset_index(drop=True)
    path = tmp_path / f"articles-{days}.parquet"
    df.to_parquet(path, index=False, row_group_size=9)
    return path


def run(
    tmp_path: Path, name: str, days: int, store: KeptStore | None, files: Path | None = None
) -> tuple[dict[str, bytes], dict[str, Any], KeptContexts | None]:
    """The partitions' files and the metrics of a run over ``days`` days (``files``: a
    cache of files by MD5 in DVC's layout)."""
    g, s = grid(), shipped()
    questions = question_table(days)
    of = assign(questions["resolution_date"], g.partitions)
    partition_of = dict(zip(questions["question_id"].astype(str), of, strict=True))
    out = tmp_path / name
    kept = KeptContexts(store, kept_settings(s, g), files) if store is not None else None
    prepared = prepare_contexts(
        questions,
        articles_file(tmp_path, days),
        s,
        g,
        partitions=rows_of(of, g.partitions),
        writer=PartitionWriter(out, partition_of),
        kept=kept,
    )
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.parquet"))}
    return files, prepared.metrics, kept


def test_kept_partitions_give_the_same_files_and_metrics_and_skip_their_articles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, metrics, _ = run(tmp_path, "plain", 70, None)
    assert len(files) == len(MONTHS) * 4
    assert metrics["settings"]["rag_dynamic"]["questions_with_context"] > 0
    store = KeptStore(tmp_path / "store")
    for n, (reused, built) in enumerate([(0, 4), (4, 0)]):
        again, again_metrics, kept = run(tmp_path, f"kept{n}", 70, store)
        assert again == files and again_metrics == metrics
        assert kept is not None and (kept.reused, kept.built) == (reused, built)
    read = contexts.shown_articles

    def shown(path: Any, ids: Any, whole: Any, max_words: Any) -> pd.DataFrame:
        assert not ids, "a kept partition's articles were read"
        return read(path, ids, whole, max_words)

    monkeypatch.setattr(contexts, "shown_articles", shown)
    again, again_metrics, _ = run(tmp_path, "kept2", 70, store)
    assert again == files and again_metrics == metrics


def test_a_grown_question_set_builds_only_the_partitions_it_changed(tmp_path: Path) -> None:
    store = KeptStore(tmp_path / "store")
    run(tmp_path, "before", 50, store)  # questions through 2024-03-09
    files, metrics, _ = run(tmp_path, "plain", 70, None)
    again, again_metrics, kept = run(tmp_path, "after", 70, store)
    assert again == files and again_metrics == metrics
    # January's and February's questions and articles are the same (and April's: none);
    # March gained questions
    assert kept is not None and kept.reused == 3 and kept.built == 1


def test_written_a_partition_at_a_time_the_files_are_the_split_tables(tmp_path: Path) -> None:
    g, s = grid(), shipped()
    questions = question_table(70)
    path = articles_file(tmp_path, 70)
    of = assign(questions["resolution_date"], g.partitions)
    whole = prepare_contexts(questions, path, s, g)
    files, metrics, _ = run(tmp_path, "split", 70, None)
    assert metrics["settings"] == whole.metrics["settings"]
    for name, table in whole.contexts.items():
        label_of = (
            table["question_id"]
            .astype(str)
            .map(dict(zip(questions["question_id"].astype(str), of, strict=True)))
        )
        for label in MONTHS:
            got = pd.read_parquet(pd.io.common.BytesIO(files[f"{label}/contexts/{name}.parquet"]))
            want = table.loc[(label_of == label).to_numpy()].reset_index(drop=True)
            pd.testing.assert_frame_equal(got, want, check_dtype=False)


def save_like_dvc(out: Path, files: Path) -> None:
    """Every file under ``out`` into a cache of files by MD5, as DVC saves outputs."""
    for path in out.rglob("*.parquet"):
        md5 = hashlib.md5(path.read_bytes()).hexdigest()
        (files / md5[:2]).mkdir(parents=True, exist_ok=True)
        (files / md5[:2] / md5[2:]).write_bytes(path.read_bytes())


def test_with_dvcs_cache_a_part_keeps_the_files_md5_and_reads_the_bytes_there(
    tmp_path: Path,
) -> None:
    files, metrics, _ = run(tmp_path, "plain", 70, None)
    store, cache = KeptStore(tmp_path / "store"), tmp_path / "files" / "md5"
    run(tmp_path, "first", 70, store, cache)
    stored = sum(p.stat().st_size for p in (tmp_path / "store").rglob("*") if p.is_file())
    assert stored < sum(len(b) for b in files.values()) / 4  # digests, not the files
    # not yet saved by DVC: nothing is reused
    again, _, kept = run(tmp_path, "unsaved", 70, store, cache)
    assert again == files and kept is not None and kept.reused == 0
    save_like_dvc(tmp_path / "unsaved", cache)
    again, again_metrics, kept = run(tmp_path, "saved", 70, store, cache)
    assert again == files and again_metrics == metrics
    assert kept is not None and (kept.reused, kept.built) == (4, 0)
    # a file gone from DVC's cache, another one altered: their partitions are built
    gone, altered = sorted(p for p in cache.rglob("*") if p.is_file())[:2]
    gone.unlink()
    altered.chmod(0o644)
    altered.write_bytes(altered.read_bytes()[:-1] + b"X")
    again, again_metrics, kept = run(tmp_path, "damaged", 70, store, cache)
    assert again == files and again_metrics == metrics
    assert kept is not None and kept.built in (1, 2) and kept.reused == 4 - kept.built
