"""Artifact I/O shared by all stages: atomic writes, so a killed stage never leaves a
half-written file that a later stage would trust."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it over ``path`` only on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file for writing and move it over ``path`` when the block ends."""
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if "b" in mode else "utf-8") as fh:
        yield fh


@contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a fresh temporary directory beside ``path``; on success it replaces ``path``
    whole, so the directory holds exactly one run's files (none left from an earlier run,
    none half-written by a killed one)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    tmp.chmod(0o755)  # mkdtemp's 0700 would outlive the swap
    try:
        yield tmp
        if target.exists():
            old = Path(
                tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent)
            )
            os.replace(target, old / target.name)
            os.replace(tmp, target)
            shutil.rmtree(old)
        else:
            os.replace(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write pretty, key-sorted JSON atomically (stable bytes for DVC metrics)."""
    with atomic_open(path) as fh:
        json.dump(obj, fh, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        fh.write("\n")


def write_parquet(path: str | os.PathLike[str], df: pd.DataFrame) -> None:
    """Write a DataFrame as Parquet atomically, without the pandas index."""
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


def frame_checksum(df: pd.DataFrame) -> str:
    """sha256 of a frame's content (column names, dtypes and values, in row order).

    Independent of Parquet writer metadata, so it identifies the data, not the file.
    """
    h = hashlib.sha256()
    h.update(json.dumps([[c, str(t)] for c, t in df.dtypes.items()]).encode())
    hashable = df.copy(deep=False)
    for c in df.columns:
        if df[c].dtype == object:  # list cells (choices, context ids) as JSON text
            hashable[c] = [
                json.dumps([str(x) for x in v]) if isinstance(v, list | tuple | np.ndarray) else v
                for v in df[c]
            ]
    row_hashes = pd.util.hash_pandas_object(hashable, index=False).to_numpy()
    h.update(row_hashes.tobytes())
    return h.hexdigest()


def typed_frame(
    schema: Mapping[str, str], rows: Mapping[str, Sequence[Any]] | None = None
) -> pd.DataFrame:
    """A table with exactly ``schema``'s columns (name -> pandas dtype), in its order.

    ``rows`` maps each column to its values (None: an empty table with the same types),
    so empty and full outputs of a stage always share one Parquet schema.
    """
    rows = rows or {c: [] for c in schema}
    return pd.DataFrame(
        {c: pd.Series(list(rows[c]), dtype=dtype) for c, dtype in schema.items()},
        columns=list(schema),
    )
