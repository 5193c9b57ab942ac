"""Benchmark: the whole demo pipeline, stage by stage, fresh and as a no-op.

Clones the repository (the committed state, so local changes are not measured) into a
temporary directory, links this checkout's virtual environment, and runs ``dvc repro``
one stage at a time in the pipeline's order (``dvc repro --single-item``), timing each;
then a second ``dvc repro`` that must find nothing to do. Reports seconds per stage (a
matrix stage's cells summed under its name), the total, the no-op time, and whether the
clone's ``git status`` is clean afterwards (exact reproduction of the committed
dvc.lock, metrics and tables).

    .venv/bin/python bench/bench_pipeline.py [--keep] [--threads N]

Results also go to bench/results/pipeline.json. Measure on an otherwise idle machine:
the embedded model's speed depends on the cores it gets.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "pipeline.json"


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, text=True, capture_output=True, check=False)


def stage_order(clone: Path, env: dict[str, str], dvc: str) -> list[str]:
    """Every stage (matrix cells expanded) in an order DVC would run them."""
    out = run([dvc, "repro", "--dry", "--force"], clone, env)
    if out.returncode:
        raise SystemExit(f"dvc repro --dry failed:\n{out.stderr}")
    order = []
    for line in out.stdout.splitlines():
        if line.startswith("Running stage '"):
            order.append(line.split("'")[1])
    return order


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--keep", action="store_true", help="keep the clone and print its path")
    ap.add_argument("--threads", type=int, default=None, help="PRESCIENT_LLAMA_THREADS")
    args = ap.parse_args()

    venv = ROOT / ".venv"
    dvc = str(venv / "bin" / "dvc")
    env = dict(os.environ)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env.pop("PYTHONPATH", None)
    if args.threads:
        env["PRESCIENT_LLAMA_THREADS"] = str(args.threads)

    tmp = Path(tempfile.mkdtemp(prefix="prescient-bench-"))
    clone = tmp / "repo"
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        (clone / ".venv").symlink_to(venv)
        order = stage_order(clone, env, dvc)
        per_stage: dict[str, float] = {}
        t_all = time.perf_counter()
        for name in order:
            t0 = time.perf_counter()
            out = run([dvc, "repro", "--single-item", name], clone, env)
            secs = time.perf_counter() - t0
            if out.returncode:
                print(out.stdout[-2000:], out.stderr[-4000:], file=sys.stderr)
                raise SystemExit(f"stage {name} failed")
            base = name.split("@", 1)[0]
            per_stage[base] = per_stage.get(base, 0.0) + secs
            print(f"{name:48s} {secs:8.1f} s", flush=True)
        total = time.perf_counter() - t_all
        t0 = time.perf_counter()
        noop = run([dvc, "repro"], clone, env)
        noop_secs = time.perf_counter() - t0
        status = run(["git", "status", "--porcelain"], clone, env).stdout.splitlines()
        result = {
            "stages_s": {k: round(v, 1) for k, v in per_stage.items()},
            "total_s": round(total, 1),
            "noop_s": round(noop_secs, 1),
            "noop_ran_nothing": "Running stage" not in noop.stdout,
            "git_status_clean": not status,
            "git_status": status[:40],
            "cpus": len(os.sched_getaffinity(0)),
        }
        print(json.dumps(result, indent=2))
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n")
        return 0 if result["noop_ran_nothing"] else 1
    finally:
        if args.keep:
            print(f"clone kept at {clone}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
