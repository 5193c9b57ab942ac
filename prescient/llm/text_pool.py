"""Texts the response store keeps once: the articles many prompts quote.

A RAG prompt quotes five retrieved articles, and the same article is quoted by every
question that retrieves it, in every setting, for every model, in every experiment; at
Daily Oracle's size (ICML 2025, section 4.1: the top 5 articles of 512 words) the
articles are 96% of a prompt's bytes, and the store and the stages' ledgers would hold
each of them thousands of times. So each such text is kept once, in the store's pool,
and the lines of the store and of a stage's ledger refer to it:

- A request names the texts it quotes (:attr:`prescient.llm.types.LLMRequest.quoted`,
  set by the evaluation for the articles it shows). When the store writes the entry,
  every verbatim occurrence in a message of a quoted text of at least
  :data:`MIN_CHARS` characters is cut out, and the line's ``pooled`` field lists where
  it goes back: ``[message index, character offset in the cut message, sha256 of the
  text]`` (:func:`pool_entry`).
- The pool (``<DVC cache>/prescient/texts.jsonl``, beside the store's ledgers) is JSON
  Lines, one ``{"sha256": ..., "text": ...}`` per text, append-only like a ledger: a
  text is fsync'd before the first line that refers to it is written, so a kill never
  leaves a line whose text is missing, and two processes adding the same text at once
  only store it twice, harmlessly (the first line is read).
- Reading puts every text back (:func:`expand_entry`): the entry read is the entry
  written, and its line written again (:func:`prescient.llm.ledger_format.utf8_json`,
  canonical JSON) is byte for byte the line an unpooled ledger would hold. So keys, the
  answers' hashes and ``prescient ledger verify`` are what they were; a text whose bytes
  no longer hash to its name is refused, and so is a line whose text the pool lacks.
- A stage's ledger (the snapshot DVC pushes and pulls,
  :class:`prescient.llm.store.StageLedger`) cuts the texts each request quoted, whatever
  form its entry has in the store, so its bytes depend on its entries alone. Its texts
  travel with it in the tables the prompts quoted them from (the evaluation's context
  tables, pulled with it): a clone that pulled it adds them to its pool
  (``prescient pull``, ``prescient ledger texts``, or the evaluate stage itself).

The pool holds texts only, never answers: an entry without ``pooled`` is read as it
always was, and a store written before the pool existed needs nothing.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from prescient.jsonl import LineError, cut_partial_tail, parse_json
from prescient.llm.ledger_format import utf8_json

POOLED = "pooled"
"""The entry field listing the texts cut out of its messages (module docstring)."""
MIN_CHARS = 256
"""Quoted texts shorter than this stay in their line (a reference costs about 80 bytes)."""
STORE_DIR = Path("prescient") / "responses"
"""The response store's directory under DVC's cache directory (:mod:`prescient.llm.store`)."""
TEXT_POOL = Path("prescient") / "texts.jsonl"
"""The store's text pool under DVC's cache directory, beside :data:`STORE_DIR`."""

_PREFIX = b'{"sha256":"'
_LENGTH_BITS = 40
_LENGTH_MASK = (1 << _LENGTH_BITS) - 1


class PooledTextError(OSError):
    """A pooled text cannot be read back: the pool lacks it, or its bytes changed."""


def text_digest(text: str) -> str:
    """The name of ``text`` in the pool: the sha256 of its UTF-8 (a lone surrogate kept)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def pool_path_for(store_file: str | os.PathLike[str]) -> Path | None:
    """The pool of the store file ``store_file`` (a ledger under
    ``<DVC cache>/prescient/responses/``), or None for a ledger outside a store."""
    path = Path(store_file).absolute()
    for parent in path.parents:
        if parent.parts[-len(STORE_DIR.parts) :] == STORE_DIR.parts:
            return parent.parents[len(STORE_DIR.parts) - 1] / TEXT_POOL
    return None


