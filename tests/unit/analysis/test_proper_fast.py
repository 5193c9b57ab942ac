"""The proper scores' bootstrap drawn in blocks and on threads, the calibration error
counted, and the forecasts read per width: each equal, bit for bit, to the plain
computation it replaces (one matrix of draws, a gather per measure, a check per row)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import prescient.analysis.forecasts as forecasts_mod
import prescient.proper_scores as ps
from prescient import proper_metrics as declared
from prescient.analysis.proper import _replicates, proper_scores_table
from prescient.analysis.proper_paired import paired_table
from prescient.proper_scores import (
    ece_replicates,
    paired_bootstrap,
    paired_bootstraps,
    resampled_means,
    resamples,
    uniform_bins,
)
from prescient.threads import ordered_map
from tests.fixtures.analysis.forecasts import REPS, frame_of, row
from tests.fixtures.analysis.settings import SEED


def bits(values: object) -> list[bytes]:
    return [struct.pack("<d", float(v)) for v in np.asarray(values, dtype=float).ravel()]


@pytest.mark.parametrize("n", [1, 7, 2001, 31511])
@pytest.mark.parametrize("block", [1, 50, 1 << 18])
def test_blocks_of_draws_are_the_one_matrix_of_draws(n: int, block: int) -> None:
    whole = np.random.default_rng(11).integers(0, n, size=(40, n))
    parts = list(resamples(n, 40, 11, block=block))
    assert sum(p.shape[0] for p in parts) == 40
    assert all(p.size <= max(block, n) for p in parts)
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_resampled_means_are_the_plain_gather_and_mean(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    x, z = rng.random(333), rng.random(333)
    idx = np.random.default_rng(5).integers(0, 333, size=(120, 333))
    monkeypatch.setattr(ps, "RESAMPLE_BLOCK", 1000)  # three rows a block
    got_x, got_z = resampled_means([x, z], 120, 5)
    assert bits(got_x) == bits(x[idx].mean(axis=1))
    assert bits(got_z) == bits(z[idx].mean(axis=1))


def test_paired_measures_on_one_draw_equal_each_pair_alone() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.random(90) < 0.6, rng.random(90) < 0.5
    c, d = rng.random(90), rng.random(90)
    both = paired_bootstraps([(a, b), (c, d)], 300, 17)
    assert both == [paired_bootstrap(a, b, 300, 17), paired_bootstrap(c, d, 300, 17)]
    with pytest.raises(ValueError, match="differ in length"):
        paired_bootstraps([(a, b), (c[:5], d[:5])], 300, 17)


def weighted_ece(p: np.ndarray, y: np.ndarray, idx: np.ndarray, bins: int) -> np.ndarray:
    """The calibration error of each resample with both sums weighted (the plain way)."""
    reps, n = idx.shape
    flat = (np.arange(reps)[:, None] * bins + uniform_bins(p, bins)[idx]).ravel()
    sum_p = np.bincount(flat, weights=p[idx].ravel(), minlength=reps * bins)
    sum_y = np.bincount(flat, weights=y[idx].ravel(), minlength=reps * bins)
    out: np.ndarray = np.abs(sum_y - sum_p).reshape(reps, bins).sum(axis=1) / n
    return out


@pytest.mark.parametrize("bins", [1, 10, 15])
def test_counted_outcomes_give_the_weighted_calibration_error(bins: int) -> None:
    rng = np.random.default_rng(bins)
    p = np.concatenate([rng.random(500), [0.0, 1.0, 0.1, 0.5, 0.9]])
    y = (rng.random(p.size) < p).astype(float)
    idx = rng.integers(0, p.size, size=(64, p.size))
    assert bits(ece_replicates(p, y, idx, bins)) == bits(weighted_ece(p, y, idx, bins))
    soft = rng.random(p.size)  # not 0/1: summed as weights
    assert bits(ece_replicates(p, soft, idx, bins)) == bits(weighted_ece(p, soft, idx, bins))


def test_a_groups_replicates_in_blocks_equal_the_plain_computation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(8)
    n, reps = 257, 64
    items = {s.name: rng.random(n) for s in declared.item_scores()}
    refs = {k.name: rng.random(n) + 0.1 for k in declared.skills()}
    p, y = rng.random(n), (rng.random(n) < 0.4).astype(float)
    monkeypatch.setattr(ps, "RESAMPLE_BLOCK", 3 * n)
    got = _replicates(items, refs, p, y, n, reps, 21, 10)
    idx = np.random.default_rng(21).integers(0, n, size=(reps, n))
    assert bits(got["brier"]) == bits(items["brier"][idx].mean(axis=1))
    assert bits(got["log"]) == bits(items["log_score"][idx].mean(axis=1))
    for k in declared.skills():
        plain = 1.0 - items[k.score][idx].mean(axis=1) / refs[k.name][idx].mean(axis=1)
        assert bits(got[k.name]) == bits(plain)
    assert bits(got["ece"]) == bits(weighted_ece(p, y, idx, 10))


def many_groups() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    rows, outcomes = [], {}
    for i in range(60):
        qid = f"q{i}"
        outcomes[qid] = int(rng.integers(0, 2))
        for model in ("a", "b", "c"):
            for setting in ("closed_book", "gold"):
                p = float(np.round(rng.random(), 3))
                rows.append(row(qid, "tf", [p, 1 - p], outcomes[qid], model, setting=setting))
    return frame_of(rows, outcomes)


def test_threads_leave_every_table_as_one_thread_computes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = many_groups()
    monkeypatch.setenv("PRESCIENT_THREADS", "1")
    one = (proper_scores_table(frame, 10, REPS, SEED), paired_table(frame, REPS, SEED, 0.05))
    monkeypatch.setenv("PRESCIENT_THREADS", "4")
    four = (proper_scores_table(frame, 10, REPS, SEED), paired_table(frame, REPS, SEED, 0.05))
    for a, b in zip(one, four, strict=True):
        assert a.to_csv() == b.to_csv()
    assert len(one[0]) > 4 and len(one[1]) == 6


def test_ordered_map_keeps_the_order_and_raises() -> None:
    assert ordered_map(lambda x: x * x, range(50), threads=3) == [x * x for x in range(50)]

    def fail(x: int) -> int:
        if x == 7:
            raise KeyError("seven")
        return x

    with pytest.raises(KeyError, match="seven"):
        ordered_map(fail, range(20), threads=2)


def stated_table(arrow: bool, chunks: int = 1) -> pd.DataFrame:
    """Forecasts of two to five options, off their sum by up to the tolerance."""
    rng = np.random.default_rng(13)
    probs, qtypes, qids, sources = [], [], [], []
    for i in range(400):
        k = int(rng.integers(2, 6))
        raw = rng.random(k)
        p = raw / raw.sum() * (1 + rng.uniform(-9e-7, 9e-7))
        probs.append([float(v) for v in p])
        qtypes.append("tf" if k == 2 else "mc")
        qids.append(f"q{i}")
        sources.append(None if i % 3 else "stated")
    table = pd.DataFrame(
        {"question_id": qids, "qtype": qtypes, "probs": probs, "prob_source": sources}
    )
    table["_elicitation"] = "verbal_probability"
    if arrow:  # as read from parquet, in ``chunks`` row groups
        cut = np.array_split(np.arange(len(probs)), chunks)
        column = pa.chunked_array(
            [[probs[i] for i in part] for part in cut], pa.list_(pa.float64())
        )
        table["probs"] = pd.Series(pd.arrays.ArrowExtensionArray(column))
    return table


@pytest.mark.parametrize(("arrow", "chunks"), [(False, 1), (True, 1), (True, 3)])
def test_forecasts_read_per_width_equal_the_row_by_row_reading(
    arrow: bool, chunks: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = stated_table(arrow, chunks)
    assert not arrow or table["probs"].array._pa_array.num_chunks == chunks
    qids, qtypes = table["question_id"], table["qtype"]
    options = {q: len(p) for q, p in zip(qids, stated_table(False)["probs"], strict=True)}
    fast = forecasts_mod._read_stated(table, qids, qtypes, options)
    assert fast is not None
    monkeypatch.setattr(forecasts_mod, "_read_stated", lambda *_: None)
    slow = forecasts_mod._read_probs(table, qids, qtypes, options)
    assert fast[1] == slow[1]
    assert [bits(p) for p in fast[0]] == [bits(p) for p in slow[0]]


def test_a_row_the_fast_reading_cannot_take_goes_row_by_row() -> None:
    table = stated_table(False)
    qids, qtypes = table["question_id"], table["qtype"]
    options = {q: len(p) for q, p in zip(qids, table["probs"], strict=True)}
    for broken in (None, [0.5, math.nan], [0.7, 0.7], [1.0]):
        bad = table.copy()
        bad.at[5, "probs"] = broken
        assert forecasts_mod._read_stated(bad, qids, qtypes, options) is None
    wrong_width = dict(options, q5=len(table["probs"][5]) + 1)
    assert forecasts_mod._read_stated(table, qids, qtypes, wrong_width) is None
