"""Run ``dvc`` with atomic writes of its YAML files (``dvc.lock`` above all).

DVC writes ``dvc.lock`` in place: it opens the file for writing, which empties it, and
then dumps every stage into it, so a process killed during the dump leaves a torn lock
(:mod:`prescient.plumbing.lockfile`). ``python -m prescient.plumbing.dvc_atomic ARGS...`` runs the
command line ``dvc ARGS...`` in this process with one change: a file DVC dumps on the
local file system is rendered in memory, written to a temporary file beside it and
renamed over it, so a kill leaves either the old or the new file, never a mix. The
change lives only in the process this module starts (``prescient update`` runs
``dvc repro`` through it); a ``dvc`` run by hand writes as DVC always does.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from prescient.io import atomic_path

_MODULES = ("dvc.utils.serialize._common", "dvc.utils.serialize._yaml")
"""Where DVC's dumps look ``_dump_data`` up (``_yaml`` imports it by name)."""


def _is_local(fs: Any) -> bool:
    return fs is None or getattr(fs, "protocol", None) == "local"


def _atomic_dump_data(original: Callable[..., Any]) -> Callable[..., Any]:
    def dump_data(path: Any, data: Any, dumper: Any, fs: Any = None, **dumper_args: Any) -> None:
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

    return dump_data


@contextlib.contextmanager
def atomic_writes() -> Iterator[None]:
    """Within the block, DVC's dumps of local files are atomic; the block restores them."""
    import importlib

    modules = [importlib.import_module(name) for name in _MODULES]
    saved = [getattr(m, "_dump_data") for m in modules]  # noqa: B009 (untyped in dvc)
    patched = _atomic_dump_data(saved[0])
    for m in modules:
        setattr(m, "_dump_data", patched)  # noqa: B010
    try:
        yield
    finally:
        for m, original in zip(modules, saved, strict=True):
            setattr(m, "_dump_data", original)  # noqa: B010


def main(argv: Sequence[str] | None = None) -> int:
    """``dvc ARGV`` with atomic dumps; returns DVC's exit status."""
    from dvc.cli import main as dvc_main

    with atomic_writes():
        return int(dvc_main(list(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    sys.exit(main())