def pool_entry(
    entry: Mapping[str, Any], texts: Iterable[str], min_chars: int = MIN_CHARS
) -> tuple[Mapping[str, Any], dict[str, str]]:
    """``entry`` with every occurrence of ``texts`` cut out of its messages, and the texts
    cut (by digest); ``entry`` itself and no texts when none occurs.

    Longer texts are cut first; an occurrence overlapping one already cut stays.
    """
    wanted = sorted({t for t in texts if len(t) >= min_chars}, key=lambda t: (-len(t), t))
    messages = entry.get("messages")
    if not wanted or not isinstance(messages, list):
        return entry, {}
    cut_messages: list[Any] = []
    pooled: list[list[Any]] = []
    used: dict[str, str] = {}
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, Mapping) else None
        spans: list[tuple[int, int, str]] = []
        if not isinstance(content, str):
            content = ""
        else:
            for text in wanted:
                start = content.find(text)
                while start >= 0:
                    spans.append((start, -len(text), text))
                    start = content.find(text, start + len(text))
        if not spans:
            cut_messages.append(message)
            continue
        pieces: list[str] = []
        at = removed = 0
        for start, negative_length, text in sorted(spans):
            if start < at:  # overlaps a text already cut
                continue
            pieces.append(content[at:start])
            digest = text_digest(text)
            used[digest] = text
            pooled.append([index, start - removed, digest])
            at = start - negative_length
            removed += -negative_length
        pieces.append(content[at:])
        cut_messages.append({**message, "content": "".join(pieces)})
    if not pooled:
        return entry, {}
    return {**entry, "messages": cut_messages, POOLED: pooled}, used


def expand_entry(entry: dict[str, Any], text: Callable[[str], str]) -> dict[str, Any]:
    """``entry`` (a parsed store line) with its pooled texts back in its messages; an
    entry without ``pooled`` is returned as it is.

    Args:
        entry: the entry; its ``pooled`` field is removed.
        text: the text of a digest (:meth:`TextPool.text`).

    Raises:
        ValueError: ``pooled`` does not describe places in the entry's messages.
        PooledTextError: a text cannot be read back.
    """
    pooled = entry.pop(POOLED, None)
    if pooled is None:
        return entry
    messages = entry.get("messages")
    if not isinstance(pooled, list) or not isinstance(messages, list):
        raise ValueError("field 'pooled' is not a list of [message, offset, sha256]")
    by_message: dict[int, list[tuple[int, str]]] = {}
    for item in pooled:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not all(type(v) is int for v in item[:2])
            or not isinstance(item[2], str)
        ):
            raise ValueError(f"pooled reference {item!r} is not [message, offset, sha256]")
        by_message.setdefault(item[0], []).append((item[1], item[2]))
    out = list(messages)
    for index, places in by_message.items():
        message = messages[index] if 0 <= index < len(messages) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise ValueError(f"pooled reference to message {index}, which holds no text")
        pieces: list[str] = []
        at = 0
        for offset, digest in places:
            if offset < at or offset > len(content):
                raise ValueError(f"pooled reference at {offset} is outside message {index}")
            pieces += [content[at:offset], text(digest)]
            at = offset
        pieces.append(content[at:])
        out[index] = {**message, "content": "".join(pieces)}  # type: ignore[dict-item]
    entry["messages"] = out
    return entry


