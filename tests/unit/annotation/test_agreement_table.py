"""Consensus, accuracy, the accept decision and Table 4 on a small hand-computed case."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prescient.annotation.agreement import (
    bootstrap_seed,
    compute_agreement,
    consensus_scores,
    ratings_cube,
)
from prescient.annotation.agreement_report import awaiting_report
from prescient.annotation.ratings import AnnotatorRatings, Rating
from prescient.annotation.settings import TableSettings
from prescient.annotation.stats import bootstrap, bootstrap_indices
from prescient.seeds import derive_seed
from prescient.vocab import PRINCIPLES
from tests.fixtures.annotation.build import table_settings

ITEMS = ["A", "B", "C", "D"]


def _scores(**changes: int) -> dict[str, int]:
    s = dict.fromkeys(PRINCIPLES, 2)
    s.update(changes)
    return s


def _annotator(name: str, scores: dict[str, dict[str, int]]) -> AnnotatorRatings:
    ann = AnnotatorRatings(annotator=name, path=Path(f"{name}.jsonl"))
    for item, s in scores.items():
        ann.ratings[item] = Rating(item, name, s, "2025-01-01T00:00:00+00:00")
    ann.lines = len(scores)
    return ann


# Three annotators; ann3 did not rate C (a missing rating).
ANNOTATORS = [
    _annotator(
        "ann1",
        {
            "A": _scores(correctness=2),
            "B": _scores(correctness=1, not_obvious=1),
            "C": _scores(correctness=0),
            "D": _scores(),
        },
    ),
    _annotator(
        "ann2",
        {
            "A": _scores(correctness=2),
            "B": _scores(correctness=1, not_obvious=1),
            "C": _scores(correctness=1),
            "D": _scores(),
        },
    ),
    _annotator(
        "ann3",
        {"A": _scores(correctness=1), "B": _scores(correctness=2, not_obvious=1), "D": _scores()},
    ),
]

# The LLM filter: A 14 (accept), B 14 (accept), C 13 (accept), D 11 (reject).
LLM = pd.DataFrame(
    [_scores(), _scores(), _scores(correctness=1), _scores(objectivity=1, public_interest=0)],
    index=ITEMS,
)


SEED = 5


def _settings(rounding: str = "half_up") -> TableSettings:
    """The shipped ``annotation`` params (threshold 13, consensus from 2 raters, interval
    alpha, 95% intervals) with 300 resamples."""
    return table_settings(rounding, reps=300)


def test_consensus_is_the_rounded_mean_of_available_scores() -> None:
    cube = ratings_cube(ANNOTATORS, ITEMS)
    c = PRINCIPLES.index("correctness")
    # A: 2,2,1 -> 1.67 -> 2; B: 1,1,2 -> 1.33 -> 1; C: 0,1 (ann3 missing) -> 0.5; D: 2.
    assert list(consensus_scores(cube, "half_up", 2)[:, c]) == [2, 1, 1, 2]
    assert list(consensus_scores(cube, "half_down", 2)[:, c]) == [2, 1, 0, 2]
    # With 3 raters required, C has no consensus.
    assert math.isnan(consensus_scores(cube, "half_up", 3)[2, c])


def test_hand_computed_table_half_up() -> None:
    r = compute_agreement(ANNOTATORS, ITEMS, LLM, _settings(), SEED)
    # Accuracy: correctness misses B; objectivity and public_interest miss D (LLM 1 and 0
    # against a consensus of 2); not_obvious misses B (1 vs 2); the rest match.
    expected = dict.fromkeys(PRINCIPLES, 1.0)
    expected.update(correctness=0.75, objectivity=0.75, public_interest=0.75, not_obvious=0.75)
    assert r.accuracy == pytest.approx(expected)
    assert r.accuracy_average == pytest.approx(6 / 7)
    assert r.accuracy_n == dict.fromkeys(PRINCIPLES, 4)
    # Consensus totals A 14, B 12, C 13, D 14 -> accept, reject, accept, accept;
    # LLM totals 14, 14, 13, 11 -> accept, accept, accept, reject: A and C agree.
    assert r.decision_accuracy == pytest.approx(0.5)
    assert r.decision_n == 4
    assert r.confusion == {
        "human_accept": {"llm_accept": 2, "llm_reject": 1},
        "human_reject": {"llm_accept": 1, "llm_reject": 0},
    }
    # Kappa on A, B, D (rated by all). correctness counts (0,1,2): [0,1,2],[0,2,1],[0,0,3]:
    # P_bar = 5/9 = P_e -> 0. not_obvious: [0,0,3],[0,3,0],[0,0,3] -> P_bar 1, P_e 5/9 -> 1.
    # Every other principle has only 2s: undefined.
    assert r.n_items_complete == 3
    assert r.kappa["correctness"] == pytest.approx(0.0, abs=1e-12)
    assert r.kappa["not_obvious"] == pytest.approx(1.0)
    assert all(
        math.isnan(r.kappa[k]) for k in PRINCIPLES if k not in ("correctness", "not_obvious")
    )
    assert r.kappa_average == pytest.approx(0.5)
    assert r.kappa_ci["not_obvious"].low <= 1.0 <= r.kappa_ci["not_obvious"].high + 1e-12
    assert r.ratings_per_annotator == {"ann1": 4, "ann2": 4, "ann3": 3}


def test_hand_computed_table_half_down() -> None:
    r = compute_agreement(ANNOTATORS, ITEMS, LLM, _settings("half_down"), SEED)
    # C's correctness consensus is now 0 (LLM 1): correctness 2 of 4; C's total 12 rejects.
    assert r.accuracy["correctness"] == pytest.approx(0.5)
    assert r.decision_accuracy == pytest.approx(0.25)
    assert r.confusion["human_reject"] == {"llm_accept": 2, "llm_reject": 0}


def test_table_layout_and_metrics_json() -> None:
    r = compute_agreement(ANNOTATORS, ITEMS, LLM, _settings(), SEED)
    table = r.table()
    assert list(table["row"]) == [*PRINCIPLES, "average", "accept_decision"]
    assert table.loc[table["row"] == "correctness", "accuracy_pct"].item() == pytest.approx(75.0)
    assert table.loc[table["row"] == "accept_decision", "accuracy_pct"].item() == pytest.approx(
        50.0
    )
    md = r.markdown()
    assert "| Correctness of the answer | 0.00" in md
    assert "| **Average** | **0.50**" in md
    assert "| Objectivity | n/a" in md
    assert "| Humans accept | 2 | 1 |" in md
    m = r.metrics()
    assert m["status"] == "ok"
    assert m["fleiss_kappa"]["objectivity"] is None  # undefined, not invented
    assert m["accuracy_average"] == pytest.approx(6 / 7)
    assert m["accept_decision"]["confusion"]["human_reject"]["llm_accept"] == 1


def test_bootstrap_intervals_are_reproducible() -> None:
    a = compute_agreement(ANNOTATORS, ITEMS, LLM, _settings(), SEED).metrics()
    b = compute_agreement(ANNOTATORS, ITEMS, LLM, _settings(), SEED).metrics()
    assert a == b


def test_bootstrap_seeds_come_from_the_one_seed_derivation() -> None:
    assert bootstrap_seed(SEED, "decision") == derive_seed(SEED, "agreement", "decision")
    # The accept decision's interval: resample the four items' agree/disagree
    # (1, 0, 1, 0: A and C agree) with that seed, by hand.
    match = np.array([1.0, 0.0, 1.0, 0.0])
    idx = bootstrap_indices(4, 300, derive_seed(SEED, "agreement", "decision"))
    expected = bootstrap(lambda ix: match[ix].mean(axis=1), idx, 0.95)[0]
    r = compute_agreement(ANNOTATORS, ITEMS, LLM, _settings(), SEED)
    assert r.decision_accuracy_ci == expected


def test_missing_llm_scores_are_an_error() -> None:
    with pytest.raises(ValueError, match="no LLM filter scores"):
        compute_agreement(ANNOTATORS, ITEMS, LLM.drop(index="C"), _settings(), SEED)


def test_awaiting_report_invents_no_number() -> None:
    manifest = {"annotators": ["ann1", "ann2", "ann3"], "item_ids": ITEMS, "sample": {}}
    metrics, md, table = awaiting_report(manifest, ["ann2"], "data/annotations/ratings")
    assert metrics["status"] == "awaiting_annotations"
    assert metrics["packets_awaiting"] == ["ann1", "ann3"]
    assert metrics["n_items"] == 4
    numeric = table.drop(columns=["row", "metric"])
    assert numeric.isna().all().all()
    assert "Awaiting annotations" in md and "`ann1`" in md and "`ann2`" not in md
