"""Independent pieces of work spread over threads, where no result can depend on it.

For work whose heavy part is numpy releasing the interpreter's lock (the bootstrap's
draws, gathers and sums), each piece a function of its own inputs and seed alone: the
results come back in the pieces' order, the same values whatever the number of threads,
so the number is machine tuning, not a parameter. It is the usable cores, at most
:data:`MAX_THREADS`; ``PRESCIENT_THREADS`` overrides it (1: none).
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_THREADS = 8
"""The most threads :func:`thread_count` gives by default."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity; all of them off Linux)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def thread_count() -> int:
    """``PRESCIENT_THREADS`` when set to a number, else the usable cores (at most
    :data:`MAX_THREADS`)."""
    given = os.environ.get("PRESCIENT_THREADS", "").strip()
    if given.isdigit():
        return max(1, int(given))
    return max(1, min(MAX_THREADS, usable_cores()))


def ordered_map(fn: Callable[[T], R], items: Iterable[T], threads: int | None = None) -> list[R]:
    """``[fn(item) for item in items]``, on ``threads`` threads (:func:`thread_count`
    when None); an exception of any piece is raised here."""
    pieces = list(items)
    count = thread_count() if threads is None else max(1, threads)
    if count == 1 or len(pieces) < 2:
        return [fn(item) for item in pieces]
    with concurrent.futures.ThreadPoolExecutor(min(count, len(pieces))) as pool:
        return list(pool.map(fn, pieces))
