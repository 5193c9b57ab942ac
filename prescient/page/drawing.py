"""The report's figures drawn on several processes.

Matplotlib draws one figure at a time in a process, and most of ``plot``'s time is its
text layout and PNG encoding, so the figures are shared among worker processes (started
fresh, never forked from a process that holds pyarrow's threads), each reading the
stage's input tables once. A figure's PNG bytes depend on its tables alone
(:meth:`prescient.report.figures.FigureSpec.png`), so the files are the same whatever
process drew them, and the same as drawn one by one here.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
from collections.abc import Iterator, Sequence

from prescient.page.contents import read_stage_inputs, report_figures
from prescient.report.parts import ReportInputs

_read: dict[str, ReportInputs] = {}
"""The inputs a worker process has read, by the stage's arguments."""


def _draw(args: argparse.Namespace, name: str) -> bytes:
    """Figure ``name`` as PNG bytes, in a worker (which reads the inputs once)."""
    key = repr(sorted(vars(args).items()))
    if key not in _read:
        _read[key] = read_stage_inputs(args)
    spec = {s.name: s for s in report_figures()}[name]
    return spec.png(_read[key].tables)


def draw_figures(
    args: argparse.Namespace, inputs: ReportInputs, names: Sequence[str], workers: int
) -> Iterator[tuple[str, bytes]]:
    """Each figure of ``names`` with its PNG bytes, in order: drawn here from ``inputs``
    with one worker (or one figure), else on ``workers`` processes that read the inputs
    ``args`` names (the stage's own arguments, so the same tables)."""
    specs = {s.name: s for s in report_figures()}
    if workers <= 1 or len(names) < 2:
        for name in names:
            yield name, specs[name].png(inputs.tables)
        return
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(
        min(workers, len(names)), mp_context=context
    ) as pool:
        yield from zip(names, pool.map(_draw, [args] * len(names), names), strict=True)
