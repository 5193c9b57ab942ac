"""Sealing a response store file: its lines move into zstd frames beside it, every
answer is still served (nothing asked again), new answers go on being appended, and a
file somebody is using, or whose sealed part is damaged, is left as it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from prescient.llm.claims import OFD_LOCKS
from prescient.llm.ledger import Ledger, iter_lines
from prescient.llm.ledger_file import is_compressed, open_lines
from prescient.llm.store import store_path
from prescient.llm.store_seal import seal, sealed_path
from prescient.llm.types import LLMRequest
from prescient.plumbing.locations import dvc_cache_dir
from tests.support.llm import ask, dvc_project, stage_gateway

pytestmark = pytest.mark.skipif(not OFD_LOCKS, reason="no open-file-description locks")


def store_of(root: Path, ledger: Path) -> Path:
    path = store_path(ledger, dvc_cache_dir(root), root)
    assert path is not None
    return path


def answered(tmp_path: Path, compression: str, n: int) -> tuple[Path, Path, Path]:
    """A project whose stage asked n questions: its root, the stage's ledger and the
    store file."""
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    ask(root, ledger, compression, range(n))
    return root, ledger, store_of(root, ledger)


def lines_of(path: Path) -> list[bytes]:
    if not path.exists():
        return []
    with open_lines(path) as fh:
        return fh.read().splitlines(keepends=True)


def test_a_finished_stage_seals_its_store_file_and_every_answer_is_served_again(
    tmp_path: Path,
) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    assert ask(root, ledger, "zstd", range(40))[0] == 40
    store = store_of(root, ledger)
    part = sealed_path(store)
    assert part.name == "t.sealed.jsonl" and is_compressed(part)
    assert store.read_bytes() == b""  # emptied
    sealed = lines_of(part)
    assert len(sealed) == 40 and part.stat().st_size < sum(map(len, sealed)) / 3
    snapshot = ledger.read_bytes()

    # A rerun is served from the sealed part (nothing asked) and writes the same snapshot;
    # new questions are appended to the emptied file and sealed in their turn.
    calls, replies = ask(root, ledger, "zstd", range(40))
    assert calls == 0 and ledger.read_bytes() == snapshot
    assert ask(root, ledger, "zstd", range(30, 60))[0] == 20
    assert store.read_bytes() == b"" and len(lines_of(part)) == 60
    assert lines_of(part)[:40] == sealed  # the old frames as they were

    index = Ledger(store)
    assert len(index) == 60 and not index.damaged
    keys = [json.loads(x)["key"] for x in lines_of(part)]
    assert all(index.get(k) is not None for k in keys)
    index.close()


def test_a_stage_that_closes_its_gateway_before_writing_its_ledger_seals_too(
    tmp_path: Path,
) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    requests = [LLMRequest("m", [{"role": "user", "content": f"q{i} " * 40}]) for i in range(9)]
    gw = stage_gateway(root, ledger, "zstd")
    with gw:  # as the evaluation does: the calls, then the ledger
        gw.complete_many(requests)
    store = store_of(root, ledger)
    assert len(lines_of(store)) == 9 and not sealed_path(store).exists()
    gw.finish()
    assert store.read_bytes() == b"" and len(lines_of(sealed_path(store))) == 9
    assert len(lines_of(ledger)) == 9


def test_a_plain_store_file_is_never_sealed(tmp_path: Path) -> None:
    root, ledger, store = answered(tmp_path, "none", 10)
    assert len(lines_of(store)) == 10 and not sealed_path(store).exists()


def test_answers_appended_after_a_seal_are_read_after_the_sealed_ones(tmp_path: Path) -> None:
    root, ledger, store = answered(tmp_path, "zstd", 5)
    index = Ledger(store)
    entry = {"key": "k", "messages": [{"role": "user", "content": "x"}], "error": "boom"}
    line, ref = index.append_ref(entry)
    assert index.line_at(ref) == line  # a line of the file, after the sealed part's
    first = json.loads(lines_of(sealed_path(store))[0])
    assert index.get(first["key"])["response"] == first["response"]  # type: ignore[index]
    assert len(index) == 5 and index.failed_entries == 1  # the failure written
    index.close()
    again = Ledger(store)
    assert len(again) == 5 and again.failed_entries == 1
    again.close()


def test_a_store_file_in_use_is_not_sealed(tmp_path: Path) -> None:
    root, ledger, store = answered(tmp_path, "none", 8)
    before = store.read_bytes()
    reader = Ledger(store)  # another user of the file
    assert seal(store) is None and store.read_bytes() == before
    assert not sealed_path(store).exists()
    # Held by another process, too.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys,time; from prescient.llm.ledger import Ledger; "
            "l = Ledger(sys.argv[1]); print(len(l), flush=True); time.sleep(60)",
            str(store),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "8"
        reader.close()
        assert seal(store) is None  # closed, it holds the file until it lets go
        reader.release()
        assert seal(store) is None and store.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()
    done = seal(store)  # nobody left
    assert done is not None and done.lines == 8 and store.read_bytes() == b""
    assert b"".join(lines_of(sealed_path(store))) == before


def test_a_seal_cut_short_duplicates_nothing_for_long(tmp_path: Path) -> None:
    root, ledger, store = answered(tmp_path, "none", 6)
    before = store.read_bytes()
    assert seal(store) is not None
    # Killed after the sealed part was renamed into place, before the file was emptied.
    store.write_bytes(before + b'{"key": "torn')
    index = Ledger(store)
    assert len(index) == 6 and not index.damaged  # served once, the torn tail skipped
    index.close()
    index.release()
    done = seal(store)
    assert done is not None and (done.lines, done.already, done.torn_bytes) == (0, 6, 13)
    assert lines_of(sealed_path(store)) == before.splitlines(keepends=True)
    assert store.read_bytes() == b""


def test_a_damaged_sealed_part_is_never_added_to(tmp_path: Path) -> None:
    root, ledger, store = answered(tmp_path, "zstd", 30)
    part = sealed_path(store)
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])
    assert ask(root, ledger, "zstd", range(30, 35))[0] == 5
    assert part.read_bytes() == data[: len(data) // 2]  # left alone
    # The answers the damaged part held came back from the stage's snapshot; they and the
    # new ones stay in the plain file, and every one is served.
    assert len(lines_of(store)) == 35
    index = Ledger(store)
    assert len(index) == 35 and index.damaged
    assert "t.sealed.jsonl" in index.damaged[0][1]
    index.close()
    problems = [x.problem for x in iter_lines(part) if x.problem]
    assert problems and "unreadable" in problems[0]


def test_the_ledger_command_reads_a_sealed_store(tmp_path: Path) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    ask(root, ledger, "zstd", range(12))
    ask(root, ledger, "none", range(12, 15))  # a plain tail beside the sealed part
    cli = [sys.executable, "-m", "prescient", "ledger"]
    stats = subprocess.run([*cli, "stats"], cwd=root, capture_output=True, text=True)
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["m"]["entries"] == 15
    verify = subprocess.run([*cli, "verify"], cwd=root, capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_the_zstd_tool_reads_a_sealed_part(tmp_path: Path) -> None:
    tool = subprocess.run(["which", "zstd"], capture_output=True, text=True).stdout.strip()
    if not tool:
        pytest.skip("no zstd command on this machine")
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    ask(root, ledger, "zstd", range(7))
    ask(root, ledger, "zstd", range(7, 12))  # a second seal: frames added after the first
    part = sealed_path(store_of(root, ledger))
    out = subprocess.run([tool, "-dc", str(part)], capture_output=True, check=True).stdout
    assert out == b"".join(lines_of(part)) and len(out.splitlines()) == 12


_WRITER = """
import sys, time
from prescient.llm.ledger import Ledger
path, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
for r in range(rounds):
    ledger = Ledger(path)  # waits while the file is being sealed
    for i in range(4):
        ledger.append({"key": f"{name}-{r}-{i}", "messages": [], "error": "x" * 300})
    line, ref = ledger.append_ref({"key": f"{name}-{r}-c", "messages": [], "error": "y"})
    assert ledger.line_at(ref) == line  # where it went, after the sealed lines
    ledger.close()
    ledger.release()
    time.sleep(0.02)
