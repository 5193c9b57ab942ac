"""Benchmark: WARC ingest on the local engine against Ray with 1 and 2 workers.

A generated multi-file WARC set of news pages shaped like real ones (about 60 KB of HTML:
navigation, inline scripts and styles, JSON-LD metadata, an article of 8-14 paragraphs,
related links, comments, a footer; seeded words, so the set is the same on every run)
is ingested with the shipped ``ingest`` settings by
the local engine, then by the Ray engine on a Ray of this machine with 1 and 2 worker
CPUs (started before the timed run; its start-up is reported apart, since a cluster
pays it once per stage, not per file). Every run must give the same article table.

Also measured: CPU seconds per page a task spends (framing, digest, HTTP parsing and
trafilatura extraction), per record the host allow-list skips (framing only), and per
page this process spends on what tasks send back (decoding, checks, de-duplication:
the part that does not spread). From these and the month's volume it prints what a
64-core cluster needs for a month of CC-NEWS, with and without the paper's five outlets.

    .venv/bin/python bench/bench_ingest_ray.py [--files 8] [--pages 150] [--workers 1 2]

Results also go to bench/results/ingest_ray.json. On a shared, loaded machine the wall
times mean little alone; read them with the load average printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient import io  # noqa: E402
from prescient.corpus.ingest import ingest_corpus, ingest_rows  # noqa: E402
from prescient.corpus.ray_engine import table_units, units_table  # noqa: E402
from prescient.corpus.readers import RawRow, read_rows  # noqa: E402
from prescient.corpus.settings import CorpusSettings, IngestSettings  # noqa: E402
from prescient.plumbing import params  # noqa: E402
from prescient.settings import load_settings  # noqa: E402
from tests.support.corpus import Warc  # noqa: E402
from tests.support.fake_ccnews import WORDS  # noqa: E402

# A month of CC-NEWS: about 1.3 billion articles from August 2016 to early 2026 (the
# Infini-News index of the whole archive, 2026), i.e. about 12 million records a month on
# average, more in recent months; files hold about 1 GB each.
MONTH_RECORDS = 12_000_000
# Kept by the Daily Oracle paper: 1,216,925 articles of five outlets over 69 months
# (ICML 2025, section 3.1), about 18,000 a month.
MONTH_FIVE_OUTLETS = 1_216_925 / 69
CORES = 64


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def news_page(rng: random.Random, story: int, day: int) -> bytes:
    """A page with a real page's share of boilerplate around its article."""
    title = f"{_words(rng, 7).capitalize()} ({story})"
    links = "".join(
        f'<li><a href="/section/{rng.randrange(10**6)}">{_words(rng, 2)}</a></li>'
        for _ in range(80)
    )
    script = "var cfg = {" + ",".join(f'"k{i}": {rng.random():.6f}' for i in range(400)) + "};"
    style = "".join(
        f".c{i} {{ margin: {i % 9}px; color: #{i * 4099 % 0xFFFFFF:06x}; }}" for i in range(300)
    )
    body = "".join(
        f"<p>{_words(rng, rng.randrange(50, 110)).capitalize()}.</p>"
        for _ in range(rng.randrange(8, 15))
    )
    related = "".join(
        f'<div class="card"><a href="/story/{rng.randrange(10**6)}"><img src="/i/{i}.jpg">'
        f"<span>{_words(rng, 8)}</span></a></div>"
        for i in range(30)
    )
    comments = "".join(
        f'<div class="comment"><b>user{rng.randrange(10**4)}</b><p>{_words(rng, 25)}</p></div>'
        for _ in range(12)
    )
    meta = json.dumps(
        {"@type": "NewsArticle", "headline": title, "datePublished": f"2024-05-{day:02d}T08:00:00Z"}
    )
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title><style>{style}</style>"
        f'<script type="application/ld+json">{meta}</script><script>{script}</script></head>'
        f"<body><header><nav><ul>{links}</ul></nav></header><main><article><h1>{title}</h1>"
        f'<div class="byline">By {_words(rng, 2).title()}</div>{body}</article>'
        f'<aside class="related">{related}</aside><section class="comments">{comments}</section>'
        f"</main><footer><ul>{links}</ul><p>{_words(rng, 40)}</p></footer></body></html>"
    ).encode()


def write_set(directory: Path, n_files: int, pages: int) -> list[Path]:
    """``n_files`` WARC.gz files of ``pages`` news pages, plus a request, an image and
    a 404 per 50 pages, as in a crawl."""
    directory.mkdir(parents=True)
    rng = random.Random(n_files * 7919 + pages)
    paths = []
    for k in range(n_files):
        w = Warc(gz=True)
        w.info()
        for i in range(pages):
            story, day = k * pages + i, 1 + (k + i) % 27
            uri = f"https://outlet{story % 7}.example/2024/05/{day:02d}/story-{story}"
            w.response(
                uri, news_page(rng, story, day), warc_date=f"2024-05-{day + 1:02d}T09:00:00Z"
            )
            if i % 50 == 25:
                w.request(uri)
                w.response(
                    f"https://outlet{story % 7}.example/logo.png", b"\x89PNG..", ctype="image/png"
                )
                w.response(
                    f"https://outlet{story % 7}.example/gone",
                    b"<html></html>",
                    status="404 Not Found",
                )
        path = directory / f"CC-NEWS-202405{k + 1:02d}000000-{k:05d}.warc.gz"
        path.write_bytes(w.bytes())
        paths.append(path)
    return paths


