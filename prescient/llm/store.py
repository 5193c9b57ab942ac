"""The response store: every answer a model gave, kept where DVC never rolls it back.

A stage's ledger (``data/llm/...jsonl``) is a DVC output, and DVC restores outputs to
their recorded state whenever it sets up a workspace: ``dvc exp run`` checks out the
committed outputs before it reproduces, queued and ``--temp`` experiments run in fresh
copies under ``.dvc/tmp/exps/``, ``dvc checkout`` and ``dvc exp apply`` overwrite the
workspace. An answer that lived only in the ledger would be lost by each of these and
paid for again. So answers live in two places, with different jobs:

- **The store** is append-only and shared: one ledger file per stage ledger, at the
  same relative path under ``prescient/responses/`` in DVC's cache directory (by
  default ``.dvc/cache/prescient/responses/data/llm/evaluate/<model>/<partition>.jsonl``). DVC's
  cache is the one directory every workspace of a repository shares (DVC points the
  temporary workspaces of experiments and queue workers at it) and that none of DVC's
  commands restores, so every workspace reads and appends the same store. The store
  is a :class:`~prescient.llm.ledger.Ledger`: every answer is fsync'd before it is
  used, concurrent writers are safe, and two processes asking for the same request at
  once pay once (:mod:`prescient.llm.claims`). The articles prompts quote are kept once,
  in the store's text pool beside it (``prescient/texts.jsonl``,
  :mod:`prescient.llm.text_pool`). A team that shares one DVC cache
  (``dvc cache dir``) shares the store with it. ``dvc gc`` leaves it alone: it only
  removes files named by a content hash.
- **The stage's ledger** is a snapshot: exactly the entries the stage's outputs came
  from (each request's answer, or its recorded failure), one per key, sorted by key,
  written when the stage's work is done, each entry naming who asked for it in this
  run (:meth:`StageLedger.note_request`). It is what DVC pins in ``dvc.lock``, pushes
  and pulls, and what every number traces back to; it holds no history, so the same
  requests and answers give the same bytes on every machine. Its lines refer to the
  texts their requests quoted in the store's pool (the tables the texts came from
  travel with it and refill the pool in a clone that lacks it). With
  ``llm.ledger_compression: zstd`` it is written as zstd frames of the same lines
  (:mod:`prescient.llm.ledger_file`), read back alike, and once the stage is done its
  store file is sealed when nobody else is using it: its lines move into zstd frames
  beside it (:mod:`prescient.llm.store_seal`), served as before.

A request is answered by the stage's ledger first (the answers its current outputs
came from, also when they were pulled from a peer: a rerun reproduces them exactly),
then by the store, and only then by the model. Answers the stage's ledger holds that the
store lacks (a pulled ledger, one written before the store existed) are copied into the
store when the stage opens it, so the store ends up with every answer the workspace ever
saw.

Outside a DVC project (no ``.dvc`` directory), or for a ledger outside the project,
there is nothing that could roll the ledger back: the ledger is its own store, append-only
as before. This module never reads DVC's configuration: the stage passes DVC's cache
directory in (:func:`prescient.plumbing.locations.dvc_cache_dir`).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from prescient import io
from prescient.llm.ledger import (
    Ledger,
    entry_of_line,
    is_success,
    utf8_json,
    with_response_hash,
)
from prescient.llm.ledger_file import COMPRESSIONS, Compression, FrameMemo, compressed
from prescient.llm.store_seal import seal
from prescient.llm.text_pool import (
    MIN_CHARS,
    POOLED,
    STORE_DIR,
    TEXT_POOL,
    TextPool,
    pool_entry,
    text_digest,
)
from prescient.llm.verified import (
    VerifiedLines,
    WrittenLines,
    frames_path,
    verified_path,
    written_path,
)

logger = logging.getLogger(__name__)

_PENDING_CHARS = 1 << 26
"""Quoted texts held back for the pool before they are stored (characters)."""

RUN_LOG = Path("prescient") / "runs.jsonl"
"""The store's run log under DVC's cache directory: one line per stage run that asked
for answers (what it was served and what it sent, tokens and cost)."""

CacheDir = str | os.PathLike[str] | None
"""DVC's cache directory of the project (found by
:func:`prescient.plumbing.locations.dvc_cache_dir`), or None outside a DVC project."""


def store_path(
    ledger_path: str | os.PathLike[str], cache: CacheDir, root: str | os.PathLike[str] = "."
) -> Path | None:
    """Where the store keeps the answers of the ledger at ``ledger_path``.

    Args:
        ledger_path: the stage's ledger.
        cache: DVC's cache directory of the project at ``root`` (None: not a DVC project).
        root: the project root.

    Returns:
        ``<DVC cache>/prescient/responses/<ledger path relative to root>``, or None when
        the ledger is its own store (no DVC cache, or a ledger outside the project).
    """
    return None if cache is None else _in_store(Path(cache), ledger_path, root)


def _in_store(
    cache: Path, ledger_path: str | os.PathLike[str], root: str | os.PathLike[str]
) -> Path | None:
    rel = Path(os.path.relpath(Path(ledger_path).absolute(), Path(root).absolute()))
    if rel.parts and rel.parts[0] == os.pardir:
        return None
    return cache / STORE_DIR / rel


def store_dir(cache: CacheDir) -> Path | None:
    """The store's directory under DVC's cache directory ``cache`` (None: no DVC project)."""
    return None if cache is None else Path(cache) / STORE_DIR


def text_pool(cache: CacheDir) -> TextPool | None:
    """The store's text pool under DVC's cache directory ``cache`` (None: no DVC project)."""
    return None if cache is None else TextPool(Path(cache) / TEXT_POOL)


def run_log_path(cache: CacheDir) -> Path | None:
    """The store's run log under DVC's cache directory ``cache`` (None: no DVC project)."""
    return None if cache is None else Path(cache) / RUN_LOG


class StageLedger:
    """A stage's ledger over the repository's response store.

    Quacks like :class:`~prescient.llm.ledger.Ledger` where the gateway uses it (``get``, ``append``, ``append_async``, ``refresh``, ``path``, ``close``):
    lookups try the stage's recorded ledger, then the store; appends go to the store.
    Every entry looked up or appended is remembered, and :meth:`write_snapshot` writes
    them as the stage's new ledger.

    Args:
        path: the stage's ledger (a DVC output; read, and rewritten by ``write_snapshot``).
        store: the store's ledger file for it (:func:`store_path`).
        run_log: where :meth:`log_run` appends (None: nowhere).
        texts: the texts the stage's prompts quote, read from the tables they come from
            (the evaluation's contexts). Given, the snapshot refers to the texts its
            requests quoted rather than holding them, and the texts are fed to the
            store's pool when the recorded ledger refers to texts the pool lacks (a
            ledger pulled from a peer). Without it the snapshot holds every text (the
            store still keeps each once).
        compression: how the snapshot file holds its lines (``llm.ledger_compression``,
            :mod:`prescient.llm.ledger_file`): ``none``, JSON Lines; ``zstd``, zstd
            frames of the same lines, and the store file is sealed once the stage has
            written its snapshot and closed (in either order;
            :mod:`prescient.llm.store_seal`). Either is read back alike.

    Attributes:
        recorded: the stage's ledger as it was found (read only).
        store: the store's ledger.
        imported: answers copied from the recorded ledger into the store on opening.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        store: str | os.PathLike[str],
        run_log: str | os.PathLike[str] | None = None,
        texts: Callable[[], Iterable[str]] | None = None,
        compression: Compression = "none",
    ) -> None:
        self.snapshot_path = Path(path)
        self.compression = compression
        self.run_log = None if run_log is None else Path(run_log)
        # Both ledgers skip the checks of lines they found sound before, by digests kept
        # beside the store file (prescient.llm.verified).
        self.store = Ledger(store, verified=VerifiedLines(verified_path(store)))
        self.pool = self.store.pool
        # Only a snapshot whose texts a clone can find again refers to them.
        self._refers = texts is not None and self.pool is not None
        self.recorded = self._recorded(store)
        if self.recorded.missing_texts and texts is not None and self.pool is not None:
            added = self.pool.add_texts(texts())
            logger.info(
                "%s refers to %d lines' texts the response store's pool lacked: %d texts "
                "added from the tables the prompts quoted",
                path,
                self.recorded.missing_texts,
                added,
            )
            self.recorded.close()
            self.recorded = self._recorded(store)
        # The snapshot lines written last time, each with what shaped it: one read back
        # unchanged and asked for alike is written again as it is (prescient.llm.verified).
        self._lines = WrittenLines(written_path(store), _writing_code())
        self.rewritten_as_found = 0
        # By key, what the snapshot will hold: (the ledger holding its line, where the
        # line is there, whether it is written as it is, whether it is a success). An
        # answer served from a ledger is the line found there, written as the ledger
        # writer writes its entry; an entry appended here is the line the store got.
        # Where the lines are, not the lines: a few ints per answer, whatever its prompt
        # holds, and nothing the garbage collector scans.
        self._used: dict[str, tuple[Ledger, int, bool, bool]] = {}
        # By key, who asked for it first in this run (see note_request), and the digests
        # of the texts its request quoted (32 bytes each), which its snapshot line refers to.
        self._asked: dict[str, dict[str, Any]] = {}
        self._quoted: dict[str, bytes] = {}
        # Quoted texts the pool lacks (answers served from lines that hold them), stored
        # before the snapshot refers to them.
        self._pending: dict[str, str] = {}
        self._pending_chars = 0
        self.imported = 0
        self._written = self._closed = False

    def _recorded(self, store: str | os.PathLike[str]) -> Ledger:
        """The stage's ledger as found, read through the store's pool."""
        memo = VerifiedLines(verified_path(store, recorded=True))
        return Ledger(self.snapshot_path, pool=self.pool, verified=memo)

    @property
    def path(self) -> Path:
        """The store's file: claims and appends work there."""
        return self.store.path

    def __len__(self) -> int:
        return len(self.store)

    def __contains__(self, key: object) -> bool:
        return key in self.recorded or key in self.store

    def check_writable(self) -> None:
        """Both the store and the stage's ledger take writes (LedgerNotWritableError)."""
        self.store.check_writable()
        self.recorded.check_writable(appending=False)
        self._import_recorded()

    def _import_recorded(self) -> None:
        # The index holds successes only; only those the store lacks are read.
        keys = sorted(k for k in self.recorded if k not in self.store)
        missing = [entry for k in keys if (entry := self.recorded.get(k)) is not None]
        if missing:
            self.store.append_many(missing)
            self.imported = len(missing)
            logger.info(
                "%s: %d answers copied into the response store %s",
                self.snapshot_path,
                len(missing),
                self.store.path,
            )

    def get(self, key: str) -> dict[str, Any] | None:
        """The servable answer for ``key`` (the stage's recorded one first), or None."""
        source, ref = self.recorded, self.recorded.ref(key)
        if ref is None:
            source, ref = self.store, self.store.ref(key)
            if ref is None:
                return None
        used = self._used.get(key)
        if used is None or used[0] is not source or used[1] != ref:  # not the line appended here
            self._used[key] = (source, ref, False, True)
        return source.entry_at(ref)

    def refresh(self) -> int:
        """Read what other processes appended to the store since."""
        return self.store.refresh()

    def _remember(self, entry: Mapping[str, Any], ref: int) -> None:
        """Keep an appended entry (where the store wrote its line) unless a success is
        kept already."""
        key = str(entry["key"])
        used = self._used.get(key)
        if used is None or not used[3]:
            self._used[key] = (self.store, ref, True, is_success(entry))

    def append(self, entry: Mapping[str, Any], texts: Sequence[str] = ()) -> bytes:
        """Durably append one entry to the store (see ``Ledger.append``)."""
        entry = with_response_hash(entry)
        line, ref = self.store.append_ref(entry, texts)
        self._remember(entry, ref)
        return line

    async def append_async(
        self, entry: Mapping[str, Any], *, keyed_here: bool = False, texts: Sequence[str] = ()
    ) -> bytes:
        """Durably append one entry to the store (see ``Ledger.append_async``)."""
        entry = with_response_hash(entry)
        line, ref = await self.store.append_async_ref(entry, keyed_here=keyed_here, texts=texts)
        self._remember(entry, ref)
        return line

    def note_request(self, key: str, audit: Mapping[str, Any], texts: Sequence[str] = ()) -> None:
        """Record who asks for ``key`` in this run (stage, model name, template, tags:
        :func:`prescient.llm.sending.request_audit`) and the texts its request quotes
        (:attr:`~prescient.llm.types.LLMRequest.quoted`); the first request of the run wins.

        The snapshot writes these fields over those of the entry it keeps, so its bytes
        depend on the requests the stage sent and their answers, not on which run first
        wrote an entry: a workspace whose store holds an answer written under older tags
        and a fresh clone write the same snapshot. When the stage names where its texts
        come from (``texts``), its line refers to the quoted texts in the store's pool
        rather than holding them (:mod:`prescient.llm.text_pool`), however the store
        holds the entry."""
        if key in self._asked:
            return
        self._asked[key] = dict(audit)
        pool = self.pool
        if not self._refers or pool is None or not texts:
            return
        long = [t for t in texts if len(t) >= MIN_CHARS]
        if not long:
            return
        digests = [text_digest(t) for t in long]
        self._quoted[key] = b"".join(bytes.fromhex(d) for d in digests)
        for digest, text in zip(digests, long, strict=True):
            if digest not in pool and digest not in self._pending:
                self._pending[digest] = text
                self._pending_chars += len(text)
        if self._pending_chars >= _PENDING_CHARS:
            self._store_pending()

    def _store_pending(self) -> None:
        if self._pending and self.pool is not None:
            self.pool.add(self._pending)
        self._pending, self._pending_chars = {}, 0

    def used(self) -> list[dict[str, Any]]:
        """The entries the stage used so far, one per key, sorted by key."""
        return [self._used[k][0].entry_at(self._used[k][1]) for k in sorted(self._used)]

    def write_snapshot(self) -> int:
        """Write the used entries as the stage's ledger (atomically); returns their count.

        Each is written as the ledger writer writes it (:func:`write_entries`): an
        appended entry is its line in the store, one served from a ledger is rewritten
        from the line it was read from; either with the fields of who asked for it in
        this run (:meth:`note_request`) where they differ, and with the texts its
        request quoted cut out and referred to in the store's pool (stored there first).
        """
        keys = sorted(self._used)
        self._store_pending()
        memo = self.recorded.verified
        shapes: dict[bytes, bytes] = {}  # digest of each line written -> its shape

        def lines() -> Iterator[bytes]:
            for key in keys:
                shape = self._shape(key)
                line, found = self._as_found(key, shape, memo)
                if line is None:
                    line = self._snapshot_line(key)
                if memo is not None:  # every line is of an answer checked or made here
                    shapes[memo.digest(line) if found is None else found] = shape
                yield line

        frames = (
            FrameMemo(frames_path(self.store.path), self.snapshot_path)
            if self.compression == "zstd"
            else None
        )
        try:
            write_lines(self.snapshot_path, lines(), self.compression, frames)
        finally:
            if frames is not None:
                frames.close()
        if frames is not None:
            frames.save()
        if memo is not None:
            memo.sound = set(shapes)
            memo.save()
            self._lines.save(shapes)
        self._written = True
        self._seal()
        return len(keys)

    def _shape(self, key: str) -> bytes:
        """What shapes ``key``'s snapshot line besides the line it is made from: who
        asked for it, the texts its request quoted, whether the snapshot refers to
        texts in a pool."""
        from prescient.kept import digest

        asked, quoted = self._asked.get(key), self._quoted.get(key)
        return digest(
            b"-" if asked is None else utf8_json(asked),
            b"-" if quoted is None else quoted,
            bytes([self.pool is not None, self._refers]),
        )

    def _as_found(
        self, key: str, shape: bytes, memo: VerifiedLines | None
    ) -> tuple[bytes | None, bytes | None]:
        """``key``'s line in the stage's ledger with its digest, when the snapshot last
        wrote it so under ``shape`` (it would be written the same again); else Nones."""
        source, ref = self._used[key][:2]
        if memo is None or source is not self.recorded or not self._lines.known:
            return None, None
        line = source.stored_line_at(ref)
        found = memo.digest(line)
        if self._lines.known.get(found) != shape:
            return None, None
        self.rewritten_as_found += 1
        return line, found

    def _snapshot_line(self, key: str) -> bytes:
        """``key``'s line in the snapshot (:meth:`write_snapshot`), read from its ledger
        as it is written, so that a snapshot is never all in memory."""
        source, ref, as_written, _ = self._used[key]
        asked = self._asked.get(key)
        quoted = self._quoted.get(key)
        if asked is None and quoted is None:
            line = source.line_at(ref)
            return line if as_written else entry_line(entry_of_line(line))
        if quoted is not None:
            # A line that already refers to exactly the texts its request quoted is the
            # snapshot's line as it stands (the same cut of the same texts): no text is
            # read back.
            held = source.stored_entry_at(ref)
            refs = held.get(POOLED)
            if isinstance(refs, list) and {
                bytes.fromhex(str(r[2])) for r in refs if isinstance(r, list) and len(r) == 3
            } == {quoted[i : i + 32] for i in range(0, len(quoted), 32)}:
                if asked is not None:
                    held.update(asked)
                return utf8_json(with_response_hash(held)) + b"\n"
        entry = source.entry_at(ref)
        changed = not as_written
        if asked is not None and any(entry.get(f) != v for f, v in asked.items()):
            entry.update(asked)
            changed = True
        if quoted is not None and self.pool is not None:
            texts = [self.pool.text(quoted[i : i + 32].hex()) for i in range(0, len(quoted), 32)]
            cut, used = pool_entry(with_response_hash(entry), texts)
            if used:
                return utf8_json(cut) + b"\n"
        return entry_line(entry) if changed else source.line_at(ref)

    def log_run(self, stage: str, record: Mapping[str, Any]) -> None:
        """Append one line to the run log: when, the stage, its ledger, the experiment
        (``DVC_EXP_NAME``, which DVC sets for a named or queued experiment's stages), the
        workspace, and ``record`` (what was served and sent). A log that cannot be written
        is a warning: every answer is already in the store."""
        if self.run_log is None:
            return
        line = {
            "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "stage": stage,
            "ledger": str(self.snapshot_path),
            "experiment": os.environ.get("DVC_EXP_NAME") or None,
            "workspace": str(Path.cwd()),
            **record,
        }
        try:
            self.run_log.parent.mkdir(parents=True, exist_ok=True)
            with open(self.run_log, "ab") as fh:
                fh.write(utf8_json(line) + b"\n")
        except OSError as exc:
            logger.warning("%s: run not logged (%s)", self.run_log, exc)

    def close(self) -> None:
        """Stop the store's writer thread (every entry is already on disk). Closed and
        its snapshot written, in either order, with ``zstd`` compression: the store file
        is sealed when nobody else is using it."""
        self.store.close()
        self.recorded.close()
        self._closed = True
        self._seal()

    def _seal(self) -> None:
        """Seal the store file once the stage is done with it (:meth:`close`); a seal
        that fails is a warning (the file is as it was)."""
        if self.compression != "zstd" or not (self._written and self._closed):
            return
        self._written = False
        self.store.release()
        try:
            done = seal(self.store.path)
        except OSError as exc:
            logger.warning("%s: not sealed (%s); its lines stay as they are", self.store.path, exc)
            return
        if done is not None:
            logger.info(
                "%s: %d lines sealed (%d there already); the sealed part is %d bytes",
                self.store.path,
                done.lines,
                done.already,
                done.sealed_bytes,
            )


