"""Benchmark: the real pipeline at a fraction of Daily Oracle's size, stage by stage.

Daily Oracle (ICML 2025) builds 31,510 questions from 1,246,973 articles of 2019-2024
and asks every model each of them closed-book, with the gold article and under RAG
cutoffs. This benchmark runs the project's own pipeline (``dvc repro``, stage by stage)
on a synthetic corpus of that shape (``bench/scale_corpus.py``: about 570 articles a
day, the shared corpus's length distribution, Zipf words) shrunk in time by a scale
fraction s: the last s of the paper's 2,192 days, so articles and questions both scale
linearly (1%: 22 days, 10%: 219 days, 100%: 2,192 days ending 2024-12-31).

The project is cloned (its committed state) into ``<workdir>/s<scale>/repo`` with this
checkout's virtual environment linked, and configured for the paper's budget: the
synthetic corpus (a JSON Lines corpus, ``conf/corpus/synthetic.yaml``), Daily Oracle's
own questions, every selected article built (six a day), eight evaluated models
(``scale_m0`` .. ``scale_m7``, each its own registry entry in the form of
``conf/model/local_openai_server.yaml``), two of them also writing the questions, and
the settings closed-book, gold and seven RAG cutoffs (evenly spaced over the span).
The models are one loopback OpenAI-compatible server process (aiohttp) answering every
model name with a valid scripted reply, a function of the request body alone
(``--latency-ms`` per request). The FreshBench BPC stage (the embedded model reading
whole texts, CPU-hours by itself) and OpenForecast's stages (their own corpus of event
chains, not Daily Oracle's scale) are left out of the DAG; ``plot`` and ``report``
read no BPC or OpenForecast tables.

The evaluation is split by month (``eval.partitions``, ``--partition month``; ``all``
for one stage per model), so each model answers each month in its own stage and the
daily update re-runs only the new day's month (the update's stages are recorded with
their wall times, and how many DVC skipped). For every stage (each
``evaluate@<model>-<month>`` separately): wall time, CPU time (user +
system of the stage's process tree, from ``os.wait4``), peak RSS (the largest single
process of the tree), and the bytes of its outputs (``dvc.lock``). After the run: the
disk used by the workspace (without ``.dvc/cache``), DVC's cache without the response
store, and the response store. Then a daily update (``python -m prescient update
--through <last day + 1>`` after the corpus gains one day, the earlier days' lines
unchanged), a no-op ``dvc repro``, and (``--compare-scratch``, on by default at 1%)
whether the update's outputs equal a run from scratch through the same day.

``--stages`` runs a subset (e.g. ``ingest,select,retrieve``); with
``--synthetic-questions`` the construction stage is replaced by a question table of
the paper's size and shape written directly (16,783 TF and 14,727 MC questions at
100%, scaled), for corpus-sized runs where construction's model calls would not fit
the time. ``--check-bm25 N`` compares N retrieved (question, cutoff) pairs with
rank-bm25 rebuilt on their visible articles. For corpora a stage cannot hold in memory:
``--mem-limit-gb`` caps each stage process's address space (a stage that outgrows the
machine fails alone); ``--write-articles-table CORPUS OUT`` writes the article table
with ingest's own rules, streaming, and ``--articles-table OUT`` uses it instead of the
ingest stage's; ``--engine-retrieval`` answers a kept scale's questions at every cutoff
with the library's BM25 index alone, its texts streamed (the retrieve stage's work
without its copies of the corpus). ``--markdown`` prints the tables of docs/scale.md.

    .venv/bin/python bench/bench_scale.py --scale 0.01 [--scale 0.1 ...] [--stages ...]
        [--keep] [--latency-ms 0] [--workdir /work/scale-work]

Results go to bench/results/scale.json (merged by scale) and a table to stdout. The
generated corpora stay in the work directory, never in the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import json
import math
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import scale_corpus  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "scale.json"
MODELS = [f"scale_m{i}" for i in range(8)]
# Construction: a small model for summary, filter and categories, a strong one for
# questions and distractors (the paper's split).
CONSTRUCT_MODELS = {
    "summary": "scale_m0",
    "generate": "scale_m1",
    "distract": "scale_m1",
    "filter": "scale_m0",
    "categorize": "scale_m0",
}
N_CUTOFFS = 7
# Left out of the scale DAG (see the module docstring).
EXCLUDED_STAGES = ("bpc", "chains", "of_samples", "of_predict", "lrae", "of_tables")
# The paper's question set: accepted shares per type that reproduce it from four
# candidates (2 TF, 2 MC) per built article (6 a day over 2,192 days).
PAPER_TF, PAPER_MC = 16_783, 14_727
ACCEPT_TF = PAPER_TF / (2 * 6 * scale_corpus.PAPER_DAYS)
ACCEPT_MC = PAPER_MC / (2 * 6 * scale_corpus.PAPER_DAYS)
NO_EVENT_SHARE = 0.03

# --- the loopback model server ---------------------------------------------------------


def _h(*parts: Any) -> int:
    return int(hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def _field(text: str, label: str) -> str:
    found = re.findall(rf"^{label}: (.*)$", text, re.M)
    return found[-1].strip() if found else ""


def _words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def scripted_reply(model: str, messages: list[dict[str, Any]]) -> str:
    """A valid reply to every prompt the pipeline sends, a function of its inputs."""
    system = str(messages[0]["content"]) if messages else ""
    text = str(messages[-1]["content"]) if messages else ""
    if system.startswith("You are a news analyst"):  # construction step 1
        title, date = _field(text, "Title"), _field(text, "Publication date")
        if _h("event", title, date) % 10_000 < NO_EVENT_SHARE * 10_000:
            return f"Summary: {title}.\nKey point: No new event reported."
        return f"Summary: {title}, reported on {date}.\nKey point: {title}, on {date}."
    if system.startswith("You write forecasting questions"):  # step 2
        key = _words(_field(text, "Key point"), 8).rstrip(".,")
        n = _h("generate", key)
        return "\n".join(
            [
                f"Question 1: Will it be reported that {key} by the end of this month?",
                "Answer 1: Yes",
                f"Question 2: Will the plan of {key} be cancelled by the end of this month?",
                "Answer 2: No",
                f"Question 3: Which town will host the event of {key} this month?",
                f"Answer 3: Town {n % 97}",
                f"Question 4: How many people will attend the event of {key} this month?",
                f"Answer 4: {n % 500 + 10} people",
            ]
        )
    if system.startswith("You write wrong but believable"):  # step 3
        q = _field(text, "Question")
        n = _h("distract", q)
        if q.startswith("How many"):
            return "\n".join(f"({c}) {n % 400 + 600 + 37 * i} people" for i, c in enumerate("bcd"))
        return "\n".join(f"({c}) Town {100 + 100 * i + n % 89}" for i, c in enumerate("bcd"))
    if system.startswith("You are a strict reviewer"):  # step 4: the principles' headings
        q = _field(text, "Question")
        share = ACCEPT_TF if q.startswith("Will") else ACCEPT_MC
        fail = _h("filter", q) % 10_000 >= share * 10_000
        heads = re.findall(r"^## (.+)$", text, re.M)
        out = []
        for i, head in enumerate(heads):
            out += [
                f"## {head}",
                "- Reasoning: stated in the article.",
                f"- Point: {0 if fail and i == 1 else 2}",
            ]
        return "\n".join(out)
    if system.startswith("You sort forecasting questions"):  # step 5
        cats = [c.strip() for c in text.split("Task:")[0].splitlines()[1:] if c.strip()]
        return cats[_h("category", _field(text, "Question")) % len(cats)] if cats else "Other"
    # Evaluation: a label, or a stated probability.
    n = _h(model, text)
    mc = "Options:" in text
    labels = re.findall(r"^\((\w)\) ", text, re.M) if mc else []
    if "Forecast:" in text:
        if mc and labels:
            p = [1 + (n >> (4 * i)) % 9 for i in range(len(labels))]
            pct = [round(100 * x / sum(p)) for x in p]
            return "\n".join(f"({c}) {v}%" for c, v in zip(labels, pct, strict=True))
        return f"P(Yes) = {n % 101}%"
    if mc and labels:
        return f"({labels[n % len(labels)]})"
    return "Yes" if n % 2 else "No"


def _logprob_positions(model: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    text = str(messages[-1]["content"]) if messages else ""
    labels = re.findall(r"^\((\w)\) ", text, re.M)
    options = [f"({c})" for c in labels] if labels else ["Yes", "No"]
    n = _h(model, "logprobs", text)
    weights = [1 + (n >> (4 * i)) % 9 for i in range(len(options))]
    total = sum(weights)
    top = sorted(
        ((o, math.log(w / total)) for o, w in zip(options, weights, strict=True)),
        key=lambda t: -t[1],
    )
    token, lp = top[0]
    return [
        {
            "token": token,
            "logprob": lp,
            "bytes": list(token.encode()),
            "top_logprobs": [{"token": t, "logprob": v, "bytes": list(t.encode())} for t, v in top],
        }
    ]


def serve(port: int, latency_s: float) -> None:
    """The loopback server (run in its own process, outside the measured stages)."""
    from aiohttp import web

    count = {"requests": 0}

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        count["requests"] += 1
        if latency_s:
            await asyncio.sleep(latency_s)
        model = str(body.get("model", ""))
        messages = body.get("messages", [])
        choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "logprobs": None}
        if body.get("logprobs"):
            positions = _logprob_positions(model, messages)
            content = "".join(p["token"] for p in positions)
            choice["logprobs"] = {"content": positions, "refusal": None}
        else:
            content = scripted_reply(model, messages)
        choice["message"] = {"role": "assistant", "content": content}
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in messages) // 4
        out = {
            "id": f"chatcmpl-{count['requests']}",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": 8,
                "total_tokens": prompt_tokens + 8,
            },
        }
        return web.json_response(out)

    async def stats(_request: web.Request) -> web.Response:
        return web.json_response(count)

    app = web.Application(client_max_size=64 * 2**20)
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_get("/stats", stats)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """The server process; a context manager."""

    def __init__(self, latency_ms: float, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        self.latency_ms = latency_ms
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        cmd = [
            sys.executable,
            __file__,
            "--serve",
            str(self.port),
            "--latency-ms",
            str(self.latency_ms),
        ]
        self.proc = subprocess.Popen(cmd, stdout=self.log.open("ab"), stderr=subprocess.STDOUT)
        import urllib.request

        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.05)
        raise SystemExit("the loopback model server did not start")

    def requests(self) -> int:
        import urllib.request

        raw = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=5).read()
        return int(json.loads(raw)["requests"])

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


# --- the scratch project ----------------------------------------------------------------


def environment(repo: Path) -> dict[str, str]:
    venv = ROOT / ".venv"
    env = dict(os.environ)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["PYTHONPATH"] = str(repo)
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def cutoffs(start: dt.date, end: dt.date) -> list[dt.date]:
    """Seven RAG cutoffs evenly spaced over the span (distinct days)."""
    span = (end - start).days + 1
    days = sorted(
        {
            start + dt.timedelta(days=round(k * span / (N_CUTOFFS + 1)))
            for k in range(1, N_CUTOFFS + 1)
        }
    )
    return days


def _dump(path: Path, obj: Any, package: str | None = None) -> None:
    head = f"# @package {package}\n" if package else ""
    path.write_text(head + yaml.safe_dump(obj, sort_keys=False))


def months(start: dt.date, end: dt.date) -> list[str]:
    """``YYYY-MM`` of every month from ``start`` to ``end``."""
    out, (y, m) = [], (start.year, start.month)
    while (y, m) <= (end.year, end.month):
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def configure(
    repo: Path,
    server_url: str,
    corpus_path: str,
    start: dt.date,
    end: dt.date,
    through: dt.date,
    partition: str = "month",
    ledger_compression: str = "zstd",
    glob: str | None = None,
) -> None:
    """Point the clone at the synthetic corpus, the loopback models and the paper's budget;
    the evaluation split by month (``partition``: ``month``) or not (``all``); the stages'
    ledger snapshots written as ``ledger_compression`` says (``llm.ledger_compression``;
    with ``zstd`` each stage also seals its response store file when it is done)."""
    conf = repo / "conf"
    corpus = yaml.safe_load((conf / "corpus/jsonl.yaml").read_text())
    corpus.update(name="synthetic", path=corpus_path, glob=glob)
    _dump(conf / "corpus/synthetic.yaml", corpus)
    entry = yaml.safe_load((conf / "model/local_openai_server.yaml").read_text())
    for i, name in enumerate(MODELS):
        e = dict(entry)
        e.update(
            name=name,
            display_name=f"Scale model {i}",
            litellm_model=f"hosted_vllm/scale-m{i}",
            api_base=server_url,
            knowledge_cutoff=(start + dt.timedelta(days=i * (end - start).days // 8)).isoformat(),
            release_date=(start + dt.timedelta(days=(i + 1) * (end - start).days // 8)).isoformat(),
            context_tokens=16384,
            concurrency=16,
            price={"prompt_usd_per_mtok": 0, "completion_usd_per_mtok": 0},
        )
        _dump(conf / f"model/{name}.yaml", e)
    config = yaml.safe_load((conf / "config.yaml").read_text())
    defaults = []
    for d in config["defaults"]:
        if isinstance(d, dict) and "corpus" in d:
            d = {"corpus": "synthetic"}
        elif isinstance(d, dict) and "questions" in d:
            d = {"questions": "daily_oracle"}
        elif isinstance(d, dict) and "budget" in d:
            d = {"budget": "paper"}
        defaults.append(d)
    defaults += [{f"model@models.{m}": m} for m in MODELS]
    config["defaults"] = defaults
    config["base"]["through"] = through.isoformat()
    config["llm"].update(progress=False, ledger_compression=ledger_compression)
    _dump(conf / "config.yaml", config)
    construct = yaml.safe_load((conf / "construct/default.yaml").read_text())
    construct["models"] = dict(CONSTRUCT_MODELS)
    _dump(conf / "construct/default.yaml", construct)
    ev = yaml.safe_load((conf / "eval/default.yaml").read_text())
    ev["models"] = list(MODELS)
    ev["settings"] = ["closed_book", "gold", *(f"rag_{c.isoformat()}" for c in cutoffs(start, end))]
    ev["partitions"] = months(start, through) if partition == "month" else ["all"]
    _dump(conf / "eval/default.yaml", ev)
    # one line, as `prescient update` extends it
    text = (conf / "eval/default.yaml").read_text()
    block = "partitions:\n" + "".join(f"- {p}\n" for p in ev["partitions"])
    assert block in text, "partitions not written as a block list"
    (conf / "eval/default.yaml").write_text(
        text.replace(block, f"partitions: [{', '.join(ev['partitions'])}]\n")
    )
    inputs = yaml.safe_load((conf / "analysis_inputs/pipeline.yaml").read_text())
    inputs.update(bpc="reports/tables", openforecast="reports/tables")
    _dump(conf / "analysis_inputs/pipeline.yaml", inputs, package="analysis")
    dvc_yaml = yaml.safe_load((repo / "dvc.yaml").read_text())
    for name in EXCLUDED_STAGES:
        dvc_yaml["stages"].pop(name, None)
    (repo / "dvc.yaml").write_text(yaml.safe_dump(dvc_yaml, sort_keys=False))


def checked(cmd: list[str], repo: Path, env: dict[str, str], what: str) -> str:
    """Run ``cmd`` in the clone; its stdout, or stop naming ``what`` and its output."""
    out = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{what} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out.stdout


def compose(repo: Path, env: dict[str, str]) -> None:
    checked([sys.executable, "-m", "prescient", "params", "compose"], repo, env, "params compose")


CACHE_TYPE: str | None = None
"""DVC's ``cache.type`` in the clones (``--cache-type``; None: DVC's default,
``reflink,copy``), set in each clone's ``.dvc/config.local``."""


