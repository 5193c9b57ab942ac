"""The plumbing every DVC stage shares: its command line, logging, params, exit code.

A stage module declares its own options and its work; :func:`entry` makes its
``main(argv)``::

    def options(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--out", required=True)

    def work(run: StageRun) -> int:
        ...  # run.args, run.params, run.logger
        return DONE

    main = entry("select", __doc__, options, work)

``main`` parses ``--params`` (the params file, :data:`prescient.plumbing.params.PARAMS_FILE` by
default) and the stage's options, sets up logging, loads the params and runs the work.
The work returns its exit code or raises; an error of a row below is logged with
``logger.error`` (its message alone, no traceback) and the stage exits with the row's
code; any other exception propagates with its traceback.

Exit codes, the same for every stage:

==== ==================================================================================
code meaning
==== ==================================================================================
0    done
1    the stage ran and wrote its outputs, but part of its work failed (``bpc``: some
     documents not scored; ``crawl``: some files not fetched): a rerun retries those
2    bad input, configuration or command line (argparse's own exit), nothing written:
     any ``ValueError`` (ParamsError, ModelConfigError, ScoresSchemaError,
     LocationError, TemplateError, LedgerNotWritableError, ...), a missing input
     (``FileNotFoundError``), a crawl listing that cannot be read (``CrawlError``)
3    more failed model calls than ``llm.max_failed_share`` allows (the ledger is
     written, the other outputs removed; :mod:`prescient.llm.failures`)
4    refused: ``retrieve`` found a retrieved article outside its question's visibility
     window (``VisibilityError``) and wrote nothing that would show a model the future
==== ==================================================================================
"""

from __future__ import annotations

import argparse
import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from prescient.plumbing import params as params_io

DONE = 0
PARTIAL = 1
BAD_INPUT = 2
FAILED_CALLS = 3
REFUSED = 4

LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"


@dataclass(frozen=True)
class ExitRow:
    """One row of the exit-code table: its code, its meaning and the errors it stands
    for, named ``module.QualName`` so that this module imports none of them (a stage's
    dependencies follow its imports)."""

    code: int
    meaning: str
    errors: tuple[str, ...] = ()


EXIT_CODES: tuple[ExitRow, ...] = (
    ExitRow(DONE, "done"),
    ExitRow(PARTIAL, "ran, but part of its work failed; a rerun retries it"),
    ExitRow(
        BAD_INPUT,
        "bad input or configuration",
        ("builtins.ValueError", "builtins.FileNotFoundError", "prescient.crawl.run.CrawlError"),
    ),
    ExitRow(FAILED_CALLS, "failed model calls beyond llm.max_failed_share"),
    ExitRow(
        REFUSED,
        "refused to write an output",
        ("prescient.evaluation.prepare.VisibilityError",),
    ),
)


class BadInput(ValueError):
    """Bad input or configuration that the stage words itself (exit 2): each line of
    ``lines`` is logged as one error."""

    def __init__(self, *lines: str) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class StageMain(Protocol):
    """A stage's ``main``: its command line (``sys.argv`` when None) -> its exit code."""

    def __call__(self, argv: list[str] | None = None) -> int: ...


@dataclass(frozen=True)
class StageRun:
    """What a stage's work gets: its parsed options, its params (empty for a stage
    without ``--params``) and its logger (``stages.<name>``)."""

    args: argparse.Namespace
    params: dict[str, Any]
    logger: logging.Logger


def exit_code(exc: BaseException) -> int | None:
    """The code of the table's row for ``exc`` (by its class or a base class); None for
    an error no row stands for."""
    names = {f"{c.__module__}.{c.__qualname__}" for c in type(exc).__mro__}
    for row in EXIT_CODES:
        if names.intersection(row.errors):
            return row.code
    return None


@contextlib.contextmanager
def reworded(template: str, also: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Re-raise a bad-input error (exit 2), or one of the classes ``also`` names, as
    :class:`BadInput` with its message put into ``template`` (``"{}"`` stands for it),
    e.g. to say what the stage could not do."""
    try:
        yield
    except Exception as exc:
        if exit_code(exc) != BAD_INPUT and not isinstance(exc, also):
            raise
        raise BadInput(template.format(exc)) from exc


def entry(
    name: str,
    doc: str | None,
    options: Callable[[argparse.ArgumentParser], None],
    work: Callable[[StageRun], int],
    *,
    with_params: bool = True,
) -> StageMain:
    """The ``main(argv)`` of stage ``name``: see the module's docstring.

    Args:
        name: the stage's name (its logger is ``stages.<name>``).
        doc: the command's description (the stage module's docstring).
        options: declares the stage's own options on the parser.
        work: the stage's work; returns an exit code of the table.
        with_params: whether the stage takes ``--params`` and reads the params file.
    """
    logger = logging.getLogger(f"stages.{name}")

    def main(argv: list[str] | None = None) -> int:
        ap = argparse.ArgumentParser(prog=f"python -m stages.{name}", description=doc)
        if with_params:
            ap.add_argument("--params", default=params_io.PARAMS_FILE, help="the params file")
        options(ap)
        args = ap.parse_args(argv)
        logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
        try:
            p = params_io.load(args.params) if with_params else {}
            code = work(StageRun(args, p, logger))
        except Exception as exc:
            mapped = exit_code(exc)
            if mapped is None:
                raise
            code = mapped
            for line in exc.lines if isinstance(exc, BadInput) else (str(exc),):
                logger.error("%s", line)
            logger.debug("%s", name, exc_info=True)
        if code not in {row.code for row in EXIT_CODES}:
            raise ValueError(f"stage {name} returned {code!r}, not an exit code of the table")
        return code

    return main