def _writing_code() -> bytes:
    """A digest of the code that makes a snapshot line: this module's, the ledger's, its
    line format's and the text pool's."""
    from prescient.kept import code_of, digest
    from prescient.llm import ledger, ledger_format, text_pool

    return digest(
        b"snapshot lines", code_of(sys.modules[__name__], ledger, ledger_format, text_pool)
    )


def entry_line(entry: Mapping[str, Any]) -> bytes:
    """``entry``'s line as the ledger writer writes it (with its ``response_sha256``)."""
    return utf8_json(with_response_hash(entry)) + b"\n"


def write_lines(
    path: str | os.PathLike[str],
    lines: Iterable[bytes],
    compression: Compression = "none",
    frames: FrameMemo | None = None,
) -> None:
    """Write ledger lines (each ending in a newline) as one file, atomically; with
    ``compression`` ``zstd``, as zstd frames of them (:mod:`prescient.llm.ledger_file`),
    those the file held before copied when ``frames`` knows them."""
    if compression not in COMPRESSIONS:
        raise ValueError(f"unknown ledger compression {compression!r} (one of {COMPRESSIONS})")
    chunks = compressed(lines, frames) if compression == "zstd" else lines
    with io.atomic_path(path) as tmp, open(tmp, "wb") as fh:
        for chunk in chunks:
            fh.write(chunk)