def clone(repo: Path, env: dict[str, str]) -> None:
    if repo.exists():
        shutil.rmtree(repo)
    repo.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    (repo / ".venv").symlink_to(ROOT / ".venv")
    if CACHE_TYPE:
        dvc = str(ROOT / ".venv/bin/dvc")
        checked([dvc, "config", "--local", "cache.type", CACHE_TYPE], repo, env, "dvc config")


def stage_order(repo: Path, env: dict[str, str]) -> list[str]:
    dvc = [str(ROOT / ".venv/bin/dvc"), "repro", "--dry", "--force"]
    stdout = checked(dvc, repo, env, "dvc repro --dry")
    return [
        line.split("'")[1] for line in stdout.splitlines() if line.startswith("Running stage '")
    ]


MEM_LIMIT_GB: float | None = None
"""Address-space limit of every process a measured command starts (``--mem-limit-gb``),
so that a stage that outgrows the machine fails alone instead of waking the kernel's
out-of-memory killer."""


def _limit_memory() -> None:
    if MEM_LIMIT_GB:
        import resource

        cap = int(MEM_LIMIT_GB * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


_RUNNING = re.compile(rb"Running stage '([^']+)'")
_SKIPPED = re.compile(rb"Stage '([^']+)' didn't change, skipping")


def measured(
    cmd: list[str], cwd: Path, env: dict[str, str], log: Path, stages: bool = False
) -> dict[str, Any]:
    """Run ``cmd`` as a child; wall, CPU (user + sys of its reaped process tree) and
    the peak RSS of the largest process of the tree. With ``stages``, also the DVC
    stages it ran, each with its wall time (from DVC's "Running stage" line to the next
    stage's), and how many it skipped as unchanged."""
    with log.open("ab") as fh:
        fh.write(f"\n$ {' '.join(cmd)}\n".encode())
        fh.flush()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE if stages else fh,
            stderr=subprocess.STDOUT,
            preexec_fn=_limit_memory,
        )
        ran: list[tuple[str, float]] = []
        skipped = 0
        if stages:
            assert proc.stdout is not None
            for line in proc.stdout:
                fh.write(line)
                if m := _RUNNING.search(line):
                    ran.append((m.group(1).decode(), time.perf_counter() - t0))
                elif _SKIPPED.search(line):
                    skipped += 1
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    out: dict[str, Any] = {
        "rc": proc.returncode,
        "wall_s": round(wall, 2),
        "cpu_s": round(ru.ru_utime + ru.ru_stime, 2),
        "peak_rss_mb": round(ru.ru_maxrss / 1024, 1),
    }
    if stages:
        ends = [t for _, t in ran[1:]] + [wall]
        out["stages_run"] = {
            name: round(end - t, 2) for (name, t), end in zip(ran, ends, strict=True)
        }
        out["stages_skipped"] = skipped
    return out


