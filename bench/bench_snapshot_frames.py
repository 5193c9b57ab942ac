"""Benchmark: a compressed stage snapshot written again after a day's answers.

`construct`'s snapshot at the paper's size holds about a gigabyte of lines, each quoting
a whole article, sorted by key; a daily update adds a few dozen. This writes ``--lines``
seeded lines of about 8 KB (made-up words, Zipf-distributed) as a zstd snapshot, adds
``--added`` lines at random keys, and writes the snapshot again twice: compressing every
frame, and copying the frames the old file holds
(:class:`prescient.llm.ledger_file.FrameMemo`). It reports both times, the frames
copied, and whether the two files are the same bytes (they must be).

    .venv/bin/python bench/bench_snapshot_frames.py --lines 130000 --added 42
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prescient.llm.ledger_file import FrameMemo  # noqa: E402
from prescient.llm.store import write_lines  # noqa: E402

WORDS = 1300
"""Words per line: about 8 KB, an article and its prompt."""


def texts(n: int, seed: int) -> list[str]:
    """``n`` seeded made-up texts of :data:`WORDS` Zipf-distributed words."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i:x}" for i in range(60_000)])
    out = []
    for _ in range(n):
        picks = np.minimum(rng.zipf(1.2, WORDS), len(vocabulary)) - 1
        out.append(" ".join(vocabulary[picks].tolist()))
    return out


def line(key: str, text: str) -> bytes:
    body = {"key": key, "messages": [{"content": text, "role": "user"}], "response": "ok"}
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode() + b"\n"


def key(i: int, tag: str = "") -> str:
    return hashlib.sha256(f"{tag}{i}".encode()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=130_000)
    ap.add_argument("--added", type=int, default=42)
    ap.add_argument("--pool", type=int, default=20_000, help="distinct texts the lines cycle")
    args = ap.parse_args()
    pool = texts(args.pool, 0)
    old = {key(i): line(key(i), pool[i % len(pool)]) for i in range(args.lines)}
    new = dict(old)
    for i in range(args.added):
        new[key(i, "new")] = line(key(i, "new"), pool[(7 * i + 3) % len(pool)])
    before = [old[k] for k in sorted(old)]
    after = [new[k] for k in sorted(new)]
    with tempfile.TemporaryDirectory() as tmp:
        path, plain, index = Path(tmp, "s.jsonl"), Path(tmp, "plain.jsonl"), Path(tmp, "s.frames")
        t0 = time.perf_counter()
        first = FrameMemo(index, path)
        write_lines(path, before, "zstd", first)
        first.save()
        t1 = time.perf_counter()
        write_lines(plain, after, "zstd")
        t2 = time.perf_counter()
        memo = FrameMemo(index, path)
        write_lines(path, after, "zstd", memo)
        memo.save()
        t3 = time.perf_counter()
        result = {
            "lines": len(after),
            "input_mb": round(sum(map(len, after)) / 1e6, 1),
            "compressed_mb": round(path.stat().st_size / 1e6, 1),
            "frames": len(memo.frames),
            "frames_copied": memo.copied,
            "first_write_s": round(t1 - t0, 2),
            "rewrite_compressing_all_s": round(t2 - t1, 2),
            "rewrite_copying_s": round(t3 - t2, 2),
            "same_bytes": path.read_bytes() == plain.read_bytes(),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