"""


def test_seals_between_writers_lose_no_line(tmp_path: Path) -> None:
    root = dvc_project(tmp_path / "p")
    store = store_of(root, root / "data/llm/t.jsonl")
    ask(root, root / "data/llm/t.jsonl", "none", range(3))  # the store file and its pool
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(store), name, "25"])
        for name in ("a", "b")
    ]
    seals = 0
    while any(w.poll() is None for w in writers):
        seals += seal(store) is not None
    assert [w.wait() for w in writers] == [0, 0]
    seals += seal(store) is not None
    assert seals >= 2  # sealed between the writers' rounds too, not only at the end
    lines = lines_of(sealed_path(store)) + lines_of(store)
    keys = [json.loads(x)["key"] for x in lines]
    written = {f"{n}-{r}-{i}" for n in "ab" for r in range(25) for i in [0, 1, 2, 3, "c"]}
    assert written <= set(keys) and len(keys) == len(set(keys)) == len(written) + 3


def test_a_file_holding_only_a_torn_line_is_emptied_and_sealed_later(tmp_path: Path) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    store = store_of(root, ledger)
    store.parent.mkdir(parents=True)
    store.write_bytes(b'{"key": "torn')
    done = seal(store)
    assert done is not None and (done.lines, done.torn_bytes, done.sealed_bytes) == (0, 13, 0)
    assert store.read_bytes() == b"" and not sealed_path(store).exists()
    ask(root, ledger, "zstd", range(4))
    assert len(lines_of(sealed_path(store))) == 4


def test_a_released_reader_reads_no_sealed_line(tmp_path: Path) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    ask(root, ledger, "zstd", range(3))
    index = Ledger(store_of(root, ledger))
    key = next(iter(index))
    ref = index.ref(key)
    assert ref is not None and index.line_at(ref)
    index.release()  # its temporary copy of the sealed lines goes too
    with pytest.raises(OSError, match="released"):
        index.line_at(ref)
    index.close()
