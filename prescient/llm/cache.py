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
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from prescient.llm.claims import Claims
from prescient.llm.ledger import Ledger, is_success
from prescient.llm.store import StageLedger

Entry = dict[str, Any]
InFlight = dict[str, "asyncio.Future[tuple[Entry, bool]]"]
"""A batch's calls in flight, by key."""


class LedgerCache:
    """A ledger with cross-process claims.

    Args:
        ledger: the ledger.
        poll_s: how often a request waiting for another process's claim looks again.

    Attributes:
        waited: requests that waited for another process working on the same key.
        failed_here: the failures this cache recorded, by key (answered again as they
            are until the cache is closed, never sent twice).
    """

    def __init__(self, ledger: Ledger | StageLedger, poll_s: float = 0.05) -> None:
        self.ledger = ledger
        self.claims = Claims(ledger.path)
        self.poll_s = poll_s
        self.waited = 0
        self.failed_here: dict[str, Entry] = {}

    def get(self, key: str) -> Entry | None:
        """The servable answer for ``key`` already in the ledger, or None."""
        return self.ledger.get(key)

    async def fetch(
        self, key: str, call: Callable[[], Awaitable[Entry]], inflight: InFlight
    ) -> tuple[Entry, bool]:
        """``(entry, from_ledger)`` for ``key``; ``call`` runs only when nothing answers it.

        Args:
            key: the request's ledger key.
            call: makes the request and returns its ledger entry (never raises for a
                model's failure: a failure is an entry with ``error`` set).
            inflight: the batch's calls in flight (identical requests share one call).
        """
        entry = self.ledger.get(key)
        if entry is None:
            entry = self.failed_here.get(key)
        if entry is not None:
            return entry, True
        future = inflight.get(key)
        if future is None:
            future = inflight[key] = asyncio.ensure_future(self._miss(key, call))
        return await asyncio.shield(future)

    async def _miss(self, key: str, call: Callable[[], Awaitable[Entry]]) -> tuple[Entry, bool]:
        waited = False
        while not self.claims.try_claim(key):  # another process is asking right now
            if not waited:
                waited, self.waited = True, self.waited + 1
            await asyncio.sleep(self.poll_s)
        try:
            self.ledger.refresh()  # another process may have answered it since we loaded
            entry = self.ledger.get(key)
            if entry is not None:
                return entry, True
            entry = await call()
            if entry["key"] != key:
                raise ValueError(f"an entry keyed {entry['key']} answered the request {key}")
            await self.ledger.append_async(entry, keyed_here=True)
            if not is_success(entry):
                self.failed_here[key] = entry
            return entry, False
        finally:
            self.claims.release(key)

    def close(self) -> None:
        """Release the claims and stop the ledger's writer thread."""
        self.claims.close()
        self.ledger.close()
