"""An edit reruns only the stages that run the edited code: in a scratch copy of the
project, touching one module of each home makes ``dvc status`` list exactly the stages
whose commands import it (dvc.yaml's code deps, derived from the imports). Editing Daily
Oracle's construction leaves every evaluation, retrieval, scoring and analysis stage up
to date; editing FreshBench's bits-per-character code leaves the analysis up to date."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prescient.plumbing import dag
from tests.conftest import ROOT

TOUCHED = (
    "prescient/benchmarks/daily_oracle/construct.py",
    "prescient/benchmarks/daily_oracle/parse.py",
    "prescient/benchmarks/daily_oracle/analysis/yearly.py",
    "prescient/benchmarks/freshbench/bpc/run.py",
    "prescient/benchmarks/freshbench/analysis.py",
    "prescient/evaluation/parsing.py",
    "prescient/analysis/monthly.py",
    "prescient/retrieval/bm25.py",
    "prescient/llm/gateway.py",
    "prescient/corpus/normalize.py",
    "prescient/page/build.py",
)
"""One module of each home (and of a benchmark's top level)."""


def _stage(name: str) -> str:
    """A stage's name without its foreach key or pipeline file."""
    return name.rpartition(":")[2].partition("@")[0]


def _status(root: Path) -> dict[str, set[str]]:
    """Stage -> the code files (under prescient/ or stages/) ``dvc status`` says changed."""
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    dvc = Path(sys.executable).with_name("dvc")
    done = subprocess.run(
        [str(dvc), "status", "--json"], cwd=root, env=env, capture_output=True, text=True,
        timeout=300, check=True,
    )  # fmt: skip
    out: dict[str, set[str]] = {}
    for stage, entries in json.loads(done.stdout or "{}").items():
        for entry in entries:
            if isinstance(entry, dict):
                deps = entry.get("changed deps", {})
                code = {d for d in deps if d.split("/")[0] in ("prescient", "stages")}
                out.setdefault(stage, set()).update(code)
    return out


def _importers(root: Path, rel: str) -> set[str]:
    """The stages of the root pipeline whose commands run ``rel``, from the imports alone
    (pipelines/crawl/dvc.yaml has no stage unless the corpus is a crawl)."""
    target = root / rel
    found = set()
    for path in dag.pipeline_files(root)[:1]:
        for sc in dag.stage_code(root, dag.load_dvc_yaml(root, path)):
            if target in dag.widen(root, dag.closure(root, sc.module)):
                found.add(sc.stage)
    return found


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deps_project")
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, files):
        src, dest = ROOT / rel, root / rel
        if src.is_file():
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(src.read_bytes())
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    _record_deps(root)
    return root


def _record_deps(root: Path) -> None:
    """dvc.lock with every stage's dependencies as they are now (its outputs as locked),
    so that ``dvc status`` names only what a test changes afterwards."""
    script = (
        "from dvc.repo import Repo\n"
        "with Repo('.') as repo:\n"
        "    for stage in repo.index.stages:\n"
        "        if getattr(stage, 'cmd', None):\n"
        "            stage.save_deps(allow_missing=True)\n"
        "            stage.dump(update_pipeline=False)\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=root, check=True, capture_output=True)
    assert not any(_status(root).values()), "dvc.lock still names changed code"


@pytest.mark.parametrize("rel", TOUCHED)
def test_a_touched_module_reruns_exactly_the_stages_that_import_it(project: Path, rel: str) -> None:
    path = project / rel
    original = path.read_bytes()
    try:
        path.write_bytes(original + b"\n# touched\n")
        after = _status(project)
    finally:
        path.write_bytes(original)
    listed = {_stage(s) for s, code in after.items() if code}  # the lock names no other
    assert listed == _importers(project, rel), rel
    assert listed, f"no stage runs {rel}"


def test_construction_and_bpc_edits_stay_in_their_stages(project: Path) -> None:
    assert _importers(project, "prescient/benchmarks/daily_oracle/construct.py") == {"construct"}
    assert _importers(project, "prescient/benchmarks/freshbench/bpc/run.py") == {"bpc"}
    untouched = {"evaluate", "retrieve", "score", "questions", "analyze", "plot", "report"}
    assert not _importers(project, "prescient/benchmarks/daily_oracle/parse.py") & untouched
