"""Partitions of the evaluation: the questions split by when they resolve.

A continuously updated benchmark adds a day of questions at a time. With the
evaluation split into partitions (``eval.partitions``), each model answers each
partition in its own DVC stage (``evaluate@<model>-<partition>``, a ``matrix`` of
``dvc.yaml``), reading only that partition's questions and context tables and writing
its own predictions and ledger. ``retrieve`` writes every partition's tables; a new day
changes only the tables of the partition its questions resolve in, the others are
rewritten with the same bytes, so DVC sees their stages unchanged and skips them: an
update asks and reads back the new partition alone, and DVC's cache adds only its
files.

A partition is named by one of:

- ``all``: every question (the default: one stage per model);
- ``YYYY``: the questions resolving in that year;
- ``YYYY-MM``: the questions resolving in that month.

Partitions may not overlap, and every question must fall in one: a question outside
them stops ``retrieve`` with the months to add. ``python -m prescient update`` appends
the new day's month when the list is a list of months (:func:`extended`).

Each question's partition is a function of its resolution date alone, so it never
moves when days are added; the rows of a partition keep the order of the evaluated
question table.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

ALL = "all"
"""The partition holding every question."""

QUESTIONS = "questions.parquet"
"""A partition's questions, in its directory (stage ``retrieve``'s ``--partitions``)."""

CONTEXTS = "contexts"
"""A partition's context tables, ``<setting>.parquet`` each, in its directory."""

_YEAR = re.compile(r"^(\d{4})$")
_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


class PartitionError(ValueError):
    """A partition list that cannot be used, or a question outside every partition."""


def _bounds(label: str) -> tuple[dt.date, dt.date] | None:
    """``[first day, day after the last)`` of a partition (None: ``all``)."""
    if label == ALL:
        return None
    if m := _YEAR.match(label):
        year = int(m.group(1))
        return dt.date(year, 1, 1), dt.date(year + 1, 1, 1)
    if m := _MONTH.match(label):
        year, month = int(m.group(1)), int(m.group(2))
        end = dt.date(year + month // 12, month % 12 + 1, 1)
        return dt.date(year, month, 1), end
    raise PartitionError(f"unknown partition {label!r}: use {ALL!r}, YYYY or YYYY-MM")


def check(labels: Iterable[object]) -> tuple[str, ...]:
    """The partitions, validated: at least one, each known, none twice, no two
    overlapping (``all`` alone).

    Raises:
        PartitionError: naming the offending entries.
    """
    if isinstance(labels, str):
        raise PartitionError(f"expected a list of partitions, got {labels!r}")
    names = tuple(str(x) for x in labels)
    if not names:
        raise PartitionError(f"is empty: list at least one partition ({ALL!r}, YYYY or YYYY-MM)")
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise PartitionError(f"lists {dup} more than once")
    spans = {n: _bounds(n) for n in names}
    if ALL in names and len(names) > 1:
        raise PartitionError(f"{ALL!r} holds every question: list it alone")
    ordered = sorted((b, n) for n, b in spans.items() if b is not None)
    for (b1, n1), (b2, n2) in zip(ordered, ordered[1:], strict=False):
        if b2[0] < b1[1]:
            raise PartitionError(f"{n1!r} and {n2!r} overlap: list each day in one partition")
    return names


def assign(resolution_dates: pd.Series, labels: Sequence[str]) -> pd.Series:
    """Each question's partition, by its resolution date.

    Raises:
        PartitionError: questions without a date, or resolving outside every partition,
            with the months to add to ``eval.partitions``.
    """
    labels = check(labels)
    if labels == (ALL,):
        return pd.Series(ALL, index=resolution_dates.index, dtype="object")
    days = pd.to_datetime(resolution_dates, errors="coerce")
    if days.isna().any():
        raise PartitionError(
            f"{int(days.isna().sum())} questions have no resolution date, which places a "
            f"question in a partition: use eval.partitions=[{ALL}]"
        )
    # one pass over the questions: a month's own partition, else its year's
    by_month = {x: x for x in labels if _MONTH.match(x)}
    by_year = {x: x for x in labels if _YEAR.match(x)}
    out = days.dt.strftime("%Y-%m").map(by_month)
    out = out.where(out.notna(), days.dt.strftime("%Y").map(by_year)).astype("object")
    outside = days[out.isna()]
    if len(outside):
        months = sorted({d.strftime("%Y-%m") for d in outside})
        raise PartitionError(
            f"{len(outside)} questions resolve outside eval.partitions {list(labels)} "
            f"(in {months[:12]}{' ...' if len(months) > 12 else ''}): add those months "
            "(or years) to eval.partitions"
        )
    return out


def rows_of(of: pd.Series, labels: Sequence[str]) -> dict[str, npt.NDArray[np.intp]]:
    """Partition -> the positions of its rows, in order, given each row's partition
    ``of`` (one pass; in ``labels`` order; a partition with no row has none)."""
    groups = pd.Series(np.arange(len(of))).groupby(of.to_numpy(), sort=False).indices
    empty = np.zeros(0, dtype=np.intp)
    return {label: np.asarray(groups.get(label, empty), dtype=np.intp) for label in labels}


def extended(labels: Sequence[str], day: dt.date) -> tuple[str, ...]:
    """The partitions with ``day``'s month appended, and every month between, when they
    are months and end before it; otherwise as they are (a day inside them, or a list
    of years or ``all``, which a user extends)."""
    labels = check(labels)
    if not all(_MONTH.match(x) for x in labels):
        return labels
    last = max(labels)
    year, month = int(last[:4]), int(last[5:])
    out = list(labels)
    while (year, month) < (day.year, day.month):
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        out.append(f"{year:04d}-{month:02d}")
    return tuple(out)
