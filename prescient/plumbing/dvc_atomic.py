"""Run ``dvc`` with atomic writes of its YAML files (``dvc.lock`` above all).

DVC writes ``dvc.lock`` in place: it opens the file for writing, which empties it, and
then dumps every stage into it, so a process killed during the dump leaves a torn lock
(:mod:`prescient.plumbing.lockfile`). Here a file DVC dumps on the local file system is
rendered in memory, written to a temporary file beside it and renamed over it, so a kill
leaves either the old or the new file, never a mix. The bytes are DVC's own.

Two ways in: the project's environment changes every DVC process at import
(:mod:`prescient.plumbing.dvc_hook`, installed by ``make install``), so ``dvc repro``
and ``dvc exp run`` typed by hand and the queue's workers are covered; and
``python -m prescient.plumbing.dvc_atomic ARGS...`` runs the command line ``dvc
ARGS...`` in this process with the change made, hook or not (``make repro`` and
``prescient update`` run DVC so).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

_MODULES = ("dvc.utils.serialize._common", "dvc.utils.serialize._yaml")
"""Where DVC's dumps look ``_dump_data`` up (``_yaml`` imports it by name)."""


def _is_local(fs: Any) -> bool:
    return fs is None or getattr(fs, "protocol", None) == "local"


def _atomic_dump_data(original: Callable[..., Any]) -> Callable[..., Any]:
    def dump_data(path: Any, data: Any, dumper: Any, fs: Any = None, **dumper_args: Any) -> None:
        from prescient.io import atomic_path

        if not _is_local(fs):
            original(path, data, dumper=dumper, fs=fs, **dumper_args)
            return
        buffer = io.StringIO()
        dumper(data, buffer, **dumper_args)  # a failed dump leaves the file as it was
        target = Path(os.path.realpath(os.fspath(path)))
        try:
            mode = target.stat().st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        with atomic_path(target) as tmp:
            tmp.write_text(buffer.getvalue(), encoding="utf-8")
            tmp.chmod(mode)

    dump_data.__wrapped__ = original  # type: ignore[attr-defined]
    return dump_data


def dvc_dump_data() -> Callable[..., Any]:
    """DVC's own ``_dump_data``, whether or not it has been made atomic."""
    import importlib

    current = getattr(importlib.import_module(_MODULES[0]), "_dump_data")  # noqa: B009
    return getattr(current, "__wrapped__", current)  # type: ignore[no-any-return]


def make_atomic() -> None:
    """Make DVC's dumps of local files atomic for the rest of the process (idempotent)."""
    import importlib

    patched = _atomic_dump_data(dvc_dump_data())
    for name in _MODULES:
        module = importlib.import_module(name)
        if not hasattr(getattr(module, "_dump_data"), "__wrapped__"):  # noqa: B009
            setattr(module, "_dump_data", patched)  # noqa: B010


@contextlib.contextmanager
def atomic_writes() -> Iterator[None]:
    """Within the block, DVC's dumps of local files are atomic; the block restores the
    writers it found (already atomic under :mod:`prescient.plumbing.dvc_hook`)."""
    import importlib

    modules = [importlib.import_module(name) for name in _MODULES]
    saved = [getattr(m, "_dump_data") for m in modules]  # noqa: B009 (untyped in dvc)
    make_atomic()
    try:
        yield
    finally:
        for m, original in zip(modules, saved, strict=True):
            setattr(m, "_dump_data", original)  # noqa: B010


def main(argv: Sequence[str] | None = None) -> int:
    """``dvc ARGV`` with atomic dumps (and DVC's parameters read once,
    :mod:`prescient.plumbing.dvc_reads`, and its lock updated in place,
    :mod:`prescient.plumbing.dvc_lock_update`); returns DVC's exit status."""
    from dvc.cli import main as dvc_main

    from prescient.plumbing.dvc_lock_update import fast_lock_updates
    from prescient.plumbing.dvc_reads import fast_params, fast_yaml

    fast_yaml()
    fast_params()
    fast_lock_updates()
    with atomic_writes():
        return int(dvc_main(list(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    sys.exit(main())
