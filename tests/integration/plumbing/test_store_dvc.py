"""A paid call is paid once, whatever DVC command ran or was killed.

A scratch DVC project (git, the evaluation stages copied verbatim from dvc.yaml, the
fixture corpus) evaluates a model served by a real HTTP server on 127.0.0.1 that counts
what it is asked. DVC restores the stage's ledger to its committed state before every
``dvc exp run`` and in every queued experiment's workspace; the answers live in the
response store under DVC's cache, which none of that touches."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from prescient.llm.cache import window_size
from prescient.llm.ledger import read_entries
from prescient.plumbing import params
from prescient.plumbing.llm_cli import read_runs, run_totals
from tests.conftest import ROOT
from tests.fixtures.eval import scratch_eval_project
from tests.support.fake_openai import FakeOpenAI
from tests.support.queue import run_queue

BIN = Path(sys.executable).parent
DVC = BIN / "dvc"
MODEL = "srv"
SWEEP = "eval.settings=[closed_book,gold,rag_dynamic]"


def env(root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }


def sh(root: Path, *args: str, timeout: int = 600) -> str:
    out = subprocess.run(
        args, cwd=root, env=env(root), capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, f"{args}: {out.stdout}{out.stderr}"
    return out.stdout


def git(root: Path, *args: str) -> str:
    return sh(root, "git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args)


def write_params(root: Path, url: str, compression: str = "none") -> None:
    p: dict[str, Any] = params.compose(ROOT, ["questions=daily_oracle"])
    entry = dict(p["models"]["local_openai_server"])
    entry.update(name=MODEL, display_name=MODEL, litellm_model=f"hosted_vllm/{MODEL}")
    entry.update(api_base=url, concurrency=1)
    p["models"][MODEL] = entry
    p["eval"]["models"] = [MODEL]
    p["eval"]["settings"] = ["closed_book"]
    p["eval"]["elicitation"] = ["label"]  # one request per question and setting
    p["llm"]["progress"] = False
    p["llm"]["ledger_compression"] = compression  # zstd: store files sealed when done
    (root / "params.yaml").write_text(yaml.safe_dump(p))


def prompt(body: dict[str, Any]) -> str:
    """A request as the server saw it (messages and reply length: what its key hashes)."""
    return json.dumps([body["messages"], body.get("max_tokens")], sort_keys=True)


def stored(root: Path) -> set[str]:
    """The requests the response store has answers for (its file and its sealed part)."""
    store = root / ".dvc/cache/prescient/responses/data/llm/evaluate" / MODEL
    return {
        json.dumps([e["messages"], e["params"].get("max_tokens")], sort_keys=True)
        for name in ("all.jsonl", "all.sealed.jsonl")
        for e in read_entries(store / name)
        if e.get("error") is None
    }


def queue(root: Path, *overrides: str, name: str | None = None) -> None:
    """``dvc exp run --queue`` with ``-S`` overrides (and a name)."""
    command = [str(DVC), "exp", "run", "--queue", *(["-n", name] if name else [])]
    sh(root, *command, *(a for o in overrides for a in ("-S", o)))


def killed_exp_run(root: Path, server: FakeOpenAI, command: list[str], after: int) -> None:
    """Start ``command`` and SIGKILL its process group once the server has been asked
    ``after`` more requests."""
    start = server.requests
    proc = subprocess.Popen(
        command,
        cwd=root,
        env=env(root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while server.requests - start < after and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize("compression", ["none", "zstd"])
def test_killed_experiments_queued_sweeps_and_checkouts_never_pay_twice(
    tmp_path: Path, compression: str
) -> None:
    if not DVC.exists() or shutil.which("git") is None:
        pytest.skip("dvc or git is not installed")
    rng = random.Random(7)
    with FakeOpenAI(latency_s=0.3, answer=lambda messages: "Yes") as server:
        root = scratch_eval_project(tmp_path / "proj", ROOT, git=True)
        write_params(root, server.url, compression)
        sh(root, str(DVC), "repro", "score")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "closed book")
        baseline = server.requests
        assert baseline == 4 and len(stored(root)) == 4
        store = root / ".dvc/cache/prescient/responses/data/llm/evaluate" / MODEL
        if compression == "zstd":  # the stage sealed its store file when it was done
            assert (store / "all.jsonl").read_bytes() == b""
            assert len(list(read_entries(store / "all.sealed.jsonl"))) == 4

        # dvc exp run, killed at a random moment of the evaluate stage, then run again.
        # Each round asks for replies of another length, so all 12 of its requests are new.
        for n in range(3):
            command = [str(DVC), "exp", "run", "-S", SWEEP]
            command += ["-S", f"eval.generation.max_tokens={20 + n}"]
            killed_exp_run(root, server, command, after=rng.randint(1, 10))
            answered = stored(root)
            assert 4 < len(answered) < 4 + 12 * (n + 1), "the kill should land mid-stage"
            before = len(server.bodies)
            sh(root, *command)
            again = {prompt(b) for b in server.bodies[before:]}
            assert again and not again & answered, "an answered request was paid again"
            assert len(stored(root)) == 4 + 12 * (n + 1)
            # The next kill starts from the committed state, as a user's retry would.
            git(root, "checkout", "--", "params.yaml", "dvc.lock")
            sh(root, str(DVC), "checkout", "--force")
        sent = Counter(prompt(b) for b in server.bodies)
        paid_twice = [p for p, n in sent.items() if n > 1]
        # A kill loses the replies its process held claims on but had not yet stored:
        # at most its claim window (calls in flight plus answers waiting for their
        # ledger write), so at most that many requests per kill were asked twice.
        assert len(paid_twice) <= 3 * window_size((MODEL, 1)), paid_twice
        sweep_prompts = set(sent)

        # A queued sweep of three RAG cutoffs, two workers at once: each distinct
        # prompt reaches the server once, across all experiments.
        before = len(server.bodies)
        cutoffs = ("2024-03-08", "2024-03-10", "2024-03-12")
        for cutoff in cutoffs:
            queue(root, f"eval.settings=[closed_book,gold,rag_{cutoff}]", name=f"rag-{cutoff}")
        status = run_queue(sh, root, 2, 400)
        assert status.count("Success") == 3, status
        queued = Counter(prompt(b) for b in server.bodies[before:])
        assert queued and max(queued.values()) == 1, "a prompt was paid twice in the queue"
        assert not set(queued) & sweep_prompts, "the queue paid for an answered prompt"
        # The store's run log says what each experiment sent, by name.
        by_experiment = run_totals(
            read_runs(root / ".dvc/cache/prescient/runs.jsonl"), "experiment"
        )
        names = [f"rag-{c}" for c in cutoffs]
        assert sum(by_experiment[n]["sent"] for n in names) == len(queued)

        # Back and forth in history: git checkout of the older commit, dvc checkout,
        # back, dvc repro: every answer comes from the store.
        sh(root, str(DVC), "exp", "run", "-S", SWEEP)
        git(root, "add", "-A")
        git(root, "commit", "-qm", "three settings")
        lock = (root / "dvc.lock").read_text()
        before = server.requests
        git(root, "checkout", "-q", "HEAD~1")
        sh(root, str(DVC), "checkout", "--force")
        git(root, "checkout", "-q", "-")
        sh(root, str(DVC), "repro", "score")
        assert server.requests == before
        # The same answers give the same stage ledger, byte for byte.
        assert (root / "dvc.lock").read_text() == lock
        assert git(root, "status", "--porcelain") == ""
        if compression == "zstd":  # sealed again as the runs went on
            assert len(list(read_entries(store / "all.sealed.jsonl"))) > 4 + 36
