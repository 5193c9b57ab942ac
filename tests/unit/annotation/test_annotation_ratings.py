"""Rating files: format, last-line-wins, atomic appends, validation, CSV import."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from prescient.annotation.annotators import load_ratings
from prescient.annotation.ratings import (
    AnnotationError,
    Rating,
    append_rating,
    append_ratings,
    check_annotator_name,
    clean_ratings_dir,
    import_csv,
    read_ratings_file,
)
from prescient.vocab import PRINCIPLES
from tests.conftest import ROOT

ITEMS = ["q1", "q2", "q3"]
STAMP = "2025-01-01T00:00:00+00:00"


def _scores(v: int = 2, **changes: Any) -> dict[str, Any]:
    s: dict[str, Any] = dict.fromkeys(PRINCIPLES, v)
    s.update(changes)
    return s


def _line(item: str, annotator: str, scores: object, saved_at: str = STAMP) -> str:
    return json.dumps(
        {"item_id": item, "annotator": annotator, "scores": scores, "saved_at": saved_at}
    )


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_rating_line_has_exactly_the_documented_format(tmp_path: Path) -> None:
    path = tmp_path / "alice.jsonl"
    append_rating(path, Rating("q1", "alice", _scores(1, objectivity=0), STAMP))
    obj = json.loads(path.read_text())
    assert list(obj) == ["item_id", "annotator", "scores", "saved_at"]
    assert obj["scores"] == {**dict.fromkeys(PRINCIPLES, 1), "objectivity": 0}
    assert list(obj["scores"]) == list(PRINCIPLES)


def test_later_line_replaces_earlier(tmp_path: Path) -> None:
    path = tmp_path / "alice.jsonl"
    append_rating(path, Rating("q1", "alice", _scores(2), STAMP))
    append_rating(path, Rating("q2", "alice", _scores(1), STAMP))
    append_rating(path, Rating("q1", "alice", _scores(0), "2025-01-02T00:00:00+00:00"))
    assert len(path.read_text().splitlines()) == 3  # history kept
    ann, problems = read_ratings_file(path, ITEMS)
    assert problems == []
    assert ann.ratings["q1"].scores == _scores(0)
    assert ann.ratings["q1"].saved_at.startswith("2025-01-02")
    assert set(ann.ratings) == {"q1", "q2"}


def test_concurrent_appends_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "alice.jsonl"
    threads = [
        threading.Thread(
            target=append_rating, args=(path, Rating(f"q{i}", "alice", _scores(i % 3), STAMP))
        )
        for i in range(40)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_text().splitlines()
    assert sorted(json.loads(x)["item_id"] for x in lines) == sorted(f"q{i}" for i in range(40))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_append_completes_a_torn_last_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "alice.jsonl", [_line("q1", "alice", _scores())])
    path.write_text(path.read_text().rstrip("\n"))  # edited by hand, no final newline
    append_rating(path, Rating("q2", "alice", _scores(1), STAMP))
    ann, problems = read_ratings_file(path, ITEMS)
    assert problems == [] and set(ann.ratings) == {"q1", "q2"}


def test_load_ratings_accepts_valid_files(tmp_path: Path) -> None:
    _write(
        tmp_path / "alice.jsonl", [_line("q1", "alice", _scores()), _line("q2", "alice", _scores())]
    )
    _write(tmp_path / "bob.jsonl", [_line("q1", "bob", _scores(1))])
    (tmp_path / "README.md").write_text("not a ratings file")
    loaded = load_ratings(tmp_path, ITEMS)
    assert [a.annotator for a in loaded] == ["alice", "bob"]
    assert [len(a.ratings) for a in loaded] == [2, 1]


def test_validation_lists_every_offending_row(tmp_path: Path) -> None:
    _write(
        tmp_path / "alice.jsonl",
        [
            _line("q1", "alice", _scores()),
            _line("nope", "alice", _scores()),  # 2: unknown item
            _line("q2", "alice", _scores(2, objectivity=3)),  # 3: outside 0-2
            _line("q3", "alice", {k: 2 for k in PRINCIPLES[:6]}),  # 4: missing principle
            "{not json",  # 5
            _line("q3", "bob", _scores()),  # 6: someone else's line
            _line("q3", "alice", _scores(2, public_interest=True)),  # 7: bool is not a score
            _line("q3", "alice", _scores(2, not_obvious=1.5)),  # 8: not an integer
        ],
    )
    _write(tmp_path / "bob.jsonl", [_line("q1", "bob", _scores())])
    with pytest.raises(AnnotationError) as err:
        load_ratings(tmp_path, ITEMS)
    got = {(p.line, p.item_id) for p in err.value.problems}
    assert got == {
        (2, "nope"),
        (3, "q2"),
        (4, "q3"),
        (5, None),
        (6, "q3"),
        (7, "q3"),
        (8, "q3"),
    }
    text = str(err.value)
    assert "alice.jsonl:3 item q2: score objectivity=3 is outside 0-2" in text
    assert "unknown item id" in text
    assert "missing score(s) for ['not_obvious']" in text
    assert "annotator 'bob' in the file of 'alice'" in text


def test_annotator_who_rated_nothing(tmp_path: Path) -> None:
    _write(tmp_path / "alice.jsonl", [_line("q1", "alice", _scores())])
    _write(tmp_path / "bob.jsonl", [_line("q1", "bob", _scores())])
    (tmp_path / "carol.jsonl").write_text("\n")
    with pytest.raises(AnnotationError) as err:
        load_ratings(tmp_path, ITEMS)
    assert [str(p) for p in err.value.problems] == [
        f"{tmp_path / 'carol.jsonl'}: annotator 'carol' rated nothing"
    ]


def test_duplicate_ratings_of_one_annotator_in_two_files(tmp_path: Path) -> None:
    _write(
        tmp_path / "alice.jsonl", [_line("q1", "alice", _scores()), _line("q2", "alice", _scores())]
    )
    _write(tmp_path / "Alice.jsonl", [_line("q2", "Alice", _scores(1))])
    _write(tmp_path / "bob.jsonl", [_line("q1", "bob", _scores())])
    with pytest.raises(AnnotationError) as err:
        load_ratings(tmp_path, ITEMS)
    (problem,) = err.value.problems
    assert problem.item_id == "q2"
    assert "duplicate ratings" in problem.message


def test_fewer_than_two_annotators(tmp_path: Path) -> None:
    _write(tmp_path / "alice.jsonl", [_line("q1", "alice", _scores())])
    with pytest.raises(AnnotationError, match="at least 2 annotators; found 1") as err:
        load_ratings(tmp_path, ITEMS)
    assert "alice.jsonl: 1 item(s) rated" in str(err.value)


@pytest.mark.parametrize("name", ["", "../x", "a b", "-x", "x/y", "é", "ann_a\n", "a" * 65])
def test_annotator_names_must_be_safe_file_names(name: str) -> None:
    with pytest.raises(ValueError, match="annotator name"):
        check_annotator_name(name)


def test_a_ratings_file_needs_a_valid_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="annotator name"):
        append_rating(tmp_path / "ann_a\n.jsonl", Rating("q1", "ann_a\n", _scores(), STAMP))
    assert list(tmp_path.iterdir()) == []


# A writer killed after it wrote its temporary file, just before the rename.
KILLED_APPEND = """
import os, signal, sys
from pathlib import Path
from prescient.annotation.ratings import Rating, append_ratings
from prescient.vocab import PRINCIPLES
os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
scores = dict.fromkeys(PRINCIPLES, 0)
append_ratings(Path(sys.argv[1]), [Rating("q2", "ann_b", scores, "2025-01-02T00:00:00+00:00")])
"""


def test_a_killed_write_leaves_no_temporary_file_in_the_ratings_dir(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings"
    path = ratings / "ann_b.jsonl"
    append_ratings(path, [Rating("q1", "ann_b", _scores(), STAMP)])
    before = path.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", KILLED_APPEND, str(path)], env=env)
    assert done.returncode == -signal.SIGKILL
    # The tracked directory holds only the untouched file; the leftover is beside it.
    assert [p.name for p in ratings.iterdir()] == ["ann_b.jsonl"]
    assert path.read_bytes() == before
    stale = list(tmp_path.glob(".ann_b.jsonl.*.tmp"))
    assert len(stale) == 1 and "q2" in stale[0].read_text()
    # The next write of the file removes it (no live writer holds it).
    append_ratings(path, [Rating("q3", "ann_b", _scores(), STAMP)])
    assert list(tmp_path.glob(".*.tmp")) == []
    assert [json.loads(x)["item_id"] for x in path.read_text().splitlines()] == ["q1", "q3"]


def test_leftovers_inside_the_ratings_dir_are_cleaned(tmp_path: Path) -> None:
    """Temporary files that writers used to leave in the ratings directory itself."""
    ratings = tmp_path / "ratings"
    _write(ratings / "ann_a.jsonl", [_line("q1", "ann_a", _scores())])
    (ratings / ".ann_b.jsonl.x1y2z3.tmp").write_text("half a line")
    (ratings / ".articles.parquet.abc.tmp").write_text("")
    (ratings / "notes.tmp").write_text("not a temporary file of ours")
    clean_ratings_dir(ratings)
    assert sorted(p.name for p in ratings.iterdir()) == ["ann_a.jsonl", "notes.tmp"]


def _packet_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    cols = ["position", "item_id", "question", *PRINCIPLES]
    with open(path, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for i, r in enumerate(rows, 1):
            w.writerow({"position": str(i), "question": "?", **r})
    return path


def _cells(v: str = "2", **changes: str) -> dict[str, str]:
    c = dict.fromkeys(PRINCIPLES, v)
    c.update(changes)
    return c


def test_import_csv_converts_rated_rows(tmp_path: Path) -> None:
    path = _packet_csv(
        tmp_path / "alice.csv",
        [
            {"item_id": "q1", **_cells("2", objectivity="1")},
            {"item_id": "q2", **_cells("")},  # not rated yet
            {"item_id": "q3", **_cells("2.0", correctness=" 0 ")},  # spreadsheet style
        ],
    )
    ratings = import_csv(path, "alice", ITEMS, saved_at=STAMP)
    assert [r.item_id for r in ratings] == ["q1", "q3"]
    assert ratings[0].scores == _scores(2, objectivity=1)
    assert ratings[1].scores == _scores(2, correctness=0)
    assert all(r.annotator == "alice" and r.saved_at == STAMP for r in ratings)


def test_import_csv_lists_offending_rows(tmp_path: Path) -> None:
    path = _packet_csv(
        tmp_path / "alice.csv",
        [
            {"item_id": "q1", **_cells("2")},
            {"item_id": "zz", **_cells("2")},  # line 3: unknown
            {"item_id": "q1", **_cells("1")},  # line 4: duplicate
            {"item_id": "q2", **_cells("2", correctness="")},  # line 5: partly filled
            {"item_id": "q3", **_cells("2", objectivity="3", not_obvious="yes")},  # line 6
        ],
    )
    with pytest.raises(AnnotationError) as err:
        import_csv(path, "alice", ITEMS)
    got = [(p.line, p.item_id, p.message) for p in err.value.problems]
    assert got == [
        (3, "zz", "unknown item id (not in the packets)"),
        (4, "q1", "duplicate ratings: item already rated in row 2"),
        (5, "q2", "score correctness is empty (row partly filled)"),
        (6, "q3", "score objectivity='3' is outside 0-2"),
        (6, "q3", "score not_obvious='yes' is outside 0-2"),
    ]


def test_import_csv_rejects_an_empty_sheet_and_a_foreign_csv(tmp_path: Path) -> None:
    empty = _packet_csv(tmp_path / "a.csv", [{"item_id": i, **_cells("")} for i in ITEMS])
    with pytest.raises(AnnotationError, match="rated nothing"):
        import_csv(empty, "alice", ITEMS)
    foreign = tmp_path / "b.csv"
    foreign.write_text("id,score\nq1,2\n")
    with pytest.raises(AnnotationError) as err:
        import_csv(foreign, "alice", ITEMS)
    assert "missing column(s) ['item_id'" in str(err.value)
