"""Masthead suffixes of news titles: the one rule ingest and the chain builder share.

Pages often title an article "Storm floods the valley | CNN" or "... - The Week UK": the
part after the last separator names the outlet, not the news. Such a suffix is a
*masthead* when the same text (case-insensitive, a trailing "..." or "…" ignored) ends at
least ``min_count`` titles of one group; stripping repeats while the new last part is a
masthead too ("A - CNN Politics | CNN" loses both when "CNN Politics" also ends enough
titles). The part before a title's first
separator is never removed, so a trimmed title never becomes empty.

Groups decide whose titles count together: ingest counts within each source domain (an
outlet's masthead recurs in its own titles; one outlet's recurring phrase never strips
another's titles), the OpenForecast chain builder over the whole corpus. Either way the
result is a function of the titles and the settings alone, but it depends on the other
titles of the group: a suffix that recurs only ``min_count - 1`` times is kept. Given
each title's day (ingest passes the day each article is known from,
:mod:`prescient.arrival`), a suffix is a masthead from the day its ``min_count``-th title
is known, and only titles of that day or later lose it: an article arriving later never
changes an older title. With a real outlet's hundreds of titles a day the threshold is
crossed on its first day.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*$")


def title_suffix(title: str, separators: Sequence[str]) -> tuple[int, str] | None:
    """Position and text of the part after the title's last separator (its ellipsis
    dropped); None when no separator follows the first character."""
    best: tuple[int, str] | None = None
    for sep in separators:
        at = title.rfind(sep)
        if at > 0 and (best is None or at > best[0]):
            best = (at, _ELLIPSIS.sub("", title[at + len(sep) :]).strip())
    return best


def mastheads(
    titles: Sequence[str],
    separators: Sequence[str],
    min_count: int,
    groups: Sequence[Hashable] | None = None,
) -> dict[Hashable, dict[str, int]]:
    """The recurring suffixes (lowercased) of each group, with how many titles end with
    each (``groups`` None: one group, keyed None)."""
    keys: Sequence[Hashable] = [None] * len(titles) if groups is None else groups
    if len(keys) != len(titles):
        raise ValueError(f"{len(titles)} titles but {len(keys)} groups")
    counts: Counter[tuple[Hashable, str]] = Counter()
    for title, key in zip(titles, keys, strict=True):
        found = title_suffix(title, separators)
        if found and found[1]:
            counts[(key, found[1].lower())] += 1
    out: dict[Hashable, dict[str, int]] = {}
    for (key, suffix), n in sorted(counts.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        if n >= min_count:
            out.setdefault(key, {})[suffix] = n
    return out


def masthead_days(
    titles: Sequence[str],
    separators: Sequence[str],
    min_count: int,
    groups: Sequence[Hashable],
    days: Sequence[Any],
) -> dict[Hashable, dict[str, Any]]:
    """The day from which each recurring suffix (lowercased) of each group is a masthead:
    the day its ``min_count``-th title is known (``days``: each title's day, any ordered
    values)."""
    if not len(titles) == len(groups) == len(days):
        raise ValueError(f"{len(titles)} titles, {len(groups)} groups and {len(days)} days")
    seen: dict[tuple[Hashable, str], list[Any]] = {}
    for title, key, day in zip(titles, groups, days, strict=True):
        found = title_suffix(title, separators)
        if found and found[1]:
            seen.setdefault((key, found[1].lower()), []).append(day)
    out: dict[Hashable, dict[str, Any]] = {}
    for (key, suffix), when in seen.items():
        if len(when) >= min_count:
            out.setdefault(key, {})[suffix] = sorted(when)[min_count - 1]
    return out


def strip_title_suffixes(
    titles: Sequence[str],
    separators: Sequence[str],
    min_count: int,
    groups: Sequence[Hashable] | None = None,
    *,
    drop_ellipsis: bool = True,
    days: Sequence[Any] | None = None,
) -> list[str]:
    """The titles without their group's mastheads (see the module docstring).

    Args:
        titles: the titles, trimmed.
        separators: what separates a masthead from the headline (" | ", " - ").
        min_count: titles of a group a suffix must end to be a masthead.
        groups: each title's group (None: all titles form one group).
        drop_ellipsis: also drop a final "..." or "…" of a cut title (the chain builder
            vectorises words, and a cut word is none; a title that is only an ellipsis
            becomes empty); ingest keeps it.
        days: each title's day: a suffix is stripped only from titles of the day it
            became a masthead (:func:`masthead_days`) or later (None: from every title).
    """
    keys: Sequence[Hashable] = [None] * len(titles) if groups is None else groups
    if days is None:
        since: dict[Hashable, dict[str, Any]] = {
            key: dict.fromkeys(found, None)
            for key, found in mastheads(titles, separators, min_count, keys).items()
        }
        when: Sequence[Any] = [None] * len(titles)
    else:
        since = masthead_days(titles, separators, min_count, keys, days)
        when = days
    out = []
    for title, key, day in zip(titles, keys, when, strict=True):
        mine = since.get(key, {})
        while mine:
            found = title_suffix(title, separators)
            if found is None or found[1].lower() not in mine:
                break
            start = mine[found[1].lower()]
            if start is not None and day < start:
                break
            title = title[: found[0]]
        out.append(_ELLIPSIS.sub("", title).strip() if drop_ellipsis else title.strip())
    return out
