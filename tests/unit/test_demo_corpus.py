"""The shipped demo corpus has the shape the pipeline relies on, and is reproducible."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.conftest import ROOT

DEMO = ROOT / "data" / "raw" / "demo" / "news.jsonl.gz"


def rows() -> list[dict[str, str]]:
    with gzip.open(DEMO, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_demo_corpus_spans_two_years_with_busy_days() -> None:
    data = rows()
    dated = [r for r in data if r["date"][:2] == "20"]
    months = {r["date"][:7] for r in dated}
    assert len(months) >= 24
    assert min(months) >= "2019-01" and max(months) <= "2025-12"
    per_day = Counter(r["date"] for r in dated)
    assert sum(1 for n in per_day.values() if n >= 5) >= 40
    assert all(r["source_domain"].endswith(".example") for r in data)
    assert 100_000 < DEMO.stat().st_size < 1_000_000


def test_demo_corpus_flaws_are_the_documented_handful() -> None:
    data = rows()
    lengths = [len(r["text"]) for r in data]
    assert sum(1 for n in lengths if 800 < n < 10_000) >= len(data) - 10
    assert sum(1 for r in data if r["title"].startswith("Opinion")) == 1
    assert sum(1 for r in data if r["text"] == "") == 1
    assert sum(1 for r in data if not r["date"][:1].isdigit()) == 1
    texts = Counter(r["text"] for r in data)
    assert sum(n - 1 for n in texts.values() if n > 1) == 1


def test_generator_reproduces_the_shipped_file(tmp_path: Path) -> None:
    out = tmp_path / "news.jsonl.gz"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_demo_corpus.py"), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_bytes() == DEMO.read_bytes()
