"""Artifact I/O shared by all stages: atomic writes, so a killed stage never leaves a
half-written file that a later stage would trust.

A write goes to a temporary entry named ``.<target name>.<random>.tmp`` that is renamed
over the target only when complete. The writer holds an exclusive lock (``flock``) on its
temporary entry while it writes; the kernel drops the lock when the writer dies, so the
next write of the same target can tell a killed writer's leftover (lock free: removed)
from a concurrent writer's work in progress (lock held: left alone).

Temporary entries are created with the modes of any new file or directory (0666 and 0777
less the process umask), so a renamed result is as readable as a file written in place,
never private to its writer as ``tempfile`` would make it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

TEMP_SUFFIX = ".tmp"


def _temp_pattern(name: str | None) -> str:
    return f".{name}.*{TEMP_SUFFIX}" if name else f".*{TEMP_SUFFIX}"


def clean_stale_temps(directory: str | os.PathLike[str], name: str | None = None) -> list[Path]:
    """Remove the temporary files and directories that killed writers left in ``directory``.

    Only entries no live writer holds are removed (see the module docstring), so this is
    safe while other processes write the same target.

    Args:
        directory: where the temporary entries are.
        name: the target's file name (``.<name>.*.tmp``); None for every ``.*.tmp`` entry
            of the directory.

    Returns:
        The entries removed.
    """
    removed: list[Path] = []
    for entry in sorted(Path(directory).glob(_temp_pattern(name))):
        try:
            fd = os.open(entry, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:  # gone already, or a link: not a temporary entry of ours
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live writer's
            try:
                st = os.stat(entry, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not os.path.samestat(st, os.fstat(fd)):
                continue
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed.append(entry)
        finally:
            os.close(fd)
    if removed:
        logger.info("removed %d stale temporary file(s) in %s", len(removed), directory)
    return removed


def _new_temp(directory: Path, name: str, make_dir: bool) -> tuple[int, Path]:
    """Create ``.<name>.<random>.tmp`` in ``directory`` (a name no one else holds) with the
    modes of any new entry, the umask applied by the kernel; returns it opened."""
    while True:
        path = directory / f".{name}.{os.urandom(6).hex()}{TEMP_SUFFIX}"
        try:
            if make_dir:
                os.mkdir(path, 0o777)
                return os.open(path, os.O_RDONLY), path
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue


def _locked_temp(directory: Path, name: str, make_dir: bool = False) -> tuple[int, Path]:
    """A new temporary entry for target ``name``, and an open descriptor holding its lock."""
    while True:
        fd, path = _new_temp(directory, name, make_dir)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.path.samestat(os.stat(path, follow_symlinks=False), os.fstat(fd)):
                return fd, path
        except FileNotFoundError:
            pass
        os.close(fd)  # a cleaner took it between its creation and our lock: make another


@contextmanager
def atomic_path(
    path: str | os.PathLike[str], temp_dir: str | os.PathLike[str] | None = None
) -> Iterator[Path]:
    """Yield a temporary path; rename it over ``path`` only on success.

    Args:
        path: the target.
        temp_dir: where the temporary file lives (same file system as the target);
            default: beside the target. Stale temporary files of the target left there
            by killed writers are removed first.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    where = Path(temp_dir) if temp_dir is not None else target.parent
    clean_stale_temps(where, target.name)
    fd, tmp_path = _locked_temp(where, target.name)
    try:
        yield tmp_path
        with open(tmp_path, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, target)
    finally:
        try:
            tmp_path.unlink(missing_ok=True)
        finally:
            os.close(fd)


@contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield an empty temporary directory; it replaces directory ``path`` as a whole on
    success, so a reader never sees a mix of old and new files (a killed run leaves the
    previous directory untouched). Stale temporary directories of ``path`` are removed
    first."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temps(target.parent, target.name)
    fd, tmp = _locked_temp(target.parent, target.name, make_dir=True)
    try:
        yield tmp
        for file in tmp.rglob("*"):
            if file.is_file():
                with open(file, "rb") as fh:
                    os.fsync(fh.fileno())
        old = None
        if target.exists():
            old = target.with_name(f".{target.name}.{os.urandom(6).hex()}.old{TEMP_SUFFIX}")
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        elif old is not None:  # a file the directory replaces
            old.unlink(missing_ok=True)
    finally:
        try:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        finally:
            os.close(fd)


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file for writing and move it over ``path`` when the block ends."""
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if "b" in mode else "utf-8") as fh:
        yield fh


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The hex SHA-256 of a file's bytes."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write pretty, key-sorted JSON atomically (stable bytes for DVC metrics)."""
    with atomic_open(path) as fh:
        json.dump(obj, fh, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        fh.write("\n")


TEXT_PAGES: dict[str, Any] = {"compression": "zstd", "compression_level": 1}
"""How a table of article texts compresses its Parquet pages (``text=True``): zstd at
level 1, about two thirds of the bytes of pyarrow's default (snappy) on news text, read
as fast. The other tables keep the default. zstd's output is a function of its input,
level and version, and pyarrow (which ships the library) is pinned."""


def write_parquet(path: str | os.PathLike[str], df: pd.DataFrame, *, text: bool = False) -> None:
    """Write a DataFrame as Parquet atomically, without the pandas index; ``text``: a
    table of article texts (:data:`TEXT_PAGES`)."""
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False, **(TEXT_PAGES if text else {}))


