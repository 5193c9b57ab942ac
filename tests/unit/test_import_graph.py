"""The library's modules import each other without circles, by module and by folder; the
library (``prescient/`` outside ``plumbing/``) imports neither DVC nor Hydra; only the
page, the stages and the plumbing import a benchmark (the registry aside, which finds
them); no benchmark imports another; the report toolkit imports no benchmark and not the
page.

A circle makes the result of an import depend on which module of the circle is imported
first (one of them sees the other half-initialised), and a function-level import placed
only to dodge one hides the same tangle from the reader. The graph here counts every
``import`` statement of the project's modules at any depth of a file (module level,
inside functions, under ``if TYPE_CHECKING:``), relative ones resolved, and module names
written as strings (``"pkg.mod:Class"``, the lazy registries resolved with importlib;
``"pkg.*.mod"``, a registry that finds modules by folder, names every module it matches).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from prescient.plumbing.dag import docstring_ids

ROOT = Path(__file__).resolve().parents[2]
MODULE_PATTERN = re.compile(r"^[A-Za-z_]\w*(?:\.(?:[A-Za-z_]\w*|\*))+$")
"""A dotted module name with ``*`` standing for one part."""
PACKAGES = ("prescient", "stages")


def module_names(root: Path, packages: Sequence[str]) -> dict[str, Path]:
    """Every module of ``packages`` (``a.b`` for ``a/b.py``, ``a`` for ``a/__init__.py``)."""
    out: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imports_of(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The project modules that ``path`` (module ``name``) imports, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    docstrings = docstring_ids(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and ("." in node.value or ":" in node.value):
                # kept only when it names a module ("pkg.mod" or "pkg.mod:Class"; a bare
                # word such as "stages" is a name, not a lazy import); "pkg.*.mod" names
                # every module it matches (a registry that finds modules by folder)
                named = node.value.split(":", 1)[0]
                if "*" in named and MODULE_PATTERN.match(named):
                    found.update(m for m in modules if fnmatch.fnmatchcase(m, named))
                else:
                    found.add(named)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                if node.level - 1 > len(parts) - 1:
                    raise ValueError(f"{path}:{node.lineno}: relative import beyond the package")
                kept = parts[: len(parts) - (node.level - 1)]
                base = ".".join(kept + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                # ``from x import y`` imports the module x.y when there is one, else x.
                child = f"{base}.{alias.name}"
                found.add(child if child in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph(root: Path, packages: Sequence[str]) -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    modules = module_names(root, packages)
    return {name: _imports_of(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One circle of the graph (its first module repeated at the end), or None.

    Depth-first search in sorted order, so the circle named is the same on every run.
    """
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def all_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected group of modules (sorted, for the message)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for start in sorted(graph):
        if start not in index:
            connect(start)
    cycles = []
    for group in groups:
        sub = {m: graph[m] & group for m in group}
        cycle = find_cycle(sub)
        assert cycle is not None
        cycles.append(cycle)
    return sorted(cycles)


def test_graph_reads_relative_function_level_and_submodule_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\nimport os\n")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .c import C\n"
        "def f():\n    from ..a import thing\n"
    )
    (pkg / "sub" / "c.py").write_text("from . import b\nfrom pkg.sub import missing\n")
    (pkg / "lazy.py").write_text(
        '"""pkg.a is not imported by a docstring."""\nMAP = {"x": "pkg.d:Thing", "y": "pkg.nothing"}\n'
    )
    (pkg / "d.py").write_text("import pkg.lazy\n")
    graph = import_graph(tmp_path, ["pkg"])
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.sub.b"},
        "pkg.d": {"pkg.lazy"},
        "pkg.lazy": {"pkg.d"},
        "pkg.sub": set(),
        "pkg.sub.b": {"pkg.sub.c", "pkg.a"},
        "pkg.sub.c": {"pkg.sub.b", "pkg.sub"},
    }
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.a"]
    assert all_cycles(graph) == [
        ["pkg.a", "pkg.sub.b", "pkg.a"],
        ["pkg.d", "pkg.lazy", "pkg.d"],
    ]
    assert find_cycle({"x": {"y"}, "y": {"z"}, "z": set()}) is None
    assert all_cycles({"x": {"y"}, "y": {"z"}, "z": set()}) == []


