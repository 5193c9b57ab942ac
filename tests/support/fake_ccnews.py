"""A real HTTP server on 127.0.0.1 that serves a directory laid out like Common Crawl
(``crawl-data/CC-NEWS/YYYY/MM/warc.paths.gz`` and the WARC files), with Range support
and injected faults, plus a writer of small, real CC-NEWS-style WARC files (warcio).

    from tests.support.fake_ccnews import FakeCCNews, write_month

    files = write_month(root, 2024, 1, [(dt.datetime(2024, 1, 30, 1, 2, 3), 1)])
    with FakeCCNews(root) as server:
        server.fault(files[0].source, "drop", "503")
        ...  # crawl.base_url = server.url
        assert server.requests[files[0].source] == 3

Faults are queued per path and consumed one per request to that path:

- ``"drop"``: the headers and half the body, then the connection is closed (FIN);
  ``"drop:N"``: the same after N bytes of the body;
- ``"reset"``: half the body, then a TCP reset;
- ``"stall"``: half the body, then silence for ``stall_s`` seconds;
- ``"slow"``: the body in small pieces with pauses;
- ``"503"``, ``"500"``, ``"404"``: that status;
- ``"429"``: rate limited, with ``Retry-After: <retry_after>``;
- ``"truncated_gzip"``: a copy of the file without its last 10 bytes, sent whole with
  a matching Content-Length (the last gzip member lacks its trailer);
- ``"ignore_range"``: a ``200`` with the whole file even when a range was asked for.

``ignore_range=True`` makes every request ignore ranges; ``rate_bytes_per_s`` throttles
every body (the SIGKILL test uses it to be sure the kill lands mid-file).

Validators: by default every file has a strong ``ETag`` (the md5 of its bytes, as S3
gives) and a ``Last-Modified`` (its mtime), and a range request whose ``If-Range`` no
longer matches gets the whole file (200). ``validators`` picks which are sent
(``"etag"``, ``"last_modified"``, ``"weak_etag"``: ``W/`` ETag only, ``"none"``), and
``honour_if_range=False`` serves ranges whatever ``If-Range`` says (a server that
ignores the header). A test changes a file between attempts by rewriting it in the
tree (:func:`replace_file`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import email.utils
import gzip
import hashlib
import io
import os
import random
import socket
import struct
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

WORDS = [
    "council",
    "budget",
    "river",
    "harbour",
    "election",
    "minister",
    "storm",
    "vote",
    "court",
    "rail",
    "bridge",
    "school",
    "museum",
    "festival",
    "market",
    "strike",
    "treaty",
    "drought",
    "harvest",
    "tariff",
    "airport",
    "hospital",
    "police",
    "mayor",
    "senate",
    "reform",
    "bond",
    "index",
    "export",
    "import",
    "museum",
    "theatre",
    "league",
    "final",
    "coach",
]


@dataclass(frozen=True)
class ServedFile:
    """A file written into the served tree."""

    source: str  # path under the base URL
    name: str
    data: bytes


def page(rng: random.Random, n_words: int) -> bytes:
    """An HTML news page of about ``n_words`` words (seeded, so files are reproducible)."""
    title = " ".join(rng.choice(WORDS) for _ in range(6)).capitalize()
    paragraphs = [
        "<p>" + " ".join(rng.choice(WORDS) for _ in range(60)).capitalize() + ".</p>"
        for _ in range(max(1, n_words // 60))
    ]
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        + "".join(paragraphs)
        + "</article></body></html>"
    ).encode()


def warc_bytes(crawled_at: dt.datetime, n_records: int, words: int = 400, seed: int = 0) -> bytes:
    """A gzip WARC (one member per record) of ``n_records`` HTML responses."""
    rng = random.Random(seed)
    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=True)
    for i in range(n_records):
        body = page(rng, words)
        http = StatusAndHeaders(
            "200 OK",
            [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))],
            protocol="HTTP/1.1",
        )
        when = (crawled_at + dt.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        record = writer.create_warc_record(
            f"https://news{i % 5}.example/{seed}/{i}",
            "response",
            payload=io.BytesIO(body),
            http_headers=http,
            warc_headers_dict={"WARC-Date": when},
        )
        writer.write_record(record)
    return buf.getvalue()


def write_month(
    root: Path,
    year: int,
    month: int,
    files: Sequence[tuple[dt.datetime, int]],
    extra_lines: Iterable[str] = (),
    words: int = 400,
) -> list[ServedFile]:
    """Write WARC files (crawl time, records) and the month's ``warc.paths.gz``."""
    month_dir = root / f"crawl-data/CC-NEWS/{year:04d}/{month:02d}"
    month_dir.mkdir(parents=True, exist_ok=True)
    served = []
    for serial, (when, n_records) in enumerate(files, start=1):
        name = f"CC-NEWS-{when:%Y%m%d%H%M%S}-{serial:05d}.warc.gz"
        source = f"crawl-data/CC-NEWS/{year:04d}/{month:02d}/{name}"
        data = warc_bytes(when, n_records, words, seed=year * 10_000 + month * 100 + serial)
        (month_dir / name).write_bytes(data)
        served.append(ServedFile(source, name, data))
    listing = "\n".join([*(f.source for f in served), *extra_lines]) + "\n"
    (month_dir / "warc.paths.gz").write_bytes(gzip.compress(listing.encode(), mtime=0))
    return served


