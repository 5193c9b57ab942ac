"""The whole-file check: sha256 and complete gzip members, fed in any pieces."""

from __future__ import annotations

import gzip
import hashlib
import os
import random
from pathlib import Path

import pytest

from prescient.crawl.verify import CorruptData, StreamCheck, check_file


def _members(n: int, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    return b"".join(
        gzip.compress(bytes(rng.getrandbits(8) % 16 + 65 for _ in range(2000)), mtime=0)
        for _ in range(n)
    )


def _feed(data: bytes, cuts: list[int], gz: bool = True) -> StreamCheck:
    check = StreamCheck(gz)
    bounds = [0, *sorted(cuts), len(data)]
    for a, b in zip(bounds, bounds[1:], strict=False):
        check.update(data[a:b])
    return check


def test_multi_member_gzip_in_any_pieces_gives_the_sha256() -> None:
    data = _members(5)
    rng = random.Random(1)
    for _ in range(20):
        cuts = [rng.randrange(len(data)) for _ in range(rng.randrange(0, 8))]
        check = _feed(data, cuts)
        assert check.finish() == hashlib.sha256(data).hexdigest()
        assert check.members == 5 and check.size == len(data)
    one_byte_at_a_time = _feed(data[:300] + data[300:], list(range(1, 300)))
    assert one_byte_at_a_time.finish() == hashlib.sha256(data).hexdigest()


def test_a_stream_cut_inside_a_member_is_truncated() -> None:
    data = _members(3)
    for cut in (len(data) - 1, len(data) - 8, len(data) // 2, 5):
        check = _feed(data[:cut], [cut // 3])
        with pytest.raises(CorruptData, match="truncated gzip member"):
            check.finish()


def test_a_stream_cut_at_a_member_boundary_is_whole_gzip() -> None:
    """The gzip check cannot see a cut between members; the length check does that."""
    first = _members(1)
    assert _feed(first + _members(1, seed=2), []).members == 2
    assert _feed(first, []).finish() == hashlib.sha256(first).hexdigest()


def test_garbage_is_refused_where_it_starts() -> None:
    data = _members(2)
    with pytest.raises(CorruptData, match="member 3"):
        _feed(data + b"<html>503 Slow Down</html>", [len(data)])
    with pytest.raises(CorruptData, match="member 1"):
        _feed(b"<html>not gzip</html>", [])
    with pytest.raises(CorruptData, match="empty file"):
        StreamCheck(True).finish()


def test_without_gzip_only_the_digest_counts(tmp_path: Path) -> None:
    data = os.urandom(10_000)
    path = tmp_path / "x.bin"
    path.write_bytes(data)
    check = check_file(path, gzip=False, chunk_bytes=4096)
    assert check.finish() == hashlib.sha256(data).hexdigest()
