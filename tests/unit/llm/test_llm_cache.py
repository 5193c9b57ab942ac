"""The ledger cache's claim window: a lane's requests claim their keys a window at a time,
and a request waiting for another process's claim leaves the window to the others."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from prescient.llm.cache import CLAIM_WINDOW, LedgerCache
from prescient.llm.claims import Claims
from prescient.llm.ledger import Ledger, read_entries, request_key

QUESTIONS = {
    request_key("openai/m", [{"role": "user", "content": f"q{i}"}], {}): i for i in range(40)
}


def key(i: int) -> str:
    """The key of question ``i`` (claims lock a byte chosen by its first digits)."""
    return request_key("openai/m", [{"role": "user", "content": f"q{i}"}], {})


def entry(k: str) -> dict[str, Any]:
    """The entry answering the question keyed ``k``."""
    return {
        "key": k,
        "stage": "test",
        "model": "m",
        "litellm_model": "openai/m",
        "messages": [{"role": "user", "content": f"q{QUESTIONS[k]}"}],
        "params": {},
        "response": f"answer {QUESTIONS[k]}",
        "usage": {},
        "error": None,
    }


def test_a_lane_holds_at_most_its_window_of_claims(tmp_path: Path) -> None:
    cache = LedgerCache(Ledger(tmp_path / "l.jsonl"))
    keys = [key(i) for i in range(40)]
    busy = 0
    most_busy = 0

    async def batch() -> list[tuple[dict[str, Any], bool]]:
        inflight: dict[str, Any] = {}
        slot = asyncio.Semaphore(3)  # the model's concurrency, as the gateway's limits

        def call(k: str) -> Any:
            async def run() -> dict[str, Any]:
                nonlocal busy, most_busy
                async with slot:
                    busy += 1
                    most_busy = max(most_busy, busy)
                    await asyncio.sleep(0.001)
                    busy -= 1
                return entry(k)

            return run

        return list(
            await asyncio.gather(
                *(cache.fetch(k, call(k), inflight, ("m", 3)) for k in [*keys, *keys[:5]])
            )
        )

    out = asyncio.run(batch())
    cache.close()
    assert [e["response"] for e, _ in out] == [f"answer {i}" for i in [*range(40), *range(5)]]
    assert not any(hit for _, hit in out)  # duplicates shared the one call of their key
    # 40 keys, but never more than 2 x 3 claimed at once, and all 3 slots were used.
    assert cache.most_claimed == CLAIM_WINDOW * 3 == 6
    assert most_busy == 3 and cache.claimed == 0
    assert sorted(e["key"] for e in read_entries(tmp_path / "l.jsonl")) == sorted(keys)


def test_a_key_claimed_elsewhere_waits_outside_the_window(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    cache = LedgerCache(Ledger(path), poll_s=0.01)
    other = Claims(path)  # another process's claims (a lock of another open file)
    taken = key(7)
    assert other.try_claim(taken)
    order: list[str] = []

    async def batch() -> list[tuple[dict[str, Any], bool]]:
        inflight: dict[str, Any] = {}

        def call(k: str) -> Any:
            async def run() -> dict[str, Any]:
                order.append(k)
                return entry(k)

            return run

        async def release_later() -> None:
            while len(order) < 4:  # every other key is answered while the claim is held
                await asyncio.sleep(0.005)
            Ledger(path).append(entry(taken))  # the other process answers, then releases
            other.release(taken)

        keys = [taken, *(key(i) for i in range(4))]
        # A window of 2 (concurrency 1): the waiting request must not keep a place in it.
        fetches = [cache.fetch(k, call(k), inflight, ("m", 1)) for k in keys]
        *results, _ = await asyncio.gather(*fetches, release_later())
        return results  # type: ignore[no-any-return]

    out = asyncio.run(batch())
    cache.close()
    other.close()
    assert order == [key(i) for i in range(4)]  # the claimed key was never asked here
    assert out[0] == (entry(taken) | {"response_sha256": out[0][0]["response_sha256"]}, True)
    assert cache.waited == 1 and cache.most_claimed <= 2
