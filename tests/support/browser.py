"""Headless Chromium for end-to-end tests: Debian's /usr/bin/chromium driven by Playwright.

Browser tests skip when Chromium is absent, except where PRESCIENT_REQUIRE_BROWSER=1
(CI sets it after installing the package), so a missing browser can never pass silently.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def require_browser() -> str:
    """Path to Chromium; skips the test when absent (fails when CI requires it)."""
    path = chromium_path()
    if path is None:
        msg = "Chromium is not installed (Debian packages chromium, chromium-driver)"
        if os.environ.get("PRESCIENT_REQUIRE_BROWSER") == "1":
            pytest.fail(msg + " but PRESCIENT_REQUIRE_BROWSER=1")
        pytest.skip(msg)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("the playwright package is missing: install the dev extra")
    return path


@contextmanager
def launch_browser() -> Iterator[Any]:
    """A Playwright Browser on Debian's Chromium (never a downloaded browser build)."""
    path = require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
