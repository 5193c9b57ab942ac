"""The annotation page end to end: a real server process driven by headless Chromium.

Annotate with the keyboard and the mouse, kill the server mid-session (an answer given
while it is down is kept by the page and saved once it is back), restart it, reload the
page (it resumes at the first unrated item), correct an earlier item (a later line
replaces the earlier one) and check the file on disk after each step. A second test
checks that HTML and script in article text are displayed as text, never run.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from prescient.annotation.ratings import read_ratings_file
from prescient.vocab import PRINCIPLES
from stages import annotation_sample as sample_stage
from tests.conftest import ROOT
from tests.fixtures.annotation.build import XSS_TEXT, XSS_TITLE, write_inputs, write_params
from tests.support.browser import launch_browser

pytestmark = pytest.mark.browser

ANNOTATOR = "ann_a"


@pytest.fixture
def packets(tmp_path: Path) -> Path:
    write_inputs(tmp_path / "interim")
    write_params(tmp_path / "params.yaml", annotators=(ANNOTATOR, "ann_b"))
    out = tmp_path / "packets"
    rc = sample_stage.main(
        [
            "--params", str(tmp_path / "params.yaml"),
            "--candidates", str(tmp_path / "interim/qa_candidates.parquet"),
            "--articles", str(tmp_path / "interim/articles.parquet"),
            "--rubric", str(ROOT / "conf/prompts/construct/filter.yaml"),
            "--out", str(out),
        ]
    )  # fmt: skip
    assert rc == 0
    return out


@contextmanager
def server(
    packets: Path, ratings: Path, log: Path, port: int = 0
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start ``prescient annotate serve`` as a real process; yield it and its URL."""
    cmd = [
        sys.executable, "-m", "prescient", "annotate", "serve", "--annotator", ANNOTATOR,
        "--packets", str(packets), "--ratings", str(ratings), "--port", str(port),
    ]  # fmt: skip
    with open(log, "a") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""
        assert "http://127.0.0.1:" in line, f"server did not start: {line!r}\n{log.read_text()}"
        url = line.split()[-4]
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def effective(path: Path) -> dict[str, dict[str, int]]:
    ratings, problems = read_ratings_file(path)
    assert problems == []
    return {k: dict(v.scores) for k, v in ratings.ratings.items()}


def scores(*values: int) -> dict[str, int]:
    return dict(zip(PRINCIPLES, values, strict=True))


def wait_for_lines(path: Path, n: int, timeout: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= n:
            return lines
        time.sleep(0.1)
    raise AssertionError(f"{path} has fewer than {n} lines")


def test_annotate_kill_restart_resume(packets: Path, tmp_path: Path) -> None:
    ratings_dir = tmp_path / "ratings"
    out = ratings_dir / f"{ANNOTATOR}.jsonl"
    log = tmp_path / "server.log"
    order = [
        json.loads(x)["item_id"] for x in (packets / f"{ANNOTATOR}.jsonl").read_text().splitlines()
    ]
    n_items = len(order)

    with launch_browser() as browser:
        page = browser.new_page()
        with server(packets, ratings_dir, log) as (proc, url):
            port = int(url.rsplit(":", 1)[1].strip("/"))
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']")
            assert page.text_content("#position") == "1"
            assert page.text_content("#total") == str(n_items)
            assert page.text_content("#annotator") == ANNOTATOR

            # Item 1 with the keyboard: each digit scores the highlighted principle.
            for key in "2120221":
                page.keyboard.press(key)
            page.wait_for_selector("body[data-rated='1']")
            page.keyboard.press("n")
            assert page.text_content("#position") == "2"

            # Item 2 with the mouse.
            for k, v in zip(PRINCIPLES, (2, 2, 2, 1, 2, 2, 2), strict=True):
                page.click(f"#score-{k}-{v}")
            page.wait_for_selector("body[data-rated='2']")
            page.click("#next")

            # Item 3: score, move back up with the arrow key, correct, then finish.
            page.keyboard.press("1")
            page.keyboard.press("ArrowUp")
            for key in "0222222":
                page.keyboard.press(key)
            page.wait_for_selector("body[data-rated='3']")
            page.keyboard.press("ArrowRight")
            assert page.text_content("#position") == "4"

            # Item 4: three of seven principles, then the server dies.
            for key in "221":
                page.keyboard.press(key)
            proc.kill()
            proc.wait(10)

        assert effective(out) == {
            order[0]: scores(2, 1, 2, 0, 2, 2, 1),
            order[1]: scores(2, 2, 2, 1, 2, 2, 2),
            order[2]: scores(0, 2, 2, 2, 2, 2, 2),
        }
        assert len(out.read_text().splitlines()) == 3
        for line in out.read_text().splitlines():
            obj = json.loads(line)
            assert list(obj) == ["item_id", "annotator", "scores", "saved_at"]
            assert obj["annotator"] == ANNOTATOR and "T" in obj["saved_at"]

        # Finish item 4 while the server is down: the page says it is not saved.
        for key in "2220":
            page.keyboard.press(key)
        page.wait_for_selector("#save-status.error")
        assert "Not saved" in (page.text_content("#save-status") or "")

        # Restart on the same port: the page retries and the answer reaches the file.
        with server(packets, ratings_dir, log, port=port) as (_, url2):
            assert url2 == url
            page.wait_for_selector("body[data-rated='4']", timeout=15000)
            assert effective(out)[order[3]] == scores(2, 2, 1, 2, 2, 2, 0)

            # A fresh page load resumes at the first unrated item.
            page.reload()
            page.wait_for_selector("body[data-ready='1']")
            assert page.text_content("#position") == "5"
            assert page.text_content("#rated-count") == "4"

            # Go back to item 1: its saved scores are shown; correct one of them.
            for _ in range(4):
                page.keyboard.press("p")
            assert page.text_content("#position") == "1"
            assert page.is_checked("#score-correctness-2")
            assert page.is_checked("#score-objectivity-0")
            page.keyboard.press("0")  # correctness: 2 -> 0
            wait_for_lines(out, 5)
            assert effective(out)[order[0]] == scores(0, 1, 2, 0, 2, 2, 1)
            assert len(effective(out)) == 4

            # The summary lists what is left.
            page.keyboard.press("s")
            page.wait_for_selector("#summary", state="visible")
            assert not page.is_visible("#item-view")
            assert f"You rated 4 of {n_items} items." in (page.text_content("#summary-text") or "")
            assert page.locator("#unrated li").count() == n_items - 4
        page.close()


def test_article_html_and_script_are_shown_not_run(packets: Path, tmp_path: Path) -> None:
    items = [json.loads(x) for x in (packets / f"{ANNOTATOR}.jsonl").read_text().splitlines()]
    position = next(i for i, it in enumerate(items) if it["article"]["text"] == XSS_TEXT)
    with (
        launch_browser() as browser,
        server(packets, tmp_path / "ratings", tmp_path / "log") as (_, url),
    ):
        page = browser.new_page()
        console: list[str] = []
        page.on("console", lambda msg: console.append(msg.text))
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        for _ in range(position):
            page.keyboard.press("n")
        assert page.text_content("#position") == str(position + 1)
        assert page.text_content("#article-text") == XSS_TEXT
        assert page.text_content("#article-title") == XSS_TITLE
        assert page.locator("#article-text *").count() == 0
        assert page.locator("#article-title *").count() == 0
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert "<script>" in page.inner_text("#article-text")
        assert not [m for m in console if "Content Security Policy" in m]
        page.close()