def test_library_and_stages_have_no_import_cycle() -> None:
    graph = import_graph(ROOT, PACKAGES)
    assert "prescient.llm.gateway" in graph and "stages.ingest" in graph
    assert "prescient.llm.transport_base" in graph["prescient.llm.direct"]
    cycles = all_cycles(graph)
    assert not cycles, "import cycles (break each one):\n" + "\n".join(
        " -> ".join(c) for c in cycles
    )


PLUMBING = "prescient.plumbing"
ENTRY_POINT = "prescient.__main__"  # ``python -m prescient``: delegates to the plumbing's CLI
PLUMBING_ONLY = ("dvc", "hydra", "omegaconf")


def external_imports(path: Path) -> set[str]:
    """Top-level names of the absolute imports in ``path``, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def library_violations(root: Path) -> list[str]:
    """Library modules (prescient/ outside plumbing/) that import DVC or Hydra, directly
    or through a module of the plumbing."""
    modules = module_names(root, ["prescient"])
    graph = import_graph(root, ["prescient"])
    out = []
    for name, path in sorted(modules.items()):
        if name in (PLUMBING, ENTRY_POINT) or name.startswith(PLUMBING + "."):
            continue
        banned = sorted(external_imports(path) & set(PLUMBING_ONLY))
        plumbing = sorted(m for m in graph[name] if m == PLUMBING or m.startswith(PLUMBING + "."))
        if banned or plumbing:
            out.append(f"{name}: imports {', '.join(banned + plumbing)}")
    return out


def test_the_check_finds_dvc_and_plumbing_imports_at_any_depth(tmp_path: Path) -> None:
    pkg = tmp_path / "prescient"
    (pkg / "plumbing").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "plumbing" / "__init__.py").write_text("")
    (pkg / "plumbing" / "params.py").write_text("import hydra\n")
    (pkg / "clean.py").write_text("import json\nfrom prescient import clean\n")
    (pkg / "lazy.py").write_text("def f():\n    from dvc.config import Config\n")
    (pkg / "through.py").write_text("from prescient.plumbing import params\n")
    (pkg / "__main__.py").write_text("from prescient.plumbing.params import x\n")
    assert library_violations(tmp_path) == [
        "prescient.lazy: imports dvc",
        "prescient.through: imports prescient.plumbing.params",
    ]


def test_the_library_imports_neither_dvc_nor_hydra() -> None:
    assert "prescient.plumbing.params" in module_names(ROOT, ["prescient"])
    violations = library_violations(ROOT)
    assert not violations, (
        "the library (prescient/ outside plumbing/) must not import DVC or Hydra; move the "
        "code that needs them to prescient/plumbing/ and pass its result in:\n"
        + "\n".join(violations)
    )


BENCHMARKS = "prescient.benchmarks"
BENCHMARK_FOLDER = ("prescient.benchmarks.registry",)
"""The benchmarks' folder's own module: the map that finds them (not a benchmark). The
contract they fill lives below them (``prescient.contract``)."""
ABOVE_BENCHMARKS = (
    "prescient.page",
    PLUMBING,
    ENTRY_POINT,
    "stages",
    "prescient.benchmarks.registry",
)
"""The layers that gather the benchmarks: the report's page, the plumbing, the stages."""


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def benchmark_of(name: str) -> str | None:
    """The benchmark a module belongs to (``prescient.benchmarks.<name>...``), or None."""
    if not _within(name, BENCHMARKS) or name == BENCHMARKS or name in BENCHMARK_FOLDER:
        return None
    return name.split(".")[2]