class TextPool:
    """The pool file: texts by digest, appended durably, read back checked.

    Safe for the threads of one process and for several processes on one file (``flock``
    around every write). The index holds where each text's line is, one int per text.

    Args:
        path: the pool file (created on the first write).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._at: dict[bytes, int] = {}
        self._offset = 0
        self._fd: int | None = None

    def __len__(self) -> int:
        with self._lock:
            self._read_new()
            return len(self._at)

    def _descriptor(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            self._closer = weakref.finalize(self, os.close, self._fd)
        return self._fd

    def _read_new(self, size: int | None = None) -> None:
        """Index the complete lines appended since the last read (by anyone)."""
        if size is None:
            try:
                size = os.stat(self.path).st_size
            except FileNotFoundError:
                return
        if size <= self._offset:
            return
        fd = self._descriptor()
        at = self._offset
        while at < size:
            data = os.pread(fd, min(size - at, 1 << 24), at)
            end = data.rfind(b"\n") + 1
            if end == 0:
                if len(data) < (1 << 24):  # a partial last line: the next writer cuts it
                    break
                raise PooledTextError(f"{self.path}: a line longer than 16 MiB at byte {at}")
            start = 0
            while start < end:
                stop = data.index(b"\n", start) + 1
                if data.startswith(_PREFIX, start) and stop - start > 77:
                    name = bytes.fromhex(data[start + 11 : start + 75].decode("ascii"))
                    self._at.setdefault(name, ((at + start) << _LENGTH_BITS) | (stop - start))
                start = stop
            at += end
        self._offset = at

    def __contains__(self, digest: str) -> bool:
        """Whether the pool held the text when it was last read (no new read)."""
        return bytes.fromhex(digest) in self._at

    def text(self, digest: str) -> str:
        """The text named ``digest``, checked against it.

        Raises:
            PooledTextError: the pool lacks it, or its line no longer hashes to it.
        """
        try:
            name = bytes.fromhex(digest)
        except ValueError:
            raise PooledTextError(f"{digest!r} is not a text's sha256") from None
        with self._lock:
            ref = self._at.get(name)
            if ref is None:
                self._read_new()
                ref = self._at.get(name)
            if ref is None:
                raise PooledTextError(
                    f"{self.path}: no text {digest[:16]}...; a stage's ledger pulled from a "
                    "peer refers to the texts of the tables its prompts quoted: `python -m "
                    "prescient ledger texts data/interim/partitions` adds them (the evaluate "
                    "stage does so itself)"
                )
            fd = self._descriptor()
        raw = os.pread(fd, ref & _LENGTH_MASK, ref >> _LENGTH_BITS)
        try:
            obj = parse_json(raw, want_object=True)
        except LineError as exc:
            raise PooledTextError(
                f"{self.path}: text {digest[:16]}... unreadable ({exc})"
            ) from None
        text = obj.get("text")
        if not isinstance(text, str) or text_digest(text) != digest:
            raise PooledTextError(
                f"{self.path}: the text stored as {digest[:16]}... no longer hashes to it "
                "(changed after it was written)"
            )
        return text

    def add(self, texts: Mapping[str, str]) -> None:
        """Durably store the texts (by digest) the pool lacks; returns once they are fsync'd."""
        with self._lock:
            self._read_new()
            missing = [d for d in sorted(texts) if bytes.fromhex(d) not in self._at]
            if not missing:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "ab+") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
                try:
                    start = cut_partial_tail(fh, self.path)
                    self._read_new(start)  # what others added meanwhile
                    lines = [
                        utf8_json({"sha256": d, "text": texts[d]}) + b"\n"
                        for d in missing
                        if bytes.fromhex(d) not in self._at
                    ]
                    if lines:
                        fh.write(b"".join(lines))
                        fh.flush()
                        os.fsync(fh.fileno())
                finally:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            self._read_new()

    def add_texts(self, texts: Iterable[str], chunk_chars: int = 1 << 26) -> int:
        """Durably store every text of ``texts`` long enough to pool that the pool lacks,
        a chunk of about ``chunk_chars`` characters at a time; returns how many were new."""
        before = len(self)
        chunk: dict[str, str] = {}
        size = 0
        for text in texts:
            if len(text) < MIN_CHARS:
                continue
            chunk[text_digest(text)] = text
            size += len(text)
            if size >= chunk_chars:
                self.add(chunk)
                chunk, size = {}, 0
        self.add(chunk)
        return len(self) - before

    def close(self) -> None:
        """Close the file (a text read after this opens it again)."""
        with self._lock:
            if self._fd is not None:
                self._closer()
                self._fd = None


def open_pool(store_file: str | os.PathLike[str]) -> TextPool | None:
    """The pool of a store file (:func:`pool_path_for`), or None outside a store."""
    path = pool_path_for(store_file)
    return None if path is None else TextPool(path)


def expand_with(pool: TextPool | None) -> Callable[[str], str]:
    """The text reader :func:`expand_entry` takes; without a pool every text is missing."""
    if pool is not None:
        return pool.text

    def missing(digest: str) -> str:
        raise PooledTextError(
            f"no text pool to read the pooled text {digest[:16]}... from (a store line "
            "read away from its store)"
        )

    return missing
