"""Where a report came from: the parameter digest and the input checksums.

A reader of ``reports/index.html`` must be able to tell which configuration and data
produced it without access to the machine that built it. The page does not name a git
commit: it is a DVC output whose hash dvc.lock records, and a page that named the commit
it was built at would differ in every clone (the commit holding dvc.lock is always a
later one). The commit that holds the dvc.lock listing the page's hash is its commit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def params_digest(params: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the composed parameters (key order irrelevant)."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
