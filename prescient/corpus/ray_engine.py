"""The ``ray`` ingest engine: WARC files read and their HTML extracted in Ray tasks.

Reading WARC records and extracting their HTML with trafilatura is almost all of the
ingest's work at crawl scale (tens of milliseconds a page against microseconds for the
checks), so that part, and only that part, moves to Ray: one task per file, the files
of :func:`prescient.corpus.sources.corpus_files` in their order. A task runs the same
reader as the local engine (:func:`prescient.corpus.readers.file_units`) and streams its
units back as Arrow tables of ``rows_per_batch`` rows; this process turns them back into
units, in file order, and hands them to the same checks, de-duplication and accounting
as the local engine. Every unit (damage events included) crosses unchanged, in the same
order, so the article table and the metrics are byte-identical to a local run by
construction, and the accounting is merged exactly because it is only ever done here.

Memory stays bounded: this process holds one batch at a time and the article
candidates (as locally); tasks of files ahead of the one being consumed (at most
``files_in_flight``) leave their tables in Ray's object store, which spills to disk.
A file's sha256 (crawl manifests) is computed by its task while reading and compared
here, so a changed file stops ingest as it does locally.

Files are the unit of work: a month of CC-NEWS is hundreds of files of about 1 GB, far
more tasks than a cluster has cores. Splitting one gzip file into record ranges would
need its member boundaries, which only a full decompression finds.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from prescient.corpus.physical import Damage
from prescient.corpus.readers import file_units
from prescient.corpus.settings import ARTICLE_FIELDS, CorpusSettings, RaySettings
from prescient.corpus.sources import InputFile, check_digest, corpus_files
from prescient.corpus.units import RawRow, Unit
from prescient.corpus.warc import PLAIN, Extraction
from prescient.ray_cluster import cluster_cpus, connect

logger = logging.getLogger(__name__)

_ROW, _DAMAGE = "row", "damage"
_SHA256 = b"sha256"

UNIT_SCHEMA = pa.schema(
    [
        ("kind", pa.string()),
        ("where", pa.binary()),  # a row's place, or a damaged file's path
        ("reason", pa.string()),
        ("detail", pa.binary()),
        ("notes", pa.list_(pa.string())),
        ("file_no", pa.int64()),
        ("member_first", pa.int64()),  # a damage event's member
        ("member_last", pa.int64()),
        ("fetched", pa.date32()),
        ("offset", pa.int64()),
        ("produced", pa.bool_()),
        ("field_keys", pa.list_(pa.string())),
        ("date_text", pa.binary()),
        ("date_day", pa.date32()),
        *((name, pa.binary()) for name in ARTICLE_FIELDS if name != "date"),
    ]
)
"""One unit per row. Text travels as UTF-8 bytes with lone surrogates kept
(``surrogatepass``), so a string comes back exactly as the reader made it, even one the
checks will reject as ``invalid_utf8``."""


def _enc(value: str | None) -> bytes | None:
    return None if value is None else value.encode("utf-8", "surrogatepass")


def _dec(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", "surrogatepass")


def _text_field(name: str, value: Any) -> bytes | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"field {name} holds a {type(value).__name__}; the WARC reader gives text")
    return _enc(value)


def units_table(units: Sequence[Unit]) -> pa.Table:
    """Units of a WARC file as an Arrow table (see :data:`UNIT_SCHEMA`)."""
    cols: dict[str, list[Any]] = {name: [] for name in UNIT_SCHEMA.names}
    for u in units:
        if isinstance(u, Damage):
            values: dict[str, Any] = {
                "kind": _DAMAGE,
                "where": _enc(u.path),
                "reason": u.reason,
                "detail": _enc(u.detail),
                "file_no": u.file_no,
                "member_first": u.member,
                "offset": u.offset,
                "produced": u.produced,
            }
        else:
            date = u.fields.get("date")
            if date is not None and not isinstance(date, str | dt.date):
                raise TypeError(f"field date holds a {type(date).__name__}")
            values = {
                "kind": _ROW,
                "where": _enc(u.where),
                "reason": u.reason,
                "detail": _enc(u.detail),
                "notes": list(u.notes),
                "file_no": u.file_no,
                "member_first": u.members[0],
                "member_last": u.members[1],
                "fetched": u.fetched,
                "field_keys": list(u.fields),
                "date_text": _enc(date) if isinstance(date, str) else None,
                "date_day": date if isinstance(date, dt.date) else None,
            }
            for name in ARTICLE_FIELDS:
                if name != "date":
                    values[name] = _text_field(name, u.fields.get(name))
        for name, column in cols.items():
            column.append(values.get(name))
    return pa.Table.from_pydict(cols, schema=UNIT_SCHEMA)


def table_units(table: pa.Table) -> Iterator[Unit]:
    """The units of :func:`units_table`, as they were."""
    cols = table.to_pydict()
    for i in range(table.num_rows):
        if cols["kind"][i] == _DAMAGE:
            yield Damage(
                cols["file_no"][i],
                _dec(cols["where"][i]) or "",
                cols["reason"][i],
                cols["member_first"][i],
                cols["offset"][i],
                cols["produced"][i],
                _dec(cols["detail"][i]) or "",
            )
            continue
        values: dict[str, Any] = {
            name: _dec(cols[name][i]) for name in ARTICLE_FIELDS if name != "date"
        }
        text_date = cols["date_text"][i]
        values["date"] = _dec(text_date) if text_date is not None else cols["date_day"][i]
        yield RawRow(
            _dec(cols["where"][i]) or "",
            fields={key: values[key] for key in cols["field_keys"][i]},
            reason=cols["reason"][i],
            detail=_dec(cols["detail"][i]) or "",
            notes=tuple(cols["notes"][i]),
            file_no=cols["file_no"][i],
            members=(cols["member_first"][i], cols["member_last"][i]),
            fetched=cols["fetched"][i],
        )


def file_tables(
    corpus: CorpusSettings,
    path: Path,
    file_no: int,
    max_record_bytes: int,
    rows_per_batch: int,
    digest: bool,
    extraction: Extraction = PLAIN,
) -> Iterator[pa.Table]:
    """The Ray task: one file's units in tables of ``rows_per_batch``, then an empty
    table whose metadata holds the file's sha256 (empty when not asked for)."""
    sha = hashlib.sha256() if digest else None
    batch: list[Unit] = []
    units = file_units(
        corpus, path, file_no, max_record_bytes=max_record_bytes, digest=sha, extraction=extraction
    )
    for unit in units:
        batch.append(unit)
        if len(batch) >= rows_per_batch:
            yield units_table(batch)
            batch = []
    if batch:
        yield units_table(batch)
    hexdigest = sha.hexdigest() if sha is not None else ""
    yield units_table([]).replace_schema_metadata({_SHA256: hexdigest.encode()})


