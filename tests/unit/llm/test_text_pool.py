"""The response store keeps each quoted text once: its lines refer to the pool, and every
reader gets the entry, and the line, an unpooled store would hold."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prescient.llm.ledger import Ledger, read_entries, request_key, utf8_json, with_response_hash
from prescient.llm.store import StageLedger, store_path
from prescient.llm.text_pool import (
    MIN_CHARS,
    POOLED,
    TextPool,
    expand_entry,
    pool_entry,
    pool_path_for,
    text_digest,
)
from prescient.plumbing.llm_cli import verify

ARTICLE_A = "Alpha " + "the council voted on the budget again " * 20
ARTICLE_B = "Bravo " + "shares of the carmaker fell after the report " * 20


def prompt(question: str, *articles: str) -> str:
    shown = "\n".join(
        f"Article {i} (published 2024-01-0{i}): Title — {a}" for i, a in enumerate(articles, 1)
    )
    return f"Reply with Yes or No.\n\n{shown}\n\nQuestion: {question}\nAnswer:"


def entry(question: str, *articles: str, response: str = "Yes") -> dict[str, object]:
    messages = [
        {"role": "system", "content": "You forecast."},
        {"role": "user", "content": prompt(question, *articles)},
    ]
    return {
        "key": request_key("openai/m", messages, {"temperature": 0}),
        "model": "m",
        "litellm_model": "openai/m",
        "messages": messages,
        "params": {"temperature": 0},
        "response": response,
        "error": None,
    }


def store_file(root: Path, name: str = "m") -> Path:
    return root / ".dvc/cache/prescient/responses/data/llm/evaluate" / f"{name}.jsonl"


def test_cut_and_put_back_is_the_same_entry_and_the_same_line() -> None:
    e = dict(with_response_hash(entry("Will it pass?", ARTICLE_A, ARTICLE_B, ARTICLE_A)))
    cut, used = pool_entry(e, [ARTICLE_A, ARTICLE_B, "short text"])
    assert set(used) == {text_digest(ARTICLE_A), text_digest(ARTICLE_B)}
    assert len(cut[POOLED]) == 3  # both occurrences of A, and B
    assert ARTICLE_A not in utf8_json(cut).decode() and ARTICLE_B not in utf8_json(cut).decode()
    back = expand_entry(dict(cut), used.__getitem__)
    assert back == e
    assert utf8_json(back) == utf8_json(e)
    # nothing quoted, or too short to pool: the entry as it is
    assert pool_entry(e, ["not in the prompt " * 20])[0] is e
    assert pool_entry(e, ["Will it pass?"])[0] is e


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6),
    st.lists(st.integers(0, 5), max_size=8),
)
def test_any_messages_and_quotes_come_back_exactly(parts: list[str], picks: list[int]) -> None:
    texts = [(p * (MIN_CHARS // len(p) + 1)) for p in parts]  # each long enough to pool
    content = "|".join(["start", *(texts[i % len(texts)] for i in picks), "end"])
    e = {"key": "k", "messages": [{"role": "user", "content": content}], "params": {}}
    cut, used = pool_entry(e, texts)
    assert expand_entry(dict(cut), used.__getitem__) == e


def test_expanding_refuses_references_outside_the_messages() -> None:
    e = {"key": "k", "messages": [{"role": "user", "content": "ab"}]}
    with pytest.raises(ValueError, match="outside message 0"):
        expand_entry({**e, POOLED: [[0, 9, text_digest("x")]]}, lambda d: "x")
    with pytest.raises(ValueError, match="holds no text"):
        expand_entry({**e, POOLED: [[3, 0, text_digest("x")]]}, lambda d: "x")
    with pytest.raises(ValueError, match="not \\[message, offset, sha256\\]"):
        expand_entry({**e, POOLED: [["0", 0, "x"]]}, lambda d: "x")


def test_the_pool_is_found_beside_the_store_only(tmp_path: Path) -> None:
    assert pool_path_for(store_file(tmp_path)) == tmp_path / ".dvc/cache/prescient/texts.jsonl"
    assert pool_path_for(tmp_path / "data/llm/evaluate/m.jsonl") is None
    assert Ledger(tmp_path / "plain.jsonl").pool is None


def test_a_store_keeps_each_quoted_text_once_and_serves_the_entry_as_written(
    tmp_path: Path,
) -> None:
    path = store_file(tmp_path)
    entries = [
        dict(with_response_hash(entry("Will it pass?", ARTICLE_A, ARTICLE_B))),
        dict(with_response_hash(entry("Will it fall?", ARTICLE_B, ARTICLE_A))),
        dict(with_response_hash(entry("Closed book?"))),
    ]
    ledger = Ledger(path)
    ledger.append(entries[0], texts=[ARTICLE_A, ARTICLE_B])

    async def rest() -> None:
        await ledger.append_async(entries[1], keyed_here=True, texts=(ARTICLE_B, ARTICLE_A))
        await ledger.append_async(entries[2], keyed_here=True, texts=(ARTICLE_A,))

    asyncio.run(rest())
    ledger.close()
    raw = path.read_bytes()
    assert ARTICLE_A.encode() not in raw and ARTICLE_B.encode() not in raw
    pool = TextPool(pool_path_for(path))  # type: ignore[arg-type]
    assert len(pool) == 2 and pool.text(text_digest(ARTICLE_A)) == ARTICLE_A
    # each article once, in the pool, however many lines quote it
    assert pool.path.read_bytes().count(ARTICLE_A.encode()) == 1
    again = Ledger(path)
    assert len(again) == 3 and not again.damaged and not again.unserved
    for e in entries:
        assert again.get(str(e["key"])) == e
        assert again.line(str(e["key"])) == utf8_json(e) + b"\n"  # an unpooled store's line
    assert list(read_entries(path)) == entries
    assert verify([str(path)]) == (3, [])


def test_a_snapshot_refers_to_the_texts_and_is_the_same_bytes_however_the_store_holds_them(
    tmp_path: Path,
) -> None:
    made = []
    asked = [(entry("Will it pass?", ARTICLE_A, ARTICLE_B), (ARTICLE_A, ARTICLE_B))]
    asked.append((entry("Will it fall?", ARTICLE_A), (ARTICLE_A,)))
    # a store whose lines refer to the pool, and one holding the texts (an older store)
    for name, pooled in (("pooled", True), ("plain", False)):
        root = tmp_path / name
        snapshot = root / "data/llm/evaluate/m.jsonl"
        store = store_path(snapshot, root / ".dvc/cache", root)
        assert store is not None
        ledger = StageLedger(snapshot, store, texts=lambda: [ARTICLE_A, ARTICLE_B])
        for e, texts in asked:
            ledger.note_request(str(e["key"]), {"stage": "evaluate"}, texts)
            ledger.append({**e, "stage": "evaluate"}, texts if pooled else ())
        ledger.write_snapshot()
        ledger.close()
        made.append(snapshot.read_bytes())
        # a later run is answered from the store (and the pool) with the same snapshot
        rerun = StageLedger(root / "data/llm/evaluate/m2.jsonl", store, texts=lambda: [])
        for e, texts in asked:
            rerun.note_request(str(e["key"]), {"stage": "evaluate"}, texts)
            assert rerun.get(str(e["key"])) == dict(with_response_hash({**e, "stage": "evaluate"}))
        rerun.write_snapshot()
        assert (root / "data/llm/evaluate/m2.jsonl").read_bytes() == snapshot.read_bytes()
        pool = TextPool(root / ".dvc/cache/prescient/texts.jsonl")
        assert list(read_entries(snapshot, pool)) == [
            dict(with_response_hash({**e, "stage": "evaluate"}))
            for e, _ in sorted(asked, key=lambda a: str(a[0]["key"]))
        ]
    pooled_snapshot, plain_snapshot = made
    assert pooled_snapshot == plain_snapshot
    assert ARTICLE_A.encode() not in pooled_snapshot
    assert pooled_snapshot.count(b'"pooled":[[') == 2
    # A stage that names no tables to find its texts in again keeps them in its ledger
    # (its store lines still refer to the pool).
    root = tmp_path / "unnamed"
    snapshot = root / "data/llm/construct.jsonl"
    store = store_path(snapshot, root / ".dvc/cache", root)
    assert store is not None
    ledger = StageLedger(snapshot, store)
    for e, texts in asked:
        ledger.note_request(str(e["key"]), {"stage": "evaluate"}, texts)
        ledger.append({**e, "stage": "evaluate"}, texts)
    ledger.write_snapshot()
    assert b'"pooled"' not in snapshot.read_bytes() and ARTICLE_A.encode() in snapshot.read_bytes()
    assert ARTICLE_A.encode() not in store.read_bytes()
    assert list(read_entries(snapshot)) == [
        dict(with_response_hash({**e, "stage": "evaluate"}))
        for e, _ in sorted(asked, key=lambda a: str(a[0]["key"]))
    ]


def test_a_changed_or_lost_text_is_never_served(tmp_path: Path) -> None:
    path = store_file(tmp_path)
    e = dict(with_response_hash(entry("Will it pass?", ARTICLE_A)))
    ledger = Ledger(path)
    ledger.append(e, texts=[ARTICLE_A])
    ledger.close()
    pool_file = pool_path_for(path)
    assert pool_file is not None
    pool_file.write_bytes(pool_file.read_bytes().replace(b"voted", b"VOTED", 1))
    changed = Ledger(path)
    assert len(changed) == 0 and "no longer hashes" in changed.damaged[0][1]
    checked, problems = verify([str(path)])
    assert checked == 0 and "pooled texts unreadable" in " ".join(problems)
    pool_file.unlink()
    assert "no text" in Ledger(path).damaged[0][1]


def test_a_text_that_cannot_be_stored_leaves_no_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = store_file(tmp_path)
    ledger = Ledger(path)

    def refuse(texts: object) -> None:
        raise OSError("disk full")

    assert ledger.pool is not None
    monkeypatch.setattr(ledger.pool, "add", refuse)
    with pytest.raises(OSError, match="disk full"):
        ledger.append(entry("Will it pass?", ARTICLE_A), texts=[ARTICLE_A])
    with pytest.raises(OSError, match="disk full"):
        asyncio.run(ledger.append_async(entry("Will it fall?", ARTICLE_A), texts=[ARTICLE_A]))
    assert not path.exists() or path.read_bytes() == b""
    assert len(Ledger(path)) == 0


def test_a_compressed_snapshot_refers_to_the_texts_and_a_clone_refills_its_pool(
    tmp_path: Path,
) -> None:
    asked = [(entry("Will it pass?", ARTICLE_A, ARTICLE_B), (ARTICLE_A, ARTICLE_B))]
    asked.append((entry("Will it fall?", ARTICLE_A), (ARTICLE_A,)))
    made = {}
    for compression in ("none", "zstd"):
        root = tmp_path / compression
        snapshot = root / "data/llm/evaluate/m.jsonl"
        store = store_path(snapshot, root / ".dvc/cache", root)
        assert store is not None
        ledger = StageLedger(
            snapshot, store, texts=lambda: [ARTICLE_A, ARTICLE_B], compression=compression
        )
        for e, texts in asked:
            ledger.note_request(str(e["key"]), {"stage": "evaluate"}, texts)
            ledger.append({**e, "stage": "evaluate"}, texts)
        ledger.write_snapshot()
        ledger.close()
        made[compression] = snapshot.read_bytes()
        # A clone that pulled the snapshot and not the store: the pool is refilled from
        # the tables, every answer is served, and the snapshot is written again the same.
        (root / ".dvc/cache/prescient/texts.jsonl").unlink()
        store.unlink()
        pulled = StageLedger(
            snapshot, store, texts=lambda: [ARTICLE_A, ARTICLE_B], compression=compression
        )
        assert pulled.recorded.missing_texts == 0 and pulled.recorded.compressed == (
            compression == "zstd"
        )
        pulled.check_writable()
        assert pulled.imported == 2
        for e, texts in asked:
            pulled.note_request(str(e["key"]), {"stage": "evaluate"}, texts)
            assert pulled.get(str(e["key"])) == dict(with_response_hash({**e, "stage": "evaluate"}))
        pulled.write_snapshot()
        pulled.close()
        assert snapshot.read_bytes() == made[compression]
        assert verify([str(snapshot)], TextPool(root / ".dvc/cache/prescient/texts.jsonl")) == (
            2,
            [],
        )
    assert made["zstd"][:4] == b"\x28\xb5\x2f\xfd" and made["none"][:1] == b"{"
    import pyarrow as pa

    assert (
        pa.decompress(made["zstd"], decompressed_size=len(made["none"]), codec="zstd", asbytes=True)
        == made["none"]
    )
