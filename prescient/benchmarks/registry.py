"""Every benchmark's contract, found by folder: a lazy map from name to contract.

A folder ``prescient/benchmarks/<name>/`` with a ``contract.py`` is a benchmark; adding
one adds its analysis and its part of the report with no edit outside its folder (its
conf group and its stages in dvc.yaml aside). Contracts are imported only when asked
for, and only the layers above the benchmarks ask: the ``analyze``, ``plot`` and
``report`` stages and the page. The stages' code dependencies follow the same pattern
(:data:`CONTRACTS`, read by :mod:`prescient.plumbing.dag`).
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

from prescient.analysis.parts import BenchmarkAnalysis
from prescient.contract.benchmark import Benchmark
from prescient.report.parts import ReportPart

CONTRACTS = "prescient.benchmarks.*.contract"
"""The contract modules: one per benchmark folder (``*``), each with a ``BENCHMARK``."""
ROOT = Path(__file__).resolve().parent


def names() -> tuple[str, ...]:
    """The benchmarks, by folder name in sorted order (the order their analyses run and
    their parts are placed in)."""
    return tuple(
        sorted(
            p.parent.name
            for p in ROOT.glob("*/contract.py")
            if (p.parent / "__init__.py").is_file()
        )
    )


def contract(name: str) -> Benchmark:
    """The contract of benchmark ``name``."""
    module = CONTRACTS.replace("*", name)
    found = importlib.import_module(module).BENCHMARK
    if not isinstance(found, Benchmark) or found.name != name:
        raise TypeError(f"{module}.BENCHMARK must be the Benchmark named {name!r}")
    return found


@functools.cache
def benchmarks() -> tuple[Benchmark, ...]:
    """Every benchmark's contract."""
    return tuple(contract(n) for n in names())


def analyses() -> tuple[BenchmarkAnalysis, ...]:
    """Every benchmark's own analysis, in :func:`names` order."""
    return tuple(a for b in benchmarks() if (a := b.load_analysis()) is not None)


def report_parts() -> tuple[ReportPart, ...]:
    """Every benchmark's part of the report, in :func:`names` order."""
    return tuple(r for b in benchmarks() if (r := b.load_report()) is not None)
