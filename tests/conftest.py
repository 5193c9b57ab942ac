"""Shared test paths and environment. Paths come from here so tests run from any directory."""

from __future__ import annotations

import os
from pathlib import Path

# Scratch DVC projects made by tests send no usage reports (the project's own .dvc/config
# turns them off; a `dvc init` in a temporary folder does not).
os.environ.setdefault("DVC_NO_ANALYTICS", "1")

ROOT = Path(__file__).resolve().parents[1]
SHARED_NEWS = ROOT.parent / "shared" / "data" / "news" / "rtqa_news_2019_2025.jsonl.gz"