def read_rows_ray(
    corpus: CorpusSettings,
    settings: RaySettings,
    *,
    max_record_bytes: int,
    extraction: Extraction = PLAIN,
) -> Iterator[Unit]:
    """All units of a WARC source, read by Ray tasks and yielded in file order, exactly as
    :func:`prescient.corpus.readers.read_rows` yields them.

    Raises:
        CorpusConfigError: as the local engine (checked before Ray starts).
        ChecksumError: a crawled file whose bytes changed (after its units).
    """
    import ray

    files = corpus_files(corpus)
    started = connect(settings)
    queue: deque[tuple[InputFile, Any]] = deque()
    try:
        cpus = cluster_cpus()
        in_flight = settings.files_in_flight or 2 * max(1, cpus)
        logger.info(
            "ray: %d files over %d CPUs, %d at a time (%s)",
            len(files),
            cpus,
            in_flight,
            settings.address or "a Ray on this machine",
        )
        task = ray.remote(num_cpus=1)(file_tables)
        pending = iter(enumerate(files))

        def submit() -> None:
            nxt = next(pending, None)
            if nxt is not None:
                file_no, item = nxt
                ref = task.remote(
                    corpus,
                    item.path,
                    file_no,
                    max_record_bytes,
                    settings.rows_per_batch,
                    item.sha256 is not None,
                    extraction,
                )
                queue.append((item, ref))

        for _ in range(in_flight):
            submit()
        while queue:
            item, tables = queue[0]
            sha = ""
            for ref in tables:
                table = ray.get(ref)
                yield from table_units(table)
                sha = (table.schema.metadata or {}).get(_SHA256, b"").decode()
            queue.popleft()
            submit()
            if item.sha256 is not None:
                check_digest(item, sha)
    finally:
        for _, tables in queue:  # stopped early: nothing more is wanted
            try:
                ray.cancel(tables)
            except Exception:  # already finished, or a cluster that cannot cancel
                logger.debug("cancel failed", exc_info=True)
        if started:
            ray.shutdown()
