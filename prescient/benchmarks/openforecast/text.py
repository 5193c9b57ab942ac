"""Word-level text similarity, the one rule for "the same event in other words".

Used to drop near-duplicate key points of one chain day, model-written distractors that
restate a real later event, and near-duplicate atomic predictions. Word-set Jaccard is
crude but transparent and exact: a reader can recompute every decision by hand.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> frozenset[str]:
    """Lower-cased word set of a text (runs of letters and digits)."""
    return frozenset(_WORD.findall(text.lower()))


def jaccard(a: str, b: str) -> float:
    """|A ∩ B| / |A ∪ B| of the word sets (1.0 for two texts without words)."""
    wa, wb = words(a), words(b)
    if not wa and not wb:
        return 1.0
    return len(wa & wb) / len(wa | wb)


def near_duplicates(texts: Sequence[str], threshold: float) -> list[int | None]:
    """For each text, the index of an earlier kept text it repeats (Jaccard >= threshold),
    or None when it is kept; the first of a group of repeats is the one kept."""
    kept: list[int] = []
    out: list[int | None] = []
    for i, t in enumerate(texts):
        match = next((k for k in kept if jaccard(t, texts[k]) >= threshold), None)
        out.append(match)
        if match is None:
            kept.append(i)
    return out
