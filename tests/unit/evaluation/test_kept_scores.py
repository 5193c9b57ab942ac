"""Scored columns kept between runs: the same scores table with, without or with part of
the store; a part is parsed again when its replies, its questions or the store's bytes
change."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prescient.evaluation.kept_scores import _KIND, KeptScores
from prescient.evaluation.scoring import (
    QuestionTable,
    cell_label,
    cell_labels,
    score_predictions,
)
from prescient.kept import KeptStore
from tests.support.kept import flip_payload_byte
from tests.unit.evaluation.test_eval_scoring import QUESTIONS, preds


def _frame() -> pd.DataFrame:
    first = preds("m", "closed_book", None, ["Yes", "I cannot say.", "(c)", "hmm"], [None] * 4)
    second = preds(
        "m", "rag", "dynamic", ["No", None, "It will be c.", "(d)"], [None, "Timeout", None, None]
    )
    third = preds("n", "gold", None, ["No", "No"], [None, None])
    probs = first.assign(
        elicitation="verbal_probability",
        raw_response=['{"Yes": 0.7}', "0.2", '{"a": 0.1, "b": 0.2, "c": 0.6, "d": 0.1}', "?"],
    )
    return pd.concat([first, second, third, probs], ignore_index=True)


PARTS = [4, 4, 2, 4]


def _parquet(frame: pd.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


def _scored(frame: pd.DataFrame, kept: KeptScores | None) -> pd.DataFrame:
    if kept is None:
        return score_predictions(frame, QUESTIONS)
    return score_predictions(frame, QUESTIONS, parts=PARTS, columns=kept)


def test_kept_parts_give_the_same_table(tmp_path: Path) -> None:
    frame = _frame()
    plain = _scored(frame, None)
    assert [len(p) for p in plain["probs"].tolist()[-4:]] == [2, 2, 4, 4]
    first = KeptScores(KeptStore(tmp_path))
    assert _parquet(_scored(frame, first)) == _parquet(plain)
    assert (first.reused, first.computed) == (0, 4)
    again = KeptScores(KeptStore(tmp_path))
    assert _parquet(_scored(frame, again)) == _parquet(plain)
    assert (again.reused, again.computed) == (4, 0)


def test_a_changed_reply_or_question_rescores_only_its_parts(tmp_path: Path) -> None:
    frame = _frame()
    _scored(frame, KeptScores(KeptStore(tmp_path)))
    changed = frame.copy()
    changed.loc[9, "raw_response"] = "Yes"  # the third part's second reply
    kept = KeptScores(KeptStore(tmp_path))
    assert _parquet(_scored(changed, kept)) == _parquet(_scored(changed, None))
    assert (kept.reused, kept.computed) == (3, 1)
    # m2's answer decides the parts that ask it (the first, second and fourth)
    questions = QUESTIONS.assign(answer_index=[0, 1, 2, 0])
    kept = KeptScores(KeptStore(tmp_path))
    scored = score_predictions(changed, questions, parts=PARTS, columns=kept)
    assert _parquet(scored) == _parquet(score_predictions(changed, questions))
    assert (kept.reused, kept.computed) == (1, 3)


def _parts_of(frame: pd.DataFrame) -> list[tuple[list, ...]]:
    cols = (
        frame["question_id"].astype(str).tolist(),
        frame["qtype"].astype(str).tolist(),
        frame["raw_response"].tolist(),
        frame["error"].tolist(),
        frame["elicitation"].fillna("label").astype(str).tolist(),
    )
    out, start = [], 0
    for n in PARTS:
        out.append(tuple(c[start : start + n] for c in cols))
        start += n
    return out


def test_a_damaged_or_wrong_part_is_parsed_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    frame = _frame()
    plain = _scored(frame, None)
    _scored(frame, KeptScores(KeptStore(tmp_path)))
    assert len([f for f in (tmp_path / _KIND).rglob("*") if f.is_file()]) == 4
    kept = KeptScores(KeptStore(tmp_path))
    table = QuestionTable(QUESTIONS)
    first, rows = _parts_of(frame)[0:2]
    flip_payload_byte(KeptStore(tmp_path)._path(_KIND, kept._name(first, table)), 200)
    # a part that reads back, but not as its rows' columns (one value short)
    name = kept._name(rows, table)
    short = {c: v[:-1] for c, v in kept(rows, table).items()}
    blob = json.dumps(short).encode()
    KeptStore(tmp_path).write(_KIND, name, [np.frombuffer(blob, dtype=np.uint8)])
    again = KeptScores(KeptStore(tmp_path))
    with caplog.at_level("WARNING"):
        assert _parquet(_scored(frame, again)) == _parquet(plain)
    assert (again.reused, again.computed) == (2, 2)
    assert "computing it again" in caplog.text
    assert "does not hold its rows" in caplog.text


def test_cell_labels_are_each_rows_cell_label() -> None:
    frame = pd.DataFrame(
        {
            "setting": ["rag", "gold", "rag", "closed_book", "rag", "gold"],
            "rag_cutoff": pd.Series(
                ["2024-12-01", None, "dynamic", None, "2024-12-01", None], dtype="string"
            ),
        }
    )
    expected = [
        cell_label(s, c) for s, c in zip(frame["setting"], frame["rag_cutoff"], strict=True)
    ]
    assert cell_labels(frame).tolist() == expected
    assert cell_labels(frame.iloc[0:0]).tolist() == []
