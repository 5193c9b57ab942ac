"""The annotation server's API without a browser: saving, validation and refusals."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from prescient.annotation.principles import load_rubric
from prescient.annotation.ratings import read_ratings_file
from prescient.annotation.sample import build_items, draw_sample, packet_jsonl
from prescient.annotation.server import AnnotationServer, asset, make_server
from prescient.vocab import PRINCIPLES
from tests.conftest import ROOT
from tests.fixtures.annotation.build import articles, candidates, packet_settings


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[AnnotationServer, list[str]]]:
    packets = tmp_path / "packets"
    packets.mkdir()
    settings = packet_settings(2, 2, annotators=("ann_a",))
    sample, _ = draw_sample(candidates(), settings, 1)
    items = build_items(sample, articles())
    (packets / "ann_a.jsonl").write_text(packet_jsonl(items))
    rubric = load_rubric(ROOT / "conf/prompts/construct/filter.yaml")
    (packets / "rubric.json").write_text(json.dumps(rubric.to_dict()))
    server = make_server(packets, tmp_path / "ratings", "ann_a", port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, [it["item_id"] for it in items]
    finally:
        server.shutdown()
        server.server_close()


def _request(
    server: AnnotationServer,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    hdrs = {"Host": f"127.0.0.1:{port}"}
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    ctype = resp.getheader("Content-Type") or ""
    payload = json.loads(raw) if ctype.startswith("application/json") else {"text": raw.decode()}
    return resp.status, payload, dict(resp.getheaders())


def test_page_and_state(served: tuple[AnnotationServer, list[str]]) -> None:
    server, ids = served
    status, page, headers = _request(server, "GET", "/")
    assert status == 200 and '<script src="/app.js"' in page["text"]
    web = Path(__file__).resolve().parents[3] / "prescient" / "annotation" / "web"
    assert page["text"] == (web / "index.html").read_text(encoding="utf-8")
    for route, name, ctype in (
        ("/app.js", "app.js", "text/javascript"),
        ("/app.css", "app.css", "text/css"),
    ):
        status, body, hdrs = _request(server, "GET", route)
        assert status == 200 and hdrs["Content-Type"].startswith(ctype)
        assert body["text"].encode() == asset(name) == (web / name).read_bytes()
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "<script>" not in page["text"].replace('<script src="/app.js" defer></script>', "")
    status, state, _ = _request(server, "GET", "/api/state")
    assert status == 200
    assert state["annotator"] == "ann_a"
    assert [it["item_id"] for it in state["items"]] == ids
    assert [p["key"] for p in state["rubric"]["principles"]] == list(PRINCIPLES)
    assert state["ratings"] == {}


def test_save_appends_and_state_reflects_it(served: tuple[AnnotationServer, list[str]]) -> None:
    server, ids = served
    scores = dict.fromkeys(PRINCIPLES, 1)
    status, body, _ = _request(server, "POST", "/api/rating", {"item_id": ids[0], "scores": scores})
    assert status == 200 and body["ok"] and body["n_rated"] == 1
    ratings, problems = read_ratings_file(server.session.ratings_path, ids)
    assert problems == [] and ratings.ratings[ids[0]].scores == scores
    _, state, _ = _request(server, "GET", "/api/state")
    assert state["ratings"] == {ids[0]: scores}


@pytest.mark.parametrize(
    "body, message",
    [
        ({"item_id": "nope", "scores": dict.fromkeys(PRINCIPLES, 1)}, "unknown item id"),
        ({"item_id": None, "scores": {}}, "unknown item id"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_invalid_ratings_are_refused(
    served: tuple[AnnotationServer, list[str]], body: Any, message: str
) -> None:
    server, _ = served
    status, resp, _ = _request(server, "POST", "/api/rating", body)
    assert status == 400 and message in resp["error"]
    assert not server.session.ratings_path.exists()


@pytest.mark.parametrize(
    ("body", "headers", "message"),
    [
        (b"{}", {"Content-Length": "abc"}, "Content-Length 'abc' is not a whole number"),
        (b"[" * 30_000 + b"]" * 30_000, {}, "the JSON body is nested too deeply"),
        (b'{"a":' * 10_000 + b"1" + b"}" * 10_000, {}, "nested too deeply"),
    ],
)
def test_malformed_requests_get_400_without_a_traceback(
    served: tuple[AnnotationServer, list[str]],
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    body: bytes,
    headers: dict[str, str],
    message: str,
) -> None:
    server, _ = served
    status, resp, _ = _request(server, "POST", "/api/rating", body, headers)
    assert status == 400 and message in resp["error"]
    assert "Traceback" not in capfd.readouterr().err + caplog.text
    assert not server.session.ratings_path.exists()


def test_score_outside_range_is_refused(served: tuple[AnnotationServer, list[str]]) -> None:
    server, ids = served
    scores = {**dict.fromkeys(PRINCIPLES, 1), "objectivity": 3}
    status, resp, _ = _request(server, "POST", "/api/rating", {"item_id": ids[0], "scores": scores})
    assert status == 400 and "objectivity=3 is outside 0-2" in resp["error"]


def test_foreign_requests_are_refused(served: tuple[AnnotationServer, list[str]]) -> None:
    server, ids = served
    ok = {"item_id": ids[0], "scores": dict.fromkeys(PRINCIPLES, 1)}
    # DNS rebinding: a foreign host name pointing at 127.0.0.1.
    assert _request(server, "GET", "/api/state", headers={"Host": "evil.example"})[0] == 421
    # Another site's page posting to the local server.
    status, _, _ = _request(
        server, "POST", "/api/rating", ok, headers={"Origin": "https://evil.example"}
    )
    assert status == 403
    # A form post (no CORS preflight) is not JSON.
    status, _, _ = _request(
        server,
        "POST",
        "/api/rating",
        json.dumps(ok).encode(),
        headers={"Content-Type": "text/plain"},
    )
    assert status == 415
    assert not server.session.ratings_path.exists()


def test_unknown_annotator_lists_the_packets(tmp_path: Path) -> None:
    (tmp_path / "ann_a.jsonl").write_text("")
    with pytest.raises(FileNotFoundError, match=r"packets available: \['ann_a'\]"):
        make_server(tmp_path, tmp_path / "ratings", "someone_else", port=0)


def test_only_loopback(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="loopback"):
        make_server(tmp_path, tmp_path, "ann_a", host="0.0.0.0", port=0)


def test_200_concurrent_saves_are_all_accepted(
    served: tuple[AnnotationServer, list[str]],
) -> None:
    """A burst of 200 saves at once: none is reset (the listen backlog holds them all) and
    every one reaches the file."""
    server, ids = served
    barrier = threading.Barrier(200)

    def post(i: int) -> int:
        scores = {**dict.fromkeys(PRINCIPLES, 1), "correctness": i % 3}
        port = server.server_address[1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        body = json.dumps({"item_id": ids[i % len(ids)], "scores": scores}).encode()
        headers = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json"}
        barrier.wait()
        conn.request("POST", "/api/rating", body=body, headers=headers)
        status = conn.getresponse().status
        conn.close()
        return status

    with ThreadPoolExecutor(max_workers=200) as pool:
        statuses = list(pool.map(post, range(200)))  # a reset raises here
    assert statuses == [200] * 200
    assert len(server.session.ratings_path.read_text().splitlines()) == 200


@pytest.mark.parametrize("name", ["ann_a\n", "../ann_a", "", "ann a"])
def test_bad_annotator_names_are_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "ann_a.jsonl").write_text("")
    with pytest.raises(ValueError, match="annotator name"):
        make_server(tmp_path, tmp_path / "ratings", name, port=0)
    assert not (tmp_path / "ratings").exists()
