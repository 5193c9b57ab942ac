"""A choice's text found as a whole word in a response: the same answer as the regular
expression it replaces, on any text (letters of any script, digits, marks, underscores,
punctuation and spaces)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from prescient.evaluation.parsing import whole_in

ALPHABET = st.sampled_from(
    list("ab_1 .-'é") + ["\u0301", "\u00b2", "\u0660", "ß", "Σ", "٣", "\u200d", "\t"]
)
TEXTS = st.text(alphabet=ALPHABET, max_size=24)


def by_regex(part: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(part)}(?!\w)", text) is not None


@settings(max_examples=3000, deadline=None)
@given(part=TEXTS.filter(bool), text=TEXTS)
def test_whole_in_is_the_regular_expression(part: str, text: str) -> None:
    assert whole_in(part, text) == by_regex(part, text)


@settings(max_examples=1000, deadline=None)
@given(part=st.text(min_size=1, max_size=6), before=st.text(max_size=6), after=st.text(max_size=6))
def test_whole_in_on_any_unicode(part: str, before: str, after: str) -> None:
    text = before + part + after
    assert whole_in(part, text) == by_regex(part, text)