def write_entries(path: str | os.PathLike[str], entries: Iterable[Mapping[str, Any]]) -> None:
    """Write ``entries`` as a JSON Lines ledger, atomically, each as the ledger writes it."""
    write_lines(path, (entry_line(entry) for entry in entries))


def open_stage_ledger(
    path: str | os.PathLike[str],
    cache: CacheDir,
    root: str | os.PathLike[str] = ".",
    texts: Callable[[], Iterable[str]] | None = None,
    compression: Compression = "none",
) -> Ledger | StageLedger:
    """The ledger a stage works through: over the store under DVC's cache directory
    ``cache`` (the project at ``root``), else (``cache`` None) the file alone, appended
    to as it goes (so never compressed); ``texts`` and ``compression``: see
    :class:`StageLedger`."""
    store = store_path(path, cache, root)
    if cache is None or store is None:
        logger.info("%s: outside a DVC project; the ledger is its own store", path)
        return Ledger(path)
    return StageLedger(path, store, Path(cache) / RUN_LOG, texts, compression)


def finish_ledger(ledger: Ledger | StageLedger) -> None:
    """Write a stage ledger's snapshot, or create a plain ledger that was never written
    (a declared output even when nothing was asked)."""
    if isinstance(ledger, StageLedger):
        n = ledger.write_snapshot()
        logger.info("%s: %d entries the outputs came from", ledger.snapshot_path, n)
    else:
        ledger.path.parent.mkdir(parents=True, exist_ok=True)
        ledger.path.touch()