def write_parquet_parts(
    path: str | os.PathLike[str],
    parts: Iterable[pd.DataFrame],
    empty: pd.DataFrame,
    *,
    text: bool = False,
    row_group_rows: int | None = None,
) -> FrameDigest:
    """Write consecutive parts of one table as Parquet atomically (a row group or more
    per part, so only one part is held at a time), without the pandas index; ``empty``
    (the table's columns, no rows) is written when there is no part; ``text``: a table
    of article texts (:data:`TEXT_PAGES`); ``row_group_rows``: rows per row group at
    most (None: pyarrow's default, a part's rows up to about a million).

    Returns:
        The table's :func:`frame_checksum`, as a :class:`FrameDigest`.
    """
    import concurrent.futures

    import pyarrow as pa
    import pyarrow.parquet as pq

    digest = FrameDigest()
    options = TEXT_PAGES if text else {}
    with atomic_path(path) as tmp, concurrent.futures.ThreadPoolExecutor(1) as aside:
        writer: pq.ParquetWriter | None = None
        try:
            for part in parts:
                # the part's digest beside its encoding (which runs without the GIL), on
                # its own shallow copy (no frame object shared between the threads); one
                # part at a time, so the digest sees the parts in order
                hashed = aside.submit(digest.update, part.copy(deep=False))
                table = pa.Table.from_pandas(part, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema, **options)
                writer.write_table(table, row_group_size=row_group_rows)
                hashed.result()
        finally:
            if writer is not None:
                writer.close()
        if writer is None:
            digest.update(empty)
            empty.to_parquet(tmp, index=False, **options)
    return digest


def frame_checksum(df: pd.DataFrame) -> str:
    """sha256 of a frame's content (column names, dtypes and values, in row order).

    Independent of Parquet writer metadata, so it identifies the data, not the file.
    """
    digest = FrameDigest()
    digest.update(df)
    return digest.hexdigest()


TABLE_MANIFEST = "_parts.json"
"""The file beside a partitioned table's parts that describes them (its name starts with
``_``, so neither this module nor pyarrow's dataset reader takes it for a part)."""


def table_files(path: str | os.PathLike[str]) -> list[Path]:
    """The Parquet files that hold one table, in row order: the file at ``path``, or the
    ``*.parquet`` files of directory ``path`` in name order (a partitioned table: names
    starting with ``_`` or ``.`` are not parts, the convention pyarrow and Spark share)."""
    at = Path(path)
    if not at.is_dir():
        return [at]
    files = sorted(
        f
        for f in at.iterdir()
        if f.suffix == ".parquet" and not f.name.startswith(("_", ".")) and f.is_file()
    )
    if not files:
        raise ValueError(f"{at}: a table directory without a Parquet file (rerun its stage)")
    return files


def table_columns(path: str | os.PathLike[str]) -> list[str]:
    """The column names of a table in a Parquet file or directory (:func:`table_files`),
    from its first file's schema alone."""
    import pyarrow.parquet as pq

    return list(pq.read_schema(table_files(path)[0]).names)


