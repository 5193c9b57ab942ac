"""The response ledger: the key rule, durable appends, torn lines, concurrent writers,
damaged and forged lines, the audit."""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prescient.llm.ledger import (
    Ledger,
    canonical_json,
    read_entries,
    request_key,
    response_hash,
    with_response_hash,
)
from prescient.plumbing.llm_cli import audit, stats, verify

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


def written(e: dict[str, object]) -> dict[str, object]:
    """The entry as the ledger writes it: with the hash of its answer."""
    return dict(with_response_hash(e))


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


def test_values_of_other_types_key_as_the_json_they_equal() -> None:
    """Subclasses and other mappings and sequences key as the plain JSON values they equal
    (exact types take a fast path; everything else the general one)."""
    from collections import OrderedDict
    from enum import IntEnum

    class Text(str):
        pass

    class Level(IntEnum):
        HIGH = 3

    class Ratio(float):
        pass

    msgs = [OrderedDict(role=Text("user"), content="Will it rain?")]
    params = {
        "temperature": Ratio(1.0),
        "top_p": -0.0,
        "stop": ("a", Text("b")),
        "logit_bias": {5: -1.0, Text("7"): 2.5},
        "n": Level.HIGH,
        "flag": True,
        "extra": [1.0, (2.0, {"x": 0.5})],
    }
    text = (
        '{"messages":[{"content":"Will it rain?","role":"user"}],"model":"openai/x",'
        '"params":{"extra":[1,[2,{"x":0.5}]],"flag":true,"logit_bias":{"5":-1,"7":2.5},'
        '"n":3,"stop":["a","b"],"temperature":1,"top_p":0}}'
    )
    assert request_key("openai/x", msgs, params) == hashlib.sha256(text.encode()).hexdigest()


def test_only_successes_are_served_and_entries_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    a, b = entry("a"), entry("b", response=None, error="RateLimitError: slow down")
    ka, kb = str(a["key"]), str(b["key"])
    led.append(a)
    led.append(b)
    assert led.get(ka) == written(a)
    assert led.get(kb) is None and len(led) == 1 and led.failed_entries == 1
    again = Ledger(path)
    assert again.get(ka) == written(a) and again.get(kb) is None and again.failed_entries == 1
    # A later success for the failed key is served from then on.
    again.append(entry("b", response="B"))
    assert Ledger(path).get(kb) == written(entry("b", response="B"))


