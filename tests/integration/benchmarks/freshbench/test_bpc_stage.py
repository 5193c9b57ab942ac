"""The ``bpc`` stage end to end with scripted scorers: outputs, ledger reuse, failures,
exact reruns."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from prescient.llm.ledger import read_entries
from prescient.llm.scripted import register_logprob_script
from prescient.plumbing.llm_cli import audit, verify
from tests.support.bpc import DAYS, outputs, params_file, run
from tests.support.bpc import articles as make_articles

CALLS: Counter[str] = Counter()
BROKEN: set[str] = set()


def words(text: str) -> list[tuple[str, float | None]]:
    """Word tokens, each with probability 1/4 (two bits)."""
    CALLS[text[:40]] += 1
    if any(text.startswith(b) for b in BROKEN):
        raise RuntimeError("scripted failure")
    return [(w, -math.log(4)) for w in re.findall(r"\s*\S+", text)]


register_logprob_script("words", words)


def test_stage_scores_tabulates_and_reruns_from_the_ledger(tmp_path: Path) -> None:
    CALLS.clear()
    articles = make_articles(tmp_path / "articles.parquet")
    pf = params_file(tmp_path)
    assert run(tmp_path, "one", articles, pf) == 0
    assert sum(CALLS.values()) == 5  # 2 + 1 + 2 documents in three buckets with articles

    docs = pd.read_parquet(tmp_path / "one" / "bpc_docs.parquet")
    assert len(docs) == 5 and set(docs["status"]) == {"ok"}
    assert list(docs["bucket"]) == ["2024-01", "2024-01", "2024-03", "2024-07", "2024-07"]
    # Two bits per word token: BPC = 2 * tokens / characters, exactly.
    assert docs["bpc"].tolist() == pytest.approx((2 * docs["n_tokens"] / docs["n_chars"]).tolist())
    # Texts over 150 characters are cut there; every token of what is left is scored,
    # in segments of 7 tokens (a context of 8: the lead and 7).
    assert (docs["truncated"] == (docs["text_chars"] > 150)).all()
    whole, cut = docs[~docs["truncated"]], docs[docs["truncated"]]
    assert len(whole) and (whole["n_chars"] == whole["text_chars"]).all()
    assert len(cut) and (cut["n_chars"] == 150).all()
    assert (docs["n_tokens"] == docs["n_text_tokens"]).all()
    assert (docs["n_segments"] == -(-docs["n_tokens"] // 7)).all()
    assert docs["n_segments"].min() >= 3
    assert set(docs["segment_start"]) == {"lead"}  # the default, recorded per document

    tables = tmp_path / "one" / "tables"
    buckets = pd.read_csv(tables / "bpc_buckets.csv")
    assert set(buckets["segment_start"]) == {"lead"}
    assert buckets["bucket"].tolist() == ["2024-01", "2024-03", "2024-05", "2024-07"]
    assert buckets["n_docs"].tolist() == [2, 1, 0, 2]
    assert math.isnan(buckets["bpc"].iloc[2])  # a gap, never 0
    tbi = pd.read_csv(tables / "bpc_tbi.csv").set_index("span")
    assert (tbi.loc["all", "n_points"], tbi.loc["all", "n_gaps"]) == (3, 1)
    changes = pd.read_csv(tables / "bpc_release_changes.csv")
    assert changes["months_after"].tolist() == [3, 6, 9, 12]
    assert changes["base_n"].iloc[0] == 3  # 2023-11-01 .. 2024-04-30
    skipped = pd.read_csv(tables / "bpc_skipped.csv")
    assert skipped["model"].tolist() == ["gpt_4o"]
    assert "no log-probabilities of the prompt" in skipped["reason"].iloc[0]
    metrics = json.loads((tmp_path / "one" / "bpc.json").read_text())
    assert metrics["documents"]["too_short"] == 1
    assert metrics["models"]["scripted_words"]["scored"] == 5
    assert metrics["buckets_without_documents"] == 1
    assert metrics["truncated"] == len(cut)
    model = metrics["models"]["scripted_words"]
    assert model["segment_start"] == metrics["segment_start"] == "lead"
    assert (model["tokens"], model["segments"]) == (
        docs["n_tokens"].sum(),
        docs["n_segments"].sum(),
    )

    # Every entry's key is the hash of its own request; the ledger serves the rerun.
    ledger = tmp_path / "ledger" / "scripted_words.jsonl"
    assert verify([str(ledger)]) == (5, [])
    assert audit([str(ledger)]).unverifiable == 0  # every entry carries its answer's hash
    entries = {e["tags"]["article_id"]: e for e in read_entries(ledger)}
    entry = entries[cut["article_id"].iloc[0]]
    assert entry["messages"][0]["role"] == "document"
    assert len(entry["messages"][0]["content"]) == 150  # the text scored, as cut
    assert entry["params"] == {
        "purpose": "logprobs",
        "context_tokens": 8,
        "segmenting": "disjoint",
        "scorer": "scripted",
    }
    assert "timestamp" not in entry
    before = ledger.read_bytes()
    assert run(tmp_path, "two", articles, pf) == 0
    assert sum(CALLS.values()) == 5 and ledger.read_bytes() == before
    assert outputs(tmp_path, "one") == outputs(tmp_path, "two")


def test_same_inputs_give_the_same_bytes_from_scratch(tmp_path: Path) -> None:
    articles = make_articles(tmp_path / "articles.parquet")
    pf = params_file(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert run(a, "out", articles, pf) == 0
    assert run(b, "out", articles, pf) == 0
    assert outputs(a, "out") == outputs(b, "out")
    assert (a / "ledger" / "scripted_words.jsonl").read_bytes() == (
        b / "ledger" / "scripted_words.jsonl"
    ).read_bytes()


def test_failed_documents_fail_the_stage_and_only_they_are_retried(tmp_path: Path) -> None:
    """The failure rules of every model-calling stage: beyond llm.max_failed_share the
    stage exits 3 without its outputs; within it, the failed rows are kept."""
    CALLS.clear()
    articles = make_articles(tmp_path / "articles.parquet")
    pf = params_file(tmp_path)
    BROKEN.add("Story 3 ")
    try:
        assert run(tmp_path, "out", articles, pf) == 3
        assert not (tmp_path / "out" / "bpc_docs.parquet").exists()
        assert not (tmp_path / "out" / "bpc.json").exists()
        entries = list(read_entries(tmp_path / "ledger" / "scripted_words.jsonl"))
        assert [e["error"] is not None for e in entries].count(True) == 1
        assert sum(CALLS.values()) == 5
        # Tolerated (1 of 5 is 20%): the stage is done, the failed row kept.
        tolerant = params_file(tmp_path, "llm.max_failed_share=0.2")
        assert run(tmp_path, "out", articles, tolerant) == 0
        assert sum(CALLS.values()) == 6  # only the failed document is asked again
    finally:
        BROKEN.clear()
    docs = pd.read_parquet(tmp_path / "out" / "bpc_docs.parquet")
    failed = docs[docs["status"] == "failed"]
    assert failed["article_id"].tolist() == ["a03"]
    assert "scripted failure" in failed["error"].iloc[0]
    buckets = pd.read_csv(tmp_path / "out" / "tables" / "bpc_buckets.csv")
    assert buckets.set_index("bucket").loc["2024-03", "n_failed"] == 1
    metrics = json.loads((tmp_path / "out" / "bpc.json").read_text())
    assert metrics["model_calls"] == {
        "requests": 5,
        "failed": 1,
        "failed_share": 0.2,
        "max_failed_share": 0.2,
        "failed_by_model": {"scripted_words": 1},
    }

    CALLS.clear()
    assert run(tmp_path, "out", articles, pf) == 0
    assert sum(CALLS.values()) == 1  # only the failed document is scored again


def test_added_articles_cost_only_new_documents(tmp_path: Path) -> None:
    CALLS.clear()
    pf = params_file(tmp_path, "bpc.docs_per_bucket=10")
    assert run(tmp_path, "out", make_articles(tmp_path / "a.parquet", DAYS[:3]), pf) == 0
    assert sum(CALLS.values()) == 3
    assert run(tmp_path, "out", make_articles(tmp_path / "b.parquet"), pf) == 0
    assert sum(CALLS.values()) == 6


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("bpc.models=[not_registered]", "not in the model registry"),
        ("bpc.bucket_months=5", "bpc.bucket_months"),
    ],
)
def test_configuration_errors_exit_2(
    tmp_path: Path, override: str, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    articles = make_articles(tmp_path / "articles.parquet")
    assert run(tmp_path, "out", articles, params_file(tmp_path, override)) == 2
    assert message in caplog.text
    assert not (tmp_path / "out").exists()


def test_no_usable_document_gives_empty_tables_not_an_error(tmp_path: Path) -> None:
    articles = make_articles(tmp_path / "articles.parquet")
    pf = params_file(tmp_path, "bpc.min_chars=100000")
    assert run(tmp_path, "out", articles, pf) == 0
    docs = pd.read_parquet(tmp_path / "out" / "bpc_docs.parquet")
    assert docs.empty and "bpc" in docs.columns
    buckets = pd.read_csv(tmp_path / "out" / "tables" / "bpc_buckets.csv")
    assert buckets.empty and "bpc_lo" in buckets.columns
    metrics = json.loads((tmp_path / "out" / "bpc.json").read_text())
    assert metrics["documents"]["too_short"] == 7 and metrics["buckets"] == 0


def test_a_longer_cut_rescores_only_the_texts_it_changes(tmp_path: Path) -> None:
    """The ledger holds the text scored: texts under both cuts are not read again."""
    CALLS.clear()
    articles = make_articles(tmp_path / "articles.parquet")
    assert run(tmp_path, "cut", articles, params_file(tmp_path)) == 0
    docs = pd.read_parquet(tmp_path / "cut" / "bpc_docs.parquet")
    cut = int(docs["truncated"].sum())
    assert 0 < cut < len(docs) and sum(CALLS.values()) == len(docs)
    CALLS.clear()
    assert run(tmp_path, "whole", articles, params_file(tmp_path, "bpc.max_text_chars=null")) == 0
    assert sum(CALLS.values()) == cut
    whole = pd.read_parquet(tmp_path / "whole" / "bpc_docs.parquet")
    assert not whole["truncated"].any() and (whole["n_chars"] == whole["text_chars"]).all()


def test_scores_outlive_a_restored_ledger_in_a_dvc_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a DVC project the documents' scores live in the response store: after DVC puts
    back an older ledger (dvc exp run, dvc checkout), nothing is scored again, and the
    ledger is rewritten as exactly the entries the outputs came from."""
    CALLS.clear()
    (tmp_path / ".dvc").mkdir()
    monkeypatch.chdir(tmp_path)
    pf = params_file(tmp_path, "bpc.docs_per_bucket=10")
    assert run(tmp_path, "out", make_articles(tmp_path / "a.parquet", DAYS[:3]), pf) == 0
    ledger = tmp_path / "ledger" / "scripted_words.jsonl"
    committed = ledger.read_bytes()
    assert run(tmp_path, "out", make_articles(tmp_path / "b.parquet"), pf) == 0
    assert sum(CALLS.values()) == 6
    latest = ledger.read_bytes()
    ledger.write_bytes(committed)  # restored by DVC
    assert run(tmp_path, "again", make_articles(tmp_path / "b.parquet"), pf) == 0
    assert sum(CALLS.values()) == 6
    assert ledger.read_bytes() == latest
    assert outputs(tmp_path, "out") == outputs(tmp_path, "again")
    store = tmp_path / ".dvc/cache/prescient/responses/ledger/scripted_words.jsonl"
    assert len(list(read_entries(store))) == 6


