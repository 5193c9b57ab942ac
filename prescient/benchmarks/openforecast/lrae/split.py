"""Step 1 of LRAE: a prediction split into atomic predictions (OpenForecast, COLING 2025,
section 5, step 1: "partitioned into atomic predictions using the regular expression").

A reply is read as, in this order of preference:

1. a numbered list with one item per line (``1.``, ``2)``, ``(3)`` at the start of a
   line, numbers consecutive from 1), unless a list within lines has more items;
2. a numbered list within a line ("1. X; 2. Y"): a marker is a one- or two-digit number
   followed by ``.`` or ``)`` (or in parentheses), preceded by the start or whitespace and
   followed by whitespace, and only the next number of the sequence counts, so the "2."
   of "in 2022." or "rose to 5." never starts an item, and item 10 onwards keep their
   text whole (the paper's code matches "2." inside "2022." and cuts a character off
   items from 10 on);
3. a bulleted list (``-``, ``*``, ``•`` at the start of a line);
4. several non-empty lines (a line ending with ":" is a heading, not a prediction);
5. the whole reply as one prediction.

Text before the first item (a preamble) is not a prediction; a line list's last item ends
at the first blank line (an epilogue is not part of it). Near-duplicates are then marked
(:func:`prescient.benchmarks.openforecast.text.near_duplicates`).
"""

from __future__ import annotations

import re

_LINE_MARKER = re.compile(r"^[ \t]*(?:\((\d{1,2})\)|(\d{1,2})[.)])[ \t]+", re.M)
_INLINE_MARKER = re.compile(r"(?:^|(?<=\s))(?:\((\d{1,2})\)|(\d{1,2})[.)])(?=\s)")
_BULLET = re.compile(r"^[ \t]*[-*•][ \t]+", re.M)
_TRAILING = " \t\n;,"


def _sequence(matches: list[re.Match[str]]) -> list[re.Match[str]]:
    """The markers numbered 1, 2, 3, ... in order of appearance (others are text)."""
    out: list[re.Match[str]] = []
    for m in matches:
        number = int(m.group(1) or m.group(2))
        if number == len(out) + 1:
            out.append(m)
    return out


def _items(text: str, markers: list[re.Match[str]], cut_blank: bool) -> list[str]:
    items = []
    for i, m in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(text)
        item = text[m.end() : end]
        if cut_blank and "\n\n" in item.strip("\n"):
            item = item.strip("\n").split("\n\n", 1)[0]
        if not cut_blank and i + 1 == len(markers):
            item = item.split("\n", 1)[0]  # an inline list's last item ends with its line
        item = " ".join(item.split()).strip(_TRAILING)
        if item:
            items.append(item)
    return items


def split_predictions(text: str | None) -> list[str]:
    """Atomic predictions of one reply (see the module docstring); [] for an empty one."""
    if not text or not text.strip():
        return []
    lines = _sequence(list(_LINE_MARKER.finditer(text)))
    inline = _sequence(list(_INLINE_MARKER.finditer(text)))
    if lines and len(lines) >= len(inline):
        return _items(text, lines, cut_blank=True)
    if inline:
        return _items(text, inline, cut_blank=False)
    bullets = list(_BULLET.finditer(text))
    if bullets:
        return _items(text, bullets, cut_blank=True)
    rows = [" ".join(r.split()) for r in text.splitlines()]
    rows = [r.strip(_TRAILING) for r in rows if r.strip() and not r.rstrip().endswith(":")]
    return [r for r in rows if r]
