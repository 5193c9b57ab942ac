"""Stage code dependencies, derived from imports instead of written by hand.

A DVC stage must list every file its command executes, or changing that file leaves
stale results that ``dvc repro`` calls up to date. The code a stage runs is its module
(``python -m stages.<name>``) and everything it imports from the project, transitively:
function-level imports, relative imports, ``from package import module`` and module
names written as strings (lazy registries) included, plus the package ``__init__``
files Python executes on the way and the data files that live inside those packages
(templates, page assets, story data).

A stage depends on each library home it runs code of as a whole: a shared package
(``prescient/llm``, ``prescient/evaluation``, ...) and a package inside a benchmark's
folder (``prescient/benchmarks/freshbench/bpc``) are named as one folder as soon as the
stage imports any module of it (:func:`widen`), so dvc.yaml names a handful of folders
instead of every file, and a file added to a home is covered without a sync. The price
is a rerun of the home's stages when any file of the home changes. Modules at the
package root (the foundation: ``prescient/dates.py``, ``prescient/io.py``, ...), at a
benchmark's top level (``prescient/benchmarks/daily_oracle/construct.py``) and the
plumbing's stage harness stay listed file by file: every stage runs some of them, and a
folder would make a stage depend on code it never runs (Daily Oracle's construction
would rerun its analysis). A string naming modules with ``*``
(``"prescient.benchmarks.*.contract"``, a registry that finds modules by folder) makes
every module it matches a dependency.

``prescient dag check`` compares each stage's code ``deps`` in dvc.yaml (entries under
``prescient/`` and ``stages/``) with the derived set, strictly: every file a stage may
run must be covered, and nothing else declared; ``prescient dag sync`` rewrites them
(comments and other deps are kept). A test runs the check, so a stale list fails CI.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CODE_ROOTS = ("prescient", "stages")
"""Top-level packages whose files count as stage code."""

_STAGE_CMD = re.compile(r"\bpython\s+-m\s+((?:stages|prescient\.benchmarks)\.[A-Za-z_][\w.]*)")
_MODULE_STRING = re.compile(r"^(?:prescient|stages)(?:\.[A-Za-z_]\w*)+$")
_MODULE_PATTERN = re.compile(r"^(?:prescient|stages)(?:\.(?:[A-Za-z_]\w*|\*))+$")
"""A module name with ``*`` for one part (``prescient.benchmarks.*.contract``): a
registry that finds modules by folder names every module it can find."""
_SKIP_PARTS = {"__pycache__"}

HOME_ROOTS = ("prescient", "prescient/benchmarks/*")
"""Folders whose packages are homes: a stage that runs a file of one depends on all of
it. A shared package (``prescient/llm``) is a home; so is each package inside a
benchmark's folder (``prescient/benchmarks/freshbench/bpc``), so a stage that runs a
benchmark's analysis does not depend on its other stages' code."""
NOT_HOMES = ("prescient/plumbing", "prescient/benchmarks")
"""Packages below a home root that are no home: the plumbing (a stage runs only its
harness) and the folder of the benchmarks, whose modules at a benchmark's top level
are listed file by file."""


def module_path(root: Path, module: str) -> Path | None:
    """The file of a project module (``a.b`` -> ``a/b.py`` or ``a/b/__init__.py``)."""
    if module.split(".")[0] not in CODE_ROOTS:
        return None
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def pattern_modules(root: Path, pattern: str) -> set[str]:
    """The project modules a ``*`` pattern names (``*`` stands for one name part)."""
    rel = "/".join(pattern.split("."))
    out: set[str] = set()
    for path in [*root.glob(rel + ".py"), *root.glob(rel + "/__init__.py")]:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not _SKIP_PARTS & set(parts):
            out.add(".".join(parts))
    return out


def _package_of(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts)
    return ".".join(parts[:-1])


def docstring_ids(tree: ast.AST) -> set[int]:
    """``id()`` of every docstring node of ``tree`` (module, class and function), so a
    walk over string constants can leave docstrings out."""
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def imported_modules(root: Path, path: Path) -> set[str]:
    """Project modules a file may import (every import statement, at any depth)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _package_of(root, path)
    found: set[str] = set()
    docstrings = docstring_ids(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                keep = len(parts) - (node.level - 1)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            text = node.value.split(":", 1)[0]
            if _MODULE_STRING.match(text) and module_path(root, text) is not None:
                found.add(text)
            elif "*" in text and _MODULE_PATTERN.match(text):
                found.update(pattern_modules(root, text))
    # Importing a.b.c runs a/__init__.py and a/b/__init__.py first.
    with_parents = set(found)
    for name in found:
        parts = name.split(".")
        with_parents.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return {m for m in with_parents if module_path(root, m) is not None}


def _data_files(package_dir: Path) -> list[Path]:
    """Non-Python files of a package: its own data files and non-package subfolders."""
    out: list[Path] = []
    for entry in sorted(package_dir.iterdir()):
        if entry.name in _SKIP_PARTS or entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix not in (".py", ".pyc"):
            out.append(entry)
        elif entry.is_dir() and not (entry / "__init__.py").exists():
            out.extend(
                p
                for p in sorted(entry.rglob("*"))
                if p.is_file() and not (_SKIP_PARTS & set(p.parts)) and p.suffix != ".pyc"
            )
    return out


def closure(root: Path, module: str) -> set[Path]:
    """Every project file that running ``python -m <module>`` may execute or read."""
    start = module_path(root, module)
    if start is None:
        raise ValueError(f"module {module} not found under {root}")
    seen: set[Path] = set()
    parts = module.split(".")
    # ``python -m a.b`` runs a/__init__.py before a/b.py.
    parents = (module_path(root, ".".join(parts[:i])) for i in range(1, len(parts)))
    todo = [start, *(p for p in parents if p is not None)]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(p for m in imported_modules(root, path) if (p := module_path(root, m)))
    packages = {p.parent for p in seen}
    for package in packages:
        seen.update(_data_files(package))
    return seen


def _code_files(directory: Path) -> set[Path]:
    return {
        p
        for p in directory.rglob("*")
        if p.is_file() and not (_SKIP_PARTS & set(p.parts)) and p.suffix != ".pyc"
    }


def home_of(root: Path, path: Path) -> Path | None:
    """The home (a package directly under one of :data:`HOME_ROOTS`, not one of
    :data:`NOT_HOMES`) that ``path`` lies in, or None."""
    rel = path.relative_to(root)
    for base in sorted(HOME_ROOTS, key=lambda b: len(Path(b).parts), reverse=True):
        pattern = Path(base).parts
        depth = len(pattern)
        if len(rel.parts) <= depth + 1 or not all(
            fnmatch.fnmatchcase(part, want) for part, want in zip(rel.parts, pattern, strict=False)
        ):
            continue
        folder = Path(*rel.parts[: depth + 1])
        if folder.as_posix() in NOT_HOMES:
            continue
        return root / folder if (root / folder / "__init__.py").is_file() else None
    return None


def widen(root: Path, files: Iterable[Path]) -> set[Path]:
    """``files`` and every file of each home they touch (:func:`home_of`)."""
    out = set(files)
    for home in {h for f in out if (h := home_of(root, f)) is not None}:
        out |= _code_files(home)
    return out


def compress(root: Path, files: Iterable[Path]) -> list[str]:
    """The shortest dependency list covering exactly ``files``: a directory replaces its
    files when all of them are needed."""
    needed = set(files)
    out: set[Path] = set()
    for f in needed:
        best = f
        parent = f.parent
        while parent != root and parent.is_relative_to(root):
            if _code_files(parent) <= needed:
                best = parent
            parent = parent.parent
        out.add(best)
    minimal = {p for p in out if not any(q != p and p.is_relative_to(q) for q in out)}
    return sorted(p.relative_to(root).as_posix() for p in minimal)


@dataclass(frozen=True)
class StageCode:
    """One stage's declared and derived code dependencies."""

    stage: str
    module: str
    declared: tuple[str, ...]
    derived: tuple[str, ...]

    @property
    def uncovered(self) -> list[str]:
        """Derived files no declared entry covers (the results would go stale)."""
        return [
            d
            for d in self.derived
            if not any(d == x or d.startswith(x.rstrip("/") + "/") for x in self.declared)
        ]

    @property
    def in_sync(self) -> bool:
        return sorted(self.declared) == sorted(self.derived)


def _is_code_dep(dep: Any) -> bool:
    path = next(iter(dep)) if isinstance(dep, Mapping) else dep
    return isinstance(path, str) and path.split("/")[0] in CODE_ROOTS


def _body(stage: Mapping[str, Any]) -> Any:
    """The stage definition proper (a ``foreach`` stage keeps it under ``do``)."""
    return stage.get("do", stage)


def stage_code(root: Path, dvc_yaml: Mapping[str, Any]) -> list[StageCode]:
    """Declared and derived code deps of every stage whose command runs a stage module."""
    out = []
    for name, definition in (dvc_yaml.get("stages") or {}).items():
        stage = _body(definition)
        match = _STAGE_CMD.search(" ".join(str(stage.get("cmd", "")).split()))
        if not match:
            continue
        module = match.group(1)
        declared = tuple(str(d) for d in stage.get("deps") or () if _is_code_dep(d))
        derived = tuple(compress(root, widen(root, closure(root, module))))
        out.append(StageCode(str(name), module, declared, derived))
    return out


def _yaml() -> Any:
    from ruamel.yaml import YAML

    y = YAML()
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def pipeline_files(root: Path) -> list[Path]:
    """The root dvc.yaml and the optional pipelines in ``pipelines/<name>/dvc.yaml``
    (whose stages run from the root, ``wdir: ../..``, so their paths read the same)."""
    return [root / "dvc.yaml", *sorted(root.glob("pipelines/*/dvc.yaml"))]


def load_dvc_yaml(root: Path, path: Path | None = None) -> Any:
    """A pipeline file (default: the root dvc.yaml), comments kept."""
    return _yaml().load((path or root / "dvc.yaml").read_text(encoding="utf-8"))


def sync(root: Path) -> list[str]:
    """Rewrite every pipeline file's code deps to the derived ones; returns the stages
    changed (``file:stage`` outside the root dvc.yaml)."""
    changed = []
    for path in pipeline_files(root):
        doc = load_dvc_yaml(root, path)
        prefix = "" if path == root / "dvc.yaml" else f"{path.relative_to(root).as_posix()}:"
        names = []
        for sc in stage_code(root, doc):
            if sc.in_sync:
                continue
            deps = _body(doc["stages"][sc.stage])["deps"]
            others = [d for d in deps if not _is_code_dep(d)]
            deps.clear()
            deps.extend([*sc.derived, *others])
            names.append(prefix + sc.stage)
        if names:
            from prescient.io import atomic_open

            with atomic_open(path) as fh:
                _yaml().dump(doc, fh)
        changed.extend(names)
    return changed
