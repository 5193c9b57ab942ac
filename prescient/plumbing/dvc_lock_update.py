"""DVC records a stage in ``dvc.lock`` without re-reading and re-writing every other
stage's entry: the same bytes, in a time that does not grow with the lock.

After every stage it runs, DVC updates ``dvc.lock`` (``dvc.dvcfile.Lockfile.dump_stages``)
by parsing the whole file with ruamel.yaml's round-trip loader, which is pure Python,
and dumping all of it again. With a stage per model and month (``eval.partitions``) the
lock holds every stage's hashes: 16,557 lines on the 10% scale run, where this took
about 3.5 seconds per stage run, and it grows with the archive. Here the lock's text is
kept as it is, but for the entries of the stages recorded: each is DVC's own dump of
that stage (the mapping ``{"stages": {name: entry}}`` dumped with DVC's dumper, whose
lines below ``stages:`` are the lines a whole-file dump writes for it, at the same
indentation), put in place of the stage's old lines, or after the last stage for a new
one, as DVC's dictionary update places it.

Only a lock in the shape DVC writes is changed so (``stages:`` the last top-level key,
each stage a line of its name at two spaces followed by deeper lines, no YAML anchors in
a stage's dump); anything else (no lock yet, datasets, a lock edited by hand into
another layout) goes to DVC's own code. Tests compare the result with DVC's whole-file
dump on the project's locks. The write goes through DVC's writer, atomic in this
environment (:mod:`prescient.plumbing.dvc_atomic`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from typing import Any

_ANCHOR = re.compile(r"[&*]id\d{3}")
"""ruamel.yaml's anchors and aliases (``&id001``, ``*id001``): a dump that shares an
object between places is left to DVC."""
STAGES = "stages:\n"


def _fragment(name: str, entry: Any) -> list[str] | None:
    """DVC's dump of one stage's entry under ``stages:``: its lines, key line first."""
    from dvc.utils.serialize import dumps_yaml

    text = str(dumps_yaml({"stages": {name: entry}}))
    lines = text.splitlines(keepends=True)
    if len(lines) < 2 or lines[0] != STAGES or _ANCHOR.search(text):
        return None
    return lines[1:]


def _is_key_line(line: str) -> bool:
    """A stage's first line: its name at two spaces (its entry on the lines below)."""
    return line.startswith("  ") and line[2:3] not in (" ", "-", "\n", "")


def _opens_block(line: str) -> bool:
    return line.endswith(":\n")


def splice(text: str, entries: Mapping[str, Any]) -> tuple[str, bool] | None:
    """The lock ``text`` with each of ``entries`` (stage name -> lock entry) written as
    DVC writes it, and whether any entry changed; None where the text is not in the shape
    DVC writes (module docstring)."""
    lines = text.splitlines(keepends=True)
    if not lines or not lines[-1].endswith("\n") or STAGES not in lines:
        return None
    start = lines.index(STAGES) + 1
    blocks: list[list[str]] = []
    for line in lines[start:]:
        if _is_key_line(line):
            if not _opens_block(line):  # an entry in flow style, on its name's line
                return None
            blocks.append([line])
        elif blocks and line.startswith("   "):
            blocks[-1].append(line)
        else:
            return None
    where = {block[0]: i for i, block in enumerate(blocks)}
    if len(where) != len(blocks):
        return None
    changed = False
    for name, entry in entries.items():
        fragment = _fragment(name, entry)
        if fragment is None or not _is_key_line(fragment[0]) or not _opens_block(fragment[0]):
            return None
        i = where.get(fragment[0])
        if i is None:
            where[fragment[0]] = len(blocks)
            blocks.append(fragment)
            changed = True
        elif blocks[i] != fragment:
            blocks[i] = fragment
            changed = True
    return "".join([*lines[:start], *(line for block in blocks for line in block)]), changed


def fast_dump_stages(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` (DVC's ``Lockfile.dump_stages``), splicing the recorded stages'
    entries into the lock's text (:func:`splice`) where it can."""

    def dump_stages(self: Any, stages: Any, **kwargs: Any) -> Any:
        if not stages:
            return None
        from dvc.dvcfile import logger
        from dvc.stage import serialize

        common = importlib.import_module("dvc.utils.serialize._common")
        fs = self.repo.fs
        exists = fs.exists(self.path) if fs else False
        text = common._load_data(self.path, parser=lambda t, _: t, fs=fs) if exists else ""
        entries: dict[str, Any] = {}
        for stage in stages:
            entries.update(serialize.to_lockfile(stage, **kwargs))
        spliced = splice(text, entries) if text else None
        if spliced is None:
            return original(self, stages, **kwargs)
        new_text, changed = spliced
        if changed:
            logger.info("Updating lock file '%s'", self.relpath)
        common._dump_data(self.path, new_text, dumper=_write, fs=fs)
        if changed:
            self.repo.scm_context.track_file(self.relpath)
        return None

    dump_stages.__wrapped__ = original  # type: ignore[attr-defined]
    return dump_stages


def _write(text: str, stream: Any) -> None:
    stream.write(text)


def fast_lock_updates() -> None:
    """Record stages by splicing their entries into the lock (idempotent)."""
    lockfile = importlib.import_module("dvc.dvcfile").Lockfile
    if not hasattr(lockfile.dump_stages, "__wrapped__"):
        lockfile.dump_stages = fast_dump_stages(lockfile.dump_stages)
