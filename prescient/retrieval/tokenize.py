"""The tokenizer BM25 indexes and queries with (params ``retrieval.tokenizer``).

Default: lowercase, tokens are maximal runs of Unicode letters and digits (so "U.S." gives
"u", "s" and "COVID-19" gives "covid", "19"), English stop words removed (scikit-learn's
list). Dropping stop words matters more for BM25Okapi than it looks: a word in more than
half of the visible articles gets a negative idf, which rank-bm25 replaces by a small
*positive* floor (epsilon x average idf), so "the" and "of" would otherwise add noise to
every score; they also make the longest postings lists, so removing them is most of the
query cost.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_PATTERN = r"[^\W_]+"


def english_stopwords() -> frozenset[str]:
    """scikit-learn's English stop-word list (318 words)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@dataclass(frozen=True)
class Tokenizer:
    """Text -> tokens, the same for documents and queries.

    Attributes:
        lowercase: fold case before matching.
        pattern: regular expression whose matches are the tokens.
        stopwords: tokens to drop (compared after lowercasing when ``lowercase``).
        min_length: drop tokens shorter than this many characters.
    """

    lowercase: bool = True
    pattern: str = DEFAULT_PATTERN
    stopwords: frozenset[str] = field(default_factory=frozenset)
    min_length: int = 1
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_regex", re.compile(self.pattern))

    @classmethod
    def from_params(cls, d: Mapping[str, Any] | None) -> Tokenizer:
        """Build from ``retrieval.tokenizer`` (``stopwords``: english | none | a list)."""
        d = d or {}
        sw = d.get("stopwords", "english")
        stop: Collection[str]
        if sw is None or (isinstance(sw, str) and sw.lower() in {"none", ""}):
            stop = ()
        elif isinstance(sw, str) and sw.lower() == "english":
            stop = english_stopwords()
        elif isinstance(sw, str):
            raise ValueError(
                f"retrieval.tokenizer.stopwords: {sw!r} is not english, none or a list"
            )
        else:
            stop = [str(w) for w in sw]
        lowercase = bool(d.get("lowercase", True))
        return cls(
            lowercase=lowercase,
            pattern=str(d.get("pattern") or DEFAULT_PATTERN),
            stopwords=frozenset(w.lower() if lowercase else w for w in stop),
            min_length=int(d.get("min_length", 1)),
        )

    def __call__(self, text: str | None) -> list[str]:
        """Tokens of ``text`` in order (repeats kept: BM25 counts them)."""
        if not text:
            return []
        if self.lowercase:
            text = text.lower()
        tokens = self._regex.findall(text)
        stop, min_len = self.stopwords, self.min_length
        if stop or min_len > 1:
            return [t for t in tokens if t not in stop and len(t) >= min_len]
        return tokens
