"""Every ``dvc`` of the project's environment writes its YAML files atomically, reads
its parameters without re-reading ``params.yaml`` per stage, and records a stage in
``dvc.lock`` without re-writing every other stage's entry.

DVC writes ``dvc.lock`` in place (:mod:`prescient.plumbing.dvc_atomic`), so a ``dvc
repro`` or ``dvc exp run`` typed by hand and killed while DVC records a stage could leave
a torn lock that stops the next command. ``make install`` puts a ``.pth`` file
(:data:`PTH_NAME`) into the environment's ``site-packages``; Python imports this module
at start-up, and it only adds an import hook: when a process imports DVC's serializers
(``dvc.utils.serialize``), their dumps of local files are made atomic
(:func:`prescient.plumbing.dvc_atomic.make_atomic`) and each YAML text is parsed once
(:func:`prescient.plumbing.dvc_reads.fast_yaml`); when it imports DVC's parameter
dependency (``dvc.dependency.param``), its keys are looked up without walking the file
per key (:func:`prescient.plumbing.dvc_reads.fast_params`); when it imports its stage
files (``dvc.dvcfile``), a stage run is recorded by putting its entry into the lock's
text (:func:`prescient.plumbing.dvc_lock_update.fast_lock_updates`). So every DVC
process of the environment is covered, whatever started it: a command typed by hand, ``dvc exp run``'s
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
"""The package whose loading triggers the writes' change (it loads ``_common`` and
``_yaml``)."""
PARAMS_TARGET = "dvc.dependency.param"
"""The module whose loading triggers the parameters' lookup change."""
LOCK_TARGET = "dvc.dvcfile"
"""The module whose loading triggers the lock's update change."""
PTH_NAME = "prescient-dvc-atomic.pth"
"""Sorts after an editable install's own ``.pth`` (``__editable__...``), which makes
``prescient`` importable first."""
PTH_LINE = (
    "import prescient.plumbing.dvc_hook as _prescient_dvc_hook; _prescient_dvc_hook.install()\n"
)


def _after_serialize() -> None:
    from prescient.plumbing.dvc_atomic import make_atomic
    from prescient.plumbing.dvc_reads import fast_yaml

    make_atomic()
    fast_yaml()


def _after_params() -> None:
    from prescient.plumbing.dvc_reads import fast_params

    fast_params()


def _after_dvcfile() -> None:
    from prescient.plumbing.dvc_lock_update import fast_lock_updates

    fast_lock_updates()


_CHANGES = {
    TARGET: _after_serialize,
    PARAMS_TARGET: _after_params,
    LOCK_TARGET: _after_dvcfile,
}
"""What follows the loading of each module."""


class _Loader(importlib.abc.Loader):
    """DVC's own loader of a module of :data:`_CHANGES`, followed by its change."""

    def __init__(self, inner: Any, change: Any) -> None:
        self.inner = inner
        self.change = change

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        self.change()

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ... for tracebacks
        return getattr(self.inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the modules of :data:`_CHANGES` as the other finders do and wraps their
    loaders."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        change = _CHANGES.get(fullname)
        if change is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader, change)
                return spec
        return None


def install() -> None:
    """Add the import hook (once); DVC's modules already imported are changed now."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
    for name, change in _CHANGES.items():
        if name in sys.modules:
            change()


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