def lock_bytes(repo: Path, stage: str) -> int:
    lock = yaml.safe_load((repo / "dvc.lock").read_text()) if (repo / "dvc.lock").exists() else {}
    entry = (lock or {}).get("stages", {}).get(stage, {})
    return int(sum(int(o.get("size", 0)) for o in entry.get("outs", [])))


def du(path: Path, exclude: tuple[Path, ...] = (), seen: set[tuple[int, int]] | None = None) -> int:
    """Bytes of the files under ``path`` (symbolic links not followed); with ``seen``, a
    file with several names (a hard link: DVC's cache and the workspace with
    ``cache.type hardlink``) counts where it is first met, once over every call sharing it."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        d = Path(dirpath)
        dirnames[:] = [n for n in dirnames if d / n not in exclude]
        for f in filenames:
            p = d / f
            if not p.is_symlink():
                st = p.stat()
                if seen is not None:
                    if (st.st_dev, st.st_ino) in seen:
                        continue
                    seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


def disk(repo: Path) -> dict[str, float]:
    """Disk after a run: the workspace, DVC's cache without the response store and the
    kept work, the response store (its ledgers, and its text pool), the kept work of
    every stage that keeps any (prescient/kept.py; retrieval's alone too), the stages'
    ledgers in the workspace (DVC's cache holds them again), and the distinct text the
    requests sent."""
    cache = repo / ".dvc" / "cache"
    store = cache / "prescient" / "responses"
    names = ("ingest", "select", "retrieval", "contexts", "score", "checksums")
    kept = tuple(cache / "prescient" / name for name in names)
    pool = cache / "prescient" / "texts.jsonl"
    mb = 2**20
    pool_bytes = pool.stat().st_size if pool.exists() else 0
    seen: set[tuple[int, int]] = set()  # a hard-linked output counts in the workspace
    return {
        "workspace_mb": round(du(repo, (cache, repo / ".git", repo / ".venv"), seen) / mb, 1),
        "dvc_cache_mb": round((du(cache, (store, *kept), seen) - pool_bytes) / mb, 1),
        "kept_work_mb": round(sum(du(k) for k in kept) / mb, 1),
        "retrieval_store_mb": round(du(kept[2]) / mb, 1),
        "response_store_mb": round(du(store) / mb, 1),
        "text_pool_mb": round(pool_bytes / mb, 1),
        "stage_ledgers_mb": round(du(repo / "data" / "llm") / mb, 1),
        "distinct_text_mb": round(distinct_text(store, pool) / mb, 1),
    }


def distinct_text(store: Path, pool: Path) -> int:
    """Bytes (UTF-8) of the text the store's distinct requests sent, each quoted article
    once: every distinct request's messages without the texts it quoted, and the pool's
    texts. (A store written before the pool counts every article it holds each time.)
    A store file's sealed part (zstd frames) is read as its lines."""
    from prescient.llm.ledger_file import open_lines

    seen: set[str] = set()
    total = 0
    for path in sorted(store.rglob("*.jsonl")):
        with open_lines(path) as fh:
            for raw in fh:
                try:
                    entry = json.loads(raw)
                except ValueError:
                    continue
                key = str(entry.get("key"))
                if key in seen:
                    continue
                seen.add(key)
                for message in entry.get("messages") or []:
                    total += len(str(message.get("content", "")).encode("utf-8", "surrogatepass"))
    if pool.exists():
        with open(pool, "rb") as fh:
            for raw in fh:
                total += len(json.loads(raw)["text"].encode("utf-8", "surrogatepass"))
    return total


# --- synthetic question table (corpus-sized runs without construction) -----------------


def synthetic_questions(repo: Path, start: dt.date, end: dt.date, scale: float) -> int:
    """A question table of the paper's size and shape in construct's format (questions
    from the titles of articles of their resolution day, six articles a day)."""
    import numpy as np
    import pandas as pd

    from prescient import io

    arts = io.read_table(
        repo / "data/interim/articles.parquet", columns=["article_id", "date", "title"]
    )
    rng = np.random.default_rng([scale_corpus.SEED, 9])
    n_tf = round(PAPER_TF * scale)
    n_mc = round(PAPER_MC * scale)
    pick = np.sort(rng.choice(len(arts), size=n_tf + n_mc, replace=False))
    rows = arts.iloc[pick].reset_index(drop=True)
    qtype = np.array(["tf"] * n_tf + ["mc"] * n_mc)
    rng.shuffle(qtype)
    out = []
    for i, (aid, day, title) in enumerate(
        zip(rows["article_id"], rows["date"], rows["title"], strict=True)
    ):
        key = " ".join(str(title).split()[:8])
        if qtype[i] == "tf":
            yes = bool(i % 2)
            q = f"Will it be reported that {key} by the end of this month?"
            choices, ans = ["Yes", "No"], 0 if yes else 1
        else:
            q = f"Which town will host the event of {key} this month?"
            choices = [f"Town {(i + 17 * k) % 400}" for k in range(4)]
            ans = i % 4
        out.append(
            {
                "question_id": hashlib.sha256(f"{aid}-{i}".encode()).hexdigest()[:16],
                "qtype": qtype[i],
                "question": q,
                "choices": choices,
                "answer_index": ans,
                "answer": choices[ans],
                "resolution_date": day,
                "article_id": aid,
                "category": "Other",
                "mc_type": "which" if qtype[i] == "mc" else None,
            }
        )
    table = pd.DataFrame(out)
    path = repo / "data/processed/questions.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_parquet(path, index=False)
    return len(table)


# --- the article table without the ingest stage (corpora too large for its memory) ----


def direct_articles(repo: Path, corpus: Path, through: dt.date, out: Path | None = None) -> int:
    """Write ``data/interim/articles.parquet`` from the synthetic corpus day by day with
    ingest's own normalisation and id functions, in the stage's columns, dtypes and
    order, streaming (constant memory). The synthetic corpus needs none of ingest's
    other rules (its URLs and texts are unique, its titles carry no masthead, every
    article is English: the language check keeps them all), so the table is the stage's
    own; ``--direct-articles`` checks that on a corpus the stage can ingest."""
    import gzip as gz

    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(repo))
    from prescient.corpus.ingest import articles_frame
    from prescient.corpus.normalize import (
        article_id,
        domain_of,
        normalize_text,
        normalize_title,
        normalize_url,
        text_hash,
    )
    from prescient.corpus.settings import IngestSettings
    from prescient.plumbing import params
    from prescient.settings import load_settings

    ing = load_settings(IngestSettings, params.load(repo / "params.yaml"), "ingest")
    lo, hi = ing.min_chars, ing.max_chars
    out = out or repo / "data/interim/articles.parquet"
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = None
    n = 0
    day: str | None = None
    rows: list[dict[str, Any]] = []

    def flush() -> None:
        nonlocal writer, n
        if not rows:
            return
        table = pa.Table.from_pandas(articles_frame(rows), preserve_index=False)
        if writer is None:
            writer = pq.ParquetWriter(out, table.schema)
        writer.write_table(table)
        n += len(rows)
        rows.clear()

    paths = sorted(corpus.glob("*.jsonl.gz")) if corpus.is_dir() else [corpus]

    def lines() -> Iterator[str]:
        for path in paths:
            with gz.open(path, "rt", encoding="utf-8") as fh:
                yield from fh

    for line in lines():
        o = json.loads(line)
        if o["date"] > through.isoformat():
            break
        if o["date"] != day:
            flush()
            day = o["date"]
        text, title = normalize_text(o["text"]), normalize_title(o["title"])
        if not lo < len(text) < hi:
            continue
        url = o["url"].strip()
        date = dt.date.fromisoformat(o["date"])
        rows.append(
            {
                "article_id": article_id(normalize_url(url), title, date),
                "date": date,
                "title": title,
                "text": text,
                "url": url,
                "source_domain": o["source_domain"].lower() or domain_of(url),
                "text_sha256": text_hash(text),
            }
        )
    flush()
    if writer is not None:
        writer.close()
    return n


# --- rank-bm25 check --------------------------------------------------------------------


def check_bm25(repo: Path, n_pairs: int, max_window: int) -> dict[str, Any]:
    """Compare the retrieval table with rank-bm25 rebuilt on the visible articles for
    ``n_pairs`` (question, cutoff) pairs, chosen at random among windows of at most
    ``max_window`` articles (rank-bm25 holds a dict per document: the whole corpus does
    not fit)."""
    import numpy as np
    import pandas as pd
    from rank_bm25 import BM25Okapi

    sys.path.insert(0, str(repo))
    from prescient.plumbing import params
    from prescient.retrieval.search import RetrievalSettings
    from prescient.retrieval.tokenize import Tokenizer
    from prescient.settings import load_settings

    settings = load_settings(RetrievalSettings, params.load(repo / "params.yaml"), "retrieval")
    tok = Tokenizer.from_settings(settings.tokenizer)
    ret = pd.read_parquet(repo / "data/interim/retrieval.parquet")
    qs = pd.read_parquet(
        repo / "data/interim/eval_questions.parquet", columns=["question_id", "question"]
    )
    qtext = dict(zip(qs["question_id"], qs["question"], strict=True))
    from prescient import io

    arts = io.read_table(repo / "data/interim/articles.parquet", columns=["article_id", "date"])
    days = np.array(pd.to_datetime(arts["date"]).to_numpy(), dtype="datetime64[D]")
    ends = np.array(pd.to_datetime(ret["window_end"]).to_numpy(), dtype="datetime64[D]")
    ret["n"] = np.searchsorted(days, ends, side="left")
    pairs = ret.drop_duplicates(["question_id", "rag_cutoff"])
    pairs = pairs[pairs["n"] <= max_window]
    if pairs.empty:
        return {"pairs": 0, "mismatches": 0, "note": "no window small enough"}
    rng = np.random.default_rng([scale_corpus.SEED, 11])
    pairs = pairs.iloc[
        np.sort(rng.choice(len(pairs), size=min(n_pairs, len(pairs)), replace=False))
    ]
    n_max = int(pairs["n"].max())
    # The first n_max articles only, streamed (the whole table may not fit in memory).
    docs: list[list[str]] = []
    pf = io.ParquetTable(repo / "data/interim/articles.parquet")
    for batch in pf.iter_batches(["title", "text"], batch_size=4096):
        for t, x in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True):
            if len(docs) < n_max:
                docs.append(tok(f"{t}\n{x}"))
        if len(docs) >= n_max:
            break

    ids = arts["article_id"].to_numpy()
    mismatches = compared = 0
    t0 = time.perf_counter()
    for n_key, group in pairs.groupby("n"):
        n = int(str(n_key))
        bm = BM25Okapi(
            docs[:n], k1=settings.bm25.k1, b=settings.bm25.b, epsilon=settings.bm25.epsilon
        )
        for qid, cut in zip(group["question_id"], group["rag_cutoff"], strict=True):
            q = tok(qtext[qid])
            scores = bm.get_scores(q)
            cand = [i for i in range(n) if any(t in bm.doc_freqs[i] for t in q)]
            cand.sort(key=lambda i: (-scores[i], -i))
            expected = [(ids[i], float(scores[i])) for i in cand[: settings.top_k]]
            mine = ret[(ret["question_id"] == qid) & (ret["rag_cutoff"] == cut)].sort_values("rank")
            got = list(zip(mine["article_id"], mine["score"].astype(float), strict=True))
            compared += 1
            mismatches += expected != got
    return {
        "pairs": compared,
        "mismatches": mismatches,
        "largest_window": n_max,
        "seconds": round(time.perf_counter() - t0, 1),
    }


