"""The local annotation web app: a standard-library HTTP server on 127.0.0.1.

Routes: ``GET /`` (the page), ``/app.js``, ``/app.css`` (package files under ``web/``),
``GET /api/state`` (packet items, rubric and the annotator's saved ratings) and ``POST
/api/rating`` (one item's seven scores). Each accepted rating is appended atomically to
the annotator's JSON Lines file before the response is sent, so a killed server loses
nothing that the page reported as saved; on restart the page resumes at the first
unrated item.

The server only answers requests addressed to the loopback host it is bound to and,
for writes, only JSON from its own origin: a web page elsewhere in the annotator's
browser cannot post ratings (or read the packet) through it.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from functools import cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from prescient.annotation.principles import Rubric
from prescient.annotation.ratings import (
    Rating,
    append_rating,
    check_annotator_name,
    clean_ratings_dir,
    now_iso,
    read_ratings_file,
    score_problems,
)
from prescient.annotation.sample import read_packet
from prescient.vocab import PRINCIPLES

logger = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
LISTEN_BACKLOG = 1024
"""Pending connections the kernel queues before it refuses more (the standard library's
default of 5 reset some of a page's requests under a burst of saves)."""

# The page's files (package data under web/), by route: (file, content type).
ASSETS: dict[str, tuple[str, str]] = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@dataclass
class AnnotationSession:
    """One annotator's packet and ratings file, shared by the server's threads.

    Attributes:
        annotator: the annotator's name (the ratings file's stem).
        items: packet items, in the annotator's packet order.
        rubric: principles and scale shown with every item.
        ratings_path: ``<ratings_dir>/<annotator>.jsonl``.
    """

    annotator: str
    items: list[dict[str, Any]]
    rubric: Rubric
    ratings_path: Path
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def item_ids(self) -> set[str]:
        return {str(it["item_id"]) for it in self.items}

    @classmethod
    def open(cls, packets_dir: Path, ratings_dir: Path, annotator: str) -> AnnotationSession:
        """Load ``annotator``'s packet and the rubric from ``packets_dir``.

        Raises:
            FileNotFoundError: naming the packets that do exist when there is none for
                ``annotator``.
        """
        check_annotator_name(annotator)
        clean_ratings_dir(ratings_dir)
        packet = packets_dir / f"{annotator}.jsonl"
        if not packet.is_file():
            available = sorted(
                p.stem for p in packets_dir.glob("*.jsonl") if not p.name.startswith(".")
            )
            raise FileNotFoundError(
                f"no packet for annotator {annotator!r} in {packets_dir} (run `dvc repro "
                f"annotation_sample`; packets available: {available or 'none'})"
            )
        rubric = Rubric.from_dict(
            json.loads((packets_dir / "rubric.json").read_text(encoding="utf-8"))
        )
        session = cls(annotator, read_packet(packet), rubric, ratings_dir / f"{annotator}.jsonl")
        saved = session.saved_ratings()
        logger.info(
            "annotator %s: %d items, %d already rated in %s",
            annotator,
            len(session.items),
            len(saved),
            session.ratings_path,
        )
        return session

    def saved_ratings(self) -> dict[str, dict[str, int]]:
        """The effective ratings in the file (last line per item wins)."""
        if not self.ratings_path.exists():
            return {}
        ratings, problems = read_ratings_file(self.ratings_path, self.item_ids)
        for p in problems:
            logger.warning("ignored: %s", p)
        return {item: dict(r.scores) for item, r in ratings.ratings.items()}

    def state(self) -> dict[str, Any]:
        return {
            "annotator": self.annotator,
            "items": self.items,
            "rubric": self.rubric.to_dict(),
            "ratings": self.saved_ratings(),
        }

    def save(self, payload: Any) -> dict[str, Any]:
        """Validate and append one rating; returns what the page shows.

        Raises:
            ValueError: the payload is not a rating of a packet item.
        """
        if not isinstance(payload, dict):
            raise ValueError("expected a JSON object")
        item_id = payload.get("item_id")
        if not isinstance(item_id, str) or item_id not in self.item_ids:
            raise ValueError(f"unknown item id {item_id!r}")
        problems = score_problems(payload.get("scores"))
        if problems:
            raise ValueError("; ".join(problems))
        scores = {k: int(payload["scores"][k]) for k in PRINCIPLES}
        rating = Rating(item_id, self.annotator, scores, now_iso())
        with self._lock:
            append_rating(self.ratings_path, rating)
            n_rated = len(self.saved_ratings())
        logger.info("saved %s for item %s (%d rated)", self.annotator, item_id, n_rated)
        return {"ok": True, "item_id": item_id, "saved_at": rating.saved_at, "n_rated": n_rated}


@cache
def asset(name: str) -> bytes:
    """A file of the page (``prescient/annotation/web/<name>``), read once."""
    return resources.files("prescient.annotation.web").joinpath(name).read_bytes()


class AnnotationServer(ThreadingHTTPServer):
    """A threading HTTP server carrying the session its handlers serve."""

    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], session: AnnotationSession) -> None:
        super().__init__(address, AnnotationHandler)
        self.session = session

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"

    @property
    def allowed_hosts(self) -> set[str]:
        port = self.server_address[1]
        return {f"127.0.0.1:{port}", f"localhost:{port}"}


