"""The ledger as a caching layer in front of the models (lm-evaluation-harness's
``CachingLM`` idea): the models know nothing of it, it knows nothing of the models.

``fetch(key, call)`` answers from the ledger when it can; otherwise it runs ``call``
once per key (identical requests of one batch share it, and another process working on
the same ledger is waited for, see :mod:`prescient.llm.claims`), appends the entry
``call`` returns (a success or a recorded failure) durably, and only then hands it back.

So a request is sent at most once in a cache's life, whatever the batches: a success is
served from the ledger to every later batch, and a failure recorded here is handed back
again as it is (the retry policy already had its attempts; asking again now would only
pay twice for the same outage, e.g. an evaluation whose settings share prompts). A
failure is never served from the file itself: the next run, a new cache, asks again.

A claim is a lock the kernel keeps in one list per file, and every claim or release
walks that list: with every request of a large batch claimed up front, each operation
would cost time in proportion to the batch (about 40 microseconds per operation with
2,500 claims held, against 2 with 100). So a caller may name a *lane* (the gateway
names the model and its concurrency): at most :data:`CLAIM_WINDOW` times the lane's
concurrency of its requests hold a claim at once, the ones being sent and about as many
again waiting for a slot or for their ledger write; the rest wait for a place in the
window before they claim. The claim still comes before the ledger is re-read and the
model is asked, so another process is never paid twice for a key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from prescient.llm.claims import Claims
from prescient.llm.ledger import Ledger, is_success
from prescient.llm.limits import PerLoop
from prescient.llm.store import StageLedger

Entry = dict[str, Any]
InFlight = dict[str, "asyncio.Future[tuple[Entry, bool]]"]
"""A batch's calls in flight, by key."""
Lane = tuple[str, int]
"""A lane's name and its concurrency (the gateway's: a model's name and ``concurrency``)."""

CLAIM_WINDOW = 2
"""A lane's requests that may hold a claim at once, per unit of its concurrency."""


def window_size(lane: Lane) -> int:
    """How many of a lane's requests may hold a claim at once."""
    return CLAIM_WINDOW * max(1, lane[1])


def _retrieve(future: asyncio.Future[tuple[Entry, bool]]) -> None:
    """Mark a call's error as seen (the request that made the call raises it itself),
    so a future nobody else waited on logs nothing."""
    if not future.cancelled():
        future.exception()


class LedgerCache:
    """A ledger with cross-process claims.

    Args:
        ledger: the ledger.
        poll_s: how often a request waiting for another process's claim looks again.

    Attributes:
        waited: requests that waited for another process working on the same key.
        claimed: keys this cache holds a claim on now.
        most_claimed: the most keys it held a claim on at once.
        failed_here: the failures this cache recorded, by key (answered again as they
            are until the cache is closed, never sent twice).
    """

    def __init__(self, ledger: Ledger | StageLedger, poll_s: float = 0.05) -> None:
        self.ledger = ledger
        self.claims = Claims(ledger.path)
        self.poll_s = poll_s
        self.waited = 0
        self.failed_here: dict[str, Entry] = {}
        self.claimed = 0
        self.most_claimed = 0
        # Semaphores belong to a loop, and each batch runs on its own: one set per loop.
        self._windows: PerLoop[dict[str, asyncio.Semaphore]] = PerLoop(dict)

    def get(self, key: str) -> Entry | None:
        """The servable answer for ``key`` already in the ledger, or None."""
        return self.ledger.get(key)

    def answered(self, key: str) -> Entry | None:
        """What ``fetch`` answers ``key`` with at once, without a call: the ledger's
        answer, else a failure this cache recorded; None when neither has it."""
        entry = self.ledger.get(key)
        return self.failed_here.get(key) if entry is None else entry

    async def fetch(
        self,
        key: str,
        call: Callable[[], Awaitable[Entry]],
        inflight: InFlight,
        lane: Lane | None = None,
        texts: Sequence[str] = (),
    ) -> tuple[Entry, bool]:
        """``(entry, from_ledger)`` for ``key``; ``call`` runs only when nothing answers it.

        Args:
            key: the request's ledger key.
            call: makes the request and returns its ledger entry (never raises for a
                model's failure: a failure is an entry with ``error`` set).
            inflight: the batch's calls in flight (identical requests share one call).
            lane: the lane whose claim window the request waits in before it claims
                its key (module docstring); None: it claims at once.
            texts: the texts the request quotes (:attr:`LLMRequest.quoted`), which the
                response store keeps once.
        """
        entry = self.answered(key)
        if entry is not None:
            return entry, True
        future = inflight.get(key)
        if future is not None:  # an identical request is on its way: its answer is ours
            return await asyncio.shield(future)
        # This request makes the call; identical ones wait on its future meanwhile.
        future = inflight[key] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_retrieve)
        try:
            found = await self._miss(key, call, None if lane is None else self._window(lane), texts)
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(exc)
            raise
        future.set_result(found)
        return found

    def _window(self, lane: Lane) -> asyncio.Semaphore:
        windows = self._windows.get()
        name = lane[0]
        window = windows.get(name)
        if window is None:
            window = windows[name] = asyncio.Semaphore(window_size(lane))
        return window

    async def _miss(
        self,
        key: str,
        call: Callable[[], Awaitable[Entry]],
        window: asyncio.Semaphore | None,
        texts: Sequence[str] = (),
    ) -> tuple[Entry, bool]:
        waited = False
        while True:
            if window is not None:
                await window.acquire()
            if self.claims.try_claim(key):
                break
            # Another process is asking right now: wait outside the window.
            if window is not None:
                window.release()
            if not waited:
                waited, self.waited = True, self.waited + 1
            await asyncio.sleep(self.poll_s)
        self.claimed += 1
        self.most_claimed = max(self.most_claimed, self.claimed)
        try:
            self.ledger.refresh()  # another process may have answered it since we loaded
            entry = self.ledger.get(key)
            if entry is not None:
                return entry, True
            entry = await call()
            if entry["key"] != key:
                raise ValueError(f"an entry keyed {entry['key']} answered the request {key}")
            await self.ledger.append_async(entry, keyed_here=True, texts=texts)
            if not is_success(entry):
                self.failed_here[key] = entry
            return entry, False
        finally:
            self.claims.release(key)
            self.claimed -= 1
            if window is not None:
                window.release()

    def close(self) -> None:
        """Release the claims and stop the ledger's writer thread."""
        self.claims.close()
        self.ledger.close()
