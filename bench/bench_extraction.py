"""Benchmark: WARC page extraction against news-please.

The pages are written for the purpose (tests/support/news_pages.py): news articles with
the furniture real sites wrap around them (captions, a lead shown twice, "read more"
teasers, related-article, advertisement, newsletter and share boxes), each with its gold
title, date and text. They are written into a gzip WARC file and read by the ingest's
reader (prescient.corpus.warc.read_warc) with the shipped ``ingest.extraction`` and with
trafilatura's own defaults; news-please (NewsPlease.from_html, its own extraction
pipeline) reads the same HTML. Reported per extractor:

- text: token F1 against the gold text (mean over pages), and the pages extracted exactly;
- title and date: pages agreeing with the gold;
- keep/drop: pages whose extracted text falls on the same side of ``ingest.min_chars``
  as the gold text;
- agreement with news-please: token F1 between the two texts, and title, date and
  keep/drop agreement;
- speed: pages per second on one core (the reader: WARC parsing and extraction; news-please:
  extraction from the HTML string).

news-please has dependencies this project does not install (newspaper4k, readability,
scrapy); give an interpreter that has it with ``--newsplease-python`` (e.g. a separate
virtual environment: ``python3.11 -m venv /tmp/np && /tmp/np/bin/pip install
news-please``), or install it here. Without either, its columns are left out.

    .venv/bin/python bench/bench_extraction.py [--newsplease-python /tmp/np/bin/python]
        [--repeat 40]

Results also go to bench/results/extraction.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient.corpus.warc import PLAIN, Extraction, read_warc  # noqa: E402
from prescient.plumbing import params  # noqa: E402
from tests.support.corpus import Warc  # noqa: E402
from tests.support.news_pages import MIN_CHARS, PAGES, NewsPage  # noqa: E402

NEWSPLEASE = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
from newsplease import NewsPlease
pages, repeat = json.load(sys.stdin), int(sys.argv[1])
out = []
for p in pages:
    a = NewsPlease.from_html(p["html"], url=p["url"], fetch_images=False)
    day = a.date_publish.date().isoformat() if a.date_publish else None
    out.append({"title": a.title or "", "date": day, "text": a.maintext or ""})
t0 = time.process_time()
for _ in range(repeat):
    for p in pages:
        NewsPlease.from_html(p["html"], url=p["url"], fetch_images=False)
cpu = time.process_time() - t0
json.dump({"pages": out, "cpu_s": cpu, "n": repeat * len(pages)}, sys.stdout)
"""

_TOKEN = re.compile(r"\w+", re.UNICODE)


def f1(got: str, gold: str) -> float:
    """Token F1 (bag of lower-cased word tokens) of two texts."""
    a, b = Counter(_TOKEN.findall(got.lower())), Counter(_TOKEN.findall(gold.lower()))
    common = sum((a & b).values())
    if not a and not b:
        return 1.0
    if not common:
        return 0.0
    precision, recall = common / sum(a.values()), common / sum(b.values())
    return 2 * precision * recall / (precision + recall)


def warc_file(directory: Path, pages: Sequence[NewsPage]) -> Path:
    w = Warc(gz=True)
    for p in pages:
        w.response(p.url, p.html.encode(), warc_date=f"{p.date}T12:00:00Z")
    path = directory / "pages.warc.gz"
    path.write_bytes(w.bytes())
    return path


def ours(path: Path, extraction: Extraction, repeat: int) -> dict[str, Any]:
    rows = list(read_warc(path, max_bytes=1 << 22, extraction=extraction))
    pages = [
        {
            "title": str(r.fields.get("title") or ""),
            "date": str(r.fields.get("date") or "") or None,
            "text": str(r.fields.get("text") or ""),
        }
        for r in rows
    ]
    t0 = time.process_time()
    for _ in range(repeat):
        for _row in read_warc(path, max_bytes=1 << 22, extraction=extraction):
            pass
    cpu = time.process_time() - t0
    return {"pages": pages, "cpu_s": cpu, "n": repeat * len(rows)}


def newsplease(python: str | None, repeat: int) -> dict[str, Any] | None:
    payload = json.dumps([{"html": p.html, "url": p.url} for p in PAGES])
    command = [python or sys.executable, "-c", NEWSPLEASE, str(repeat)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(command, input=payload, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        print(f"news-please unavailable ({done.stderr.strip().splitlines()[-1:]})")
        return None
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def scores(run: dict[str, Any], against: Sequence[dict[str, Any]]) -> dict[str, Any]:
    pairs = list(zip(run["pages"], against, strict=True))
    return {
        "text_f1_mean": round(sum(f1(g["text"], a["text"]) for g, a in pairs) / len(pairs), 4),
        "text_exact": sum(g["text"] == a["text"] for g, a in pairs),
        "title_agree": sum(g["title"] == a["title"] for g, a in pairs),
        "date_agree": sum(g["date"] == a["date"] for g, a in pairs),
        "keep_drop_agree": sum(
            (len(g["text"]) > MIN_CHARS) == (len(a["text"]) > MIN_CHARS) for g, a in pairs
        ),
        "pages": len(pairs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--newsplease-python", default=None)
    ap.add_argument("--repeat", type=int, default=40)
    args = ap.parse_args(argv)
    p = params.compose(ROOT, [])
    extraction = Extraction(
        p["ingest"]["extraction"]["favor_precision"],
        tuple(p["ingest"]["extraction"]["prune_xpath"]),
        p["ingest"]["extraction"]["drop_repeated_paragraphs"],
    )
    gold = [{"title": pg.title, "date": pg.date, "text": pg.text} for pg in PAGES]
    with tempfile.TemporaryDirectory() as tmp:
        path = warc_file(Path(tmp), PAGES)
        runs = {
            "prescient (ingest.extraction)": ours(path, extraction, args.repeat),
            "trafilatura defaults": ours(path, PLAIN, args.repeat),
        }
    np_run = newsplease(args.newsplease_python, args.repeat)
    if np_run is not None:
        runs["news-please"] = np_run
    report: dict[str, Any] = {"pages": [pg.name for pg in PAGES], "extractors": {}}
    for name, run in runs.items():
        entry = {
            "vs_gold": scores(run, gold),
            "pages_per_s_per_core": round(run["n"] / run["cpu_s"], 1) if run["cpu_s"] else None,
            "per_page_f1": {
                pg.name: round(f1(g["text"], pg.text), 4)
                for pg, g in zip(PAGES, run["pages"], strict=True)
            },
        }
        if np_run is not None and name != "news-please":
            entry["vs_newsplease"] = scores(run, np_run["pages"])
        report["extractors"][name] = entry
    print(json.dumps(report, indent=2))
    out = ROOT / "bench" / "results" / "extraction.json"
    out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
