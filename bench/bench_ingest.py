"""Benchmark: ingest of the shared news corpus at 1x and 4x (replicated) size.

Targets: the 16,217-article corpus in under 30 s, peak RSS under 1.5 GB, time growing
linearly with size. Each size runs in a fresh subprocess so peak RSS is that run's own.
Replicas get distinct URLs and texts so that de-duplication keeps them. Settings are the
shipped ``ingest`` section (conf/).

    .venv/bin/python bench/bench_ingest.py [--sizes 1 4] [--corpus PATH]

Needs the shared corpus (default ../shared/data/news/rtqa_news_2019_2025.jsonl.gz);
exits 0 with a note when it is absent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "news" / "rtqa_news_2019_2025.jsonl.gz"


def replicate(src: Path, dst: Path, times: int) -> int:
    n = 0
    with gzip.open(dst, "wt", encoding="utf-8", compresslevel=1) as out:
        for k in range(times):
            with gzip.open(src, "rt", encoding="utf-8") as fh:
                for line in fh:
                    obj = json.loads(line)
                    if k:
                        obj["url"] = f"{obj['url']}?replica={k}"
                        obj["text"] = f"{obj['text']}\n\n(replica {k})"
                    out.write(json.dumps(obj) + "\n")
                    n += 1
    return n


def child(path: str) -> None:
    """Run the ingest library on one file and print seconds and peak RSS as JSON."""
    sys.path.insert(0, str(ROOT))
    from prescient.corpus.accounting import summarize
    from prescient.corpus.ingest import ingest_rows
    from prescient.corpus.readers import read_rows
    from prescient.corpus.settings import CorpusSettings, IngestSettings
    from prescient.io import frame_checksum, write_parquet
    from prescient.plumbing.params import compose
    from prescient.settings import load_settings

    params = compose(ROOT, ["corpus=jsonl", f"corpus.path={path}"])
    corpus = load_settings(CorpusSettings, params, "corpus")
    settings = load_settings(IngestSettings, params, "ingest")
    t0 = time.perf_counter()
    units = read_rows(corpus, max_record_bytes=settings.max_record_bytes)
    df, report = ingest_rows(units, settings, date_format=corpus.date_format)
    summarize(df, report, frame_checksum(df))
    with tempfile.TemporaryDirectory() as tmp:
        write_parquet(Path(tmp) / "a.parquet", df)
    secs = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "rows_read": report.rows_read,
                "rows_kept": len(df),
                "seconds": secs,
                "peak_rss_mb": rss_mb,
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--corpus", type=Path, default=SHARED)
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return 0
    shared = args.corpus
    if not shared.exists():
        print(f"skipped: {shared} is absent")
        return 0
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for times in args.sizes:
            path = shared if times == 1 else Path(tmp) / f"x{times}.jsonl.gz"
            if times != 1:
                replicate(shared, path, times)
            out = (
                subprocess.run(
                    [sys.executable, __file__, "--child", str(path)],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            r = json.loads(out) | {"size": f"{times}x"}
            r["articles_per_s"] = r["rows_read"] / r["seconds"]
            results.append(r)
            print(
                f"{r['size']:>3}: {r['rows_read']:>7} rows read, {r['rows_kept']:>7} kept, "
                f"{r['seconds']:6.1f} s, {r['articles_per_s']:7.0f} articles/s, "
                f"peak RSS {r['peak_rss_mb']:6.0f} MB"
            )
    if len(results) > 1:
        base = results[0]
        for r in results[1:]:
            scale = r["rows_read"] / base["rows_read"]
            print(f"time ratio {r['seconds'] / base['seconds']:.2f} for size ratio {scale:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
