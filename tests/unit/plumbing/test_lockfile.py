"""Telling a torn dvc.lock apart, and DVC's dumps made atomic."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

import pytest

from prescient.plumbing.dvc_atomic import atomic_writes, dvc_dump_data
from prescient.plumbing.lockfile import problem_with

LOCK = """\
schema: '2.0'
stages:
  copy:
    cmd: cp a b
    deps:
    - path: a
      hash: md5
      md5: 0cc175b9c0f1b6a831c399e269772661
      size: 1
    outs:
    - path: b
      hash: md5
      md5: 0cc175b9c0f1b6a831c399e269772661
      size: 1
  other:
    cmd: echo hi
"""


def test_a_whole_lock_and_its_stages() -> None:
    assert problem_with(LOCK) == (None, 2)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "the file is empty"),
        ("\n  \n", "the file is empty"),
        (LOCK[:40], "the file ends mid-line"),  # cut inside `cmd: cp a b`
        (LOCK[:-3], "the file ends mid-line"),
        ("schema: '2.0'\nstages: [\n", "not YAML"),
        ("schema: '2.0'\nstages:\n  copy:\n    deps: 3\n", "not a DVC lock file"),
        ("- a\n- b\n", "not a DVC lock file"),
    ],
)
def test_torn_locks_are_named_with_the_reason(text: str, problem: str) -> None:
    got, stages = problem_with(text)
    assert got is not None and got.startswith(problem) and stages == 0


def test_a_lock_cut_at_a_line_end_is_an_older_shorter_record() -> None:
    """Cut after the first stage: still a valid lock, of one stage (DVC re-runs the other)."""
    cut = LOCK[: LOCK.index("  other:")]
    assert problem_with(cut) == (None, 1)


def _half_then_fail(data: Any, stream: TextIO) -> None:
    stream.write("schema: '2.0'\nstages:\n  cop")
    raise KeyboardInterrupt  # the process dies mid-dump


def test_a_dump_that_dies_midway_leaves_the_old_lock_only_when_atomic(tmp_path: Path) -> None:
    from dvc.utils.serialize import _common

    lock = tmp_path / "dvc.lock"
    lock.write_text(LOCK)
    lock.chmod(0o640)
    with atomic_writes(), pytest.raises(KeyboardInterrupt):
        _common._dump_data(lock, {}, dumper=_half_then_fail)
    assert lock.read_text() == LOCK
    assert [p.name for p in tmp_path.iterdir()] == ["dvc.lock"]  # no temp file left
    # DVC's own write tears it: the case the change exists for.
    with pytest.raises(KeyboardInterrupt):
        dvc_dump_data()(lock, {}, dumper=_half_then_fail)
    assert lock.read_text() == "schema: '2.0'\nstages:\n  cop"
    assert problem_with(lock.read_text())[0] is not None


def test_atomic_dumps_write_the_same_bytes_and_keep_the_mode(tmp_path: Path) -> None:
    from dvc.utils.serialize import dump_yaml, modify_yaml

    data = {"schema": "2.0", "stages": {"copy": {"cmd": "cp a b"}}}
    plain, atomic = tmp_path / "plain.lock", tmp_path / "atomic.lock"
    dump_yaml(plain, data)
    atomic.write_text("old\n")
    atomic.chmod(0o640)
    before = atomic.stat().st_ino
    with atomic_writes():
        dump_yaml(atomic, data)
    assert atomic.read_bytes() == plain.read_bytes()
    assert atomic.stat().st_ino != before  # renamed over, not rewritten in place
    assert atomic.stat().st_mode & 0o777 == 0o640
    with atomic_writes(), modify_yaml(atomic) as d:
        d["stages"]["copy"]["cmd"] = "cp a c"
    assert "cp a c" in atomic.read_text()
    # The block restores the writer it found; DVC's own writes in place.
    from dvc.utils.serialize import _common

    found = _common._dump_data
    with atomic_writes():
        assert _common._dump_data is not dvc_dump_data()
    assert _common._dump_data is found
    before = atomic.stat().st_ino
    dvc_dump_data()(atomic, data, dumper=_yaml_dump)
    assert atomic.stat().st_ino == before and atomic.read_bytes() == plain.read_bytes()


def _yaml_dump(data: Any, stream: TextIO) -> None:
    from dvc.utils.serialize._yaml import _dump

    _dump(data, stream)