def benchmark_import_violations(graph: Mapping[str, set[str]]) -> list[str]:
    """Imports of a benchmark's module from anywhere but the benchmark itself and the
    layers above the benchmarks, and of the registry from below them."""
    out = []
    for name, imports in sorted(graph.items()):
        if any(_within(name, p) for p in ABOVE_BENCHMARKS):
            continue
        own = benchmark_of(name)
        found = sorted(
            m
            for m in imports
            if (benchmark_of(m) is not None and benchmark_of(m) != own)
            or (m == "prescient.benchmarks.registry" and name != m)
        )
        if found:
            where = f"benchmark {own}" if own else "shared module"
            out.append(f"{name} ({where}): imports {', '.join(found)}")
    return out


def folder_of(name: str, modules: Mapping[str, Path]) -> str:
    """The folder (package) a module's file lies in; the entry point (``python -m
    prescient``, above everything it delegates to) stands alone."""
    if name == ENTRY_POINT:
        return name
    path = modules.get(name)
    if path is not None and path.name == "__init__.py":
        return name
    return name.rpartition(".")[0] or name


def folder_graph(graph: Mapping[str, set[str]], modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Folder -> the other folders its modules import."""
    out: dict[str, set[str]] = {}
    for name, imports in graph.items():
        here = folder_of(name, modules)
        out.setdefault(here, set()).update(
            f for m in imports if (f := folder_of(m, modules)) != here
        )
    return out


def test_the_benchmark_check_names_every_kind_of_crossing() -> None:
    graph = {
        "prescient.stats": set(),
        "prescient.steps": {"prescient.benchmarks.oracle.build", "prescient.stats"},
        "prescient.report.contents": {"prescient.benchmarks.oracle.report"},
        "prescient.benchmarks.oracle.build": {"prescient.steps", "prescient.contract.benchmark"},
        "prescient.benchmarks.oracle.report": {"prescient.benchmarks.fresh.report"},
        "prescient.benchmarks.fresh.report": {"prescient.benchmarks.registry"},
        "prescient.benchmarks.registry": {"prescient.benchmarks.oracle.contract"},
        "prescient.page.build": {"prescient.benchmarks.oracle.report"},
        "stages.build": {"prescient.benchmarks.oracle.build"},
    }
    assert benchmark_import_violations(graph) == [
        "prescient.benchmarks.fresh.report (benchmark fresh): imports "
        "prescient.benchmarks.registry",
        "prescient.benchmarks.oracle.report (benchmark oracle): imports "
        "prescient.benchmarks.fresh.report",
        "prescient.report.contents (shared module): imports prescient.benchmarks.oracle.report",
        "prescient.steps (shared module): imports prescient.benchmarks.oracle.build",
    ]


def test_only_the_page_the_stages_and_the_plumbing_import_benchmarks() -> None:
    graph = import_graph(ROOT, PACKAGES)
    assert "prescient.benchmarks.registry" in graph["stages.analyze"]
    found = benchmark_import_violations(graph)
    assert not found, (
        "only the page, the stages and the plumbing import a benchmark, and no benchmark "
        "imports another; move what several use out of the benchmark's folder:\n" + "\n".join(found)
    )


def test_the_report_toolkit_imports_no_benchmark_and_no_page() -> None:
    graph = import_graph(ROOT, ["prescient"])
    found = sorted(
        f"{name}: imports {m}"
        for name, imports in graph.items()
        if _within(name, "prescient.report")
        for m in imports
        if _within(m, BENCHMARKS) or _within(m, "prescient.page")
    )
    assert not found, "\n".join(found)


def test_folders_import_each_other_without_circles() -> None:
    modules = module_names(ROOT, PACKAGES)
    folders = folder_graph(import_graph(ROOT, PACKAGES), modules)
    assert "prescient.analysis" in folders["prescient.page"]
    cycles = all_cycles(folders)
    assert not cycles, "folder-level import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)
