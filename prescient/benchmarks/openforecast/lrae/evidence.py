"""Step 4 of LRAE: evidence for predictions the gold labels miss (OpenForecast, COLING
2025, section 5, steps 2 and 4).

The paper searches the web and embeds paragraph chunks; here the evidence is the
ingested corpus itself, cut into paragraph-sized chunks, and retrieval is BM25 over the
chunks of the articles dated in the evidence window ``[T_k, T_k + H]``
(:func:`prescient.retrieval.visibility.evidence_window`), scored exactly as rank-bm25
rebuilt on that window's chunks (:class:`prescient.retrieval.interval.IntervalBM25`).
H is set per task: a few days for STF, up to the chain's last event for LTF. The date
filter is the window itself, applied before scoring (the paper's code meant to keep
chunks dated within three days of T_k, but its filter compares a reused loop variable
and lets every chunk through). Only the judge sees these chunks; no forecasting prompt
does.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from prescient.benchmarks.openforecast.settings import EvidenceSettings
from prescient.dates import as_date
from prescient.retrieval.bm25 import BM25Params
from prescient.retrieval.interval import IntervalBM25
from prescient.retrieval.tokenize import Tokenizer
from prescient.retrieval.visibility import VisibleWindow, evidence_window

_PARAGRAPHS = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Chunk:
    """A paragraph-sized piece of an article (``chunk_id`` = ``<article_id>:<n>``)."""

    chunk_id: str
    article_id: str
    date: dt.date
    title: str
    text: str


def chunk_article(
    article_id: str, date: dt.date, title: str, text: str, chunk_words: int
) -> list[Chunk]:
    """Paragraphs joined up to ``chunk_words`` words; longer paragraphs are cut."""
    pieces: list[list[str]] = []
    for para in _PARAGRAPHS.split(text or ""):
        words = para.split()
        pieces.extend(words[i : i + chunk_words] for i in range(0, len(words), chunk_words))
    chunks: list[list[str]] = []
    for piece in pieces:
        if chunks and len(chunks[-1]) + len(piece) <= chunk_words:
            chunks[-1].extend(piece)
        else:
            chunks.append(list(piece))
    return [
        Chunk(f"{article_id}:{n}", article_id, date, title, " ".join(words))
        for n, words in enumerate(chunks)
    ]


def horizon_days(task: str, split_date: dt.date, chain_end: dt.date, s: EvidenceSettings) -> int:
    """H of a sample: the task's configured days, or up to the chain's last day."""
    h = s.horizon_days[task]
    if h == "chain_end":
        return max(0, (chain_end - split_date).days)
    return int(h)


class EvidenceIndex:
    """Chunks of the articles from ``start`` on, searchable under any evidence window.

    Args:
        articles: ``article_id``, ``date``, ``title``, ``text``.
        s: evidence settings.
        tokenizer: how chunks and predictions become tokens (the retrieval stage's own,
            ``retrieval.tokenizer``, so evidence is found the way RAG articles are).
        start: first day indexed (the earliest split date: no window starts before it).
        progress: show a progress bar while chunking.
    """

    def __init__(
        self,
        articles: pd.DataFrame,
        s: EvidenceSettings,
        tokenizer: Tokenizer,
        start: dt.date | None = None,
        *,
        progress: bool = False,
    ) -> None:
        self.s = s
        self.tokenize = tokenizer
        days = [as_date(d) for d in articles["date"]]
        keep = [i for i, d in enumerate(days) if start is None or d >= start]
        chunks: list[Chunk] = []
        ids, titles, texts = (articles[c].to_numpy() for c in ("article_id", "title", "text"))
        for i in tqdm(keep, desc="evidence chunks", unit="article", disable=not progress):
            chunks.extend(
                chunk_article(str(ids[i]), days[i], str(titles[i]), str(texts[i]), s.chunk_words)
            )
        chunks.sort(key=lambda c: (c.date, c.article_id, int(c.chunk_id.rsplit(":", 1)[1])))
        self.chunks = chunks
        self.dates = np.array([np.datetime64(c.date, "D") for c in chunks], dtype="datetime64[D]")
        self.bm25 = IntervalBM25(
            (self.tokenize(f"{c.title}\n{c.text}") for c in chunks),
            BM25Params(k1=s.k1, b=s.b, epsilon=s.epsilon),
        )

    def interval(self, window: VisibleWindow) -> tuple[int, int]:
        """Chunk positions ``[lo, hi)`` dated inside the window."""
        lo = (
            0
            if window.start is None
            else np.searchsorted(self.dates, np.datetime64(window.start, "D"))
        )
        hi = np.searchsorted(self.dates, np.datetime64(window.end, "D"))
        return int(lo), int(hi)

    def search(self, query: str, split_date: dt.date, horizon: int) -> list[Chunk]:
        """The top ``top_k`` chunks for ``query`` dated in ``[T_k, T_k + horizon]``."""
        lo, hi = self.interval(evidence_window(split_date, horizon))
        hits = self.bm25.search(self.tokenize(query), lo, hi, self.s.top_k)
        return [self.chunks[h.doc] for h in hits]


def format_evidence(chunks: Sequence[Chunk], max_chars: int) -> str:
    """Numbered chunks for the judge: ``1. (2024-01-16, <title>) <text>``."""
    lines = []
    for i, c in enumerate(chunks, start=1):
        text = c.text if len(c.text) <= max_chars else c.text[:max_chars].rstrip() + " ..."
        lines.append(f"{i}. ({c.date.isoformat()}, {c.title}) {text}")
    return "\n".join(lines)
