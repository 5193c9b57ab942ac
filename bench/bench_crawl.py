"""Benchmark: crawl download throughput against a loopback "CC-NEWS" server.

The server (tests/support/fake_ccnews.py, stdlib http.server with sendfile) runs in its
own process and serves real gzip WARC files in Common Crawl's layout; the crawl library
downloads them with the settings of conf/crawl/ccnews.yaml (progress bar off) at
several concurrencies, with and without the gzip member check. Loopback has no network
limit, so the figures are the client's own ceiling: socket reads, disk writes, sha256
and (when on) gzip decompression; CPU seconds per GB are reported beside MB/s because
they depend less on other work on a shared machine. Also measured: sha256 and the gzip check alone on
in-memory data, and a rerun over a complete directory (trusted from the manifest).

    .venv/bin/python bench/bench_crawl.py [--files 8] [--mb 16]

Results also go to bench/results/crawl.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient.crawl.run import crawl  # noqa: E402
from prescient.crawl.settings import CrawlSettings  # noqa: E402
from prescient.crawl.verify import StreamCheck  # noqa: E402
from prescient.plumbing import params  # noqa: E402
from prescient.settings import load_settings  # noqa: E402
from tests.support.fake_ccnews import warc_bytes  # noqa: E402


def make_tree(root: Path, n_files: int, mb: float) -> tuple[int, int]:
    """n_files copies of one WARC of about ``mb`` MB under distinct names (2024-05-01..)."""
    record = warc_bytes(dt.datetime(2024, 5, 1), 1, words=3000)
    data = warc_bytes(dt.datetime(2024, 5, 1), max(1, int(mb * 1e6 / len(record))), words=3000)
    month = root / "crawl-data/CC-NEWS/2024/05"
    month.mkdir(parents=True)
    sources = []
    for i in range(n_files):
        name = f"CC-NEWS-202405{1 + i % 28:02d}120000-{i:05d}.warc.gz"
        (month / name).write_bytes(data)
        sources.append(f"crawl-data/CC-NEWS/2024/05/{name}")
    (month / "warc.paths.gz").write_bytes(gzip.compress("\n".join(sources).encode(), mtime=0))
    return len(data), len(gzip.decompress(data))


def settings(url: str, concurrency: int, verify_gzip: bool) -> CrawlSettings:
    p = params.compose(
        ROOT,
        [
            f"crawl.base_url={url}",
            "crawl.date_start=2024-05-01",
            "crawl.date_end=2024-05-31",
            "crawl.margin_days=0",
            "crawl.max_files=null",
            f"crawl.concurrency={concurrency}",
            f"crawl.verify_gzip={str(verify_gzip).lower()}",
            "crawl.progress=false",
        ],
    )
    return load_settings(CrawlSettings, p, "crawl")


def cpu_seconds() -> float:
    """User + system CPU time of this process (all threads): less sensitive than wall time
    to other work on a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def in_memory(data: bytes, gz: bool, reps: int = 3) -> float:
    """MB/s of the whole-file check alone (sha256, plus gzip when ``gz``)."""
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        check = StreamCheck(gz)
        view = memoryview(data)
        for i in range(0, len(data), 1 << 20):
            check.update(view[i : i + (1 << 20)])
        check.finish()
        best = min(best, time.perf_counter() - t0)
    return len(data) / best / 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--mb", type=float, default=16.0)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_crawl_"))
    results: dict[str, object] = {"cpus": os.cpu_count()}
    try:
        size, raw = make_tree(work / "srv", args.files, args.mb)
        data = next((work / "srv").rglob("*.warc.gz")).read_bytes()
        assert hashlib.sha256(data).hexdigest()
        results["file_mb"] = round(size / 1e6, 2)
        results["compression_ratio"] = round(raw / size, 2)
        results["check_only_mb_s"] = {
            "sha256": round(in_memory(data, gz=False), 1),
            "sha256+gzip": round(in_memory(data, gz=True), 1),
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "tests.support.fake_ccnews", str(work / "srv")],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            runs = []
            for verify in (True, False):
                for c in args.concurrency:
                    out = work / f"out-{c}-{verify}"
                    config = settings(url, c, verify)
                    cpu0 = cpu_seconds()
                    report = crawl(config, out)
                    cpu = cpu_seconds() - cpu0
                    assert not report.failed
                    runs.append(
                        {
                            "concurrency": c,
                            "verify_gzip": verify,
                            "mb": round(report.fetched_bytes / 1e6, 1),
                            "seconds": round(report.seconds, 2),
                            "mb_s": round(report.fetched_bytes / report.seconds / 1e6, 1),
                            "cpu_s_per_gb": round(cpu / (report.fetched_bytes / 1e9), 2),
                        }
                    )
                    print(json.dumps(runs[-1]), flush=True)
                    t0 = time.perf_counter()
                    again = crawl(settings(url, c, verify), out)
                    assert again.reused == args.files and again.fetched_bytes == 0
                    results["rerun_complete_s"] = round(time.perf_counter() - t0, 3)
                    shutil.rmtree(out)
            results["runs"] = runs
        finally:
            server.kill()
            server.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results, indent=2))
    out_file = ROOT / "bench" / "results" / "crawl.json"
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
