"""Compressed ledger snapshots (``llm.ledger_compression: zstd``): the same lines, fewer
bytes, the same bytes on every run, and read back by every reader as a plain one is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from prescient.llm.ledger import Ledger, LedgerNotWritableError, iter_lines, read_entries
from prescient.llm.ledger_file import FRAME_BYTES, MAGIC, compressed, is_compressed, open_lines
from prescient.llm.store import write_lines
from tests.support.llm import ask, dvc_project


def run(root: Path, ledger: Path, compression: str, n: int) -> tuple[int, list[str]]:
    """Ask n questions through a stage gateway; (calls sent, replies)."""
    return ask(root, ledger, compression, range(n))


def test_a_compressed_snapshot_holds_the_plain_snapshots_lines(tmp_path: Path) -> None:
    plain_root, zstd_root = dvc_project(tmp_path / "plain"), dvc_project(tmp_path / "zstd")
    plain, packed = plain_root / "data/llm/t.jsonl", zstd_root / "data/llm/t.jsonl"
    assert run(plain_root, plain, "none", 30)[0] == 30
    assert run(zstd_root, packed, "zstd", 30)[0] == 30
    assert not is_compressed(plain) and is_compressed(packed)
    assert packed.read_bytes()[:4] == MAGIC
    with open_lines(packed) as fh:
        lines = fh.read()
    # The same lines as the plain snapshot, apart from the run's own timings.
    strip = ("latency_s", "timestamp")
    assert [
        {k: v for k, v in json.loads(x).items() if k not in strip} for x in lines.splitlines()
    ] == [
        {k: v for k, v in json.loads(x).items() if k not in strip}
        for x in plain.read_bytes().splitlines()
    ]
    assert len(packed.read_bytes()) < len(lines) / 4
    # Every reader reads it: the entries, the lines with their problems, the index.
    assert [e["key"] for e in read_entries(packed)] == [e["key"] for e in read_entries(plain)]
    assert all(line.problem is None for line in iter_lines(packed))
    index = Ledger(packed, pool=None)
    assert len(index) == 30 and index.compressed
    first = json.loads(lines.splitlines()[0])
    assert index.get(first["key"])["response"] == first["response"]  # type: ignore[index]
    assert index.refresh() == 0
    index.close()


def test_a_rerun_over_a_compressed_snapshot_asks_nothing_and_writes_the_same_bytes(
    tmp_path: Path,
) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    calls, replies = run(root, ledger, "zstd", 25)
    written = ledger.read_bytes()
    # DVC restores the committed snapshot; the store is gone (a clone that pulled it).
    store = root / ".dvc/cache/prescient"
    for path in sorted(store.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    again, replies_again = run(root, ledger, "zstd", 25)
    assert again == 0 and replies_again == replies
    assert ledger.read_bytes() == written
    # Turned off, the same entries come back as JSON Lines, and on again as the same frames.
    assert run(root, ledger, "none", 25)[0] == 0
    assert ledger.read_bytes()[:1] == b"{"
    with open_lines(ledger) as fh:
        plain_lines = fh.read()
    assert run(root, ledger, "zstd", 25)[0] == 0
    assert ledger.read_bytes() == written
    with open_lines(ledger) as fh:
        assert fh.read() == plain_lines


def test_the_frames_depend_on_the_lines_alone(tmp_path: Path) -> None:
    lines = [
        json.dumps({"key": f"{i:064x}", "text": "word " * (i % 300)}).encode() + b"\n"
        for i in range(12000)
    ]
    assert sum(map(len, lines)) > 2 * FRAME_BYTES  # several frames
    one = tmp_path / "one.jsonl"
    write_lines(one, iter(lines), "zstd")
    two = tmp_path / "two.jsonl"
    write_lines(two, list(lines), "zstd")
    assert one.read_bytes() == two.read_bytes() == b"".join(compressed(lines))
    with open_lines(one) as fh:
        assert fh.read() == b"".join(lines)
    with pytest.raises(ValueError, match="unknown ledger compression"):
        write_lines(tmp_path / "x.jsonl", lines, "gzip")  # type: ignore[arg-type]


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_frames_compressed_on_threads_are_the_frames_one_after_the_other(
    monkeypatch: pytest.MonkeyPatch, threads: str
) -> None:
    import pyarrow as pa

    from prescient.llm import ledger_file

    monkeypatch.setattr(ledger_file, "FRAME_BYTES", 4096)
    lines = [json.dumps({"key": i, "text": "w " * (i % 97)}).encode() + b"\n" for i in range(3000)]
    codec = pa.Codec("zstd", compression_level=ledger_file.LEVEL)
    expected = [codec.compress(block, asbytes=True) for block in ledger_file._blocks(lines)]
    assert len(expected) > 20
    monkeypatch.setenv("PRESCIENT_THREADS", threads)
    assert list(compressed(iter(lines))) == expected
    # a reader that stops early leaves no thread behind it waiting
    frames = compressed(iter(lines))
    assert next(frames) == expected[0]
    frames.close()


def test_the_zstd_tool_reads_a_compressed_snapshot(tmp_path: Path) -> None:
    tool = subprocess.run(["which", "zstd"], capture_output=True, text=True).stdout.strip()
    if not tool:
        pytest.skip("no zstd command on this machine")
    lines = [f'{{"n":{i}}}\n'.encode() for i in range(200_000)]
    path = tmp_path / "l.jsonl"
    write_lines(path, lines, "zstd")
    out = subprocess.run([tool, "-dc", str(path)], capture_output=True, check=True).stdout
    assert out == b"".join(lines)


def test_a_compressed_ledger_is_never_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    write_lines(path, [b'{"n":1}\n'], "zstd")
    before = path.read_bytes()
    ledger = Ledger(path, pool=None)
    with pytest.raises(LedgerNotWritableError, match="compressed ledger snapshot"):
        ledger.check_writable()
    ledger.check_writable(appending=False)  # a snapshot's place: rewritten whole
    with pytest.raises(OSError, match="compressed ledger snapshot"):
        ledger.append({"key": "k", "messages": [], "response": "x"})
    assert path.read_bytes() == before


def test_the_ledger_command_verifies_and_exports_a_compressed_snapshot(tmp_path: Path) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    run(root, ledger, "zstd", 5)
    cli = [sys.executable, "-m", "prescient", "ledger"]
    verify = subprocess.run([*cli, "verify", str(ledger)], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    out = tmp_path / "export.csv"
    export = subprocess.run(
        [*cli, "export", str(ledger), "--out", str(out)], capture_output=True, text=True
    )
    assert export.returncode == 0, export.stderr
    assert len(out.read_text().splitlines()) == 6


def test_a_damaged_compressed_snapshot_gives_its_whole_lines_and_names_the_rest(
    tmp_path: Path,
) -> None:
    root = dvc_project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    run(root, ledger, "zstd", 400)
    with open_lines(ledger) as fh:
        whole = fh.read().splitlines(keepends=True)
    data = ledger.read_bytes()
    for damaged in (data[: len(data) // 2], data[:40] + b"\x00" * 64 + data[104:]):
        ledger.write_bytes(damaged)
        lines = list(iter_lines(ledger))  # never raises
        good = [line for line in lines if line.entry is not None]
        assert lines[-1].entry is None and "unreadable" in str(lines[-1].problem)
        assert lines[-1].number == len(good) + 1 < len(whole)
        index = Ledger(ledger, pool=None)
        assert len(index) == len(good)
        assert index.damaged == [(len(good) + 1, lines[-1].problem)]
        index.close()


def test_damage_costs_the_frame_it_hits_and_the_frames_after_it_are_read(
    tmp_path: Path,
) -> None:
    import pyarrow as pa

    lines = [
        json.dumps({"key": f"{i:064x}", "text": "word " * (i % 300)}).encode() + b"\n"
        for i in range(12000)
    ]
    path = tmp_path / "l.jsonl"
    write_lines(path, lines, "zstd")
    frames = list(compressed(lines))
    assert len(frames) >= 3
    held = [
        [
            json.loads(x)["key"]
            for x in pa.input_stream(pa.py_buffer(f), compression="zstd").read().splitlines()
        ]
        for f in frames
    ]
    data = bytearray(path.read_bytes())
    middle = len(frames[0]) + len(frames[1]) // 2
    data[middle : middle + 64] = b"\x00" * 64  # inside the second frame
    path.write_bytes(bytes(data))
    read = list(iter_lines(path))
    problems = [x for x in read if x.entry is None]
    good = [x.entry["key"] for x in read if x.entry is not None]  # type: ignore[index]
    assert len(problems) == 1 and "unreadable" in str(problems[0].problem)
    after = [k for frame in held[2:] for k in frame]
    assert good[: len(held[0])] == held[0] and good[-len(after) :] == after
    assert len(held[0]) + len(after) <= len(good) < len(lines)
    index = Ledger(path, pool=None)  # the index numbers the damage as the audit does
    assert index.damaged == [(problems[0].number, problems[0].problem)]
    index.close()


def test_a_temporary_directory_that_cannot_take_the_lines_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prescient.llm import ledger_file

    path = tmp_path / "l.jsonl"
    write_lines(path, [b'{"n":1}\n'] * 10, "zstd")

    class Full:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            pass

    monkeypatch.setattr(ledger_file.tempfile, "TemporaryFile", Full)
    with pytest.raises(
        OSError, match=r"cannot unpack .*l\.jsonl into a temporary file in .*TMPDIR"
    ):
        ledger_file.spooled(path, tmp_path)


def test_frames_written_before_are_copied_and_the_file_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prescient.llm import ledger_file
    from prescient.llm.ledger_file import FrameMemo

    monkeypatch.setattr(ledger_file, "FRAME_BYTES", 4096)
    lines = [
        json.dumps({"key": f"{i:06d}", "text": "w " * (i % 97)}).encode() + b"\n"
        for i in range(3000)
    ]
    path, index = tmp_path / "s.jsonl", tmp_path / "s.frames"

    def written(some: list[bytes], memo: bool) -> tuple[bytes, int]:
        frames = FrameMemo(index, path) if memo else None
        write_lines(path, some, "zstd", frames)
        if frames is None:
            return path.read_bytes(), 0
        frames.save()
        return path.read_bytes(), frames.copied

    first, copied = written(lines, True)
    assert copied == 0 and index.is_file()
    total = len(list(ledger_file._blocks(lines)))
    assert total > 20
    # A few lines added among the others: the frames they join are compressed again,
    # the rest copied; the file is the one written without any memo.
    more = sorted(
        lines + [json.dumps({"key": f"{i:06d}x"}).encode() + b"\n" for i in (5, 1500, 2990)]
    )
    again, copied = written(more, True)
    assert copied >= total - 6
    plain, _ = written(more, False)
    assert again == plain and again != first
    with open_lines(path) as fh:
        assert fh.read() == b"".join(more)
    # An index of another file (the file replaced since) copies nothing.
    written(lines, True)  # index of the first file
    path.write_bytes(plain)
    assert written(lines, True) == (first, 0)
    # An index of other code, or damaged, is none.
    written(lines, True)
    data = index.read_bytes()
    index.write_bytes(data[:-3])
    assert written(lines, True) == (first, 0)