class AnnotationHandler(BaseHTTPRequestHandler):
    server: AnnotationServer
    server_version = "PrescientAnnotate/1"

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s - %s", self.address_string(), format % args)

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj, ensure_ascii=False).encode(), "application/json")

    def _host_ok(self) -> bool:
        if self.headers.get("Host", "") not in self.server.allowed_hosts:
            self._json(HTTPStatus.MISDIRECTED_REQUEST, {"error": "unexpected Host header"})
            return False
        return True

    def do_GET(self) -> None:
        if not self._host_ok():
            return
        path = urlsplit(self.path).path
        if path in ASSETS:
            name, content_type = ASSETS[path]
            self._send(HTTPStatus.OK, asset(name), content_type)
        elif path == "/api/state":
            self._json(HTTPStatus.OK, self.server.session.state())
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self) -> None:
        if not self._host_ok():
            return
        if urlsplit(self.path).path != "/api/rating":
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return
        origin = self.headers.get("Origin")
        if origin is not None and f"{origin.rstrip('/')}/" not in {
            f"http://{h}/" for h in self.server.allowed_hosts
        }:
            self._json(HTTPStatus.FORBIDDEN, {"error": "cross-origin request refused"})
            return
        if self.headers.get_content_type() != "application/json":
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "expected application/json"})
            return
        declared = (self.headers.get("Content-Length") or "0").strip()
        if not declared.isdigit():
            self._json(
                HTTPStatus.BAD_REQUEST,
                {"error": f"Content-Length {declared[:40]!r} is not a whole number of bytes"},
            )
            return
        length = int(declared)
        if length <= 0 or length > MAX_BODY:
            self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "bad body length"})
            return
        try:
            payload = json.loads(self.rfile.read(length))
            result = self.server.session.save(payload)
        except (ValueError, UnicodeDecodeError) as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
            return
        except RecursionError:
            self._json(HTTPStatus.BAD_REQUEST, {"error": "the JSON body is nested too deeply"})
            return
        except OSError as exc:  # disk full, permissions: the page must not claim it saved
            logger.error("cannot save a rating: %s", exc)
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"cannot write: {exc}"})
            return
        self._json(HTTPStatus.OK, result)


def make_server(
    packets_dir: Path, ratings_dir: Path, annotator: str, host: str = "127.0.0.1", port: int = 8765
) -> AnnotationServer:
    """Bind the app (port 0 picks a free port; read it back from ``server.url``)."""
    if host not in ("127.0.0.1", "localhost"):
        raise ValueError("the annotation server only listens on the loopback interface")
    session = AnnotationSession.open(packets_dir, ratings_dir, annotator)
    return AnnotationServer((host, port), session)


def serve(server: AnnotationServer) -> None:
    """Serve until interrupted (Ctrl-C)."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        logger.info("stopped")
    finally:
        server.server_close()
