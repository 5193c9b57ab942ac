"""One file, downloaded so that no completed byte is fetched twice, and no file is
made of two versions.

Bytes go to ``<name>.part`` beside the target and are checked as they arrive
(:mod:`prescient.crawl.verify`); only a whole, verified file is renamed to its final
name, so a final name always means a complete file. After a crash or a dropped
connection the download resumes with an HTTP ``Range`` request from the end of the
partial file (whose bytes are re-read to resume the checksum), but only the same
bytes: the validator the first response gave (its strong ``ETag``, else its
``Last-Modified``) is kept in ``<name>.part.json`` beside the partial file and sent as
``If-Range``, so a server whose file changed answers with the whole new file (200),
which replaces the partial bytes from byte 0. A 206 whose validator differs from the
recorded one (a server that ignores ``If-Range``), and a partial file without a
validator (a server that gives none, or a partial file whose side file is lost), are
started over from byte 0 too: a range is trusted only when the file is known to be
the same. A server that answers a range request with the whole file (status 200) is
handled by starting over.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prescient.crawl.fetch import (
    NETWORK_ERRORS,
    FetchError,
    RetryPolicy,
    Sleep,
    backoff_delay,
    describe_network_error,
    open_url,
)
from prescient.crawl.verify import CorruptData, StreamCheck, check_file
from prescient.io import atomic_open

logger = logging.getLogger(__name__)

PART_SUFFIX = ".part"
VALIDATOR_SUFFIX = ".part.json"
_CONTENT_RANGE = re.compile(r"^bytes\s+(\d+)-(\d+)/(\d+|\*)$")

Advance = Callable[[int], None]
"""Progress callback: bytes received (negative when received bytes are discarded)."""
Expect = Callable[[int], None]
"""Progress callback: the file's full size, once a response tells it."""