class ParquetTable:
    """One table in a Parquet file or in a directory of Parquet files
    (:func:`table_files`), read as one file: its row groups numbered across the files in
    order. The interface is :class:`pyarrow.parquet.ParquetFile`'s, as far as the
    project's readers use it.

    Args:
        path: the file or directory.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        import pyarrow.parquet as pq

        self.path = path
        self.paths = table_files(path)
        self._files = [pq.ParquetFile(f) for f in self.paths]
        self.schema_arrow = self._files[0].schema_arrow
        self._groups = [(f, g) for f in self._files for g in range(f.num_row_groups)]
        self.num_row_groups = len(self._groups)
        self.num_rows = sum(f.metadata.num_rows for f in self._files)

    def row_group_rows(self, group: int) -> int:
        """The number of rows of row group ``group``."""
        f, g = self._groups[group]
        return int(f.metadata.row_group(g).num_rows)

    def read_row_group(self, group: int, columns: Sequence[str] | None = None) -> Any:
        """Row group ``group`` as an Arrow table (``columns``: only those)."""
        f, g = self._groups[group]
        return f.read_row_group(g, columns=None if columns is None else list(columns))

    def iter_batches(
        self, columns: Sequence[str] | None = None, batch_size: int = 65536
    ) -> Iterator[Any]:
        """The table's record batches in order (``columns``: only those)."""
        names = None if columns is None else list(columns)
        for f in self._files:
            yield from f.iter_batches(batch_size=batch_size, columns=names)

    def empty(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """The table's columns (``columns``: only those), no rows, as ``pd.read_parquet``
        reads them."""
        names = None if columns is None else list(columns)
        out: pd.DataFrame = pd.read_parquet(self.paths[0], columns=names).iloc[:0]
        return out

    def close(self) -> None:
        for f in self._files:
            f.close()

    def __enter__(self) -> ParquetTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_table(path: str | os.PathLike[str], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """A table from its Parquet file or directory (:func:`table_files`), as
    ``pd.read_parquet`` reads one file holding all its rows (``columns``: only those)."""
    files = table_files(path)
    if len(files) == 1:
        return pd.read_parquet(files[0], columns=None if columns is None else list(columns))
    frame, _ = read_parquet_files(files, columns)
    return frame


def parquet_parts(
    path: str | os.PathLike[str], columns: Sequence[str] | None = None
) -> Iterator[pd.DataFrame]:
    """A Parquet table's rows one row group at a time (``columns``: only those of them
    the table has; a file or a directory, :class:`ParquetTable`), so a table larger than
    memory can be read through."""
    with ParquetTable(path) as pf:
        names = None if columns is None else [c for c in columns if c in pf.schema_arrow.names]
        if pf.num_row_groups == 0:
            yield pf.empty(names)
        for i in range(pf.num_row_groups):
            yield pf.read_row_group(i, columns=names).to_pandas()


def read_parquet_where(
    path: str | os.PathLike[str],
    column: str,
    values: Iterable[str],
    columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The rows of a Parquet table (a file or a directory, :class:`ParquetTable`) whose
    string ``column`` is one of ``values`` (none: an empty table with the table's
    columns), in table order: each row group's ``column`` is read first, and only the
    groups that hold a wanted row are read further, filtered as they are, so only those
    rows are ever held. ``columns``: only those (default: all)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = pa.array(sorted(set(values)), type=pa.string())
    with ParquetTable(path) as pf:
        names = list(pf.schema_arrow.names) if columns is None else list(columns)
        parts = []
        for group in range(pf.num_row_groups if len(wanted) else 0):
            at = pf.read_row_group(group, columns=[column]).column(column)
            keep = pc.is_in(at.cast(pa.string()), wanted)
            if pc.any(keep).as_py():
                parts.append(pf.read_row_group(group, columns=names).filter(keep))
        table = (
            pa.concat_tables(parts, promote_options="default")
            if parts
            else pf.schema_arrow.empty_table().select(names)
        )
    out: pd.DataFrame = table.to_pandas()
    return out


def read_parquet_files(
    paths: Sequence[str | os.PathLike[str]], columns: Sequence[str] | None = None
) -> tuple[pd.DataFrame, list[int]]:
    """Parquet files of one table (the same columns; a column all null in some files
    may be typed in others), concatenated in order, and each file's number of rows: read
    as Arrow tables and converted to pandas once, the frame ``pd.concat`` of each file's
    frame gives, at a fraction of the per-file cost (a score stage reads thousands of
    small partitions). ``columns``: only those."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = None if columns is None else list(columns)
    tables = [pq.read_table(p, columns=names) for p in paths]
    if not tables:
        return pd.DataFrame(), []
    out: pd.DataFrame = pa.concat_tables(tables, promote_options="default").to_pandas()
    return out, [t.num_rows for t in tables]


class RowReader:
    """Some columns of a Parquet table (a file or a directory, :class:`ParquetTable`) at
    given row positions, reading only the row groups that hold them: a stage whose kept work covers most of a table reads the rest alone.
    The last ``keep_groups`` row groups read are kept, so asks in about file order read
    each group once.

    Args:
        path: the file or directory.
        columns: the columns to read (every one must be in the table).
        keep_groups: row groups held at once (at least 1).
    """

    def __init__(
        self, path: str | os.PathLike[str], columns: Sequence[str], keep_groups: int = 1
    ) -> None:
        self.path = path
        self.columns = list(columns)
        self.keep_groups = max(1, keep_groups)
        self._file = ParquetTable(path)
        missing = [c for c in self.columns if c not in self._file.schema_arrow.names]
        if missing:
            raise ValueError(f"{path}: no column {missing}")
        sizes = [self._file.row_group_rows(i) for i in range(self._file.num_row_groups)]
        self._starts = np.cumsum([0, *sizes])
        self._groups: dict[int, list[list[Any]]] = {}
        self.groups_read = 0

    def __len__(self) -> int:
        return int(self._starts[-1])

    def _values(self, group: int) -> list[list[Any]]:
        values = self._groups.pop(group, None)
        if values is None:
            while len(self._groups) >= self.keep_groups:
                del self._groups[next(iter(self._groups))]  # the least recently used
            part = self._file.read_row_group(group, columns=self.columns)
            values = [part.column(c).to_pylist() for c in self.columns]
            self.groups_read += 1
        self._groups[group] = values
        return values

    def rows(self, positions: Iterable[int]) -> Iterator[tuple[Any, ...]]:
        """The columns' values of each row at ``positions`` (file positions, in any order),
        in that order."""
        n = len(self)
        for pos in positions:
            if not 0 <= pos < n:
                raise IndexError(f"{self.path}: no row {pos} (it has {n})")
            group = int(np.searchsorted(self._starts, pos, side="right")) - 1
            values = self._values(group)
            at = pos - int(self._starts[group])
            yield tuple(col[at] for col in values)


class TablesOnDisk(Mapping[str, pd.DataFrame]):
    """Parquet tables by name, read when asked for; only the last one read is kept, so a
    caller that takes them in turn holds one at a time."""

    def __init__(self, paths: Mapping[str, str | os.PathLike[str]]) -> None:
        self.paths = dict(paths)
        self._last: tuple[str, pd.DataFrame] | None = None

    def __getitem__(self, name: str) -> pd.DataFrame:
        if self._last is None or self._last[0] != name:
            self._last = None  # let the previous table go before reading the next
            self._last = (name, pd.read_parquet(self.paths[name]))
        return self._last[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def parquet_checksum(path: str | os.PathLike[str]) -> str:
    """:func:`frame_checksum` of the table in a Parquet file, read one row group at a
    time (a corpus need not fit in memory to be identified); of a partitioned table (a
    directory, :func:`table_files`), :func:`parts_checksum` of its files' checksums."""
    import pyarrow.parquet as pq

    if Path(path).is_dir():
        return parts_checksum({f.stem: parquet_checksum(f) for f in table_files(path)})
    digest = FrameDigest()
    with pq.ParquetFile(path) as pf:
        if pf.num_row_groups == 0:
            digest.update(pd.read_parquet(path))
        for i in range(pf.num_row_groups):
            digest.update(pf.read_row_group(i).to_pandas())
    return digest.hexdigest()


def parts_checksum(checksums: Mapping[str, str]) -> str:
    """The checksum of a partitioned table: sha256 of each part's name and
    :func:`frame_checksum`, in name order (a part changed, added or removed changes it)."""
    h = hashlib.sha256(b"parts\n")
    for name in sorted(checksums):
        h.update(f"{name} {checksums[name]}\n".encode())
    return h.hexdigest()


class FrameDigest:
    """:func:`frame_checksum` of a table that arrives in consecutive parts (each with the
    same columns and dtypes): the same digest as of the parts concatenated."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self._dtypes: str | None = None

    def update(self, df: pd.DataFrame) -> None:
        dtypes = json.dumps([[c, str(t)] for c, t in df.dtypes.items()])
        if self._dtypes is None:
            self._dtypes = dtypes
            self._h.update(dtypes.encode())
        elif dtypes != self._dtypes:
            raise ValueError(f"a part with dtypes {dtypes} after parts with {self._dtypes}")
        hashable = df.copy(deep=False)
        for c in df.columns:
            if df[c].dtype == object:  # list cells (choices, context ids) as JSON text
                hashable[c] = _json_cells(df[c])
        row_hashes = pd.util.hash_pandas_object(hashable, index=False).to_numpy()
        self._h.update(row_hashes.tobytes())

    def hexdigest(self) -> str:
        return self._h.hexdigest()


def _json_cells(values: Iterable[Any]) -> list[Any]:
    """Each list cell as the JSON text of its items' ``str``; other cells as they are.
    A cell equal in type and bytes to one seen before (a numeric array, or a sequence of
    strings) takes the text computed for it (a scores table repeats a few forecasts)."""
    memo: dict[Any, str] = {}
    out: list[Any] = []
    for v in values:
        if not isinstance(v, list | tuple | np.ndarray):
            out.append(v)
            continue
        key: Any = None
        if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
            key = (v.dtype.str, v.shape, v.tobytes())
        elif all(type(x) is str for x in v):
            key = tuple(v)
        text = memo.get(key) if key is not None else None
        if text is None:
            text = json.dumps([str(x) for x in v])
            if key is not None:
                memo[key] = text
        out.append(text)
    return out


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


def typed_records(schema: Mapping[str, str], records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """:func:`typed_frame` of row dicts: every record names every column of ``schema``
    (a missing one is a KeyError, never a silent null); other keys are not written."""
    rows = list(records)
    return typed_frame(schema, {c: [r[c] for r in rows] for c in schema})