def test_the_first_answer_stays_served(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    led.append(entry("a", response="first"))
    led.append(entry("a", response="second"))  # a race between two old processes
    key = str(entry("a")["key"])
    assert led.get(key) == written(entry("a", response="first"))
    assert Ledger(path).get(key) == written(entry("a", response="first"))
    n, problems = verify([str(path)])
    assert n == 2 and problems == [
        f"{path}:2: a different answer to the request answered on line 1 (that one is served)"
    ]


def test_lines_are_canonical_json(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    entry = {"key": "k", "response": "é", "error": None, "usage": {"b": 2, "a": 1}}
    Ledger(path).append(entry)
    # The answer's hash, by hand: sha256 of the canonical JSON of the four answer fields.
    answer = '{"error":null,"finish_reason":null,"response":"é","usage":{"a":1,"b":2}}'
    with_hash = {**entry, "response_sha256": hashlib.sha256(answer.encode()).hexdigest()}
    assert path.read_text(encoding="utf-8") == canonical_json(with_hash) + "\n"


def test_torn_last_line_is_skipped_on_read_and_cut_on_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    a, b, c = entry("a"), entry("b"), entry("c")
    Ledger(path).append(a)
    with open(path, "ab") as fh:
        fh.write(canonical_json(b).encode()[:40])  # a writer killed mid-line
    led = Ledger(path)
    assert led.get(str(a["key"])) == written(a) and led.get(str(b["key"])) is None
    n, problems = verify([str(path)])
    assert n == 1 and len(problems) == 1 and "partial last line" in problems[0]
    led.append(c)
    assert list(read_entries(path)) == [written(a), written(c)]
    assert [json.loads(line) for line in path.read_text().splitlines()] == [written(a), written(c)]
    assert verify([str(path)]) == (2, [])


def test_concurrent_threads_do_not_corrupt_the_ledger(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    ledgers = [Ledger(path) for _ in range(3)]  # separate instances: flock between them
    shared = Ledger(path)  # one instance shared by threads: group commit

    def write(n: int, led: Ledger) -> None:
        for i in range(150):
            led.append(entry(f"{n}-{i}", response="x" * (i * 37 % 3000)))

    threads = [threading.Thread(target=write, args=(n, ledgers[n % 3])) for n in range(3)]
    threads += [threading.Thread(target=write, args=(n, shared)) for n in range(3, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = [e["key"] for e in read_entries(path)]
    assert len(keys) == 7 * 150 and len(set(keys)) == 7 * 150
    assert all(shared.get(str(entry(f"{n}-149")["key"])) is not None for n in range(3, 7))


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
    assert list(read_entries(tmp_path / "l.jsonl")) == [written(entry("b"))]


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
    assert f"{path}:2: key 0000000000000000... is not the hash of its own request" in problems[0]
    assert problems[1].startswith(f"{path}:3: unreadable line")


def test_stats_count_models_tokens_cost_and_failure_reasons(tmp_path: Path) -> None:
    path = tmp_path / "s" / "stage.jsonl"
    led = Ledger(path)
    usage = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    led.append(
        {"key": "1", "model": "m", "response": "a", "error": None, "usage": usage, "cost": 0.5}
    )
    led.append({"key": "2", "model": "m", "response": None, "error": "RateLimitError: x"})
    led.append({"key": "3", "model": "m", "response": None, "error": "RateLimitError: y"})
    led.append(
        {
            "key": "3",
            "model": "m",
            "response": "c",
            "error": None,
            "usage": usage,
            "provenance": {"served_model": "m-v2"},
        }
    )
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
        "served_models": {"m-v2": 1},
        "litellm_models": {"": 4},
        "unresolved": 1,
    }
    assert out["n"]["failures"] == {"Timeout": 1} and out["n"]["unresolved"] == 1


def test_cli_stats_verify_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from prescient.plumbing.cli import main

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


def damaged_lines(good: dict[str, object]) -> list[tuple[bytes, str]]:
    """Hostile lines, each with the problem a reader must report for it."""
    forged = {**good, "messages": [{"role": "user", "content": "another request"}]}
    forged["response"] = "a forged answer"
    return [
        (b'{"key": "\xff\xfe", "response": "x"}', "not UTF-8"),
        (b'{"key": "k", "usage": {"prompt_tokens": ' + b"7" * 5000 + b"}}", "unreadable line"),
        (b"[" * 200_000 + b"]" * 200_000, "unreadable line (nested too deeply)"),
        (b'"just a string"', "a JSON line holding a string"),
        (b'{"response": "no key"}', "no key"),
        (json.dumps({**good, "key": 7}).encode(), "field 'key' is a number, not a string"),
        (json.dumps({**good, "response": 42}).encode(), "field 'response' is a number"),
        (json.dumps({**good, "messages": "hi"}).encode(), "field 'messages' is a string"),
        (json.dumps({**good, "usage": {"prompt_tokens": "7"}}).encode(), "whole numbers"),
        (json.dumps({**good, "cost": True}).encode(), "field 'cost' is a boolean"),
        (json.dumps({**good, "messages": [1, 2]}).encode(), "other than objects"),
        (json.dumps(forged).encode(), "is not the hash of its own request"),
    ]


def test_no_line_breaks_a_reader_and_forgeries_are_never_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prescient.plumbing.cli import main

    path = tmp_path / "l.jsonl"
    good = entry("Will it rain?", response="the good answer")
    other = entry("Will it snow?", response="also good")
    hostile = damaged_lines(good)
    path.write_bytes(
        b"\n".join(
            [json.dumps(good).encode(), *[line for line, _ in hostile], json.dumps(other).encode()]
        )
        + b"\n"
    )
    led = Ledger(path)  # must not raise
    assert led.get(str(good["key"])) == good and led.get(str(other["key"])) == other
    assert len(led) == 2
    # Lines 2-12 are damaged; line 13 (the forgery) is well-formed but never served.
    assert [n for n, _ in led.damaged] == list(range(2, 13))
    assert [n for n, _ in led.unserved] == [13]
    assert [e["response"] for e in read_entries(path)] == [
        "the good answer",
        "a forged answer",
        "also good",
    ]
    n, problems = verify([str(path)])
    assert n == 3 and len(problems) == len(hostile)
    for number, (problem, (_, expected)) in enumerate(zip(problems, hostile, strict=True), 2):
        assert problem.startswith(f"{path}:{number}: ") and expected in problem, problem
    assert stats([str(path)])["x"]["ok"] == 3  # stats read what is readable
    assert main(["ledger", "verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:3: unreadable line" in err and f"{path}:13: key" in err
    # Appending after damage keeps the damage where it is and the new line readable.
    led.append(entry("later"))
    assert Ledger(path).get(str(entry("later")["key"])) == written(entry("later"))


def test_a_forged_line_before_the_real_answer_does_not_shadow_it(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    good = entry("q", response="real")
    forged = {**good, "messages": [{"role": "user", "content": "other"}], "response": "fake"}
    path.write_text(canonical_json(forged) + "\n" + canonical_json(good) + "\n")
    assert Ledger(path).get(str(good["key"])) == good


def test_refresh_reads_what_other_writers_appended(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    mine, theirs = Ledger(path), Ledger(path)
    mine.append(entry("a"))
    theirs.append(entry("b"))
    assert mine.get(str(entry("b")["key"])) is None
    with open(path, "ab") as fh:
        fh.write(canonical_json(entry("c")).encode()[:30])  # a line still being written
    assert mine.refresh() == 1  # b; the unfinished line waits
    assert mine.get(str(entry("b")["key"])) == written(entry("b"))
    with open(path, "ab") as fh:
        fh.write(canonical_json(entry("c")).encode()[30:] + b"\n")
    assert mine.refresh() == 1 and mine.get(str(entry("c")["key"])) == entry("c")
    assert mine.refresh() == 0


def test_a_refresh_during_this_ledgers_own_write_reads_none_of_its_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer indexes its own lines; a refresh in the middle of the write (the lines
    already in the file, the write not yet over) leaves them to it, so no line is read
    and checked twice."""
    path = tmp_path / "l.jsonl"
    mine, theirs = Ledger(path), Ledger(path)
    theirs.append(entry("b"))  # another writer's line, before ours: read as usual
    fsync, seen = os.fsync, []

    def fsync_and_refresh(fd: int) -> None:
        fsync(fd)
        seen.append(mine.refresh())

    monkeypatch.setattr(os, "fsync", fsync_and_refresh)
    mine.append_many([entry("a"), entry("c")])
    monkeypatch.setattr(os, "fsync", fsync)
    assert seen == [1]  # b alone
    assert mine.refresh() == 0
    assert {k for k, _ in mine.items()} == {str(entry(q)["key"]) for q in "abc"}
    assert not mine.damaged and not mine.unserved


def test_the_index_holds_where_lines_are_not_the_lines(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    big = "an article of the prompt " * 600  # 15 KB, as a RAG prompt holds
    led.append_many([entry(f"{q} {big}") for q in "ab"])
    led.append(entry("c"))

    async def later() -> None:
        await led.append_async(entry("d"))

    asyncio.run(later())
    assert all(type(v) is int for v in led._ok.values()) and len(led) == 4
    lines = path.read_bytes().splitlines(keepends=True)
    assert [led.line(str(entry(q)["key"])) for q in ("a " + big, "b " + big, "c", "d")] == lines
    # another process appends; a fresh reader and a refresh index it at its place
    other = Ledger(path)
    other.append(entry("e"))
    assert led.refresh() == 1 and led.line(str(entry("e")["key"])) == other.line(
        str(entry("e")["key"])
    )


def test_a_replaced_file_is_read_as_indexed_and_one_changed_in_place_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "l.jsonl"
    Ledger(path).append_many([entry("a"), entry("b")])
    led = Ledger(path)
    ka, kb = (str(entry(q)["key"]) for q in "ab")
    fresh = tmp_path / "new.jsonl"
    fresh.write_bytes(b"")
    os.replace(fresh, path)  # an atomic rewrite while the ledger is open
    assert led.get(ka) == written(entry("a")), "the file indexed is the file read"
    led.close()
    with pytest.raises(OSError, match="changed since it was indexed"):
        led.line(kb)  # reopened: the path now holds another file
    path.unlink()
    Ledger(path).append_many([entry("a"), entry("b")])
    led = Ledger(path)
    with open(path, "r+b") as fh:
        fh.truncate(len(path.read_bytes().splitlines(keepends=True)[0]) + 10)
    assert led.get(ka) == written(entry("a"))
    with pytest.raises(OSError, match=f"{path.name}: no line of .* bytes at byte"):
        led.get(kb)


def test_the_index_keeps_lines_and_every_get_reads_a_new_entry(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    led.append(entry("a"))
    k = str(entry("a")["key"])
    assert led.line(k) == path.read_bytes()
    first = led.get(k)
    assert first == written(entry("a"))
    first["response"] = "changed by a caller"  # type: ignore[index]
    assert led.get(k) == written(entry("a"))
    assert Ledger(path).line(k) == led.line(k)
    assert led.line("no such key") is None


# -- fuzz -------------------------------------------------------------------------------

_json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
)
_json = st.recursive(
    _json_leaf,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
_FIELDS = ["key", "response", "error", "messages", "params", "usage", "cost", "tries", "model"]


@st.composite
def ledger_lines(draw: st.DrawFn) -> tuple[bytes, str, dict[str, object] | None]:
    """A line, whether a reader must, may or must never serve it, and its entry."""
    kind = draw(st.sampled_from(["good", "bytes", "json", "wrong_type", "forged", "deep"]))
    good = entry(draw(st.text(min_size=1, max_size=12)), response=draw(st.text(max_size=12)))
    if kind == "good":
        return canonical_json(good).encode("utf-8", "surrogatepass"), "must", good
    if kind == "bytes":
        return draw(st.binary(min_size=1, max_size=60)).replace(b"\n", b" "), "never", None
    if kind == "json":
        return json.dumps(draw(_json)).encode(), "never", None
    if kind == "wrong_type":  # may still be a valid entry (e.g. usage {}): then it may serve
        changed = {**good, draw(st.sampled_from(_FIELDS)): draw(_json)}
        return json.dumps(changed).encode(), "may", changed
    if kind == "forged":  # another request under the real key
        forged = {**good, "params": {"temperature": draw(st.integers(1, 9))}}
        return json.dumps(forged).encode(), "never", forged
    depth = draw(st.integers(500, 5000))
    return b'{"key": ' + b"[" * depth + b"]" * depth + b"}", "never", None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(ledger_lines(), max_size=12))
def test_fuzz_readers_never_raise_and_serve_only_self_consistent_answers(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[tuple[bytes, str, dict[str, object] | None]],
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "l.jsonl"
    path.write_bytes(b"".join(raw + b"\n" for raw, _, _ in lines))
    led = Ledger(path)
    n, problems = verify([str(path)])
    assert n + len(led.damaged) == len(lines)  # every line is an entry or counted damage
    assert len(list(read_entries(path))) == n
    stats([str(path)])
    served = dict(led.items())
    for key, e in served.items():  # whatever is served answers its own request
        assert e["error"] is None and isinstance(e["response"], str)
        assert request_key(e["litellm_model"], e["messages"], e["params"]) == key
    for i, (_, label, obj) in enumerate(lines):
        if obj is None or not isinstance(obj.get("key"), str):
            continue
        got = served.get(str(obj["key"]))
        earlier = [o for _, lab, o in lines[:i] if lab != "never" and o is not None]
        if label == "must":  # served: this line, or an earlier answer to the same request
            assert got == obj or got in earlier
        elif label == "never":
            assert got != obj


def test_a_ledger_written_before_keeps_every_paid_hit(tmp_path: Path) -> None:
    """tests/fixtures/llm/ledger_written_before.jsonl was written by the gateway as it was
    before it was composed of parts (git 5912d9b): API models through the loopback server,
    baselines in process, request params with floats, nulls and a transport field. The
    same requests today are served from it with the same keys and answers, except the
    baselines', whose answering rule has changed since."""
    from prescient.llm.gateway import Gateway
    from prescient.llm.types import LLMRequest
    from tests.support.llm import llm_settings, model_spec

    fixture = Path(__file__).parents[2] / "fixtures" / "llm" / "ledger_written_before.jsonl"
    path = tmp_path / "l.jsonl"
    path.write_bytes(fixture.read_bytes())
    closed = "http://127.0.0.1:9/v1"  # nothing listens: any call would fail
    specs = {
        "api": model_spec(
            "api",
            "openai/gpt-4o-mini",
            api_base=closed,
            params={"temperature": 0.0, "max_tokens": 16, "seed": 0},
        ),
        "vllm": model_spec(
            "vllm",
            "hosted_vllm/some-model",
            api_base=closed,
            params={"temperature": 0, "max_tokens": 32, "stop": None},
        ),
        "rnd": model_spec(
            "rnd", "baseline/random", params={"temperature": 0.0, "max_tokens": 8, "seed": 0}
        ),
        "yes": model_spec(
            "yes", "baseline/always-yes", params={"temperature": 0.0, "max_tokens": 8, "seed": 0}
        ),
    }
    user = [{"role": "user", "content": "Will the bridge reopen by 1 May 2024?"}]
    reqs = [
        LLMRequest(
            "api",
            [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Will it rain in Zürich? ☂"},
            ],
        ),
        LLMRequest(
            "api",
            [{"role": "user", "content": "Pick one.\n(a) x\n(b) y"}],
            params={"max_tokens": 4.0, "timeout": 9},
        ),
        LLMRequest(
            "api",
            [{"role": "user", "content": "Seeded"}],
            params={"seed": 3, "temperature": 0.7, "stop": ["\n"]},
        ),
        LLMRequest(
            "vllm",
            [{"role": "user", "content": "Summarise: the harbour authority met."}],
            params={"top_p": 1.0},
        ),  # fmt: skip
        LLMRequest("vllm", [{"role": "user", "content": "Nothing"}], params={"max_tokens": None}),
        LLMRequest("rnd", user),
        LLMRequest(
            "rnd",
            [{"role": "user", "content": "Which team?\n(a) Red\n(b) Blue\n(c) Green\n(d) None"}],
        ),  # fmt: skip
        LLMRequest("yes", user, params={"seed": 1}),
    ]
    gw = Gateway(specs, path, stage="t", settings=llm_settings(progress=False, max_tries=1))
    out = gw.complete_many(reqs)
    recorded = {e["key"]: e for e in read_entries(fixture)}
    # Every paid answer is served; the baselines' (computed, free) are computed again:
    # their keys hold the version of their answering rule (prescient.llm.baselines).
    paid, baselines = out[:5], out[5:]
    assert all(r.from_ledger for r in paid) and gw.stats.calls == len(baselines)
    assert all(r.ok and not r.from_ledger for r in baselines)
    assert not {r.key for r in baselines} & set(recorded)
    # The keys that gateway gave these requests, in request order.
    assert [r.key[:8] for r in paid] == [
        "09207077", "fa9a9edd", "c38bee5c", "fc1746a4", "093abb1d"
    ]  # fmt: skip
    assert [r.text for r in paid] == [recorded[r.key]["response"] for r in paid]
    assert verify([str(fixture)]) == (8, [])
    # Written before answers were hashed: their answers cannot be checked, which is no error.
    assert audit([str(fixture)]).unverifiable == 8


def test_lone_surrogates_are_stored_as_escapes_and_read_back_identically(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    odd = entry("q\udfff?", response="a\ud800b \\ud800 é")
    plain = entry("q", response="é")
    Ledger(path).append(odd)
    Ledger(path).append(plain)
    lines = path.read_bytes().decode("utf-8").splitlines()
    # The surrogate becomes the six characters of its JSON escape; a backslash already in
    # the text stays escaped as JSON escapes it, and é stays itself.
    assert '"response":"a\\ud800b \\\\ud800 é"' in lines[0]
    assert lines[1] == canonical_json(written(plain)), "lines without a surrogate are unchanged"
    again = Ledger(path)
    assert again.get(str(odd["key"])) == written(odd) and again.get(str(plain["key"])) == written(
        plain
    )
    assert verify([str(path)]) == (2, [])
    # A prompt holding one has a key too: the hash of the escaped canonical request.
    msgs = [{"role": "user", "content": "q\udfff?"}]
    text = '{"messages":[{"content":"q\\udfff?","role":"user"}],"model":"openai/x","params":{"temperature":0}}'
    assert odd["key"] == hashlib.sha256(text.encode()).hexdigest()
    assert request_key("openai/x", msgs, {"temperature": 0}) == odd["key"]


def test_a_ledger_that_cannot_be_written_is_refused_before_use(tmp_path: Path) -> None:
    from prescient.llm.ledger import LedgerNotWritableError

    (tmp_path / "file").write_text("")
    (tmp_path / "dir.jsonl").mkdir()
    for path in (tmp_path / "file" / "l.jsonl", tmp_path / "dir.jsonl"):
        with pytest.raises(
            LedgerNotWritableError, match=f"cannot write the response ledger {path}"
        ):
            Ledger(path).check_writable()
    fresh = tmp_path / "new" / "l.jsonl"
    Ledger(fresh).check_writable()
    assert fresh.read_bytes() == b""


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files and directories")
def test_read_only_ledgers_are_refused(tmp_path: Path) -> None:
    from prescient.llm.ledger import LedgerNotWritableError

    ro_dir = tmp_path / "ro"
    ro_dir.mkdir()
    ro_file = tmp_path / "full.jsonl"
    ro_file.write_bytes(b"")
    ro_file.chmod(0o444)
    ro_dir.chmod(0o555)
    try:
        for path in (ro_dir / "l.jsonl", ro_file):
            with pytest.raises(LedgerNotWritableError, match="Permission denied"):
                Ledger(path).check_writable()
    finally:
        ro_dir.chmod(0o755)


def test_a_changed_answer_is_reported_with_its_line_and_never_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prescient.plumbing.cli import main

    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    for q, a in (("q1", "No"), ("q2", "No"), ("q3", "Yes")):
        led.append({**entry(q, response=a), "usage": {"completion_tokens": 1}})
    assert audit([str(path)]) == (3, [], 0, 0)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"response":"No"', b'"response":"Yes"')  # one answer flipped
    lines[2] = lines[2].replace(b'"completion_tokens":1', b'"completion_tokens":2')
    with open(path, "wb") as fh:
        fh.write(b"\n".join(lines) + canonical_json(entry("q4")).encode()[:20])  # torn tail
    found = audit([str(path)])
    assert found.checked == 3 and found.changed == 2 and found.unverifiable == 0
    assert found.problems[0].startswith(f"{path}:2: changed answer: ")
    assert found.problems[1].startswith(f"{path}:3: changed answer: ")
    assert "partial last line" in found.problems[2] and len(found.problems) == 3
    again = Ledger(path)
    assert again.get(str(entry("q1")["key"])) is not None
    assert again.get(str(entry("q2")["key"])) is None  # the flipped answer is not served
    assert again.get(str(entry("q3")["key"])) is None
    assert [n for n, _ in again.unserved] == [2, 3]
    assert main(["ledger", "verify", str(path)]) == 1
    out = capsys.readouterr()
    assert f"{path}:2: changed answer" in out.err
    assert "3 entries checked, 3 problems (2 changed answers); 0 unverifiable" in out.out
    # A forged key is still reported as forged, not as a changed answer.
    forged = written(entry("q5"))
    forged["messages"] = [{"role": "user", "content": "another"}]
    path.write_text(canonical_json(forged) + "\n")
    found = audit([str(path)])
    assert found.changed == 0 and "is not the hash of its own request" in found.problems[0]


def test_old_entries_without_the_hash_are_served_and_counted_unverifiable(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.jsonl"
    old = [entry("a", response="Yes"), entry("b", response=None, error="Timeout: slow")]
    path.write_text("".join(canonical_json(e) + "\n" for e in old))  # as written before
    led = Ledger(path)
    assert led.get(str(old[0]["key"])) == old[0]  # the key rule is unchanged: still a hit
    assert led.unserved == [] and led.failed_entries == 1
    led.append(entry("c"))
    assert audit([str(path)]) == (3, [], 0, 2)
    # Editing an old entry's answer cannot be told from the original: the audit says so.
    path.write_text(path.read_text().replace('"response":"Yes"', '"response":"No"'))
    assert audit([str(path)]) == (3, [], 0, 2)


def test_the_answer_hash_survives_a_round_trip_of_any_reply(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    # An uncombined surrogate pair (JSON reads it back as one character), a lone one,
    # floats-that-are-integers nowhere: the hash of the parsed line equals the written one.
    replies = ["\ud83d\ude00 yes", "a\ud800b", "é \\ud800", ""]
    led = Ledger(path)
    for i, reply in enumerate(replies):
        led.append({**entry(f"q{i}", response=reply), "finish_reason": "stop"})
    assert audit([str(path)]) == (len(replies), [], 0, 0)
    first = next(iter(read_entries(path)))
    assert first["response"] == "\U0001f600 yes"
    assert first["response_sha256"] == response_hash(first)
    # Only the answer fields count: timings and tags change nothing, the answer does.
    base = entry("q", response="x")
    assert response_hash({**base, "latency_s": 9.0, "tags": {"t": 1}}) == response_hash(base)
    for change in (
        {"response": "y"},
        {"error": "e"},
        {"finish_reason": "length"},
        {"usage": {"a": 1}},
    ):
        assert response_hash({**base, **change}) != response_hash(base)


def test_copied_entries_carry_the_hash(tmp_path: Path) -> None:
    from prescient.benchmarks.openforecast.keypoints import copy_paid_entries

    source, target = tmp_path / "source.jsonl", tmp_path / "target.jsonl"
    old, stamped = entry("a", response="A"), written(entry("b", response="B"))
    changed = {**written(entry("c", response="C")), "response": "C!"}
    source.write_text("".join(canonical_json(e) + "\n" for e in (old, stamped, changed)))
    led = Ledger(target)
    keys = [str(e["key"]) for e in (old, stamped, changed)]
    assert copy_paid_entries(keys, source, led) == 3
    found = audit([str(target)])
    # The old answer is hashed as copied; the stamped one keeps its hash; the changed one
    # keeps the hash it was first written with, so it stays detectably changed.
    assert found.unverifiable == 0 and found.changed == 1
    assert found.problems[0].startswith(f"{target}:3: changed answer")
    reread = Ledger(target)
    assert reread.get(keys[0]) is not None and reread.get(keys[1]) is not None
    assert reread.get(keys[2]) is None