def etag_of(data: bytes) -> str:
    """The strong ETag the server gives a file with these bytes."""
    return f'"{hashlib.md5(data).hexdigest()}"'  # noqa: S324 (an identifier, as S3's)


def last_modified_of(path: Path) -> str:
    """The Last-Modified the server gives the file at ``path``."""
    return email.utils.formatdate(int(path.stat().st_mtime), usegmt=True)


def replace_file(path: Path, data: bytes) -> None:
    """A new version of a served file: new bytes, and a later mtime (Last-Modified)."""
    mtime = path.stat().st_mtime
    path.write_bytes(data)
    os.utime(path, (mtime + 60, mtime + 60))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


class FakeCCNews:
    """The server over ``root``; a context manager that starts and stops it.

    Attributes:
        requests: GETs per path (every attempt, faults included).
        ranges: the ``Range`` header of every GET per path (None when absent).
        if_ranges: the ``If-Range`` header of every GET per path (None when absent).
        sent: body bytes written per path, over all requests.
    """

    def __init__(
        self,
        root: Path,
        retry_after: str = "7",
        stall_s: float = 3.0,
        ignore_range: bool = False,
        rate_bytes_per_s: float | None = None,
        validators: str = "etag,last_modified",
        honour_if_range: bool = True,
    ) -> None:
        self.root = root.resolve()
        self.retry_after = retry_after
        self.stall_s = stall_s
        self.ignore_range = ignore_range
        self.rate_bytes_per_s = rate_bytes_per_s
        self.validators = set(validators.split(","))
        self.honour_if_range = honour_if_range
        self.if_ranges: defaultdict[str, list[str | None]] = defaultdict(list)
        self._etags: dict[tuple[str, int, int], str] = {}
        self.requests: Counter[str] = Counter()
        self.ranges: defaultdict[str, list[str | None]] = defaultdict(list)
        self.sent: Counter[str] = Counter()
        self._faults: defaultdict[str, deque[str]] = defaultdict(deque)
        self._lock = threading.Lock()
        self.httpd = _Server(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def fault(self, source: str, *faults: str) -> None:
        """Queue faults for the next requests to ``source``, one each, in order."""
        with self._lock:
            self._faults[source].extend(faults)

    def _next(self, source: str, range_header: str | None, if_range: str | None) -> str | None:
        with self._lock:
            self.requests[source] += 1
            self.ranges[source].append(range_header)
            self.if_ranges[source].append(if_range)
            queue = self._faults.get(source)
            return queue.popleft() if queue else None

    def _etag(self, path: Path) -> str:
        """The file's ETag, hashed once per version (benchmarks serve large files)."""
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size)
        with self._lock:
            if key not in self._etags:
                self._etags[key] = etag_of(path.read_bytes())
            return self._etags[key]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                source = self.path.split("?", 1)[0].lstrip("/")
                if_range = self.headers.get("If-Range")
                fault = server._next(source, self.headers.get("Range"), if_range)
                path = (server.root / source).resolve()
                if fault in {"503", "500", "404"}:
                    return self._status(int(fault or 0))
                if fault == "429":
                    return self._status(429, {"Retry-After": server.retry_after})
                if not path.is_file() or server.root not in path.parents:
                    return self._status(404)
                size = path.stat().st_size
                if fault == "truncated_gzip":
                    size -= 10
                validators = {}
                if "etag" in server.validators:
                    validators["ETag"] = server._etag(path)
                if "weak_etag" in server.validators:
                    validators["ETag"] = "W/" + server._etag(path)
                if "last_modified" in server.validators:
                    validators["Last-Modified"] = last_modified_of(path)
                current = {v for k, v in validators.items() if not v.startswith("W/")}
                same = if_range is None or not server.honour_if_range or if_range in current
                start = 0
                ranged = self.headers.get("Range", "")
                if (
                    ranged.startswith("bytes=")
                    and same
                    and not (server.ignore_range or fault == "ignore_range")
                ):
                    start = int(ranged[len("bytes=") :].split("-", 1)[0])
                    if start >= size:
                        return self._status(416, {"Content-Range": f"bytes */{size}"})
                self.send_response(206 if start else 200)
                self.send_header("Content-Type", "application/octet-stream")
                for key, value in validators.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(size - start))
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
                self.end_headers()
                self.wfile.flush()
                with (
                    contextlib.suppress(BrokenPipeError, ConnectionResetError),
                    open(path, "rb") as fh,
                ):
                    self._body(source, fh, start, size, fault)

            def _body(self, source: str, fh: Any, start: int, end: int, fault: str | None) -> None:
                count = end - start
                if fault is not None and fault.startswith("drop:"):
                    self._send(source, fh, start, int(fault.split(":")[1]))
                    self.close_connection = True
                    self.connection.close()
                    return
                if fault in {"drop", "reset", "stall"}:
                    half = count // 2
                    self._send(source, fh, start, half)
                    if fault == "stall":
                        time.sleep(server.stall_s)
                    elif fault == "reset":  # RST instead of FIN
                        self.connection.setsockopt(
                            socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                        )
                    self.close_connection = True
                    self.connection.close()
                    return
                if fault == "slow":
                    self._send(source, fh, start, count, piece=max(1, count // 20), pause=0.01)
                elif server.rate_bytes_per_s:
                    piece = 16384
                    self._send(source, fh, start, count, piece, piece / server.rate_bytes_per_s)
                else:
                    sent = self.connection.sendfile(fh, start, count)
                    with server._lock:
                        server.sent[source] += sent

            def _send(
                self,
                source: str,
                fh: Any,
                start: int,
                count: int,
                piece: int = 1 << 16,
                pause: float = 0.0,
            ) -> None:
                fh.seek(start)
                left = count
                while left > 0:
                    block = fh.read(min(piece, left))
                    self.wfile.write(block)
                    self.wfile.flush()
                    with server._lock:
                        server.sent[source] += len(block)
                    left -= len(block)
                    if pause:
                        time.sleep(pause)

            def _status(self, status: int, headers: dict[str, str] | None = None) -> None:
                body = f"status {status}\n".encode()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

        return Handler

    def __enter__(self) -> FakeCCNews:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def main() -> None:
    """Serve a directory standalone (benchmarks keep the server out of the measured
    process): ``python -m tests.support.fake_ccnews <root>`` prints the base URL."""
    import sys

    with FakeCCNews(Path(sys.argv[1])) as server:
        print(server.url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
