"""Shared test fixtures. Paths come from here so tests run from any working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_NEWS = ROOT.parent / "shared" / "data" / "news" / "rtqa_news_2019_2025.jsonl.gz"


@pytest.fixture
def project_root() -> Path:
    return ROOT
