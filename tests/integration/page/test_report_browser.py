"""reports/index.html in real headless Chromium: it loads offline with every figure
decoded and every table present, logs no console error and requests nothing outside
the file itself; no table runs past a 1400-pixel page; its first screen (1280 x 800)
shows the whole leaderboard, with what was run and the headline accuracy table after it;
a screenshot is kept in the test's tmp dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prescient.page.contents import analysis_figures
from prescient.page.summary import DEMO_LINE
from tests.fixtures.analysis.frames import MULTI_YEAR_REGISTRY, multi_year, sparse_demo
from tests.fixtures.analysis.results import bpc_tables, openforecast_tables
from tests.fixtures.analysis.run import run_stages
from tests.support.browser import launch_browser

pytestmark = pytest.mark.browser


def _visit(html: Path, screenshot: Path) -> dict[str, Any]:
    """Open a page and record console messages, page errors, requests and the DOM facts."""
    seen: dict[str, Any] = {"console": [], "errors": [], "requests": []}
    with launch_browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("console", lambda m: seen["console"].append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: seen["errors"].append(str(e)))
        page.on("request", lambda r: seen["requests"].append(r.url))
        # Nothing may leave the machine, even if the page asked for it.
        page.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith("file://") else route.abort()
            ),
        )
        page.goto(html.as_uri(), wait_until="load")
        seen["img_widths"] = page.eval_on_selector_all(
            "figure img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)"
        )
        seen["table_rows"] = page.evaluate(
            "() => Object.fromEntries([...document.querySelectorAll('table[id]')]"
            ".map(t => [t.id, t.tBodies[0].rows.length]))"
        )
        # a table wider than the page (or than its box, which would then scroll sideways)
        seen["cut"] = page.evaluate(
            "() => [...document.querySelectorAll('table[id]')].filter(t => "
            "t.getBoundingClientRect().right > document.documentElement.clientWidth "
            "|| t.parentElement.scrollWidth > t.parentElement.clientWidth).map(t => t.id)"
        )
        seen["title"] = page.title()
        page.screenshot(path=str(screenshot), full_page=True)
    seen["external"] = [u for u in seen["requests"] if not u.startswith(("file://", "data:"))]
    seen["bad_console"] = [c for c in seen["console"] if c.startswith(("error", "warning"))]
    return seen


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    scores, questions, articles = multi_year()
    run = run_stages(tmp_path / "run", scores, questions, articles, MULTI_YEAR_REGISTRY)
    shot = tmp_path / "report.png"
    seen = _visit(run.html, shot)
    assert seen["errors"] == []
    assert seen["bad_console"] == []
    assert seen["external"] == []
    assert seen["requests"] == [run.html.as_uri()]
    assert seen["title"] == "Prescient report"
    assert seen["cut"] == []  # every table fits 1400 px: cells wrap, wide tables set dense
    assert len(seen["img_widths"]) == len(analysis_figures())
    assert all(w >= 600 for w in seen["img_widths"]), seen["img_widths"]
    rows = seen["table_rows"]
    assert rows["models"] == 3
    assert rows["table3"] == 3 * 4 * 2 - 3 * 2  # cells x types; gamma-1b has one cell
    assert rows["monthly-accuracy"] == 18 * 60
    assert shot.stat().st_size > 100_000


def test_sparse_report_renders_in_chromium(tmp_path: Path) -> None:
    scores, questions, articles = sparse_demo()
    run = run_stages(tmp_path / "run", scores, questions, articles, {})
    seen = _visit(run.html, tmp_path / "sparse.png")
    assert seen["errors"] == [] and seen["bad_console"] == [] and seen["external"] == []
    assert seen["cut"] == []
    assert all(w > 0 for w in seen["img_widths"])
    assert seen["table_rows"]["freshbench-skipped"] == 3


def test_the_check_catches_an_external_reference(tmp_path: Path) -> None:
    """Negative control: the same checks flag a page that reaches for the network."""
    page = tmp_path / "leaky.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title>'
        '<link rel="icon" href="data:,"></head>'
        '<body><img src="https://example.invalid/pixel.png"></body></html>'
    )
    seen = _visit(page, tmp_path / "leaky.png")
    assert seen["external"] == ["https://example.invalid/pixel.png"]
    assert seen["bad_console"]


FIRST_SCREEN = """() => {
  const box = (sel) => { const e = document.querySelector(sel);
    if (!e) return null; const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, text: e.innerText}; };
  return {facts: box('dl.facts'), warning: box('p.demo-corpus'), headline: box('table#headline'),
          leaderboard: box('table#leaderboard'),
          contents: box('nav#contents'), rows: document.querySelectorAll('#headline tr').length,
          board_rows: document.querySelectorAll('#leaderboard tr').length,
          height: window.innerHeight, scroll: window.scrollY};
}"""


def test_the_first_screen_shows_the_leaderboard_then_what_was_run(tmp_path: Path) -> None:
    scores, questions, articles = multi_year()
    run = run_stages(
        tmp_path / "run",
        scores,
        questions,
        articles,
        MULTI_YEAR_REGISTRY,
        bpc=bpc_tables(tmp_path / "bpc"),
        openforecast=openforecast_tables(tmp_path / "openforecast"),
    )
    with launch_browser() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(run.html.as_uri(), wait_until="load")
        seen = page.evaluate(FIRST_SCREEN)
        page.screenshot(path=str(tmp_path / "first_screen.png"))
    assert seen["height"] == 800 and seen["scroll"] == 0
    for part in ("warning", "leaderboard", "contents"):
        assert 0 <= seen[part]["top"] < seen[part]["bottom"] <= 800, (part, seen[part])
    # The leaderboard comes first, whole, under the demo warning; what was run follows
    # it, then the papers' accuracy table.
    assert seen["warning"]["bottom"] <= seen["leaderboard"]["top"]
    assert seen["leaderboard"]["bottom"] < seen["facts"]["top"] < seen["headline"]["top"]
    assert seen["board_rows"] == 1 + 3  # header, then one row per model (labels only)
    assert seen["leaderboard"]["text"].splitlines()[0].split("\t")[:4] == [
        "Model",
        "Asked for",
        "Brier TF",
        "Brier MC",
    ]
    facts = seen["facts"]["text"]
    for said in (
        "demo: 354 articles",
        "unnamed: 708 questions (354 TF, 354 MC), resolving 2020-01-02 to 2024-12-28",
        "alpha-7b (knowledge cutoff 2022-03-31, released 2022-09-15)",
        "closed book, RAG cutoff 2022-01-01, RAG dynamic, gold article",
        "BPC and TBI: report_words, 5 documents in 3 buckets",
        "OpenForecast: 11 closed-form questions, 3 open-form samples judged by smollm2_135m",
    ):
        assert said in facts, said
    assert seen["warning"]["text"] == DEMO_LINE
    assert seen["rows"] == 1 + 3 * 2  # header, then TF and MC of three models
    assert "alpha-7b" in seen["headline"]["text"] and "n=354" in seen["headline"]["text"]
    contents = seen["contents"]["text"]
    # The questions carry no source name, so their part is not headed Daily Oracle.
    assert [c in contents for c in ("Questions of an unnamed source", "FreshBench",
                                   "OpenForecast", "Dataset", "Provenance",
                                   "Notes")] == [True] * 6  # fmt: skip
