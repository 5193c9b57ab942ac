"""Stage ``crawl`` as DVC runs it: a real SIGKILL mid-download and a restart that fetches
only what was missing, exit codes, and where the stage sits in the DAG (absent from the
demo, whose `dvc status` is then clean; ``crawl@ccnews``, upstream of ingest, when the
corpus is ``ccnews``)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from prescient.crawl.manifest import COMPLETE, MANIFEST_NAME, read_manifest
from prescient.plumbing import params
from stages import crawl as crawl_stage
from tests.conftest import ROOT
from tests.support.fake_ccnews import FakeCCNews, ServedFile, write_month


def write_params(path: Path, server: FakeCCNews, *overrides: str) -> Path:
    p = params.compose(
        ROOT,
        [
            f"crawl.base_url={server.url}",
            "crawl.date_start=2024-03-01",
            "crawl.date_end=2024-03-04",
            "crawl.margin_days=0",
            "crawl.max_files=null",
            "crawl.concurrency=2",
            "crawl.max_tries=3",
            "crawl.backoff_base_s=0.001",
            "crawl.backoff_max_s=0.01",
            "crawl.timeout_s=5.0",
            "crawl.chunk_bytes=16384",
            "crawl.progress=false",
            *overrides,
        ],
    )
    path.write_text(yaml.safe_dump(p))
    return path


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[ServedFile]]:
    root = tmp_path_factory.mktemp("ccnews")
    days = [(dt.datetime(2024, 3, d, 12, 0, 0), 60) for d in (1, 2, 3, 4)]
    return root, write_month(root, 2024, 3, days, words=600)


def _wait_for(condition: object, what: str, deadline_s: float = 120.0) -> None:
    """Poll (a hang guard, not a timing assertion)."""
    end = time.monotonic() + deadline_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


def test_sigkill_mid_download_then_restart_refetches_nothing_complete(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    root, files = tree
    sizes = {f.name: len(f.data) for f in files}
    out = tmp_path / "ccnews"
    # Throttled so each file takes a while (4 s): the kill lands while bytes are flowing,
    # even when a busy machine delays it by a second or two.
    with FakeCCNews(root, rate_bytes_per_s=len(files[0].data) / 4.0) as server:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "stages.crawl",
                "--params",
                str(write_params(tmp_path / "params.yaml", server)),
                "--out",
                str(out),
                "--metrics",
                str(tmp_path / "crawl.json"),
            ],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

        def one_done_one_midway() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"the crawl ended early: {proc.stderr.read()!r}")  # type: ignore[union-attr]
            manifest = out / MANIFEST_NAME
            done = manifest.exists() and any(r.status == COMPLETE for r in read_manifest(manifest))
            parts = [
                p
                for p in out.glob("*.part")
                if 0 < p.stat().st_size < sizes[p.name.removesuffix(".part")] // 2
            ]
            return done and bool(parts)

        _wait_for(one_done_one_midway, "one complete file and one partial file")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
    assert proc.stderr is not None
    proc.stderr.close()

    complete = {f.name for f in files if (out / f.name).exists()}
    partial = {
        f.name: (out / (f.name + ".part")).stat().st_size
        for f in files
        if (out / (f.name + ".part")).exists()
    }
    assert complete and any(0 < s < sizes[n] for n, s in partial.items())

    with FakeCCNews(root) as server:
        code = crawl_stage.main(
            [
                "--params",
                str(write_params(tmp_path / "params.yaml", server)),
                "--out",
                str(out),
                "--metrics",
                str(tmp_path / "crawl.json"),
            ]
        )
        assert code == 0
        for f in files:
            if f.name in complete:
                assert server.requests[f.source] == 0, f.name
            elif f.name in partial:
                assert server.ranges[f.source] == [f"bytes={partial[f.name]}-"], f.name
                assert server.sent[f.source] == sizes[f.name] - partial[f.name]
            else:
                assert server.ranges[f.source] == [None], f.name
    rows = read_manifest(out / MANIFEST_NAME)
    assert [(r.file, r.status, r.size, r.sha256) for r in rows] == [
        (f.name, COMPLETE, len(f.data), hashlib.sha256(f.data).hexdigest()) for f in files
    ]
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST_NAME, *sizes])


def test_exit_codes_and_the_failure_report(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root, files = tree
    metrics = tmp_path / "crawl.json"
    with FakeCCNews(root) as server:
        server.fault(files[1].source, "404")
        argv = ["--out", str(tmp_path / "out"), "--metrics", str(metrics)]
        p = write_params(tmp_path / "p.yaml", server)
        assert crawl_stage.main(["--params", str(p), *argv]) == 1
        report = json.loads(metrics.read_text())
        assert report["failed"] == [
            {"file": files[1].name, "reason": "HTTP 404 Not Found (after 1 attempts)"}
        ]
        assert report["files"]["complete"] == 3
        assert f"{files[1].name}: HTTP 404 Not Found (after 1 attempts)" in caplog.text

        caplog.clear()
        p = write_params(tmp_path / "p.yaml", server, "crawl.date_end=2024-04-02")
        assert crawl_stage.main(["--params", str(p), *argv]) == 2
        assert "2024/04/warc.paths.gz: HTTP 404 Not Found (after 1 attempt)" in caplog.text

        caplog.clear()
        p = write_params(tmp_path / "p.yaml", server, "crawl.date_end=2024-02-01")
        assert crawl_stage.main(["--params", str(p), *argv]) == 2
        errors = [r for r in caplog.records if r.levelname == "ERROR"]
        assert len(errors) == 1 and "crawl.date_end: is before date_start" in errors[0].message


CRAWL = "pipelines/crawl/dvc.yaml:crawl@ccnews"


def _plan(root: Path, corpus: str) -> tuple[list[str], set[str], list[str], list[str]]:
    """Stages a bare `dvc repro` would visit, the ancestors of ingest, every stage DVC
    defines, and every metrics file declared."""
    import networkx as nx
    from dvc.repo import Repo
    from dvc.repo.reproduce import collect_stages, get_active_graph, plan_repro

    (root / "params.yaml").write_text(yaml.safe_dump(params.compose(ROOT, [f"corpus={corpus}"])))
    with Repo(str(root)) as repo:
        graph = get_active_graph(repo.index.graph)
        ingest = next(s for s in graph if s.addressing == "ingest")
        ancestors = {s.addressing for s in nx.descendants(graph, ingest)}
        # As `dvc repro` with no target: the root dvc.yaml and what it depends on.
        planned = plan_repro(graph, collect_stages(repo, ["dvc.yaml"]))
        stages = sorted(s.addressing for s in repo.index.stages)
        metrics = sorted(o.def_path for s in repo.index.stages for o in s.outs if o.metric)
        return [s.addressing for s in planned], ancestors, stages, metrics


def test_the_crawl_stage_exists_only_when_the_corpus_needs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dvc.repo import Repo

    monkeypatch.chdir(tmp_path)  # DVC addresses stages, and reads targets, from the cwd

    Repo.init(str(tmp_path), no_scm=True).close()
    (tmp_path / "pipelines/crawl").mkdir(parents=True)
    for rel in ("dvc.yaml", "pipelines/crawl/dvc.yaml"):
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    for corpus in ("demo", "jsonl", "warc"):
        planned, ancestors, stages, metrics = _plan(tmp_path, corpus)
        assert "ingest" in planned and not ancestors
        # No crawl stage at all, so neither `dvc status` nor `dvc metrics` names it.
        assert [s for s in stages if s.startswith("pipelines/")] == [], corpus
        assert (
            "reports/metrics/crawl.json" not in metrics and "reports/metrics/ingest.json" in metrics
        )
    planned, ancestors, stages, metrics = _plan(tmp_path, "ccnews")
    assert ancestors == {CRAWL}
    assert planned.index(CRAWL) < planned.index("ingest")
    assert [s for s in stages if s.startswith("pipelines/")] == [CRAWL]
    assert "reports/metrics/crawl.json" in metrics


@pytest.mark.slow
def test_dvc_runs_the_crawl_pipeline_and_a_rerun_of_a_deleted_crawl_matches_the_lock(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    """Through `dvc repro pipelines/crawl/dvc.yaml` in a git + DVC project: the output
    is not cached (nothing to push), a second repro does nothing, and a peer without
    the files (deleted here) downloads them again to the very hash dvc.lock records."""
    dvc = Path(sys.executable).parent / "dvc"
    if not dvc.exists():
        pytest.skip("dvc is not installed in this environment")
    root, files = tree
    project = tmp_path / "project"
    for d in ("prescient", "stages"):
        shutil.copytree(ROOT / d, project / d, ignore=shutil.ignore_patterns("__pycache__"))
    # Python writes bytecode caches into the folders the stages depend on: ignored.
    shutil.copy(ROOT / ".dvcignore", project / ".dvcignore")
    (project / "pipelines/crawl").mkdir(parents=True)
    shutil.copy(ROOT / "pipelines/crawl/dvc.yaml", project / "pipelines/crawl/")
    (project / "data/raw").mkdir(parents=True)
    shutil.copy(ROOT / "data/raw/.gitignore", project / "data/raw/")
    env = {
        **os.environ,
        "PYTHONPATH": str(project),
        "PATH": f"{dvc.parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }

    def sh(*cmd: str) -> str:
        out = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    sh("git", "init", "-q")
    sh(str(dvc), "init", "-q")
    with FakeCCNews(root) as server:
        write_params(project / "params.yaml", server, "corpus=ccnews", "crawl.concurrency=4")
        target = "pipelines/crawl/dvc.yaml"
        assert f"Running stage '{CRAWL}'" in sh(str(dvc), "repro", target)
        lock = (project / "pipelines/crawl/dvc.lock").read_text()
        assert all(server.requests[f.source] == 1 for f in files)
        assert "Running stage" not in sh(str(dvc), "repro", target)
        assert not list((project / ".dvc/cache").rglob("*.dir"))  # nothing cached
        shutil.rmtree(project / "data/raw/ccnews")
        assert "Running stage" in sh(str(dvc), "repro", target)
        assert all(server.requests[f.source] == 2 for f in files)
    assert (project / "pipelines/crawl/dvc.lock").read_text() == lock
    assert "data/raw/ccnews" not in sh("git", "status", "--porcelain", "--untracked-files=all")
    assert sh(str(dvc), "status", target).strip().endswith("up to date.")


CRAWL_OVERRIDES = (
    "crawl.date_start=2024-03-01",
    "crawl.date_end=2024-03-04",
    "crawl.margin_days=0",
    "crawl.max_files=null",
    "crawl.backoff_base_s=0.001",
    "crawl.progress=false",
    "corpus.hosts=null",  # the loopback pages are on news<N>.example
)


@pytest.mark.slow
def test_the_demo_is_up_to_date_without_a_crawl_and_a_ccnews_experiment_crawls_first(
    tree: tuple[Path, list[ServedFile]], tmp_path: Path
) -> None:
    """A git + DVC project with the real conf/, the real ingest stage and the crawl
    pipeline. On the demo: `dvc repro` runs ingest alone, then `dvc status` exits 0 and
    `dvc metrics show` warns of nothing. `dvc exp run -S corpus=ccnews` (DVC composes
    params.yaml with Hydra) defines crawl@ccnews and runs it before ingest."""
    dvc = Path(sys.executable).parent / "dvc"
    if not dvc.exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed in this environment")
    root, files = tree
    project = tmp_path / "project"
    for d in ("prescient", "stages", "conf"):
        shutil.copytree(ROOT / d, project / d, ignore=shutil.ignore_patterns("__pycache__"))
    # Python writes bytecode caches into the folders the stages depend on: ignored.
    shutil.copy(ROOT / ".dvcignore", project / ".dvcignore")
    (project / "pipelines/crawl").mkdir(parents=True)
    shutil.copy(ROOT / "pipelines/crawl/dvc.yaml", project / "pipelines/crawl/")
    (project / "data/raw/demo").mkdir(parents=True)
    shutil.copy(ROOT / "data/raw/.gitignore", project / "data/raw/")
    shutil.copy(ROOT / "data/raw/demo/news.jsonl.gz", project / "data/raw/demo/")
    full = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    (project / "dvc.yaml").write_text(
        yaml.safe_dump({"stages": {"ingest": full["stages"]["ingest"]}})
    )
    (project / "params.yaml").write_text(yaml.safe_dump(params.compose(ROOT)))
    env = {
        **os.environ,
        "PYTHONPATH": str(project),
        "PATH": f"{dvc.parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }

    def sh(*cmd: str, rc: int = 0) -> str:
        out = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
        assert out.returncode == rc, out.stdout + out.stderr
        return out.stdout + out.stderr

    git = ("git", "-c", "user.name=Test", "-c", "user.email=test@example.org")
    sh("git", "init", "-q")
    sh(str(dvc), "init", "-q")
    shutil.copy(ROOT / ".dvc/config", project / ".dvc/config")  # Hydra composition on
    sh(*git, "add", "-A")
    sh(*git, "commit", "-qm", "project")

    ran = [line for line in sh(str(dvc), "repro").splitlines() if "Running stage" in line]
    assert ran == ["Running stage 'ingest':"]
    assert sh(str(dvc), "stage", "list", "--all").split()[0] == "ingest"
    assert "crawl" not in sh(str(dvc), "stage", "list", "--all")
    assert sh(str(dvc), "status").strip() == "Data and pipelines are up to date."
    shown = sh(str(dvc), "metrics", "show")
    assert "ingest.json" in shown and "crawl" not in shown and "failed to load" not in shown
    sh(*git, "add", "-A")
    sh(*git, "commit", "-qm", "demo")

    with FakeCCNews(root) as server:
        overrides = [f"crawl.base_url={server.url}", *CRAWL_OVERRIDES]
        out = sh(str(dvc), "exp", "run", "-S", "corpus=ccnews", *(f"-S{o}" for o in overrides))
        assert all(server.requests[f.source] == 1 for f in files)
    ran = [line for line in out.splitlines() if "Running stage" in line]
    assert ran == [f"Running stage '{CRAWL}':", "Running stage 'ingest':"]
    assert yaml.safe_load((project / "params.yaml").read_text())["corpus"]["crawls"] == ["ccnews"]
    assert read_manifest(project / "data/raw/ccnews" / MANIFEST_NAME)
    assert CRAWL in sh(str(dvc), "stage", "list", "--all")
    assert sh(str(dvc), "status").strip() == "Data and pipelines are up to date."
    shown = sh(str(dvc), "metrics", "show")
    assert "crawl.json" in shown and "failed to load" not in shown
