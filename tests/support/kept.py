"""Damaging a kept part (:mod:`prescient.kept`) inside its compression, so that it still
decompresses and only its payload digest can tell."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from prescient.kept import LEVEL


def flip_payload_byte(path: Path, at: int) -> None:
    """Flip the byte at ``at`` of the part's ``.npy`` stream and write it back as the
    store writes a part."""
    raw = path.read_bytes()
    plain = bytearray(pa.input_stream(pa.BufferReader(raw), compression="zstd").read())
    plain[at] ^= 0xFF
    path.write_bytes(pa.Codec("zstd", compression_level=LEVEL).compress(bytes(plain), asbytes=True))
