"""Modules imported after the first gateway are frozen out of the collector's scans too."""

from __future__ import annotations

import gc
import importlib
import sys
from pathlib import Path

import pytest

from prescient.llm.heap import freeze_imports


def test_new_imports_are_frozen_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    freeze_imports()
    assert freeze_imports() is False  # nothing imported since: no collection, no freeze
    (tmp_path / "heap_probe_module.py").write_text("TABLE = [[i] for i in range(1000)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = gc.get_freeze_count()
    module = importlib.import_module("heap_probe_module")
    try:
        assert freeze_imports() is True
        # The module's 1,000 lists (and the one holding them) are frozen now, with the module.
        assert gc.get_freeze_count() >= before + 1001
        assert not any(o is module.TABLE for o in gc.get_objects())  # out of every scan
        assert freeze_imports() is False
    finally:
        del sys.modules["heap_probe_module"]
