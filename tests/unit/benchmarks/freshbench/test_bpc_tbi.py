"""Per-bucket BPC, the Temporal Bias Index, post-release changes and their intervals."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from prescient.benchmarks.freshbench.bpc.documents import bucket_range
from prescient.benchmarks.freshbench.bpc.settings import BpcSettings
from prescient.benchmarks.freshbench.bpc.tbi import (
    ModelInfo,
    bucket_rows,
    least_squares,
    release_change_rows,
    resampled_means,
    segment_start,
    slopes,
    tbi_rows,
)
from prescient.plumbing import params
from prescient.settings import load_settings
from tests.conftest import ROOT

SEED = 7


@pytest.fixture(scope="module")
def settings() -> BpcSettings:
    p = params.compose(ROOT, ["bpc.bootstrap.reps=200"])
    return load_settings(BpcSettings, p, "bpc")


def _docs(values: dict[dt.date, list[float]], chars: int = 100) -> pd.DataFrame:
    """Scored documents: BPC values by date (bits = bpc * chars)."""
    buckets = bucket_range(min(values), max(values), 2)
    rows = []
    for day, bpcs in values.items():
        index = next(b.index for b in buckets if b.start <= day < b.end)
        for v in bpcs:
            rows.append(
                {
                    "date": day,
                    "bucket_index": index,
                    "status": "ok",
                    "bpc": v,
                    "bpb": v,
                    "bits": v * chars,
                    "n_chars": chars,
                    "n_tokens": 20,
                    "segment_start": "lead",
                }
            )
    return pd.DataFrame(rows)


MODEL = ModelInfo("m", "Model M", dt.date(2024, 3, 1))


def test_tbi_of_one_point_one_point_two_is_one_tenth() -> None:
    a, b = least_squares(np.array([1, 2, 3]), np.array([1.0, 1.1, 1.2]))
    assert a == pytest.approx(0.1, abs=1e-12)
    assert b == pytest.approx(0.9, abs=1e-12)


def test_tbi_from_documents_in_three_buckets(settings: BpcSettings) -> None:
    docs = _docs(
        {
            dt.date(2024, 1, 5): [0.9, 1.1],  # bucket 2024-01, mean 1.0
            dt.date(2024, 3, 9): [1.1],  # 2024-03
            dt.date(2024, 6, 1): [1.2, 1.2],  # 2024-05
        }
    )
    buckets = bucket_range(dt.date(2024, 1, 5), dt.date(2024, 6, 1), 2)
    rows, reps = bucket_rows(MODEL, docs, buckets, settings, SEED)
    assert [r["bpc"] for r in rows] == pytest.approx([1.0, 1.1, 1.2])
    assert [r["n_docs"] for r in rows] == [2, 1, 2]
    assert {r["segment_start"] for r in rows} == {"lead"}
    (all_span, pre, post) = tbi_rows(MODEL, rows, reps, buckets, settings)
    assert all_span["tbi"] == pytest.approx(0.1, abs=1e-9)
    assert (all_span["n_points"], all_span["n_gaps"]) == (3, 0)
    assert all_span["tbi_lo"] <= 0.1 <= all_span["tbi_hi"]
    # Release 2024-03-01: one bucket ends on it (pre), two start on or after it (post).
    assert math.isnan(pre["tbi"]) and pre["n_points"] == 1 and "needs 2" in pre["note"]
    assert post["tbi"] == pytest.approx(0.1, abs=1e-9)


def test_a_bucket_without_documents_is_a_gap_not_a_zero(settings: BpcSettings) -> None:
    docs = _docs({dt.date(2024, 1, 5): [1.0], dt.date(2024, 5, 5): [1.2]})
    buckets = bucket_range(dt.date(2024, 1, 1), dt.date(2024, 6, 30), 2)
    rows, reps = bucket_rows(MODEL, docs, buckets, settings, SEED)
    gap = rows[1]
    assert (gap["bucket"], gap["n_docs"], gap["tokens"]) == ("2024-03", 0, 0)
    assert math.isnan(gap["bpc"]) and math.isnan(gap["bpc_lo"]) and math.isnan(gap["bpc_pooled"])
    all_span = tbi_rows(MODEL, rows, reps, buckets, settings)[0]
    # The gap keeps its place: points at i = 1 and 3, slope (1.2 - 1.0) / 2.
    assert all_span["tbi"] == pytest.approx(0.1, abs=1e-9)
    assert (all_span["n_points"], all_span["n_gaps"]) == (2, 1)
    # Numbering the remaining points 1, 2 would have doubled it.
    assert least_squares(np.array([1, 2]), np.array([1.0, 1.2]))[0] == pytest.approx(0.2)


def test_slopes_of_replicates_match_one_fit_each() -> None:
    rng = np.random.default_rng(0)
    x = np.array([1.0, 2.0, 4.0, 7.0])
    ys = rng.normal(size=(5, 4))
    expected = [least_squares(x, y)[0] for y in ys]
    assert slopes(x, ys) == pytest.approx(expected, abs=1e-12)


def test_bootstrap_is_seeded_and_degenerate_with_one_document() -> None:
    values = np.array([1.0, 1.5, 2.0])
    a = resampled_means(values, 100, 11)
    b = resampled_means(values, 100, 11)
    assert a is not None and b is not None
    assert np.array_equal(a, b)
    assert not np.array_equal(a, resampled_means(values, 100, 12))
    one = resampled_means(np.array([1.25]), 50, 3)
    assert one is not None and set(one) == {1.25}
    assert resampled_means(values, 0, 1) is None


def test_release_changes_against_the_six_months_before(settings: BpcSettings) -> None:
    # Release 2024-03-01: the base is documents dated 2023-09-01 .. 2024-02-29.
    docs = _docs(
        {
            dt.date(2023, 8, 31): [9.0],  # before the base window: ignored
            dt.date(2023, 9, 1): [1.0],
            dt.date(2024, 2, 29): [1.2],  # base mean 1.1
            dt.date(2024, 6, 10): [1.21],  # +3 months: 2024-06-01, bucket 2024-05
            dt.date(2024, 9, 2): [0.99],  # +6 months: 2024-09-01, bucket 2024-09
        }
    )
    buckets = bucket_range(dt.date(2023, 8, 31), dt.date(2024, 9, 2), 2)
    rows, reps = bucket_rows(MODEL, docs, buckets, settings, SEED)
    changes = release_change_rows(MODEL, docs, rows, reps, buckets, settings, SEED)
    by_k = {r["months_after"]: r for r in changes}
    assert sorted(by_k) == [3, 6, 9, 12]
    three = by_k[3]
    assert (three["base_start"], three["base_end"], three["base_n"]) == (
        "2023-09-01",
        "2024-03-01",
        2,
    )
    assert three["base_bpc"] == pytest.approx(1.1)
    assert three["bucket"] == "2024-05"
    assert three["change"] == pytest.approx(0.11)
    assert three["change_pct"] == pytest.approx(10.0)
    assert three["change_lo"] <= 0.11 <= three["change_hi"]
    assert by_k[6]["change_pct"] == pytest.approx(-10.0)
    assert math.isnan(by_k[9]["change"]) and "outside" in by_k[9]["note"]


def test_a_model_without_release_date_has_only_the_whole_span(settings: BpcSettings) -> None:
    docs = _docs({dt.date(2024, 1, 5): [1.0], dt.date(2024, 3, 5): [1.3]})
    buckets = bucket_range(dt.date(2024, 1, 5), dt.date(2024, 3, 5), 2)
    info = ModelInfo("x", "X", None)
    rows, reps = bucket_rows(info, docs, buckets, settings, SEED)
    all_span, pre, post = tbi_rows(info, rows, reps, buckets, settings)
    assert all_span["tbi"] == pytest.approx(0.3)
    assert "release_date" in pre["note"] and math.isnan(post["tbi"])


def test_the_segment_start_a_model_read_is_the_one_its_scores_record(
    settings: BpcSettings,
) -> None:
    docs = _docs({dt.date(2024, 1, 5): [1.0, 1.1], dt.date(2024, 3, 5): [1.2]})
    assert segment_start(docs, settings) == "lead"
    docs["segment_start"] = ["document_start", "document_start", None]
    docs.loc[2, "status"] = "failed"
    assert segment_start(docs, settings) == "document_start"
    docs.loc[0, "segment_start"] = "unknown"
    assert segment_start(docs, settings) == "document_start+unknown"
    # No document scored: the method asked.
    docs["status"] = "failed"
    assert segment_start(docs, settings) == settings.segment_start == "lead"
