"""Stage code dependencies are derived from imports; dvc.yaml must list exactly them."""

from __future__ import annotations

from pathlib import Path

from prescient.plumbing import dag
from tests.conftest import ROOT


def test_every_stage_lists_exactly_the_code_it_imports() -> None:
    files = dag.pipeline_files(ROOT)
    assert ROOT / "pipelines/crawl/dvc.yaml" in files
    stale = [
        sc
        for path in files
        for sc in dag.stage_code(ROOT, dag.load_dvc_yaml(ROOT, path))
        if not sc.in_sync
    ]
    report = {sc.stage: {"missing": sc.uncovered, "declared": sc.declared} for sc in stale}
    assert not stale, f"run `python -m prescient dag sync`: {report}"


def _write(root: Path, rel: str, text: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _project(tmp_path: Path) -> Path:
    _write(tmp_path, "prescient/__init__.py")
    _write(tmp_path, "prescient/io.py", "import json\n")
    _write(tmp_path, "prescient/dates.py")
    _write(tmp_path, "prescient/unused.py")
    _write(tmp_path, "prescient/qa/__init__.py")
    _write(tmp_path, "prescient/qa/select.py", "from .. import dates\n")
    _write(tmp_path, "prescient/qa/other.py")
    _write(tmp_path, "prescient/web/__init__.py")
    _write(tmp_path, "prescient/web/page.py", "'''Uses prescient.unused in a docstring.'''\n")
    _write(tmp_path, "prescient/web/assets/page.html", "<p>")
    _write(tmp_path, "prescient/retrieval/__init__.py")
    _write(tmp_path, "prescient/retrieval/visibility.py")
    _write(tmp_path, "prescient/lazy.py", "REGISTRY = {'x': 'prescient.retrieval.visibility'}\n")
    _write(tmp_path, "stages/__init__.py")
    _write(
        tmp_path,
        "stages/run.py",
        "from prescient import io\n"
        "def main():\n"
        "    from prescient.qa.select import thing\n"
        "    import prescient.web.page\n"
        "    import prescient.lazy\n",
    )
    return tmp_path


def test_closure_follows_every_kind_of_import(tmp_path: Path) -> None:
    root = _project(tmp_path)
    files = {p.relative_to(root).as_posix() for p in dag.closure(root, "stages.run")}
    assert files == {
        "stages/__init__.py",
        "stages/run.py",
        "prescient/__init__.py",
        "prescient/io.py",  # from package import module
        "prescient/qa/__init__.py",
        "prescient/qa/select.py",  # function-level import
        "prescient/dates.py",  # relative import
        "prescient/web/__init__.py",
        "prescient/web/page.py",
        "prescient/web/assets/page.html",  # a package's data files
        "prescient/lazy.py",
        "prescient/retrieval/__init__.py",
        "prescient/retrieval/visibility.py",  # module named in a string
    }
    # Docstrings do not import; unused modules are not dependencies.
    assert "prescient/unused.py" not in files


def test_compress_uses_directories_only_when_all_files_are_needed(tmp_path: Path) -> None:
    root = _project(tmp_path)
    derived = dag.compress(root, dag.closure(root, "stages.run"))
    assert "prescient/web" in derived and "prescient/retrieval" in derived
    assert "prescient/qa/select.py" in derived and "prescient/qa" not in derived


def test_check_catches_a_missing_dependency_and_sync_fixes_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _write(
        root,
        "dvc.yaml",
        "stages:\n"
        "  run:\n"
        "    # a comment that survives\n"
        "    cmd: python -m stages.run --out x\n"
        "    deps:\n"
        "      - stages/run.py\n"
        "      - prescient/qa\n"
        "      - data/in.csv\n"
        "    outs:\n"
        "      - x\n",
    )
    (sc,) = dag.stage_code(root, dag.load_dvc_yaml(root))
    assert not sc.in_sync
    assert "prescient/io.py" in sc.uncovered and "prescient/qa/select.py" not in sc.uncovered
    assert dag.sync(root) == ["run"]
    (sc,) = dag.stage_code(root, dag.load_dvc_yaml(root))
    assert sc.in_sync
    text = (root / "dvc.yaml").read_text()
    assert "# a comment that survives" in text and "- data/in.csv" in text


def test_a_stage_depends_on_each_home_it_touches_as_a_whole(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _write(root, "prescient/benchmarks/__init__.py")
    _write(root, "prescient/benchmarks/oracle/__init__.py")
    _write(root, "prescient/benchmarks/oracle/build.py", "from prescient import dates\n")
    _write(root, "prescient/benchmarks/oracle/unused.py")
    _write(root, "prescient/benchmarks/oracle/eval/__init__.py")
    _write(root, "prescient/benchmarks/oracle/eval/run.py")
    _write(root, "prescient/benchmarks/other/__init__.py")
    _write(root, "prescient/benchmarks/other/x.py")
    _write(root, "prescient/plumbing/__init__.py")
    _write(root, "prescient/plumbing/stage.py")
    _write(root, "prescient/plumbing/cli.py")
    _write(
        root,
        "stages/bench.py",
        "from prescient.benchmarks.oracle import build\n"
        "from prescient.plumbing import stage\n"
        "from prescient import io\n",
    )
    _write(root, "prescient/benchmarks/oracle/eval/unused.py")
    _write(root, "prescient/benchmarks/oracle/report.py", "from .eval import run\n")
    assert dag.home_of(root, root / "prescient/benchmarks/oracle/eval/run.py") == (
        root / "prescient/benchmarks/oracle/eval"
    )
    assert dag.home_of(root, root / "prescient/qa/other.py") == root / "prescient/qa"
    for outside in (
        "prescient/io.py",
        "prescient/benchmarks/__init__.py",
        "prescient/benchmarks/oracle/build.py",
        "stages/run.py",
    ):
        assert dag.home_of(root, root / outside) is None
    assert dag.home_of(root, root / "prescient/plumbing/stage.py") is None
    # A benchmark's top-level modules file by file (its unused module left out); the
    # plumbing and the package root file by file; the other benchmark not at all.
    derived = dag.compress(root, dag.widen(root, dag.closure(root, "stages.bench")))
    assert derived == [
        "prescient/__init__.py",
        "prescient/benchmarks/__init__.py",
        "prescient/benchmarks/oracle/__init__.py",
        "prescient/benchmarks/oracle/build.py",
        "prescient/dates.py",
        "prescient/io.py",
        "prescient/plumbing/__init__.py",
        "prescient/plumbing/stage.py",
        "stages/__init__.py",
        "stages/bench.py",
    ]
    # A package inside a benchmark's folder is a home of its own: whole, unused module
    # included, when the stage runs any of it.
    _write(root, "stages/page.py", "from prescient.benchmarks.oracle import report\n")
    derived = dag.compress(root, dag.widen(root, dag.closure(root, "stages.page")))
    assert "prescient/benchmarks/oracle/eval" in derived
    assert "prescient/benchmarks/oracle/build.py" not in derived
    # A registry that finds modules by folder: every module its pattern matches.
    _write(root, "prescient/benchmarks/oracle/contract.py")
    _write(root, "prescient/benchmarks/other/contract.py")
    _write(root, "prescient/registry.py", "CONTRACTS = 'prescient.benchmarks.*.contract'\n")
    _write(root, "stages/all.py", "import prescient.registry\n")
    files = {p.relative_to(root).as_posix() for p in dag.closure(root, "stages.all")}
    assert {
        "prescient/benchmarks/oracle/contract.py",
        "prescient/benchmarks/other/contract.py",
    } <= files
    assert "prescient/benchmarks/other/x.py" not in files
