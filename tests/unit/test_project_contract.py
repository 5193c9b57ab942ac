"""The promises the repository makes to a new user and to CI."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import ROOT


def test_readme_starts_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    assert commands == ["make repro", "make test"]
    assert text.index("```bash") < text.index("##")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M)


def test_dvc_config_is_offline_and_composes_with_hydra() -> None:
    cfg = (ROOT / ".dvc" / "config").read_text()
    assert re.search(r"analytics = false", cfg)
    assert re.search(r"check_update = false", cfg)
    assert re.search(r"\[hydra\]\s*\n\s*enabled = true", cfg)


def test_importing_the_package_sets_offline_defaults_before_litellm() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"LITELLM_LOCAL_MODEL_COST_MAP", "HF_HUB_OFFLINE", "MPLBACKEND"}
    }
    code = (
        "import prescient, os, sys; "
        "assert 'litellm' not in sys.modules; "
        "print(os.environ['LITELLM_LOCAL_MODEL_COST_MAP'], os.environ['HF_HUB_OFFLINE'], os.environ['MPLBACKEND'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "1", "Agg"]


def test_no_shared_corpus_file_is_tracked() -> None:
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "rtqa" not in files


def test_every_stage_sets_the_numeric_defaults_before_numpy_loads() -> None:
    """numpy reads NPY_DISABLE_CPU_FEATURES once, when it is imported: a stage module that
    imported numpy before the prescient package would compute with the machine's own
    kernels."""
    env = {k: v for k, v in os.environ.items() if k not in {"NPY_DISABLE_CPU_FEATURES"}}
    stages = sorted(p.stem for p in (ROOT / "stages").glob("*.py") if p.stem != "__init__")
    guard = (
        "import os, sys\n"
        "class Guard:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'numpy' and 'NPY_DISABLE_CPU_FEATURES' not in os.environ:\n"
        "            raise RuntimeError('numpy imported before the prescient defaults')\n"
        "sys.meta_path.insert(0, Guard())\n"
        + "".join(f"import stages.{s}\n" for s in stages)
        + "import numpy\nprint(os.environ['NPY_DISABLE_CPU_FEATURES'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", guard], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "X86_V4" in out.stdout


def test_bytecode_caches_never_reach_a_dependency_hash() -> None:
    """Stages depend on whole package directories; Python writes ``__pycache__`` into
    them when a stage runs, and dvc.lock must not change because of it."""
    from dvc.repo import Repo

    with Repo(str(ROOT)) as repo:
        deps = {
            d.def_path
            for stage in repo.index.stages
            for d in stage.deps
            if (ROOT / d.def_path).is_dir()
        }
        assert "prescient/evaluation" in deps
        assert "prescient/benchmarks/freshbench/bpc" in deps
        for dep in deps:
            cache = ROOT / dep / "__pycache__"
            assert repo.dvcignore.is_ignored(repo.fs, str(cache / "m.cpython-311.pyc")), dep
            assert not repo.dvcignore.is_ignored(repo.fs, str(ROOT / dep / "m.py")), dep
