"""What DVC's own bookkeeping costs with the paper's number of stages.

A daily update at the paper's size runs DVC over some six hundred stages (eight models x
73 months of ``evaluate``, and the rest), of which about twenty re-run. This builds a
throw-away git + DVC project of that shape, without the work: every stage copies a
small file, and each depends on a copy of this checkout's ``prescient/`` code
directories (as each real ``evaluate`` stage does), on its month's input, and on a key
of a copy of the project's ``params.yaml``. Then it measures, with this environment's
DVC (the changes of :mod:`prescient.plumbing.dvc_hook`) and, with ``--dvc-own``, with
DVC's own code for the same steps:

- ``scratch``: the first ``dvc repro`` (every stage);
- ``noop``: ``dvc repro`` with nothing to do, and ``status``: ``dvc status``;
- ``month``: one month's input changed, so its eight stages and the reader re-run.

The locks the two write are compared byte for byte. Results: the key ``dvc_stages`` of
``bench/results/scale.json``.

    .venv/bin/python bench/bench_dvc_stages.py --models 8 --months 72 --dvc-own
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "scale.json"
CODE = ("prescient/llm", "prescient/evaluation", "prescient/corpus")
"""The code directories every real ``evaluate`` stage depends on."""

# DVC's own code for every step, whatever this environment changes (the writes stay
# atomic: they cost the same either way).
OWN = (
    "import sys\n"
    "import dvc.dvcfile, dvc.dependency.param as p, dvc.utils.serialize as s\n"
    "import dvc.utils.serialize._yaml as y, dvc.utils.strictyaml as st\n"
    "L = dvc.dvcfile.Lockfile\n"
    "L.dump_stages = getattr(L.dump_stages, '__wrapped__', L.dump_stages)\n"
    "p.read_param_file = getattr(p.read_param_file, '__wrapped__', p.read_param_file)\n"
    "for m in (y, s, st):\n"
    "    m.parse_yaml = getattr(m.parse_yaml, '__wrapped__', m.parse_yaml)\n"
    "from dvc.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def build(root: Path, models: int, months: list[str]) -> None:
    """The project: code copies, inputs, params and the pipeline."""
    for d in CODE:
        shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "in").mkdir()
    for m in months:
        (root / "in" / f"{m}.txt").write_text(f"{m}\n")
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["bench"] = {f"m{i}": {"temperature": 0.0} for i in range(models)}
    params["bench_months"] = months
    params["bench_models"] = [f"m{i}" for i in range(models)]
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    pipeline = {
        "stages": {
            "evaluate": {
                "matrix": {"model": "${bench_models}", "month": "${bench_months}"},
                "cmd": "mkdir -p out/${item.model} && cp in/${item.month}.txt "
                "out/${item.model}/${item.month}.txt",
                "deps": [*CODE, "in/${item.month}.txt"],
                "params": ["bench.${item.model}", "eval.settings", "llm.ledger_compression"],
                "outs": ["out/${item.model}/${item.month}.txt"],
            },
            "score": {"cmd": "ls -R out > score.txt", "deps": ["out"], "outs": ["score.txt"]},
        }
    }
    (root / "dvc.yaml").write_text(yaml.safe_dump(pipeline, sort_keys=False))


def run(root: Path, argv: list[str], own: bool) -> float:
    cmd = (
        [sys.executable, "-c", OWN, *argv]
        if own
        else [str(Path(sys.executable).parent / "dvc"), *argv]
    )
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True)
    return round(time.perf_counter() - t0, 2)


def measure(root: Path, months: list[str], own: bool, scratch: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if scratch:
        out["scratch_s"] = run(root, ["repro", "-q"], own)
    out["noop_s"] = run(root, ["repro", "-q"], own)
    out["status_s"] = run(root, ["status", "-q"], own)
    month = root / "in" / f"{months[len(months) // 2]}.txt"
    month.write_text(month.read_text() + "changed\n")
    out["month_s"] = run(root, ["repro", "-q"], own)
    out["lock_lines"] = len((root / "dvc.lock").read_text().splitlines())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=8)
    ap.add_argument("--months", type=int, default=72)
    ap.add_argument("--dvc-own", action="store_true", help="also measure DVC's own code")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args(argv)
    months = [f"{2019 + i // 12}-{i % 12 + 1:02d}" for i in range(args.months)]
    base = Path(args.workdir or tempfile.mkdtemp(prefix="bench-dvc-stages-"))
    result: dict[str, Any] = {
        "stages": args.models * args.months + 1,
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()},
        "command": " ".join(["bench/bench_dvc_stages.py", *(argv or sys.argv[1:])]),
    }
    variants = [("environment", False)] + ([("dvc_own", True)] if args.dvc_own else [])
    locks = {}
    for name, own in variants:
        root = base / name
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        build(root, args.models, months)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        run(root, ["init", "-q"], own)
        result[name] = measure(root, months, own, scratch=True)
        locks[name] = (root / "dvc.lock").read_bytes()
        print(name, json.dumps(result[name]), flush=True)
    if len(locks) == 2:
        result["locks_identical"] = locks["environment"] == locks["dvc_own"]
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    data["dvc_stages"] = result
    RESULTS.write_text(json.dumps(data, indent=2, default=str) + "\n")
    print(json.dumps(result, indent=2))
    shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
