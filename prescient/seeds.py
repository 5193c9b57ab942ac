"""The one seed derivation of the project.

Every random choice (a day's article selection, a choice order, a sample, a bootstrap)
takes its seed from ``base.seed`` and stable ids of what is being drawn, never from the
clock or a global generator, so a rerun draws the same and adding data (days, questions,
chains) never changes the draws of what was already there.
"""

from __future__ import annotations

import datetime as dt
import hashlib

_SEPARATOR = "\x1f"  # ASCII unit separator: cannot occur in ids, dates or names


def _part(value: object) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bool | int | str):
        return str(value)
    raise TypeError(f"seed parts are ints, strings or dates, not {type(value).__name__}")


def derive_seed(base_seed: int, *parts: object) -> int:
    """A 64-bit seed from the base seed and stable parts (ids, names, days).

    ``derive_seed(seed, "select", day)`` and ``derive_seed(seed, "choices", qid)`` are
    independent streams; the same arguments always give the same seed on any machine.
    Also usable as a sort key: ordering items by ``derive_seed(seed, name, item_id)`` is a
    seeded shuffle in which each item's position is independent of the other items.

    Args:
        base_seed: ``base.seed``.
        parts: what the draw is for and of; ints, strings or dates.
    """
    text = _SEPARATOR.join([str(int(base_seed)), *(_part(p) for p in parts)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
