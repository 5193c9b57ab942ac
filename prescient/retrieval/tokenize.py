"""The tokenizer BM25 indexes and queries with (params ``retrieval.tokenizer``).

Shipped settings: lowercase, tokens are maximal runs of Unicode letters and digits (so
"U.S." gives "u", "s" and "COVID-19" gives "covid", "19"), English stop words removed
(scikit-learn's list). Dropping stop words matters more for BM25Okapi than it looks: a word in more than
half of the visible articles gets a negative idf, which rank-bm25 replaces by a small
*positive* floor (epsilon x average idf), so "the" and "of" would otherwise add noise to
every score; they also make the longest postings lists, so removing them is most of the
query cost.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, Field, PlainValidator

from prescient.settings import Settings


@functools.cache
def english_stopwords() -> frozenset[str]:
    """scikit-learn's English stop-word list (318 words), read from the module that
    defines it alone: importing scikit-learn takes about a second, the list a
    millisecond (the whole package is imported only where that module is not found)."""
    spec = importlib.util.find_spec("sklearn")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "feature_extraction" / "_stop_words.py"
        words = importlib.util.spec_from_file_location("_prescient_stop_words", path)
        if words is None or words.loader is None or not path.is_file():
            continue
        module = importlib.util.module_from_spec(words)
        words.loader.exec_module(module)
        found = getattr(module, "ENGLISH_STOP_WORDS", None)
        if isinstance(found, frozenset):
            return frozenset(found)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def _token_pattern(pattern: str) -> str:
    """A regular expression that compiles, has no capturing group (the tokens are whole
    matches) and never matches the empty string (an empty token would be indexed as a
    word)."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a regular expression ({exc})") from None
    if regex.groups:
        raise ValueError("has a capturing group; write groups as (?:...)")
    if regex.fullmatch(""):
        raise ValueError("matches the empty string, so it would produce empty tokens")
    return pattern


STOPWORD_LISTS = ("english", "none")


def _stopwords(value: Any) -> str | tuple[str, ...]:
    """``english``, ``none`` or a list of words."""
    if value in STOPWORD_LISTS:
        return str(value)
    if isinstance(value, list | tuple) and all(isinstance(w, str) and w for w in value):
        return tuple(value)
    raise ValueError(f"expected {' or '.join(STOPWORD_LISTS)} or a list of words")


class TokenizerSettings(Settings):
    """Params section ``retrieval.tokenizer``.

    Attributes:
        lowercase: fold case before matching.
        pattern: regular expression whose matches are the tokens.
        stopwords: ``english`` (scikit-learn's list), ``none``, or a list of words.
        min_length: drop tokens shorter than this many characters.
    """

    lowercase: bool
    pattern: Annotated[str, AfterValidator(_token_pattern)]
    stopwords: Annotated[str | tuple[str, ...], PlainValidator(_stopwords)]
    min_length: Annotated[int, Field(ge=1)]


@dataclass(frozen=True)
class Tokenizer:
    """Text -> tokens, the same for documents and queries.

    Attributes:
        lowercase: fold case before matching.
        pattern: regular expression whose matches are the tokens.
        stopwords: tokens to drop (compared after lowercasing when ``lowercase``).
        min_length: drop tokens shorter than this many characters.
    """

    lowercase: bool
    pattern: str
    stopwords: frozenset[str]
    min_length: int
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_regex", re.compile(self.pattern))

    @classmethod
    def from_settings(cls, s: TokenizerSettings) -> Tokenizer:
        """The tokenizer ``retrieval.tokenizer`` describes."""
        if s.stopwords == "english":
            stop: frozenset[str] = english_stopwords()
        elif s.stopwords == "none":
            stop = frozenset()
        else:
            stop = frozenset(s.stopwords)
        return cls(
            lowercase=s.lowercase,
            pattern=s.pattern,
            stopwords=frozenset(w.lower() if s.lowercase else w for w in stop),
            min_length=s.min_length,
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