def test_document_start_is_part_of_the_key_and_named_by_every_output(tmp_path: Path) -> None:
    """bpc.segment_start=document_start: requests keyed with it, later segments of 6
    tokens (a context of 8: the condition token, the lead and 6), and the documents, the
    per-model metrics and the BPC table name it."""
    articles = make_articles(tmp_path / "articles.parquet")
    pf = params_file(tmp_path, "bpc.segment_start=document_start")
    assert run(tmp_path, "out", articles, pf) == 0
    docs = pd.read_parquet(tmp_path / "out" / "bpc_docs.parquet")
    assert set(docs["segment_start"]) == {"document_start"}
    assert (docs["n_segments"] == 1 + -(-(docs["n_tokens"] - 7) // 6)).all()
    entry = next(iter(read_entries(tmp_path / "ledger" / "scripted_words.jsonl")))
    assert entry["params"]["segment_start"] == "document_start"
    assert json.loads(entry["response"])["segment_start"] == "document_start"
    metrics = json.loads((tmp_path / "out" / "bpc.json").read_text())
    assert metrics["models"]["scripted_words"]["segment_start"] == "document_start"
    buckets = pd.read_csv(tmp_path / "out" / "tables" / "bpc_buckets.csv")
    assert set(buckets["segment_start"]) == {"document_start"}
