"""The response store: answers outlive whatever DVC restores, and a stage's ledger is the
snapshot of exactly the answers its outputs came from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from prescient.llm.gateway import Gateway
from prescient.llm.ledger import read_entries, request_key
from prescient.llm.store import (
    StageLedger,
    entry_line,
    open_stage_ledger,
    run_log_path,
    store_path,
)
from prescient.llm.types import LLMRequest
from prescient.plumbing.cli import main as cli_main
from prescient.plumbing.llm_cli import read_runs, run_totals
from prescient.plumbing.locations import dvc_cache_dir
from tests.support.llm import llm_settings, model_spec

DVC = Path(sys.executable).parent / "dvc"


def project(root: Path, cache_dir: str | None = None) -> Path:
    (root / ".dvc").mkdir(parents=True)
    (root / ".dvc" / "config").write_text("[core]\n    analytics = false\n")
    if cache_dir is not None:
        (root / ".dvc" / "config.local").write_text(f"[cache]\n    dir = {cache_dir}\n")
    return root


def key(name: str) -> str:
    return request_key("openai/m", [{"role": "user", "content": name}], {})


def entry(name: str, response: str | None, error: str | None = None) -> dict[str, object]:
    """A well-formed entry for the request ``name`` (its key is its request's hash)."""
    messages = [{"role": "user", "content": name}]
    return {
        "key": key(name),
        "model": "m",
        "litellm_model": "openai/m",
        "messages": messages,
        "params": {},
        "response": response,
        "error": error,
    }


def test_the_store_sits_in_dvcs_cache_directory_at_the_ledgers_relative_path(
    tmp_path: Path,
) -> None:
    root = project(tmp_path / "p")
    ledger = root / "data/llm/evaluate/m.jsonl"
    assert store_path(ledger, dvc_cache_dir(root), root) == (
        root / ".dvc/cache/prescient/responses/data/llm/evaluate/m.jsonl"
    )
    # A workspace whose cache is elsewhere (DVC writes this for every temporary
    # experiment workspace) shares that cache's store; a relative entry is read from .dvc/.
    shared = project(tmp_path / "exp", cache_dir=str(root / ".dvc/cache"))
    assert store_path(
        shared / "data/llm/evaluate/m.jsonl", dvc_cache_dir(shared), shared
    ) == store_path(ledger, dvc_cache_dir(root), root)
    other = project(tmp_path / "q", cache_dir="../../shared-cache")
    assert store_path(other / "data/x.jsonl", dvc_cache_dir(other), other) == (
        tmp_path / "shared-cache/prescient/responses/data/x.jsonl"
    )
    # No DVC project, or a ledger outside it: the ledger is its own store.
    assert (
        store_path(
            tmp_path / "plain/x.jsonl", dvc_cache_dir(tmp_path / "plain"), tmp_path / "plain"
        )
        is None
    )
    assert store_path(tmp_path / "outside.jsonl", dvc_cache_dir(root), root) is None
    assert not isinstance(
        open_stage_ledger(tmp_path / "outside.jsonl", dvc_cache_dir(root), root), StageLedger
    )


def test_an_answer_survives_the_stage_ledger_being_restored(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    path = root / "data/llm/x.jsonl"
    first = StageLedger(path, store_path(path, dvc_cache_dir(root), root))  # type: ignore[arg-type]
    first.check_writable()
    first.append(entry("k1", "one"))
    first.append(entry("k2", None, error="timeout"))
    assert first.write_snapshot() == 2
    committed = path.read_bytes()
    second = StageLedger(path, store_path(path, dvc_cache_dir(root), root))  # type: ignore[arg-type]
    second.append(entry("k3", "three"))
    assert second.get(key("k1")) is not None
    second.write_snapshot()
    # DVC restores the committed ledger (dvc exp run, dvc checkout): k3 is still answered.
    path.write_bytes(committed)
    third = StageLedger(path, store_path(path, dvc_cache_dir(root), root))  # type: ignore[arg-type]
    third.check_writable()
    assert third.get(key("k3")) is not None and third.get(key("k3"))["response"] == "three"  # type: ignore[index]
    assert third.get(key("k2")) is None  # a failure is asked again
    assert key("k1") in third and key("k2") not in third


def test_the_snapshot_holds_exactly_the_used_entries_sorted_one_per_key(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    path = root / "data/llm/x.jsonl"
    ledger = StageLedger(path, store_path(path, dvc_cache_dir(root), root))  # type: ignore[arg-type]
    for name in ("c", "a", "b"):
        ledger.append(entry(name, name.upper()))
    ledger.close()
    again = StageLedger(path, store_path(path, dvc_cache_dir(root), root))  # type: ignore[arg-type]
    assert again.get(key("c")) is not None and again.get(key("a")) is not None
    assert again.get(key("zz")) is None
    again.write_snapshot()
    assert [e["key"] for e in read_entries(path)] == sorted([key("a"), key("c")])
    assert all(len(e["response_sha256"]) == 64 for e in read_entries(path))


def test_the_snapshot_holds_appended_lines_as_written_and_served_ones_as_the_writer_writes(
    tmp_path: Path,
) -> None:
    root = project(tmp_path / "p")
    path = root / "data/llm/x.jsonl"
    store = store_path(path, dvc_cache_dir(root), root)
    assert store is not None
    path.parent.mkdir(parents=True)
    old = {**entry("old", "from an old ledger"), "tags": {"ids": [1, 2]}}
    path.write_bytes(json.dumps(old).encode() + b"\n")  # not canonical, no answer hash
    ledger = StageLedger(path, store)
    ledger.check_writable()
    assert ledger.get(key("old"))["response"] == "from an old ledger"  # type: ignore[index]
    appended = [ledger.append(entry(name, name.upper())) for name in ("b", "a")]
    failed = ledger.append(entry("f", None, error="timeout"))
    assert ledger.get(key("a")) is not None  # served again: still the line appended
    ledger.write_snapshot()
    lines = path.read_bytes().splitlines(keepends=True)
    by_key = {json.loads(line)["key"]: line for line in lines}
    assert list(by_key) == sorted(by_key)
    assert by_key[key("a")] == appended[1] and by_key[key("b")] == appended[0]
    assert by_key[key("f")] == failed
    assert by_key[key("old")] == entry_line(old)
    assert appended[1] in store.read_bytes().splitlines(keepends=True)
    assert [e["key"] for e in ledger.used()] == list(by_key)


def test_the_stage_ledger_answers_before_the_store_and_is_copied_into_it(
    tmp_path: Path,
) -> None:
    """A pulled ledger reproduces its own answers even where this machine's store holds
    another answer to the same request (a model that is not deterministic)."""
    root = project(tmp_path / "p")
    path = root / "data/llm/x.jsonl"
    store = store_path(path, dvc_cache_dir(root), root)
    assert store is not None
    local = StageLedger(path, store)
    local.append(entry("k", "local answer"))
    local.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    from prescient.llm.store import write_entries

    write_entries(path, [entry("k", "pulled answer"), entry("p", "pulled only")])
    ledger = StageLedger(path, store)
    ledger.check_writable()
    assert ledger.imported == 1  # "p"; the store already answers "k"
    assert ledger.get(key("k"))["response"] == "pulled answer"  # type: ignore[index]
    assert {e["key"] for e in read_entries(store)} == {key("k"), key("p")}


def _gateway(root: Path, ledger: Path) -> Gateway:
    return Gateway(
        {"m": model_spec("m", "scripted/echo", concurrency=1)},
        ledger,
        stage="t",
        settings=llm_settings(progress=False),
        ledger=open_stage_ledger(ledger, dvc_cache_dir(root), root),
    )


def test_a_gateway_pays_once_across_restores_and_writes_what_it_used(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    ledger = root / "data/llm/t.jsonl"
    requests = [LLMRequest("m", [{"role": "user", "content": f"q{i}"}]) for i in range(4)]
    with _gateway(root, ledger) as gw:
        out = gw.complete_many(requests[:2])
        gw.finish()
    assert not any(r.from_ledger for r in out)
    committed = ledger.read_bytes()
    with _gateway(root, ledger) as gw:
        gw.complete_many(requests)
        gw.finish()
    ledger.write_bytes(committed)  # restored by DVC
    with _gateway(root, ledger) as gw:
        again = gw.complete_many(requests[1:])
        gw.finish()
        assert gw.stats.calls == 0
    assert all(r.from_ledger for r in again)
    assert [e["key"] for e in read_entries(ledger)] == sorted(r.key for r in again)
    by_key = {r.key: r.text for r in again}
    assert {e["key"]: e["response"] for e in read_entries(ledger)} == by_key
    # The run log: what each run sent and was served.
    log = run_log_path(dvc_cache_dir(root))
    assert log is not None
    runs = read_runs(log)
    assert [(r["sent"], r["served"], r["results"]) for r in runs] == [
        (2, 0, 2),
        (2, 2, 4),
        (0, 3, 3),
    ]
    assert run_totals(runs)["t"] == {
        "runs": 3,
        "sent": 4,
        "served": 5,
        "sent_failed": 0,
        "not_sent": 0,
        "prompt_tokens": 0,
        "completion_tokens": 4,  # the scripted echo counts a word as a token: "q0".."q3"
        "cost_usd": 0,
    }


def test_dvc_gc_leaves_the_store_alone(tmp_path: Path) -> None:
    if not DVC.exists():
        return
    root = tmp_path / "p"
    root.mkdir()
    subprocess.run([str(DVC), "init", "--no-scm", "-q"], cwd=root, check=True)
    path = root / "data/llm/x.jsonl"
    ledger = open_stage_ledger(path, dvc_cache_dir(root), root)
    assert isinstance(ledger, StageLedger)
    ledger.append(entry("k", "kept"))
    ledger.close()
    out = subprocess.run(
        [str(DVC), "gc", "-w", "-f"], cwd=root, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert [e["key"] for e in read_entries(ledger.store.path)] == [key("k")]


def test_the_estimate_counts_only_what_is_not_answered_by_hand(tmp_path: Path) -> None:
    from prescient.llm.fit import estimate_tokens
    from prescient.llm.planning import estimate
    from prescient.llm.prices import price

    rates = price("openai/gpt-4o-mini")
    assert rates is not None and rates[0] > 0
    gw = Gateway(
        {
            "priced": model_spec("priced", "openai/gpt-4o-mini"),
            "local": model_spec("local", "scripted/echo"),
        },
        tmp_path / "l.jsonl",
        stage="t",
        settings=llm_settings(progress=False),
    )
    asked = [{"role": "user", "content": "x" * 300}]  # 100 tokens + 8 by the estimate
    fresh = [{"role": "user", "content": "y" * 30}]  # 10 + 8
    with gw:
        gw.complete_many([LLMRequest("local", asked)])
        batch = [
            LLMRequest("local", asked),  # answered: not counted
            LLMRequest("priced", fresh),
            LLMRequest("priced", fresh),  # identical: one request
            LLMRequest("local", fresh),
        ]
        est = estimate(gw, batch)
    assert estimate_tokens(fresh) == 18
    assert (est.requests, est.to_send, est.prompt_tokens) == (4, 2, 36)
    assert est.max_completion_tokens == 512 * 2  # the entries' max_tokens
    # Only the priced model costs money; the scripted one runs in process.
    assert est.max_cost_usd == pytest.approx(rates[0] * 18 + rates[1] * 512)
    assert est.paid == 1 and "2 of 4 requests to send" in est.describe()
    with gw:
        local_only = estimate(gw, [LLMRequest("local", fresh)])
    assert local_only.max_cost_usd is None and "nothing to pay" in local_only.describe()


def test_the_run_log_reader_skips_and_names_any_line_that_is_not_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {"stage": "s", "sent": 2, "served": 1, "cost_usd": 0.5}
    lines = [
        json.dumps(good).encode(),
        b"",
        b"[" * 100_000 + b"]" * 100_000,  # deep nesting
        b'{"stage": "s", "sent": 1, "bad": "\xff"}',  # invalid UTF-8
        b"[1, 2]",
        b'{"stage": "s", "sent": "three"}',  # a count that is not a number
        b'{"stage": "s", "sent": true}',
        b'{"stage": "s", "sent": 1, "prompt_tokens"',  # torn
        json.dumps({**good, "sent": 1}).encode(),
    ]
    log = tmp_path / "runs.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    skipped: list[str] = []
    runs = read_runs(log, skipped)
    assert [r["sent"] for r in runs] == [2, 1]
    assert [s.split(":")[0] for s in skipped] == [f"line {n}" for n in (3, 4, 5, 6, 7, 8)]
    assert "nested too deeply" in skipped[0] and "not a number" in skipped[3]
    assert run_totals(runs)["s"]["sent"] == 3
    assert cli_main(["ledger", "runs", "--log", str(log)]) == 0
    err = capsys.readouterr().err
    assert "line 3: nested too deeply; skipped" in err and err.count("skipped") == 6


def test_a_snapshot_names_this_run_s_askers_whoever_wrote_the_answer_first(
    tmp_path: Path,
) -> None:
    def requests(tag: str) -> list[LLMRequest]:
        return [
            LLMRequest(
                "m",
                [{"role": "user", "content": f"q{i % 3}"}],  # q0 is asked twice
                template=f"t-{tag}",
                tags={"setting": tag, "i": str(i)},
            )
            for i in range(4)
        ]

    def snapshot(root: Path, *runs: str) -> bytes:
        ledger = root / "data/llm/t.jsonl"
        for tag in runs:
            ledger.unlink(missing_ok=True)  # as DVC restores an older snapshot
            with _gateway(root, ledger) as gw:
                gw.complete_many(requests(tag))
                gw.finish()
        return ledger.read_bytes()

    # History: the store got its answers under the old tags; a fresh clone never saw them.
    with_history = snapshot(project(tmp_path / "old"), "old", "new")
    fresh = snapshot(project(tmp_path / "fresh"), "new")
    assert with_history == fresh
    entries = {e["messages"][0]["content"]: e for e in map(json.loads, fresh.splitlines())}
    assert entries["q0"]["tags"] == {"setting": "new", "i": "0"}  # the first asker of q0
    assert entries["q1"]["template"] == "t-new"
    store = tmp_path / "old/.dvc/cache/prescient/responses/data/llm/t.jsonl"
    assert {e["tags"]["setting"] for e in read_entries(store)} == {"old"}  # answers kept
    # What the gateway writes of an asker is what the snapshot writes over: a fresh
    # clone's snapshot is its store's lines as they were appended.
    fresh_store = tmp_path / "fresh/.dvc/cache/prescient/responses/data/llm/t.jsonl"
    assert sorted(fresh.splitlines()) == sorted(fresh_store.read_bytes().splitlines())