# --- the retrieval engine alone (when the retrieve stage does not fit in memory) -----


def engine_retrieval(repo: Path, articles: Path) -> dict[str, Any]:
    """BM25 retrieval of every question at every RAG cutoff with the library's index
    (``PrefixBM25``, the visibility rule, ``top_k``), the texts streamed from the article
    table instead of held in a frame: what stage ``retrieve`` computes, without its
    copies of the corpus. Writes ``data/interim/retrieval.parquet`` and
    ``data/interim/eval_questions.parquet`` (for ``--check-bm25``) and returns timings."""
    import resource

    import numpy as np
    import pandas as pd

    sys.path.insert(0, str(repo))
    from prescient import io
    from prescient.dates import parse_rag_cutoff
    from prescient.plumbing import params
    from prescient.retrieval.bm25 import PrefixBM25
    from prescient.retrieval.search import RetrievalSettings
    from prescient.retrieval.tokenize import Tokenizer
    from prescient.retrieval.visibility import visible_window
    from prescient.settings import load_settings

    p = params.load(repo / "params.yaml")
    settings = load_settings(RetrievalSettings, p, "retrieval")
    cuts = [parse_rag_cutoff(x[4:]) for x in p["eval"]["settings"] if x.startswith("rag_")]
    tok = Tokenizer.from_settings(settings.tokenizer)
    meta = io.read_table(articles, columns=["article_id", "date"])
    days = np.array(pd.to_datetime(meta["date"]).to_numpy(), dtype="datetime64[D]")
    ids = meta["article_id"].to_numpy()
    fields = list(settings.fields)

    def tokens() -> Any:
        for batch in io.ParquetTable(articles).iter_batches(fields, batch_size=4096):
            cols = [batch.column(i).to_pylist() for i in range(len(fields))]
            for parts in zip(*cols, strict=True):
                yield tok("\n".join(str(x) for x in parts if x))

    t0 = time.perf_counter()
    c0 = time.process_time()
    checkpoints = [*np.searchsorted(days, np.unique(days), side="left").tolist(), len(days)]
    index = PrefixBM25(tokens(), settings.bm25, checkpoints=checkpoints)
    build_wall, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    qs = pd.read_parquet(repo / "data/interim/questions/daily_oracle.parquet")
    rows: dict[str, list[Any]] = {
        k: [] for k in ("question_id", "rag_cutoff", "rank", "article_id", "score", "window_end")
    }
    t0 = time.perf_counter()
    c0 = time.process_time()
    for cut in cuts:
        for qid, text, res in zip(
            qs["question_id"], qs["question"], qs["resolution_date"], strict=True
        ):
            w = visible_window(pd.Timestamp(res).date(), cut, gap_days=settings.gap_days)
            n = int(np.searchsorted(days, np.datetime64(w.end, "D"), side="left"))
            for rank, hit in enumerate(index.search(tok(str(text)), n, settings.top_k), 1):
                rows["question_id"].append(qid)
                rows["rag_cutoff"].append(cut.isoformat() if cut else "dynamic")
                rows["rank"].append(rank)
                rows["article_id"].append(ids[hit.doc])
                rows["score"].append(hit.score)
                rows["window_end"].append(w.end)
    query_wall, query_cpu = time.perf_counter() - t0, time.process_time() - c0
    out = repo / "data/interim"
    pd.DataFrame(rows).to_parquet(out / "retrieval.parquet", index=False)
    qs[["question_id", "question"]].to_parquet(out / "eval_questions.parquet", index=False)
    return {
        "articles": len(ids),
        "questions": len(qs),
        "cutoffs": len(cuts),
        "queries": len(qs) * len(cuts),
        "postings": int(len(index.post_docs)),
        "terms": index.n_terms,
        "index_wall_s": round(build_wall, 1),
        "index_cpu_s": round(build_cpu, 1),
        "query_wall_s": round(query_wall, 1),
        "query_cpu_s": round(query_cpu, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


# --- comparing an update with a run from scratch ---------------------------------------

COMPARED = (
    "data/processed/questions.parquet",
    "data/interim/eval_questions.parquet",
    "data/interim/retrieval.parquet",
    "data/processed/scores.parquet",
)


def compare_outputs(a: Path, b: Path) -> dict[str, Any]:
    import pandas as pd

    files = [*COMPARED]
    for p in sorted((a / "data/processed/predictions").rglob("*.parquet")):
        files.append(str(p.relative_to(a)))
    for p in sorted((a / "data/interim/partitions").rglob("*.parquet")):
        files.append(str(p.relative_to(a)))
    out: dict[str, Any] = {}
    for f in files:
        pa, pb = a / f, b / f
        if not pb.exists():
            out[f] = "missing from scratch run"
            continue
        if pa.read_bytes() == pb.read_bytes():
            out[f] = "identical bytes"
            continue
        da, db = pd.read_parquet(pa), pd.read_parquet(pb)
        if da.shape != db.shape or list(da.columns) != list(db.columns):
            out[f] = f"differs: shape {da.shape} vs {db.shape}"
            continue
        diff = [c for c in da.columns if not da[c].astype(str).equals(db[c].astype(str))]
        out[f] = "equal values, different bytes" if not diff else f"differs in columns {diff}"
    return out


# --- one scale --------------------------------------------------------------------------


def fmt_scale(s: float) -> str:
    return f"{s:g}"


def run_scale(args: argparse.Namespace, scale: float) -> dict[str, Any]:
    work = Path(args.workdir) / f"s{fmt_scale(scale)}"
    work.mkdir(parents=True, exist_ok=True)
    log = work / "run.log"
    start, end = scale_corpus.span_for_scale(scale)
    next_day = end + dt.timedelta(days=1)
    result: dict[str, Any] = {
        "scale": scale,
        "days": (end - start).days + 1,
        "span": [start.isoformat(), end.isoformat()],
        "partition": args.partition,
        "ledger_compression": args.ledger_compression,
        "cache_type": args.cache_type,
        "stages": {},
    }
    # Corpora: the span, and the span plus one day (the same lines for the shared days):
    # a daily feed (a file a day, the update adds one) or one file (replaced by the update).
    daily = args.corpus_layout == "daily"
    result["corpus_layout"] = args.corpus_layout
    feed = work / "corpus_daily"
    corpus_n = feed if daily else work / "corpus" / "news.jsonl.gz"
    corpus_n1 = feed if daily else work / "corpus_plus1" / "news.jsonl.gz"
    corpus_param = "data/raw/synthetic" if daily else "data/raw/synthetic/news.jsonl.gz"
    corpus_glob = "*.jsonl.gz" if daily else None
    t0 = time.perf_counter()
    if daily:
        if args.regenerate and feed.exists():
            shutil.rmtree(feed)
        counts = scale_corpus.write_daily(start, end, feed)
        result["corpus"] = counts | {"generate_s": round(time.perf_counter() - t0, 1)}
    elif not corpus_n.exists() or args.regenerate:
        counts = scale_corpus.write_corpus(start, end, corpus_n)
        result["corpus"] = counts | {"generate_s": round(time.perf_counter() - t0, 1)}
    else:
        result["corpus"] = {"gz_bytes": corpus_n.stat().st_size, "reused": True}
    print(f"[{scale:g}] corpus {start}..{end}: {result['corpus']}", flush=True)
    repo = work / "repo"
    env = environment(repo)
    dvc = str(ROOT / ".venv/bin/dvc")

    def place(project: Path, last: dt.date) -> None:
        """The corpus through ``last`` in ``project``: the feed's files hard-linked into
        its folder (regular files to DVC), or the one file linked."""
        if daily:
            folder = project / corpus_param
            folder.mkdir(parents=True, exist_ok=True)
            for day in scale_corpus.days(start, last):
                name = scale_corpus.day_file(day)
                if not (folder / name).exists():
                    os.link(feed / name, folder / name)
            return
        target = project / corpus_param
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.symlink_to(corpus_n if last == end else corpus_n1)

    with Server(args.latency_ms, work / "server.log") as server:
        clone(repo, env)
        place(repo, end)
        configure(
            repo,
            server.url,
            corpus_param,
            start,
            end,
            end,
            args.partition,
            args.ledger_compression,
            corpus_glob,
        )
        compose(repo, env)
        if args.articles_table:
            # A table written beforehand by direct_articles (see --articles-table).
            table_path = repo / "data/interim/articles.parquet"
            table_path.parent.mkdir(parents=True, exist_ok=True)
            os.link(args.articles_table, table_path)
            result["articles_table"] = str(args.articles_table)
        order = stage_order(repo, env)
        wanted = args.stages.split(",") if args.stages else None
        if wanted:
            order = [s for s in order if s in wanted or s.split("@", 1)[0] in wanted]
        if args.synthetic_questions:
            order = [s for s in order if s != "construct"]
        for name in order:
            if args.synthetic_questions and name.startswith("questions@"):
                n = synthetic_questions(repo, start, end, scale)
                print(f"[{scale:g}] synthetic question table: {n} questions", flush=True)
            before = server.requests()
            m = measured([dvc, "repro", "--single-item", name], repo, env, log)
            m["model_calls"] = server.requests() - before
            m["bytes_written"] = lock_bytes(repo, name)
            m["disk_mb"] = round(m["bytes_written"] / 2**20, 1)
            result["stages"][name] = m
            print(
                f"[{scale:g}] {name:32s} wall {m['wall_s']:8.1f} s  cpu {m['cpu_s']:8.1f} s  "
                f"rss {m['peak_rss_mb']:7.0f} MB  out {m['disk_mb']:8.1f} MB  calls {m['model_calls']}",
                flush=True,
            )
            if m["rc"] and name == "ingest" and args.direct_articles:
                result.setdefault("failed_stages", []).append(name)
                print(
                    f"[{scale:g}] ingest failed (rc {m['rc']}): writing the table directly",
                    flush=True,
                )
                t0 = time.perf_counter()
                n = direct_articles(repo, corpus_n, end)
                result["direct_articles"] = {
                    "rows": n,
                    "wall_s": round(time.perf_counter() - t0, 1),
                }
                print(f"[{scale:g}] direct article table: {result['direct_articles']}", flush=True)
                continue
            if m["rc"]:
                result.setdefault("failed_stages", []).append(name)
                result["failed_stage"] = name
                print(f"[{scale:g}] stage {name} failed (rc {m['rc']}); see {log}", flush=True)
                if not args.keep_going:
                    break
        if args.check_bm25 and (repo / "data/interim/retrieval.parquet").exists():
            result["bm25_check"] = check_bm25(repo, args.check_bm25, args.check_bm25_max_window)
            print(f"[{scale:g}] rank-bm25 check: {result['bm25_check']}", flush=True)
        for key, value in (
            json.loads((repo / "reports/metrics/construct.json").read_text()).items()
            if (repo / "reports/metrics/construct.json").exists()
            and "construct" in result["stages"]
            else []
        ):
            if key in ("articles", "questions", "accepted", "by_status", "funnel"):
                result.setdefault("construct_metrics", {})[key] = value
        qpath = repo / "data/interim/eval_questions.parquet"
        if qpath.exists():
            import pandas as pd

            q = pd.read_parquet(qpath, columns=["qtype"])
            result["questions"] = {str(k): int(v) for k, v in q["qtype"].value_counts().items()}
        apath = repo / "data/interim/articles.parquet"
        if apath.exists():
            from prescient import io

            with io.ParquetTable(apath) as table:
                result["articles"] = table.num_rows
        result["disk"] = disk(repo)
        save(scale, result)
        full = not wanted and not args.synthetic_questions and "failed_stage" not in result
        if full:
            # No-op: nothing changed.
            m = measured([dvc, "repro"], repo, env, log)
            result["noop_s"] = m["wall_s"]
            result["noop"] = m
            # Daily update: one more day of news.
            if daily:
                scale_corpus.write_daily(start, next_day, feed)
            elif not corpus_n1.exists() or args.regenerate:
                scale_corpus.write_corpus(start, next_day, corpus_n1)
            place(repo, next_day)
            before = server.requests()
            m = measured(
                [sys.executable, "-m", "prescient", "update", "--through", next_day.isoformat()],
                repo,
                env,
                log,
                stages=True,
            )
            m["model_calls"] = server.requests() - before
            result["update"] = m
            result["update_s"] = m["wall_s"] if m["rc"] == 0 else None
            print(f"[{scale:g}] update --through {next_day}: {m}", flush=True)
            result["disk_after_update"] = disk(repo)
            compare = args.compare_scratch if args.compare_scratch is not None else scale <= 0.01
            result["update_equals_scratch"] = None
            if compare and m["rc"] == 0:
                scratch = work / "scratch"
                clone(scratch, environment(scratch))
                senv = environment(scratch)
                place(scratch, next_day)
                configure(
                    scratch,
                    server.url,
                    corpus_param,
                    start,
                    end,
                    next_day,
                    args.partition,
                    args.ledger_compression,
                    corpus_glob,
                )
                compose(scratch, senv)
                ms = measured([dvc, "repro"], scratch, senv, log)
                result["scratch_through_next_day"] = ms
                if ms["rc"] == 0:
                    cmp = compare_outputs(repo, scratch)
                    result["update_vs_scratch"] = cmp
                    result["update_equals_scratch"] = all(
                        v in ("identical bytes", "equal values, different bytes")
                        for v in cmp.values()
                    )
                if not args.keep:
                    shutil.rmtree(scratch, ignore_errors=True)
    if not args.keep:
        shutil.rmtree(repo, ignore_errors=True)
    return result


# --- summary ----------------------------------------------------------------------------


def by_base(stages: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Matrix cells summed under their stage's name (peak RSS: the largest)."""
    out: dict[str, dict[str, float]] = {}
    for name, m in stages.items():
        base = name.split("@", 1)[0]
        agg = out.setdefault(
            base,
            {"wall_s": 0.0, "cpu_s": 0.0, "peak_rss_mb": 0.0, "disk_mb": 0.0, "bytes_written": 0},
        )
        agg["wall_s"] += m["wall_s"]
        agg["cpu_s"] += m["cpu_s"]
        agg["peak_rss_mb"] = max(agg["peak_rss_mb"], m["peak_rss_mb"])
        agg["disk_mb"] += m["disk_mb"]
        agg["bytes_written"] += m["bytes_written"]
    return out


def _exponent(t_lo: float, t_hi: float, s_lo: float, s_hi: float) -> float:
    return math.log(max(t_hi, 1e-3) / max(t_lo, 1e-3)) / math.log(s_hi / s_lo)


def per_cell(stages: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Stage name -> mean wall and CPU seconds per cell (one cell unless a matrix stage,
    such as evaluate's one cell per model), the largest peak RSS and the number of
    cells; successful runs only."""
    acc: dict[str, list[dict[str, Any]]] = {}
    for name, m in stages.items():
        if m.get("rc", 0) == 0:
            acc.setdefault(name.split("@", 1)[0], []).append(m)
    return {
        k: {
            "wall_s": sum(m["wall_s"] for m in v) / len(v),
            "cpu_s": sum(m["cpu_s"] for m in v) / len(v),
            "peak_rss_mb": max(m["peak_rss_mb"] for m in v),
            "cells": len(v),
        }
        for k, v in acc.items()
    }


def growth(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per stage (per cell of a matrix stage): the growth exponent log(t_hi / t_lo) /
    log(s_hi / s_lo) of wall time, CPU time and peak RSS over the two largest scales that
    ran it, and its projection to the paper's size (scale 1): measured when it ran
    there, else the largest scale's figure times (1 / s)^exponent (linear when only one
    scale ran it). ``full_total_*`` multiplies a matrix stage's cell by its cells."""
    per = {float(s): per_cell(r["stages"]) for s, r in results.items() if r.get("stages")}
    names: list[str] = []
    for s in sorted(per):
        names += [n for n in per[s] if n not in names]
    cells = {n: max(p[n]["cells"] for p in per.values() if n in p) for n in names}
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        have = sorted(s for s, p in per.items() if name in p)
        row: dict[str, Any] = {"scales": have}
        exps = {"wall_s": 1.0, "cpu_s": 1.0, "peak_rss_mb": 1.0}
        if len(have) >= 2:
            lo, hi = have[-2], have[-1]
            for key in exps:
                exps[key] = _exponent(per[lo][name][key], per[hi][name][key], lo, hi)
            row.update(
                exponent_between=[lo, hi],
                wall_exponent=round(exps["wall_s"], 2),
                cpu_exponent=round(exps["cpu_s"], 2),
                rss_exponent=round(exps["peak_rss_mb"], 2),
            )
        top = have[-1]
        f = 1.0 / top
        m = per[top][name]
        row["full_measured"] = top == 1.0
        for key, e in exps.items():
            row[f"full_{key}"] = round(m[key] * f**e, 1)
        row["cells"] = cells[name]
        row["full_total_wall_s"] = round(row["full_wall_s"] * cells[name], 1)
        row["full_total_cpu_s"] = round(row["full_cpu_s"] * cells[name], 1)
        out[name] = row
    return out


def markdown(data: dict[str, Any]) -> str:
    """The tables of docs/scale.md from a results file."""
    results, g = data["scales"], data["growth"]
    scales = sorted(results, key=float)
    lines = [
        "| stage | "
        + " | ".join(f"{float(s):.0%} wall s / CPU s / peak RSS MB / out MB" for s in scales)
        + " |"
    ]
    lines.append("| --- |" + " --- |" * len(scales))
    names: list[str] = []
    for s in scales:
        for st in by_base(results[s].get("stages", {})):
            if st not in names:
                names.append(st)
    for st in names:
        cells = []
        for s in scales:
            m = by_base(results[s].get("stages", {})).get(st)
            failed = any(
                n.split("@", 1)[0] == st and v.get("rc", 0)
                for n, v in results[s].get("stages", {}).items()
            )
            cells.append(
                ("failed: " if failed else "")
                + f"{m['wall_s']:.1f} / {m['cpu_s']:.1f} / {m['peak_rss_mb']:.0f} / {m['disk_mb']:.1f}"
                if m
                else "–"
            )
        lines.append(f"| {st} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| stage | scales | wall exp. | CPU exp. | RSS exp. | 100%: wall s | CPU s "
        "| peak RSS MB | cells | total wall s | how |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in g.items():
        how = "measured" if r["full_measured"] else "projected"
        lines.append(
            f"| {name} | {', '.join(f'{x:g}' for x in r['scales'])} "
            f"| {r.get('wall_exponent', '1 (assumed)')} | {r.get('cpu_exponent', '1 (assumed)')} "
            f"| {r.get('rss_exponent', '1 (assumed)')} | {r['full_wall_s']:.0f} "
            f"| {r['full_cpu_s']:.0f} | {r['full_peak_rss_mb']:.0f} | {r['cells']} "
            f"| {r['full_total_wall_s']:.0f} | {how} |"
        )
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    cpu = ""
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = 0
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) * 1024
    return {
        "cpu": cpu,
        "cores": len(os.sched_getaffinity(0)),
        "ram_gib": round(mem / 2**30, 1),
        "python": platform.python_version(),
    }


def table(results: dict[str, Any]) -> str:
    lines = [
        f"{'scale':>6} {'stage':16} {'wall s':>9} {'cpu s':>9} {'peak RSS MB':>12} {'out MB':>9}"
    ]
    for s, r in sorted(results.items(), key=lambda kv: float(kv[0])):
        for st, m in by_base(r.get("stages", {})).items():
            lines.append(
                f"{float(s):>6g} {st:16} {m['wall_s']:9.1f} {m['cpu_s']:9.1f} {m['peak_rss_mb']:12.0f} {m['disk_mb']:9.1f}"
            )
        extra = {k: r.get(k) for k in ("update_s", "noop_s", "update_equals_scratch") if k in r}
        if extra:
            lines.append(f"{float(s):>6g} {json.dumps(extra)}")
        if r.get("disk"):
            lines.append(f"{float(s):>6g} disk {json.dumps(r['disk'])}")
    return "\n".join(lines)


def save(scale: float, result: dict[str, Any]) -> dict[str, Any]:
    """Merge one scale's result into the results file (several runs may share it, and a
    run saves after its stages and again at the end, so a kill loses little)."""
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results: dict[str, Any] = data.get("scales", {})
    result["command"] = " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])
    results[fmt_scale(scale)] = result
    # other benchmarks' keys (bench/bench_dvc_stages.py's) are kept
    out = {**data, "machine": machine(), "scales": results, "growth": growth(results)}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2, default=str) + "\n")
    return results


def merge_engine(args: argparse.Namespace) -> None:
    """Add a scale's engine_retrieval.json (``--engine-retrieval``) to the results file."""
    scale = (args.scale or [1.0])[0]
    path = Path(args.workdir) / f"s{fmt_scale(scale)}" / "engine_retrieval.json"
    data = json.loads(RESULTS.read_text())
    data["scales"].setdefault(fmt_scale(scale), {"scale": scale, "stages": {}}).update(
        json.loads(path.read_text())
    )
    RESULTS.write_text(json.dumps(data, indent=2, default=str) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--scale", type=float, action="append", help="fraction of the paper's span (repeatable)"
    )
    ap.add_argument(
        "--stages",
        help="comma-separated stages (or cells: evaluate@scale_m0) to run (default: all)",
    )
    ap.add_argument(
        "--synthetic-questions",
        action="store_true",
        help="replace construction by a question table of the paper's shape",
    )
    ap.add_argument("--keep", action="store_true", help="keep the scratch projects")
    ap.add_argument(
        "--partition",
        choices=("month", "all"),
        default="month",
        help="eval.partitions: by month (default) or one partition",
    )
    ap.add_argument(
        "--ledger-compression",
        choices=("none", "zstd"),
        default="zstd",
        help="llm.ledger_compression of the runs (default zstd, as at the paper's size: "
        "compressed snapshots and sealed store files)",
    )
    ap.add_argument(
        "--cache-type",
        help="DVC's cache.type in the clones (e.g. hardlink; default: DVC's, reflink,copy)",
    )
    ap.add_argument(
        "--latency-ms", type=float, default=0.0, help="loopback model latency per request"
    )
    ap.add_argument(
        "--workdir", default="/tmp/prescient-scale", help="where corpora and projects go"
    )
    ap.add_argument("--regenerate", action="store_true", help="write the corpora even if present")
    ap.add_argument(
        "--corpus-layout",
        choices=("daily", "single"),
        default="daily",
        help="the corpus as a daily feed, a file a day that the update adds one to "
        "(default), or as one file that the update replaces by the one a day longer",
    )
    ap.add_argument(
        "--compare-scratch",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="compare the update with a run from scratch (default: at 1%% and below)",
    )
    ap.add_argument(
        "--check-bm25",
        type=int,
        default=0,
        metavar="N",
        help="compare N retrieved pairs with rank-bm25",
    )
    ap.add_argument(
        "--check-bm25-max-window",
        type=int,
        default=60_000,
        help="largest visible window (articles) rank-bm25 is rebuilt on",
    )
    ap.add_argument(
        "--mem-limit-gb", type=float, help="address-space limit of each stage process (GiB)"
    )
    ap.add_argument(
        "--direct-articles",
        action="store_true",
        help="when ingest fails, write its table directly from the corpus and go on",
    )
    ap.add_argument(
        "--articles-table",
        help="an article table written by --write-articles-table: used instead of ingest's",
    )
    ap.add_argument(
        "--write-articles-table",
        nargs=2,
        metavar=("CORPUS", "OUT"),
        help="write the article table of a synthetic corpus directly (streaming) and exit",
    )
    ap.add_argument(
        "--engine-retrieval",
        action="store_true",
        help="retrieval of a kept scale's questions with the index alone, texts streamed",
    )
    ap.add_argument(
        "--merge-engine", action="store_true", help="add engine_retrieval.json to the results"
    )
    ap.add_argument("--keep-going", action="store_true", help="run the next stages after a failure")
    ap.add_argument(
        "--markdown", action="store_true", help="print docs tables from the results file"
    )
    ap.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.engine_retrieval:
        repo = Path(args.workdir) / f"s{fmt_scale((args.scale or [1.0])[0])}" / "repo"
        r = {"engine_retrieval": engine_retrieval(repo, Path(args.articles_table))}
        print(json.dumps(r), flush=True)
        if args.check_bm25:
            r["bm25_check"] = check_bm25(repo, args.check_bm25, args.check_bm25_max_window)
            print(json.dumps(r["bm25_check"]), flush=True)
        (repo.parent / "engine_retrieval.json").write_text(json.dumps(r, indent=2) + "\n")
        merge_engine(args)
        return 0
    if args.merge_engine:
        merge_engine(args)
        return 0
    if args.write_articles_table:
        corpus, out = map(Path, args.write_articles_table)
        t0 = time.perf_counter()
        n = direct_articles(ROOT, corpus, scale_corpus.PAPER_END, out)
        print(json.dumps({"rows": n, "wall_s": round(time.perf_counter() - t0, 1)}))
        return 0
    if args.markdown:
        data = json.loads(RESULTS.read_text())
        data["growth"] = growth(data["scales"])
        print(markdown(data))
        return 0
    if args.serve is not None:
        serve(args.serve, args.latency_ms / 1000)
        return 0
    global MEM_LIMIT_GB, CACHE_TYPE
    MEM_LIMIT_GB = args.mem_limit_gb
    CACHE_TYPE = args.cache_type
    if Path(args.workdir).resolve().is_relative_to(ROOT):
        raise SystemExit("--workdir must be outside the repository")
    results: dict[str, Any] = {}
    for scale in args.scale or [0.01]:
        results = save(scale, run_scale(args, scale))
    print(table(results))
    print(json.dumps(growth(results), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
