"""The proper scores' bootstrap drawn in blocks, once per set of questions and on
threads, the calibration error of every resample in one count, and the forecasts read
per width: each equal, bit for bit, to the plain computation it replaces (one matrix of
draws per group, a gather per measure, a check per row)."""

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
from prescient.analysis.proper import _Group, _replicates, proper_scores_table
from prescient.analysis.proper_paired import paired_table
from prescient.proper_scores import (
    ece_replicates,
    paired_bootstrap,
    paired_bootstraps,
    resampled_means,
    resamples,
    uniform_bins,
)
from prescient.seeds import derive_seed
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


def plain_ece(p: np.ndarray, y: np.ndarray, idx: np.ndarray, bins: int) -> np.ndarray:
    """The calibration error of each resample, the plain way: its own questions binned
    and their gaps summed (:func:`prescient.proper_scores.ece`)."""
    return np.array([ps.ece(p[r], y[r], bins) for r in idx])


def counted_ece(p: np.ndarray, y: np.ndarray, idx: np.ndarray, bins: int) -> np.ndarray:
    """Each resample on its own: its draws counted, ``(y - p)`` weighted by them and
    summed per bin with the questions in bin order, the bins' gaps added up."""
    which = uniform_bins(p, bins)
    order = np.argsort(which, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(which[order]) != 0])
    out = []
    for r in idx:
        weighted = np.bincount(r, minlength=p.size)[order] * (y - p)[order]
        out.append(np.abs(np.add.reduceat(weighted, starts)).sum())
    return np.array(out) / idx.shape[1]


@pytest.mark.parametrize("bins", [1, 10, 15])
def test_calibration_error_of_every_resample_from_its_counts(bins: int) -> None:
    rng = np.random.default_rng(bins)
    p = np.concatenate([rng.random(500), [0.0, 1.0, 0.1, 0.5, 0.9]])
    y = (rng.random(p.size) < p).astype(float)
    idx = rng.integers(0, p.size, size=(64, p.size))
    draws = ps.Draws(idx, slice(0, 64))
    got = ece_replicates(p, y, bins)(draws)
    assert bits(got) == bits(counted_ece(p, y, idx, bins))
    np.testing.assert_allclose(got, plain_ece(p, y, idx, bins), rtol=1e-12, atol=1e-15)
    soft = rng.random(p.size)  # outcomes between 0 and 1
    np.testing.assert_allclose(
        ece_replicates(p, soft, bins)(draws), plain_ece(p, soft, idx, bins), rtol=1e-12, atol=1e-15
    )
    assert all(
        np.array_equal(np.bincount(r, minlength=p.size), c)
        for r, c in zip(idx, draws.counts, strict=True)
    )


def a_group(rng: np.random.Generator, ids: tuple[str, ...]) -> _Group:
    n = len(ids)
    items = {s.name: rng.random(n) for s in declared.item_scores()}
    refs = {k.name: rng.random(n) + 0.1 for k in declared.skills()}
    p, y = rng.random(n), (rng.random(n) < 0.4).astype(float)
    return _Group({}, items, refs, p, y, ids)


def plain_replicates(g: _Group, reps: int, seed: int) -> dict[str, np.ndarray]:
    """One group's replicates the plain way: one matrix of draws from its questions'
    seed, a gather and mean per measure."""
    n = len(g.ids)
    idx = np.random.default_rng(derive_seed(seed, "proper", *g.ids)).integers(0, n, (reps, n))
    out = {s.interval: g.items[s.name][idx].mean(axis=1) for s in declared.item_scores()}
    for k in declared.skills():
        out[k.name] = 1.0 - g.items[k.score][idx].mean(axis=1) / g.refs[k.name][idx].mean(axis=1)
    out["ece"] = counted_ece(g.p, g.y, idx, 10)
    return out


@pytest.mark.parametrize("threads", ["1", "3"])
def test_groups_over_the_same_questions_read_the_same_draws(
    threads: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(8)
    monkeypatch.setenv("PRESCIENT_THREADS", threads)
    monkeypatch.setattr(ps, "RESAMPLE_BLOCK", 3 * 257)  # three resamples a block
    ids = tuple(f"q{i}" for i in range(257))
    other = tuple(f"q{i}" for i in range(1, 258))
    same = [a_group(rng, ids) for _ in range(3)]
    shared_refs = _Group({}, same[0].items, same[1].refs, same[2].p, same[2].y, ids)
    moved = _Group({}, same[0].items, same[0].refs, same[0].p, same[0].y, other)
    groups = [*same, moved, shared_refs, a_group(rng, ("q1",))]
    got = _replicates(groups, 64, SEED, 10)
    assert got[-1] is None  # one question: no interval
    for g, reps in zip(groups[:-1], got[:-1], strict=True):
        assert reps is not None
        plain = plain_replicates(g, 64, SEED)
        assert set(reps) == set(plain)
        for stem, values in plain.items():
            assert bits(reps[stem]) == bits(values), stem
    # equal forecasts: the same replicates on the same questions, others on other ones
    assert bits(got[4]["brier"]) == bits(got[0]["brier"])  # type: ignore[index]
    assert bits(got[3]["brier"]) != bits(got[0]["brier"])  # type: ignore[index]


def test_a_pair_reads_the_difference_of_its_models_means_on_one_draw() -> None:
    frame = many_groups()
    table = paired_table(frame, REPS, SEED, 0.05)
    one = frame.loc[frame["setting"] == "gold"]
    a = one.loc[one["model"] == "a"].sort_values("question_id")
    b = one.loc[one["model"] == "b"].sort_values("question_id")
    ids = tuple(a["question_id"].astype(str))
    n = len(ids)
    idx = np.random.default_rng(derive_seed(SEED, "proper", *ids)).integers(0, n, (REPS.reps, n))
    ca, cb = a["correct"].to_numpy(float), b["correct"].to_numpy(float)
    diffs = ca[idx].mean(axis=1) - cb[idx].mean(axis=1)
    low, high = np.quantile(diffs, [0.025, 0.975])
    row = table.loc[
        (table["setting"] == "gold") & (table["model_a"] == "a") & (table["model_b"] == "b")
    ].iloc[0]
    assert (row["accuracy_diff_low"], row["accuracy_diff_high"]) == (low, high)
    assert row["accuracy_diff"] == float((ca - cb).mean())
    assert row["n"] == n


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