def settings(path: Path, *overrides: str) -> tuple[CorpusSettings, IngestSettings]:
    p = params.compose(ROOT, ["corpus=warc", f"corpus.path={path}", *overrides])
    p["corpus"]["glob"] = None
    return load_settings(CorpusSettings, p, "corpus"), load_settings(IngestSettings, p, "ingest")


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def timed_ingest(path: Path, engine: str) -> dict[str, Any]:
    corpus, ingest = settings(path, f"ingest.engine={engine}")
    t0, c0 = time.perf_counter(), cpu_seconds()
    df, report = ingest_corpus(corpus, ingest)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    return {
        "engine": engine,
        "seconds": round(wall, 2),
        "driver_cpu_s": round(cpu, 2),
        "records": report.rows_read,
        "kept": len(df),
        "checksum": io.frame_checksum(df),
        "load_avg": round(os.getloadavg()[0], 2),
    }


def page_costs(path: Path) -> dict[str, float]:
    """CPU seconds per extracted page and per record the host list skips (the reading a
    task does), and per record of the checks this process does on what tasks send back
    (decoding the tables, checks, de-duplication)."""
    corpus, ingest = settings(path)
    c0 = cpu_seconds()
    units = list(read_rows(corpus, max_record_bytes=ingest.max_record_bytes))
    read_cpu = cpu_seconds() - c0
    pages = sum(isinstance(u, RawRow) and bool(u.fields) for u in units)
    skipped_corpus, _ = settings(path, "corpus.hosts=[no-such-outlet.example]")
    c0 = cpu_seconds()
    skipped = list(read_rows(skipped_corpus, max_record_bytes=ingest.max_record_bytes))
    skip_cpu = cpu_seconds() - c0
    tables = [units_table(units[i : i + 256]) for i in range(0, len(units), 256)]
    c0 = cpu_seconds()
    ingest_rows((u for t in tables for u in table_units(t)), ingest, date_format=None)
    driver_cpu = cpu_seconds() - c0
    return {
        "pages": pages,
        "records": len(units),
        "cpu_s_per_page": read_cpu / pages,
        "cpu_s_per_skipped_record": skip_cpu / len(skipped),
        "driver_cpu_s_per_page": driver_cpu / pages,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    import ray

    work = Path(tempfile.mkdtemp(prefix="bench_ingest_ray_"))
    results: dict[str, Any] = {"cpus": os.cpu_count(), "files": args.files}
    try:
        files = write_set(work / "warc", args.files, args.pages)
        results["mb"] = round(sum(f.stat().st_size for f in files) / 1e6, 2)
        costs = page_costs(work / "warc")
        results["costs"] = {k: round(v, 5) for k, v in costs.items()}
        print(json.dumps(results), flush=True)
        runs = [timed_ingest(work / "warc", "local")]
        print(json.dumps(runs[-1]), flush=True)
        for n in args.workers:
            t0 = time.perf_counter()
            ray.init(num_cpus=n, include_dashboard=False, log_to_driver=False)
            # Workers import the reader and extract a page once before the timed run, as
            # the local engine did in page_costs: start-up is reported apart.
            ray.get([ray.remote(warm_up).remote(files[0]) for _ in range(n)])
            start = time.perf_counter() - t0
            try:
                run = timed_ingest(work / "warc", "ray")
            finally:
                ray.shutdown()
            runs.append({**run, "workers": n, "ray_start_s": round(start, 2)})
            print(json.dumps(runs[-1]), flush=True)
        assert len({r["checksum"] for r in runs}) == 1, "engines disagree"
        for r in runs:
            r["pages_s"] = round(costs["pages"] / r["seconds"], 1)
            r["ratio_to_local"] = round(runs[0]["seconds"] / r["seconds"], 2)
        results["runs"] = runs
        results["month_64_cores"] = month_estimate(costs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results, indent=2))
    out_file = ROOT / "bench" / "results" / "ingest_ray.json"
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def warm_up(path: Path) -> int:
    """Import and run the reader on one file in a worker (a Ray task)."""
    corpus, ingest = settings(path)
    return sum(1 for _ in read_rows(corpus, max_record_bytes=ingest.max_record_bytes))


def month_estimate(costs: dict[str, float]) -> dict[str, float]:
    """Hours for a month of CC-NEWS on 64 cores: extraction spread over the cores, the
    checks in the one ingest process, whichever is slower. Every record is counted as a
    page (an upper bound); with the five outlets' allow-list the other records are
    framed and skipped."""
    every_tasks = MONTH_RECORDS * costs["cpu_s_per_page"] / 3600
    every_driver = MONTH_RECORDS * costs["driver_cpu_s_per_page"] / 3600
    five_tasks = (
        MONTH_FIVE_OUTLETS * costs["cpu_s_per_page"]
        + (MONTH_RECORDS - MONTH_FIVE_OUTLETS) * costs["cpu_s_per_skipped_record"]
    ) / 3600
    five_driver = MONTH_FIVE_OUTLETS * costs["driver_cpu_s_per_page"] / 3600
    return {
        "records": MONTH_RECORDS,
        "all_hosts_task_core_hours": round(every_tasks, 1),
        "all_hosts_driver_hours": round(every_driver, 2),
        "all_hosts_hours_on_64_cores": round(max(every_tasks / CORES, every_driver), 2),
        "five_outlets_task_core_hours": round(five_tasks, 2),
        "five_outlets_hours_on_64_cores": round(max(five_tasks / CORES, five_driver), 3),
    }


if __name__ == "__main__":
    sys.exit(main())
