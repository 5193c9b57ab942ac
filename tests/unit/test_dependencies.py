"""pyproject.toml declares what the package imports, and nothing it does not.

Every third-party module imported by prescient/ or stages/ must come from a runtime
dependency; a module of an optional extra (``local-llm``, ``scale``) may only be
imported inside a function, so that the package imports without the extra. Every runtime
dependency must be imported, but for the pins in :data:`PINNED_ONLY`; what only tests
and benchmarks use belongs to the ``dev`` extra. Import names
are mapped to distribution names through the installed distributions' metadata (``sklearn``
is scikit-learn, ``yaml`` is PyYAML, ...).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterator

from tests.conftest import ROOT

PACKAGES = ("prescient", "stages")
DEV_EXTRA = "dev"
# Runtime dependencies never imported: pins that hold back what another dependency pulls in.
PINNED_ONLY = {
    "openai": "litellm 1.106.2 needs openai 2.x",
    "ruamel-yaml-clib": "ruamel.yaml loads it for DVC's YAML parsing when installed",
}


def _normalize(name: str) -> str:
    """A distribution's canonical name (PEP 503): ``ruamel.yaml`` -> ``ruamel-yaml``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, f"pyproject.toml: cannot read a name in requirement {requirement!r}"
    return _normalize(match.group(1))


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {_requirement_name(r) for r in project["dependencies"]}
    extras = {
        extra: {_requirement_name(r) for r in reqs}
        for extra, reqs in project.get("optional-dependencies", {}).items()
    }
    return runtime, extras


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[tuple[str, int, bool]]:
    """(top-level module, line, imported lazily) of every absolute import in ``tree``.

    Lazily: inside a function or under ``if TYPE_CHECKING``, i.e. not when the module is
    imported.
    """
    for node in ast.iter_child_nodes(tree):
        yield from _node_imports(node, lazy=False)


def _node_imports(node: ast.AST, lazy: bool) -> Iterator[tuple[str, int, bool]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name.split(".")[0], node.lineno, lazy
    elif isinstance(node, ast.ImportFrom):
        if node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno, lazy
    elif isinstance(node, ast.If) and _is_type_checking(node.test):
        for child in node.body:
            yield from _node_imports(child, True)
        for child in node.orelse:
            yield from _node_imports(child, lazy)
    else:
        inner = lazy or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.iter_child_nodes(node):
            yield from _node_imports(child, inner)


def _third_party_imports() -> list[tuple[str, str, bool]]:
    """(module, "path:line", lazily) of every third-party import of the package."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for module, line, lazy in _imports(tree):
                if module in sys.stdlib_module_names or module in PACKAGES:
                    continue
                found.append((module, f"{path.relative_to(ROOT)}:{line}", lazy))
    return found


def _distributions() -> dict[str, set[str]]:
    return {
        module: {_normalize(d) for d in dists}
        for module, dists in importlib.metadata.packages_distributions().items()
    }


def test_imports_walk_finds_lazy_and_type_checking_imports() -> None:
    tree = ast.parse(
        "import numpy.linalg\n"
        "from pandas import DataFrame\n"
        "from . import sibling\n"
        "if TYPE_CHECKING:\n"
        "    import ray\n"
        "class A:\n"
        "    def f(self):\n"
        "        import llama_cpp\n"
        "try:\n"
        "    import yaml\n"
        "except ImportError:\n"
        "    pass\n"
    )
    assert list(_imports(tree)) == [
        ("numpy", 1, False),
        ("pandas", 2, False),
        ("ray", 5, True),
        ("llama_cpp", 8, True),
        ("yaml", 10, False),
    ]


def test_requirement_names_are_canonical() -> None:
    assert _requirement_name("ruamel.yaml==0.19.1") == "ruamel-yaml"
    assert _requirement_name("typing_extensions==4.16.0") == "typing-extensions"
    assert _requirement_name("PyYAML>=6 ; python_version>'3'") == "pyyaml"


def test_every_third_party_import_is_declared() -> None:
    runtime, extras = _declared()
    optional = set().union(*(reqs for extra, reqs in extras.items() if extra != DEV_EXTRA))
    dists = _distributions()
    problems: dict[str, list[str]] = {}
    for module, where, lazy in _third_party_imports():
        names = dists.get(module, set())
        if names & runtime or (lazy and names & optional):
            continue
        if not names:
            why = f"{module} is not installed: declare the distribution that provides it"
        elif names & optional:
            why = (
                f"{module} ({', '.join(sorted(names))}) comes from an optional extra but is "
                "imported with the module: import it inside the function that uses it"
            )
        else:
            why = (
                f"{module} ({', '.join(sorted(names))}) is not a runtime dependency: add it "
                "to [project] dependencies in pyproject.toml"
            )
        problems.setdefault(why, []).append(where)
    assert not problems, "\n".join(
        f"{why} (imported at {', '.join(wheres[:3])}{', ...' if len(wheres) > 3 else ''})"
        for why, wheres in problems.items()
    )


def test_every_runtime_dependency_is_imported() -> None:
    runtime, _ = _declared()
    stale = sorted(set(PINNED_ONLY) - runtime)
    assert not stale, f"PINNED_ONLY names {stale}, which pyproject.toml no longer declares"
    dists = _distributions()
    imported = set().union(*(dists.get(m, set()) for m, _, _ in _third_party_imports()))
    unused = sorted(runtime - imported - set(PINNED_ONLY))
    assert not unused, (
        f"pyproject.toml declares {unused} but prescient/ and stages/ never import them: "
        "remove them, or move them to the dev extra when only tests and benchmarks use them"
    )
