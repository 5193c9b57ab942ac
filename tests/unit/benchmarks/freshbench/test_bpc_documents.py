"""Buckets, the seeded sample, the settings and which scorer a model gets."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prescient.benchmarks.freshbench.bpc.documents import (
    bucket_of,
    bucket_range,
    read_for_sample,
    sample_documents,
)
from prescient.benchmarks.freshbench.bpc.scorers import method_params, skip_reason
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.llm.registry import ModelSpec, load_registry
from prescient.plumbing import params
from prescient.settings import ParamsError, load_settings
from tests.conftest import ROOT

SEED = 20240501


def _settings(*overrides: str) -> BpcSettings:
    return load_settings(BpcSettings, params.compose(ROOT, list(overrides)), "bpc")


def _articles(n_per_day: dict[str, int], length: int = 300) -> pd.DataFrame:
    rows = []
    for day, n in n_per_day.items():
        for k in range(n):
            rows.append(
                {
                    "article_id": f"{day}-{k}",
                    "date": dt.date.fromisoformat(day),
                    "title": "t",
                    "text": "x" * length,
                    "url": f"https://a.example/{day}/{k}",
                    "source_domain": "a.example" if k % 2 == 0 else "b.example",
                }
            )
    return pd.DataFrame(rows)


def test_buckets_are_calendar_months_from_january() -> None:
    buckets = bucket_range(dt.date(2019, 2, 28), dt.date(2019, 7, 1), 2)
    assert [(b.index, b.label, b.start, b.end) for b in buckets] == [
        (1, "2019-01", dt.date(2019, 1, 1), dt.date(2019, 3, 1)),
        (2, "2019-03", dt.date(2019, 3, 1), dt.date(2019, 5, 1)),
        (3, "2019-05", dt.date(2019, 5, 1), dt.date(2019, 7, 1)),
        (4, "2019-07", dt.date(2019, 7, 1), dt.date(2019, 9, 1)),
    ]
    assert bucket_of(dt.date(2019, 4, 30), buckets).label == "2019-03"  # type: ignore[union-attr]
    assert bucket_of(dt.date(2019, 5, 1), buckets).label == "2019-05"  # type: ignore[union-attr]
    assert bucket_of(dt.date(2019, 9, 1), buckets) is None
    # 42 two-month buckets cover 2019-2025.
    assert len(bucket_range(dt.date(2019, 1, 1), dt.date(2025, 12, 31), 2)) == 42


def test_sample_draws_per_bucket_and_counts_what_it_leaves_out() -> None:
    articles = _articles({"2024-01-10": 5, "2024-02-20": 3, "2024-07-01": 2})
    articles.loc[0, "text"] = "too short"
    sample = sample_documents(articles, _settings("bpc.docs_per_bucket=3"), SEED)
    assert [b.label for b in sample.buckets] == ["2024-01", "2024-03", "2024-05", "2024-07"]
    docs = sample.documents
    assert docs.groupby("bucket").size().to_dict() == {"2024-01": 3, "2024-07": 2}
    assert list(docs["sample_rank"]) == [1, 2, 3, 1, 2]
    assert "2024-01-10-0" not in set(docs["article_id"])
    assert sample.counts == {
        "articles": 10,
        "no_date": 0,
        "outside_dates": 0,
        "other_source": 0,
        "too_short": 1,
        "not_drawn": 4,
        "drawn": 5,
    }


def test_sample_is_seeded_and_stable_when_articles_are_added() -> None:
    base = _articles({"2024-01-10": 6, "2024-03-10": 6})
    settings = _settings("bpc.docs_per_bucket=2")
    first = sample_documents(base, settings, SEED).documents
    assert first.equals(sample_documents(base, settings, SEED).documents)
    assert not first.equals(sample_documents(base, settings, SEED + 1).documents)
    # A larger sample extends the smaller one.
    three = sample_documents(base, _settings("bpc.docs_per_bucket=3"), SEED).documents
    assert set(first["article_id"]) < set(three["article_id"])
    # Articles added to March leave January's sample alone, and March's changes at most
    # where a new article sorts first.
    more = pd.concat([base, _articles({"2024-03-11": 4})], ignore_index=True)
    again = sample_documents(more, settings, SEED).documents
    jan = again[again["bucket"] == "2024-01"]["article_id"].tolist()
    assert jan == first[first["bucket"] == "2024-01"]["article_id"].tolist()
    march_before = set(first[first["bucket"] == "2024-03"]["article_id"])
    march_after = set(again[again["bucket"] == "2024-03"]["article_id"])
    assert march_after - march_before <= {f"2024-03-11-{k}" for k in range(4)}


def test_source_and_date_filters() -> None:
    articles = _articles({"2023-12-31": 2, "2024-01-10": 4, "2024-12-01": 2})
    settings = _settings(
        "bpc.source_domains=[a.example]",
        "bpc.date_start=2024-01-01",
        "bpc.date_end=2024-06-30",
        "bpc.docs_per_bucket=10",
    )
    sample = sample_documents(articles, settings, SEED)
    assert set(sample.documents["source_domain"]) == {"a.example"}
    assert sample.counts["outside_dates"] == 4 and sample.counts["other_source"] == 2
    # The configured range fixes the buckets, empty ones included.
    assert [b.label for b in sample.buckets] == [f"2024-{m:02d}" for m in (1, 3, 5)]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("bpc.bucket_months=5", "bpc.bucket_months: must divide 12"),
        ("bpc.docs_per_bucket=0", "bpc.docs_per_bucket"),
        ("bpc.context_tokens=1", "bpc.context_tokens"),
        ("bpc.max_text_chars=0", "bpc.max_text_chars"),
        ("bpc.segmenting=overlap", "bpc.segmenting"),
        ("bpc.segmenting=stride bpc.context_tokens=100", "stride_tokens must be between 1 and"),
        ("bpc.segmenting=stride bpc.stride_tokens=0", "bpc.stride_tokens"),
        ("bpc.release.after_months=[3,0]", "bpc.release.after_months.1"),
        ("bpc.models=[smollm2_135m,smollm2_135m]", "lists a model twice"),
        ("bpc.date_start=20240101", "bpc.date_start"),
        ("+bpc.extra=1", "bpc.extra is not a parameter"),
    ],
)
def test_invalid_settings_name_the_parameter(override: str, message: str) -> None:
    with pytest.raises(ParamsError, match=message.replace(".", r"\.")):
        _settings(*override.split())


def test_scorer_follows_the_registry_entry() -> None:
    registry = load_registry(params.compose(ROOT))
    assert skip_reason(registry["smollm2_135m"]) is None
    assert skip_reason(registry["local_openai_server"]) is None  # hosted_vllm + api_base
    assert "chat-completions" in str(skip_reason(registry["gpt_4o"]))
    assert "chat completions only" in str(skip_reason(registry["claude_3_5_sonnet"]))
    assert "not a language model" in str(skip_reason(registry["baseline_random"]))
    own_server = ModelSpec.model_validate(
        {
            **registry["gpt_4o"].model_dump(),
            "name": "mine",
            "litellm_model": "openai/my-model",
            "api_base": "http://127.0.0.1:9/v1",
        }
    )
    assert skip_reason(own_server) is None


def test_ledger_key_params_follow_the_method() -> None:
    registry = load_registry(params.compose(ROOT))
    settings = _settings("bpc.context_tokens=64", "bpc.max_text_chars=500")
    assert method_params(registry["smollm2_135m"], settings) == {
        "purpose": "logprobs",
        "context_tokens": 64,
        "segmenting": "disjoint",
        "scorer": "llama_cpp_eval",
        "condition_token": "<|endoftext|>",
    }
    stride = _settings("bpc.context_tokens=64", "bpc.segmenting=stride", "bpc.stride_tokens=16")
    assert method_params(registry["smollm2_135m"], stride)["stride_tokens"] == 16
    server = method_params(registry["local_openai_server"], settings)
    assert server["scorer"] == "completions_echo" and server["echo"] is True


def test_the_sample_drawn_from_the_file_is_the_sample_of_the_frame(tmp_path: Path) -> None:
    articles = _articles({"2024-01-10": 7, "2024-02-20": 3, "2024-05-01": 4, "2024-07-01": 5})
    articles.loc[0, "text"] = "too short"
    articles.loc[3, "text"] = None
    articles.loc[5, "text"] = "é" * 120  # 120 characters in 240 bytes: long enough
    articles.loc[6, "text"] = "é" * 90  # 180 bytes, but 90 characters: too short
    path = tmp_path / "articles.parquet"
    pq.write_table(pa.Table.from_pandas(articles, preserve_index=False), path, row_group_size=4)
    settings = _settings("bpc.docs_per_bucket=3", "bpc.min_chars=100")
    whole = sample_documents(articles, settings, SEED)
    table, texts = read_for_sample(path)
    assert "text" not in table.columns
    streamed = sample_documents(table, settings, SEED, texts)
    pd.testing.assert_frame_equal(streamed.documents, whole.documents)
    assert streamed.counts == whole.counts and streamed.counts["too_short"] == 3
    assert streamed.buckets == whole.buckets
