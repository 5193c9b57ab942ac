"""Kept parts (:mod:`prescient.kept`): compressed on disk, read back exactly, a part
written plain still read, a damaged one computed again."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from prescient.kept import _MAGIC, KeptStore, _payload_digest, digest


def arrays() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.zipf(1.3, 200_000).clip(max=50_000).astype(np.int32), np.arange(7, dtype=np.int64)]


def test_a_part_is_written_compressed_and_read_back_exactly(tmp_path: Path) -> None:
    store = KeptStore(tmp_path)
    name = digest(b"month")
    store.write("tokens", name, arrays())
    path = next(p for p in tmp_path.rglob("*") if p.is_file())
    assert path.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
    assert path.stat().st_size < sum(a.nbytes for a in arrays()) / 2
    got = store.read("tokens", name)
    assert got is not None and all(
        np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(got, arrays(), strict=True)
    )


def test_a_part_written_plain_is_read(tmp_path: Path) -> None:
    store = KeptStore(tmp_path)
    name = digest(b"old")
    data = arrays()
    head = np.array([*_MAGIC, len(data), _payload_digest(data)], dtype=np.int64)
    plain = io.BytesIO()
    for a in (head, *data):
        np.save(plain, a, allow_pickle=False)
    path = tmp_path / "tokens" / name.hex()[:2] / name.hex()
    path.parent.mkdir(parents=True)
    path.write_bytes(plain.getvalue())
    got = store.read("tokens", name)
    assert got is not None and np.array_equal(got[0], data[0])


def test_a_cut_part_is_computed_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = KeptStore(tmp_path)
    name = digest(b"cut")
    store.write("tokens", name, arrays())
    path = next(p for p in tmp_path.rglob("*") if p.is_file())
    path.write_bytes(path.read_bytes()[:-100])
    assert store.read("tokens", name) is None
    assert "unreadable" in caplog.text


def test_a_kept_checksum_is_the_files_own_and_a_file_is_decoded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prescient import io as pio
    from prescient.kept import KeptChecksums

    frame = pd.DataFrame({"a": range(5), "b": list("vwxyz")})
    path, other = tmp_path / "t.parquet", tmp_path / "u.parquet"
    pio.write_parquet(path, frame)
    pio.write_parquet(other, frame.iloc[1:])
    truth = pio.parquet_checksum(path)
    kept = KeptChecksums(KeptStore(tmp_path / "kept"))
    kept.record(path, truth)
    decode = pio.parquet_checksum
    monkeypatch.setattr(pio, "parquet_checksum", lambda p: pytest.fail("decoded a kept file"))
    assert kept.checksum(path) == truth
    monkeypatch.setattr(pio, "parquet_checksum", decode)
    # another file (other bytes) is checksummed, then kept
    assert kept.checksum(other) == decode(other) != truth
    monkeypatch.setattr(pio, "parquet_checksum", lambda p: pytest.fail("decoded a kept file"))
    assert kept.checksum(other) == decode(other)
    # a stored value that is not a checksum is computed again
    kept.store.write("parquet", kept._name(kept_sha(path)), [np.frombuffer(b"x" * 64, np.uint8)])
    monkeypatch.setattr(pio, "parquet_checksum", decode)
    assert kept.checksum(path) == truth


def kept_sha(path: Path) -> str:
    from prescient.io import file_sha256

    return file_sha256(path)
