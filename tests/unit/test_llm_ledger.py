"""The response ledger: the key rule, durable appends, torn lines, concurrent writers, audit."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import threading
from pathlib import Path

import pytest

from prescient.llm.cli import stats, verify
from prescient.llm.ledger import Ledger, canonical_json, read_entries, request_key

MSGS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Will it rain?"}]


def entry(question: str, response: str | None = "A", error: str | None = None) -> dict[str, object]:
    """A well-formed entry (its key matches its request), as the gateway writes them."""
    msgs = [{"role": "user", "content": question}]
    return {
        "key": request_key("openai/x", msgs, {"temperature": 0}),
        "model": "x",
        "litellm_model": "openai/x",
        "messages": msgs,
        "params": {"temperature": 0},
        "response": response,
        "error": error,
    }


def test_key_is_sha256_of_the_canonical_request() -> None:
    payload = {
        "messages": MSGS,
        "model": "openai/gpt-4o-mini",
        "params": {"max_tokens": 16, "temperature": 0},
    }
    expected = hashlib.sha256(
        json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    assert request_key("openai/gpt-4o-mini", MSGS, {"temperature": 0, "max_tokens": 16}) == expected


def test_key_ignores_transport_fields_and_param_order_but_not_what_is_asked() -> None:
    base = request_key("openai/x", MSGS, {"temperature": 0, "max_tokens": 16})
    same = [
        request_key("openai/x", MSGS, {"max_tokens": 16, "temperature": 0}),
        request_key("openai/x", MSGS, {"temperature": 0.0, "max_tokens": 16}),  # 0 == 0.0
        request_key(
            "openai/x",
            MSGS,
            {"temperature": 0, "max_tokens": 16, "timeout": 9, "api_key": "k", "num_retries": 3},
        ),
        request_key("openai/x", MSGS, {"temperature": 0, "max_tokens": 16, "stop": None}),
        request_key("openai/x", tuple(MSGS), {"temperature": 0, "max_tokens": 16}),
    ]
    assert same == [base] * len(same)
    different = [
        request_key("openai/x", MSGS, {"temperature": 0.1, "max_tokens": 16}),
        request_key("openai/x", MSGS, {"temperature": 0, "max_tokens": 17}),
        request_key("openai/x", MSGS, {"temperature": 0, "max_tokens": 16, "seed": 1}),
        request_key("openai/y", MSGS, {"temperature": 0, "max_tokens": 16}),
        request_key(
            "openai/x",
            [MSGS[0], {"role": "user", "content": "Will it rain? "}],
            {"temperature": 0, "max_tokens": 16},
        ),
    ]
    assert len({base, *different}) == len(different) + 1


def test_only_successes_are_served_and_entries_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    led.append({"key": "a", "response": "A", "error": None})
    led.append({"key": "b", "response": None, "error": "RateLimitError: slow down"})
    assert led.get("a") == {"key": "a", "response": "A", "error": None}
    assert led.get("b") is None and len(led) == 1 and led.failed_entries == 1
    again = Ledger(path)
    assert again.get("a") is not None and again.get("b") is None and again.failed_entries == 1
    # A later success for the failed key is served from then on.
    again.append({"key": "b", "response": "B", "error": None})
    assert Ledger(path).get("b") == {"key": "b", "response": "B", "error": None}


def test_lines_are_canonical_json(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    entry = {"key": "k", "response": "é", "error": None, "usage": {"b": 2, "a": 1}}
    Ledger(path).append(entry)
    assert path.read_text(encoding="utf-8") == canonical_json(entry) + "\n"


def test_torn_last_line_is_skipped_on_read_and_cut_on_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    a, b, c = entry("a"), entry("b"), entry("c")
    Ledger(path).append(a)
    with open(path, "ab") as fh:
        fh.write(canonical_json(b).encode()[:40])  # a writer killed mid-line
    led = Ledger(path)
    assert led.get(str(a["key"])) == a and led.get(str(b["key"])) is None
    n, problems = verify([str(path)])
    assert n == 1 and len(problems) == 1 and "partial last line" in problems[0]
    led.append(c)
    assert list(read_entries(path)) == [a, c]
    assert [json.loads(line) for line in path.read_text().splitlines()] == [a, c]
    assert verify([str(path)]) == (2, [])


def test_concurrent_threads_do_not_corrupt_the_ledger(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    ledgers = [Ledger(path) for _ in range(3)]  # separate instances: flock between them
    shared = Ledger(path)  # one instance shared by threads: group commit

    def write(n: int, led: Ledger) -> None:
        for i in range(150):
            led.append({"key": f"{n}-{i}", "response": "x" * (i * 37 % 3000), "error": None})

    threads = [threading.Thread(target=write, args=(n, ledgers[n % 3])) for n in range(3)]
    threads += [threading.Thread(target=write, args=(n, shared)) for n in range(3, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = [e["key"] for e in read_entries(path)]
    assert len(keys) == 7 * 150 and len(set(keys)) == 7 * 150
    assert all(shared.get(f"{n}-149") is not None for n in range(3, 7))


def _write_from_process(path: str, n: int) -> None:
    led = Ledger(path)
    for i in range(100):
        led.append(entry(f"p{n}-{i}", response="y" * (i * 53 % 2000)))


def test_concurrent_processes_do_not_corrupt_the_ledger(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_from_process, args=(str(path), n)) for n in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert verify([str(path)]) == (300, [])
    assert len({e["key"] for e in read_entries(path)}) == 300
    assert Ledger(path).get(str(entry("p2-99")["key"])) is not None


def test_a_failed_write_raises_for_its_writer_and_serves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    led = Ledger(tmp_path / "l.jsonl")

    def disk_full(lines: list[bytes]) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(led, "_write", disk_full)
    with pytest.raises(OSError, match="could not append.*No space left"):
        led.append(entry("a"))
    assert led.get(str(entry("a")["key"])) is None
    monkeypatch.undo()
    led.append(entry("b"))  # the ledger is usable again once the disk is
    assert list(read_entries(tmp_path / "l.jsonl")) == [entry("b")]


def test_verify_flags_an_entry_whose_key_does_not_match(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    msgs = [{"role": "user", "content": "q"}]
    good = request_key("openai/x", msgs, {"temperature": 0})
    led = Ledger(path)
    base = {"litellm_model": "openai/x", "messages": msgs, "params": {"temperature": 0}}
    led.append({**base, "key": good, "response": "A", "error": None, "model": "x"})
    led.append({**base, "key": "0" * 64, "response": "B", "error": None, "model": "x"})
    with open(path, "ab") as fh:
        fh.write(b"not json\n")
    n, problems = verify([str(path)])
    assert n == 2 and len(problems) == 2
    assert "does not match" in problems[0] and "unreadable line" in problems[1]


def test_stats_count_models_tokens_cost_and_failure_reasons(tmp_path: Path) -> None:
    path = tmp_path / "s" / "stage.jsonl"
    led = Ledger(path)
    usage = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    led.append(
        {"key": "1", "model": "m", "response": "a", "error": None, "usage": usage, "cost": 0.5}
    )
    led.append({"key": "2", "model": "m", "response": None, "error": "RateLimitError: x"})
    led.append({"key": "3", "model": "m", "response": None, "error": "RateLimitError: y"})
    led.append({"key": "3", "model": "m", "response": "c", "error": None, "usage": usage})
    led.append({"key": "4", "model": "n", "response": None, "error": "Timeout: z"})
    out = stats([str(tmp_path)])  # a directory: every *.jsonl below it
    assert out["m"] == {
        "entries": 4,
        "ok": 2,
        "failed": 2,
        "prompt_tokens": 20,
        "completion_tokens": 6,
        "cost_usd": 0.5,
        "failures": {"RateLimitError": 2},
        "unresolved": 1,
    }
    assert out["n"]["failures"] == {"Timeout": 1} and out["n"]["unresolved"] == 1


def test_cli_stats_verify_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from prescient.cli import main

    path = tmp_path / "stage.jsonl"
    msgs = [{"role": "user", "content": "q"}]
    key = request_key("openai/x", msgs, {})
    Ledger(path).append(
        {"key": key, "model": "x", "litellm_model": "openai/x", "messages": msgs, "params": {},
         "response": "A", "error": None, "usage": {"prompt_tokens": 2}}
    )  # fmt: skip
    assert main(["ledger", "verify", str(path)]) == 0
    assert "1 entries checked, 0 problems" in capsys.readouterr().out
    assert main(["ledger", "stats", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["x"]["prompt_tokens"] == 2
    out = tmp_path / "all.csv"
    assert main(["ledger", "export", str(path), "--out", str(out)]) == 0
    import pandas as pd

    frame = pd.read_csv(out)
    assert list(frame["key"]) == [key] and json.loads(frame["messages"][0]) == msgs
    with open(path, "ab") as fh:
        fh.write(b'{"key": "torn')
    assert main(["ledger", "verify", str(path)]) == 1
    assert "partial last line" in capsys.readouterr().err
