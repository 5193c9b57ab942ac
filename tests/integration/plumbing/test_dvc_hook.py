"""Every DVC process of the project's environment writes dvc.lock atomically
(prescient.plumbing.dvc_hook): a process killed mid-dump keeps the old lock, and a
``dvc repro`` typed by hand renames its lock into place."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from prescient.plumbing import dvc_hook
from prescient.plumbing.lockfile import problem_with

DVC = Path(sys.executable).parent / "dvc"
LOCK = "schema: '2.0'\nstages:\n  copy:\n    cmd: cp a b\n"

KILLED_MID_DUMP = textwrap.dedent(
    """
    import os, signal, sys
    from dvc.utils.serialize import _common
    from prescient.plumbing.dvc_atomic import dvc_dump_data

    def half_then_die(data, stream):
        stream.write("schema: '2.0'\\nstages:\\n  cop")
        stream.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    write = dvc_dump_data() if sys.argv[2] == "dvc" else _common._dump_data
    write(sys.argv[1], {}, dumper=half_then_die)
    """
)


def test_the_environment_loads_the_hook() -> None:
    assert dvc_hook.installed(), (
        f"{dvc_hook.pth_path()} is missing: run python -m prescient lock install-hook "
        "(make install does)"
    )


@pytest.mark.parametrize("writer", ["hooked", "dvc"])
def test_a_process_killed_mid_dump_keeps_the_old_lock(tmp_path: Path, writer: str) -> None:
    """A fresh interpreter of the environment (nothing imported by hand) writes as every
    ``dvc`` does; DVC's own writer, for contrast, tears the file."""
    lock = tmp_path / "dvc.lock"
    lock.write_text(LOCK)
    out = subprocess.run(
        [sys.executable, "-c", KILLED_MID_DUMP, str(lock), writer],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == -9, out.stderr
    if writer == "hooked":
        assert lock.read_text() == LOCK
    else:
        assert problem_with(lock.read_text())[0] is not None


def test_a_hand_typed_dvc_repro_renames_its_lock_into_place(tmp_path: Path) -> None:
    if not DVC.exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed")
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}

    def run(*args: str) -> None:
        subprocess.run(args, cwd=tmp_path, env=env, check=True, capture_output=True)

    run("git", "init", "-q")
    run(str(DVC), "init", "-q")
    (tmp_path / "a").write_text("1\n")
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  copy:\n    cmd: cp a b\n    deps: [a]\n    outs: [b]\n"
    )
    run(str(DVC), "repro", "-q")
    lock = tmp_path / "dvc.lock"
    before = lock.stat().st_ino
    (tmp_path / "a").write_text("2\n")
    run(str(DVC), "repro", "-q")
    assert lock.stat().st_ino != before  # a new file renamed over the lock, not rewritten
    assert problem_with(lock.read_text()) == (None, 1)
    assert (tmp_path / "b").read_text() == "2\n"


def test_a_stage_is_recorded_as_dvcs_own_code_records_it(tmp_path: Path) -> None:
    """``dvc repro`` in the environment (the lock's entries spliced) and with DVC's own
    ``Lockfile.dump_stages`` write the same lock, stage after stage."""
    if not DVC.exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed")
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    own = (
        "import sys, dvc.dvcfile as d; "
        "d.Lockfile.dump_stages = getattr(d.Lockfile.dump_stages, '__wrapped__', "
        "d.Lockfile.dump_stages); from dvc.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    stages = "".join(
        f"  s{i}:\n    cmd: cp a{i} b{i}\n    deps: [a{i}]\n    outs: [b{i}]\n" for i in range(3)
    )
    locks = []
    for how in ([str(DVC)], [sys.executable, "-c", own]):
        root = tmp_path / ("spliced" if how[0] == str(DVC) else "dvc")
        root.mkdir()

        def run(*args: str, cwd: Path = root) -> None:
            subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)

        run("git", "init", "-q")
        run(str(DVC), "init", "-q")
        for i in range(3):
            (root / f"a{i}").write_text(f"{i}\n")
        (root / "dvc.yaml").write_text("stages:\n" + stages)
        run(*how, "repro", "-q")
        (root / "a1").write_text("changed\n")
        run(*how, "repro", "-q")
        more = stages.replace("  s", "  t").replace(" b", " c").replace("[b", "[c")
        (root / "dvc.yaml").write_text("stages:\n" + stages + more)
        for i in range(3):
            (root / f"a{i}").write_text(f"{i} again\n")
        run(*how, "repro", "-q")
        locks.append((root / "dvc.lock").read_text())
    assert locks[0] == locks[1]
    assert "  t2:\n" in locks[0]
