"""The contract a benchmark fills: what it contributes beside its own stages.

A benchmark is one folder, ``prescient/benchmarks/<name>/``, holding what only it
defines, and one module there, ``contract.py``, whose ``BENCHMARK`` is a
:class:`Benchmark`: its title, the conf groups and DVC stages it owns, and where its
analysis and its part of the report are (``"module:attribute"``, imported only when the
``analyze``, ``plot`` or ``report`` stage asks for them). The registry
(:mod:`prescient.benchmarks.registry`) finds every folder's contract by that name; the
analysis stage and the report page compose what the contracts list and never name a
benchmark.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from prescient.analysis.parts import BenchmarkAnalysis
from prescient.report.parts import ReportPart


def resolve(ref: str) -> Any:
    """The object a ``"module:attribute"`` reference names."""
    module, sep, name = ref.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"expected 'module:attribute', got {ref!r}")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's contract.

    Attributes:
        name: its folder under ``prescient/benchmarks/``.
        title: its name as people write it.
        conf_groups: the ``conf/`` groups it owns (its sections of params.yaml).
        stages: the DVC stages that run its own code (dvc.yaml).
        analysis: ``"module:attribute"`` of its :class:`BenchmarkAnalysis` (its tables
            in the ``analyze`` stage), or None.
        report: ``"module:attribute"`` of its :class:`ReportPart`, or None.
    """

    name: str
    title: str
    conf_groups: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    analysis: str | None = None
    report: str | None = None

    def load_analysis(self) -> BenchmarkAnalysis | None:
        """Its analysis, imported now."""
        if self.analysis is None:
            return None
        found = resolve(self.analysis)
        if not isinstance(found, BenchmarkAnalysis):
            raise TypeError(f"{self.name}: {self.analysis} is not a BenchmarkAnalysis")
        return found

    def load_report(self) -> ReportPart | None:
        """Its part of the report, imported now."""
        if self.report is None:
            return None
        found = resolve(self.report)
        if not isinstance(found, ReportPart):
            raise TypeError(f"{self.name}: {self.report} is not a ReportPart")
        return found