class DownloadFailed(Exception):
    """A file that could not be downloaded whole; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Interrupted(Exception):
    """The crawl was asked to stop; the partial file is kept for the next run."""


@dataclass(frozen=True)
class DownloadOptions:
    """Per-file download settings.

    Attributes:
        policy: retries and timeouts.
        chunk_bytes: bytes per read from the socket and write to disk.
        verify_gzip: check gzip member integrity of ``.gz`` files.
    """

    policy: RetryPolicy
    chunk_bytes: int
    verify_gzip: bool


@dataclass(frozen=True)
class Validator:
    """What identifies one version of a file on the server.

    Attributes:
        etag: the strong ``ETag`` (quotes kept); a weak one (``W/...``) cannot vouch
            for bytes, so it is not kept.
        last_modified: the ``Last-Modified`` date, as sent.
    """

    etag: str | None = None
    last_modified: str | None = None

    @classmethod
    def from_headers(cls, headers: Any) -> Validator:
        etag = (headers.get("ETag") or "").strip() or None
        if etag is not None and etag.startswith("W/"):
            etag = None
        return cls(etag, (headers.get("Last-Modified") or "").strip() or None)

    @property
    def if_range(self) -> str | None:
        """The ``If-Range`` value: the strong ETag, else the date, else None."""
        return self.etag or self.last_modified

    def contradicts(self, other: Validator) -> bool:
        """Whether ``other`` (a later response's) names another version of the file."""
        if self.etag is not None and other.etag is not None:
            return self.etag != other.etag
        if self.etag is None and self.last_modified is not None:
            return other.last_modified is not None and other.last_modified != self.last_modified
        return False


@dataclass(frozen=True)
class Downloaded:
    """A complete file and how it was obtained.

    Attributes:
        size: bytes.
        sha256: hex digest of the file.
        resumed_from: bytes of a partial file already on disk before this call.
        attempts: requests made.
        validator: what the server said identifies the version downloaded.
    """

    size: int
    sha256: str
    resumed_from: int
    attempts: int
    validator: Validator = Validator()


def part_path(dest: Path) -> Path:
    """Where the partial download of ``dest`` lives."""
    return dest.with_name(dest.name + PART_SUFFIX)


def validator_path(dest: Path) -> Path:
    """Where the validator of the partial download of ``dest`` lives."""
    return dest.with_name(dest.name + VALIDATOR_SUFFIX)


def read_validator(path: Path) -> Validator | None:
    """The validator in side file ``path``; None when absent or unreadable."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(obj, dict):
        return None
    etag, modified = obj.get("etag"), obj.get("last_modified")
    if not all(v is None or isinstance(v, str) for v in (etag, modified)):
        return None
    return Validator(etag, modified)


def write_validator(path: Path, validator: Validator) -> None:
    with atomic_open(path) as fh:
        json.dump({"etag": validator.etag, "last_modified": validator.last_modified}, fh)


def parse_content_range(value: str | None) -> tuple[int, int | None] | None:
    """(first byte, full size or None) of a ``Content-Range: bytes a-b/n`` header."""
    match = _CONTENT_RANGE.match((value or "").strip())
    if not match:
        return None
    size = match.group(3)
    return int(match.group(1)), None if size == "*" else int(size)


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _Partial:
    """The partial file on disk, the running check of its bytes, and the validator of
    the version they belong to (kept in a side file, so a later run resumes with it)."""

    def __init__(self, dest: Path, gzip: bool, chunk_bytes: int) -> None:
        self.path = part_path(dest)
        self.side = validator_path(dest)
        self.gzip = gzip
        self.check = StreamCheck(gzip)
        self.validator = read_validator(self.side) or Validator()
        if self.path.exists() and self.validator.if_range is None:
            logger.info(
                "%s: no validator recorded for the partial bytes (%s); starting over",
                self.path,
                self.side.name,
            )
            self.reset()
        elif self.path.exists():
            try:
                self.check = check_file(self.path, gzip, chunk_bytes)
            except CorruptData as exc:  # a damaged tail (a crash mid-write): start over
                logger.warning("%s: partial file is damaged (%s); starting over", self.path, exc)
                self.reset()

    @property
    def size(self) -> int:
        return self.check.size

    def reset(self) -> int:
        """Drop the partial bytes and their validator; returns how many were dropped."""
        dropped = self.check.size
        self.path.unlink(missing_ok=True)
        self.side.unlink(missing_ok=True)
        self.check = StreamCheck(self.gzip)
        self.validator = Validator()
        return dropped

    def start(self, validator: Validator) -> None:
        """Record the validator of the version whose bytes are about to be written."""
        self.validator = validator
        write_validator(self.side, validator)


def _receive(
    url: str,
    partial: _Partial,
    options: DownloadOptions,
    advance: Advance,
    expect: Expect,
    stop: threading.Event | None,
) -> None:
    """One request: append the body to the partial file until it is complete.

    Raises:
        FetchError: the request failed or the body stopped short.
        CorruptData: the bytes are not valid gzip.
        DownloadFailed: the partial file cannot be written (a local problem).
        Interrupted: ``stop`` was set.
    """
    name = partial.path.name.removesuffix(PART_SUFFIX)
    if partial.size and partial.validator.if_range is None:
        logger.info("%s: no validator for the partial bytes; starting over", name)
        advance(-partial.reset())
    start = partial.size
    if_range = partial.validator.if_range if start else None
    with open_url(url, options.policy.timeout_s, start=start, if_range=if_range) as response:
        total: int | None
        got = Validator.from_headers(response.headers)
        if response.status == 206 and start > 0:
            span = parse_content_range(response.headers.get("Content-Range"))
            if span is None or span[0] != start:
                advance(-partial.reset())
                raise FetchError(f"server sent an unexpected range ({span})", transient=True)
            if partial.validator.contradicts(got):
                advance(-partial.reset())
                raise FetchError(
                    "the file changed on the server (its validator differs); starting over",
                    transient=True,
                )
            total = span[1]
        elif response.status == 200:
            if start > 0:
                logger.info(
                    "%s: the server sent the whole file (it changed, or ranges are ignored); "
                    "starting over",
                    name,
                )
                advance(-partial.reset())
            partial.start(got)
            total = response.length
        else:
            raise FetchError(f"unexpected HTTP {response.status}", transient=False)
        if total is not None:
            expect(total)
        buffer = bytearray(options.chunk_bytes)
        view = memoryview(buffer)
        try:
            fh = open(partial.path, "ab")  # noqa: SIM115 (closed below, errors told apart)
        except OSError as exc:
            raise DownloadFailed(f"cannot write {partial.path}: {exc.strerror}") from None
        with fh:
            while True:
                if stop is not None and stop.is_set():
                    raise Interrupted()
                n = response.readinto(buffer)  # network errors propagate to the caller
                if not n:
                    break
                try:
                    fh.write(view[:n])
                    fh.flush()
                except OSError as exc:
                    raise DownloadFailed(f"cannot write {partial.path}: {exc.strerror}") from None
                partial.check.update(view[:n])
                advance(n)
    if total is not None and partial.size != total:
        raise FetchError(
            f"connection dropped mid-body ({partial.size} of {total} bytes)", transient=True
        )


def download(
    url: str,
    dest: Path,
    options: DownloadOptions,
    advance: Advance = lambda n: None,
    expect: Expect = lambda n: None,
    stop: threading.Event | None = None,
    sleep: Sleep = time.sleep,
) -> Downloaded:
    """Download ``url`` to ``dest``, resuming a partial file, retrying transient failures.

    An attempt that adds bytes beyond the furthest point reached so far resets the
    count of failed attempts (a long file over a flaky link still completes); attempts
    that add nothing, and bodies that fail the gzip check, count towards
    ``policy.max_tries``.

    Raises:
        DownloadFailed: after the last attempt, or at once on a final error (404...).
        Interrupted: ``stop`` was set (the partial file stays for the next run).
    """
    gzip = options.verify_gzip and dest.name.endswith(".gz")
    partial = _Partial(dest, gzip, options.chunk_bytes)
    resumed_from = furthest = partial.size
    failures = attempts = 0
    while True:
        attempts += 1
        try:
            try:
                _receive(url, partial, options, advance, expect, stop)
            except NETWORK_ERRORS as exc:  # raised while reading the body
                raise FetchError(describe_network_error(exc), transient=True) from None
            except FetchError as exc:
                if exc.status != 416:
                    raise
                if exc.full_size != partial.size:  # the partial file does not fit the file
                    advance(-partial.reset())
                    raise
                # Nothing left to send: a complete file was left unrenamed.
            sha256 = partial.check.finish()
        except CorruptData as exc:
            advance(-partial.reset())
            error = FetchError(str(exc), transient=True)
        except FetchError as exc:
            error = exc
        else:
            _fsync_file(partial.path)  # data on disk before the name says "complete"
            partial.path.replace(dest)
            _fsync_dir(dest.parent)
            partial.side.unlink(missing_ok=True)
            return Downloaded(partial.size, sha256, resumed_from, attempts, partial.validator)
        if partial.size > furthest:
            furthest = partial.size
            failures = 0
        failures += 1
        if not error.transient or failures >= options.policy.max_tries:
            raise DownloadFailed(f"{error.reason} (after {attempts} attempts)")
        wait = backoff_delay(options.policy, failures, error.retry_after)
        logger.info("%s: %s; retrying in %.1fs", dest.name, error.reason, wait)
        sleep(wait)
