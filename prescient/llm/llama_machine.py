"""The machine the embedded model runs on: how many threads it gets, what its CPU can do,
and what of it is recorded with an answer.

Results do not depend on any of it (one and two llama.cpp threads give bit-identical
logits); the thread count is tuning, and what the entry records
(:func:`llama_provenance`) is fixed by the build, so a ledger is the same bytes on every
machine that computes the same answers.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import platform
import time
from pathlib import Path
from typing import Any

from prescient.threads import usable_cores


def _idle_cores(sample_s: float = 0.25) -> float | None:
    """How many cores sat idle over a short sample (``/proc/stat``), or None off Linux."""

    def read() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, total

    try:
        idle0, total0 = read()
        time.sleep(sample_s)
        idle1, total1 = read()
    except (OSError, ValueError, IndexError):
        return None
    if total1 <= total0:
        return None
    return (idle1 - idle0) / (total1 - total0) * (os.cpu_count() or 1)


def default_threads() -> int:
    """llama.cpp threads: ``PRESCIENT_LLAMA_THREADS``, else as many as there are idle cores.

    llama.cpp's threads meet at a barrier after every layer, so a thread descheduled by
    a busy machine stalls the others: on a 2-core machine with other work running, two
    threads generated 100 tokens in 88-126 s where one thread took 6.5 s, while on an
    idle one two threads are about 1.7 times faster than one. So the model gets the
    cores that are idle when it loads (at least one, at most 8 and never more than the
    usable cores). Results do not depend on it: one and two threads give bit-identical
    logits (tests/integration/llm/test_gateway_local.py), so the variable is machine
    tuning, not a parameter, and not part of the ledger key.
    """
    if os.environ.get("PRESCIENT_LLAMA_THREADS", "").isdigit():
        return max(1, int(os.environ["PRESCIENT_LLAMA_THREADS"]))
    cores = usable_cores()
    idle = _idle_cores()
    if idle is None:
        return max(1, min(8, cores // 2))
    return max(1, min(8, cores, int(idle + 0.25)))


SIMD_FLAGS = (
    "pni",  # SSE3, as Linux names it
    "ssse3",
    "sse4_1",
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "bmi2",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512vbmi",
    "amx_tile",
    "neon",
    "asimd",
    "sve",
)
"""CPU features that decide which llama.cpp kernels could run (x86-64 and Arm names)."""


def cpu_features() -> dict[str, Any]:
    """The CPU's model name and its SIMD features (from /proc/cpuinfo on Linux)."""
    model = platform.processor() or ""
    flags: set[str] = set()
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name in ("model name", "cpu model") and not model:
            model = value.strip()
        elif name in ("flags", "features") and not flags:
            flags = set(value.split())
    return {
        "machine": platform.machine(),
        "model": model,
        "features": [f for f in SIMD_FLAGS if f in flags],
    }


@functools.cache
def llama_provenance() -> dict[str, Any]:
    """Where the embedded model's answers come from, recorded in each of its ledger entries.

    llama-cpp-python's version (which pins llama.cpp), llama.cpp's library version and
    the instruction sets it was built with (``llama_print_system_info``: fixed by the
    Makefile, so the same on every machine that can run it). Not part of the key. The
    machine itself (its CPU model and features, the thread count) is logged when the
    model loads but kept out of the entry: a ledger is a DVC output hashed into dvc.lock,
    so it must be the same bytes on every machine that computes the same answers.
    """
    import llama_cpp

    def text(value: Any) -> str:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)

    try:
        library = text(llama_cpp.llama_version())
    except (AttributeError, OSError):
        library = None
    return {
        "llama_cpp_python": importlib.metadata.version("llama-cpp-python"),
        "llama_cpp": library,
        "llama_cpp_system_info": text(llama_cpp.llama_print_system_info()).strip(" |"),
    }
