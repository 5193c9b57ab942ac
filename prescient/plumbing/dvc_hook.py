"""Every ``dvc`` of the project's environment writes its YAML files atomically.

DVC writes ``dvc.lock`` in place (:mod:`prescient.plumbing.dvc_atomic`), so a ``dvc
repro`` or ``dvc exp run`` typed by hand and killed while DVC records a stage could leave
a torn lock that stops the next command. ``make install`` puts a ``.pth`` file
(:data:`PTH_NAME`) into the environment's ``site-packages``; Python imports this module
at start-up, and it only adds an import hook: when a process imports DVC's serializers
(``dvc.utils.serialize``), their dumps of local files are made atomic
(:func:`prescient.plumbing.dvc_atomic.make_atomic`). So every DVC process of the
environment is covered, whatever started it: a command typed by hand, ``dvc exp run``'s
queue workers and the experiments they run, or this project's own commands. Nothing else
is imported at start-up, and a process that never imports DVC is not touched.

``python -m prescient lock install-hook`` writes the ``.pth`` file (``make install``
runs it); ``python -m prescient lock check`` says when it is missing. To take it out,
delete the file. A ``dvc`` from another environment is not covered: run it through
``python -m prescient.plumbing.dvc_atomic`` instead, and repair a lock it tore with
``python -m prescient lock repair``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

TARGET = "dvc.utils.serialize"
"""The package whose loading triggers the change (it loads ``_common`` and ``_yaml``)."""
PTH_NAME = "prescient-dvc-atomic.pth"
"""Sorts after an editable install's own ``.pth`` (``__editable__...``), which makes
``prescient`` importable first."""
PTH_LINE = (
    "import prescient.plumbing.dvc_hook as _prescient_dvc_hook; _prescient_dvc_hook.install()\n"
)


class _Loader(importlib.abc.Loader):
    """DVC's own loader of :data:`TARGET`, followed by the change."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        from prescient.plumbing.dvc_atomic import make_atomic

        make_atomic()

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ... for tracebacks
        return getattr(self.inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds :data:`TARGET` as the other finders do and wraps its loader."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader)
                return spec
        return None


def install() -> None:
    """Add the import hook (once); DVC's serializers already imported are changed now."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
    if TARGET in sys.modules:
        from prescient.plumbing.dvc_atomic import make_atomic

        make_atomic()


def pth_path() -> Path:
    """Where :data:`PTH_NAME` goes: this environment's ``site-packages``."""
    return Path(sysconfig.get_paths()["purelib"]) / PTH_NAME


def installed() -> bool:
    """True when this environment's Python loads the hook at start-up."""
    path = pth_path()
    return path.is_file() and path.read_text(encoding="utf-8") == PTH_LINE


def install_pth() -> Path:
    """Write :data:`PTH_NAME` into this environment; returns its path."""
    path = pth_path()
    path.write_text(PTH_LINE, encoding="utf-8")
    return path
