"""The LRAE judge's replies (OpenForecast, COLING 2025, section 5, steps 3 and 5;
appendix B.6, Table 13).

Stage 1 asks whether an atomic prediction is stated by one of the numbered gold labels
and, if so, which; stage 2 asks whether the retrieved evidence supports it; AQA asks
whether the predicted answer matches the gold answer. Replies are read with word
boundaries: "Yes" is the word yes, never the start of "yesterday" (the paper's code
matches the substring), and the first of the words yes / no decides. A "Yes" naming no
valid label (none, 0, or beyond the list) does not match: with a single label, a bare
"Yes" means that label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_YES_NO = re.compile(r"\b(yes|no)\b", re.I)
_INDEX = re.compile(r"\((\d{1,3})\)|\b(?:index|label|number)\b\D{0,12}?(\d{1,3})\b", re.I)


def parse_yes_no(text: str | None) -> bool | None:
    """True for yes, False for no (the first of the two words), None when neither."""
    m = _YES_NO.search(text or "")
    return None if m is None else m.group(1).lower() == "yes"


@dataclass(frozen=True)
class Match:
    """A stage-1 verdict: ``label`` is the 1-based index of the matched gold label."""

    matched: bool
    label: int | None
    note: str | None = None


def parse_match(text: str | None, n_labels: int) -> Match:
    """A stage-1 reply: Yes with the index of a gold label, or no match.

    Args:
        text: the judge's reply.
        n_labels: number of gold labels shown (indices run 1..n_labels).
    """
    answer = parse_yes_no(text)
    if answer is None:
        return Match(False, None, "neither yes nor no")
    if not answer:
        return Match(False, None)
    m = _INDEX.search(text or "")
    if m is not None:
        index = int(m.group(1) or m.group(2))
        if 1 <= index <= n_labels:
            return Match(True, index)
        return Match(False, None, f"yes with index {index} outside 1..{n_labels}")
    if n_labels == 1:
        return Match(True, 1)
    return Match(False, None, "yes without a label index")
