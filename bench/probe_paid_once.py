"""Probe: is a paid call paid once when `dvc exp run` or a queue worker is SIGKILLed?

A scratch DVC project (the evaluation stages of dvc.yaml, the test corpus) evaluates a
model served by a loopback HTTP server that records every request. Each round runs
``dvc exp run`` with a reply length no earlier round used (so all its requests are new),
SIGKILLs its process group once the server has been asked a random number of requests,
then runs the identical command to completion and counts the requests it made for keys
the response store had already answered (should be 0). Then the same with a queue
worker: two queued experiments, the worker and its stage killed mid-stage, and the
experiments run again.

    python bench/probe_paid_once.py --kills 10

Prints one line per round and a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.eval import scratch_eval_project  # noqa: E402
from tests.integration.plumbing.test_store_dvc import (  # noqa: E402
    DVC,
    SWEEP,
    env,
    git,
    killed_exp_run,
    prompt,
    queue,
    sh,
    stored,
    write_params,
)
from tests.support.fake_openai import FakeOpenAI  # noqa: E402


def rerun_counts(root: Path, server: FakeOpenAI, command: list[str]) -> dict[str, int]:
    answered = stored(root)
    before = len(server.bodies)
    sh(root, *command)
    again = [prompt(b) for b in server.bodies[before:]]
    return {
        "answered_at_kill": len(answered),
        "rerun_requests": len(again),
        "rerun_paid_again": sum(p in answered for p in again),
    }


def kill_worker(root: Path, server: FakeOpenAI, lengths: list[int], after: int) -> None:
    """Queue one experiment per reply length, start one worker, SIGKILL the worker and
    every stage process once the server has been asked ``after`` requests."""
    for n in lengths:
        queue(root, SWEEP, f"eval.generation.max_tokens={n}")
    start = server.requests
    # `dvc queue start` may return only once its worker is done: do not wait for it.
    starter = subprocess.Popen(
        [str(DVC), "queue", "start", "-j", "1"],
        cwd=root,
        env=env(root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while server.requests - start < after:
        assert time.monotonic() < deadline, "the worker never asked the server"
        time.sleep(0.005)
    out = subprocess.run(
        ["pgrep", "-f", "queue-worker|stages.evaluate"], capture_output=True, text=True
    )
    for pid in map(int, out.stdout.split()):
        try:  # only this project's processes: their working directory is under it
            if os.readlink(f"/proc/{pid}/cwd").startswith(str(root)):
                os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, FileNotFoundError, PermissionError):
            pass
    starter.wait()
    subprocess.run(
        [str(DVC), "queue", "stop", "--kill"], cwd=root, env=env(root), capture_output=True
    )
    subprocess.run(
        [str(DVC), "queue", "remove", "--all"], cwd=root, env=env(root), capture_output=True
    )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rounds = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeOpenAI(latency_s=0.3, answer=lambda m: "Yes") as server,
    ):
        root = scratch_eval_project(Path(tmp) / "proj", ROOT, git=True)
        write_params(root, server.url)
        sh(root, str(DVC), "repro", "score")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "closed book")
        for n in range(args.kills):
            command = [
                str(DVC),
                "exp",
                "run",
                "-S",
                SWEEP,
                "-S",
                f"eval.generation.max_tokens={20 + n}",
            ]
            after = rng.randint(1, 10)
            killed_exp_run(root, server, command, after)
            counts = {
                "kind": "dvc exp run",
                "killed_after": after,
                **rerun_counts(root, server, command),
            }
            rounds.append(counts)
            print(json.dumps(counts), flush=True)
            git(root, "checkout", "--", "params.yaml", "dvc.lock")
            sh(root, str(DVC), "checkout", "--force")
        lengths = [100, 101]
        after = rng.randint(3, 12)
        kill_worker(root, server, lengths, after)
        answered = stored(root)
        before = len(server.bodies)
        for n in lengths:
            sh(root, str(DVC), "exp", "run", "-S", SWEEP, "-S", f"eval.generation.max_tokens={n}")
        again = [prompt(b) for b in server.bodies[before:]]
        counts = {
            "kind": "queue worker",
            "killed_after": after,
            "answered_at_kill": len(answered),
            "rerun_requests": len(again),
            "rerun_paid_again": sum(p in answered for p in again),
        }
        rounds.append(counts)
        print(json.dumps(counts), flush=True)
        twice = sum(1 for c in Counter(prompt(b) for b in server.bodies).values() if c > 1)
    summary = {
        "rounds": len(rounds),
        "paid_again_after_answer": sum(r["rerun_paid_again"] for r in rounds),
        "requests_asked_twice": twice,
        "server_requests": len(server.bodies),
    }
    print(json.dumps(summary))
    return 0 if summary["paid_again_after_answer"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
