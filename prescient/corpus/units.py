"""What every corpus reader yields: a unit of input, or a damaged stretch of a file.

The readers of each format (:mod:`prescient.corpus.readers`, and
:mod:`prescient.corpus.warc` for WARC records) produce these; ingest consumes them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from prescient.corpus.physical import Damage


@dataclass(slots=True)
class RawRow:
    """One physical unit of input in article-field terms, or the reason it is unusable.

    Attributes:
        where: ``file:line`` (or ``file:record N @ byte``) for errors and examples.
        fields: article field -> raw value (None when absent).
        reason: why the unit is unusable at read time (None when readable).
        detail: a short explanation for the examples (the parser's message...).
        notes: counters to report without dropping the row (``date_from_warc``).
        file_no: index of the file in the corpus.
        members: first and last gzip member the unit came from (a member that later
            fails its checksum takes back every row it held).
        fetched: the day the page was fetched (WARC-Date), None for other sources.
    """

    where: str
    fields: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    detail: str = ""
    notes: tuple[str, ...] = ()
    file_no: int = 0
    members: tuple[int, int] = (0, 0)
    fetched: dt.date | None = None


Unit = RawRow | Damage
"""What readers yield: a unit of input, or a damaged stretch of a file."""
