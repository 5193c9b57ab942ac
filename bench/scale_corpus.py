"""A synthetic news corpus with the shape of Daily Oracle's, for bench/bench_scale.py.

Daily Oracle's corpus (ICML 2025, section 3.1) holds 1,246,973 articles from 2019-01-01
to 2024-12-31 from five outlets, about 570 a day. This module writes a corpus of that
shape, in the fields of the shared development corpus (``date``, ``title``, ``text``,
``url``, ``source_domain``) as gzipped JSON Lines:

- daily volume: 569 articles on an average day, weekdays busier than weekends (the
  factors below), with a few percent of seeded day-to-day noise;
- text lengths in words drawn from the empirical distribution of the shared corpus
  (its 5%-quantiles, embedded below: mean about 800 words), titles of about 10 words;
- words drawn from a Zipf law (exponent 1.1) over a vocabulary of 200,000 made-up word
  forms, whose most frequent ranks are English function words (so the language check
  reads the text as English and BM25's stop-word list removes them, as on real news);
- topical structure: every day has stories, and an article of a story takes part of its
  title and text from the story's words, so that hot-topic clustering finds clusters and
  BM25 queries built from a title find related articles;
- five made-up outlets and unique URLs.

Everything is seeded from ``SEED`` and the day: the rows of a day never depend on the
span, so a corpus one day longer holds the same lines for the days both cover (written
as one gzip member per block of ``DAYS_PER_MEMBER`` days, counted from the first day).
No clock is read. Vectorised with numpy: about 1.25 million articles in minutes.

    python bench/scale_corpus.py --start 2024-12-10 --end 2024-12-31 --out /tmp/news.jsonl.gz
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

SEED = 20240501
PAPER_ARTICLES = 1_246_973
PAPER_START = dt.date(2019, 1, 1)
PAPER_END = dt.date(2024, 12, 31)
PAPER_DAYS = (PAPER_END - PAPER_START).days + 1  # 2,192
MEAN_PER_DAY = PAPER_ARTICLES / PAPER_DAYS  # 568.9
# Monday .. Sunday, relative to the weekly mean (news sites publish less at weekends).
WEEKDAY_FACTOR = np.array([1.10, 1.13, 1.13, 1.12, 1.08, 0.72, 0.72])
WEEKDAY_FACTOR = WEEKDAY_FACTOR / WEEKDAY_FACTOR.mean()
DAY_NOISE = 0.06
# Word counts of the shared corpus's texts (16,217 articles, whitespace-separated words):
# the 0%, 5%, ..., 100% quantiles. Only these numbers are taken from it.
WORD_QUANTILES = np.array(
    [
        118,
        243,
        333,
        396,
        449,
        506,
        557,
        609,
        659,
        715,
        766,
        821,
        873,
        929,
        989,
        1058,
        1134,
        1225,
        1329,
        1461,
        1818,
    ],
    dtype=float,
)
# Title words: mean about 10.8 in the shared corpus.
TITLE_WORDS = (6, 16)
VOCAB_SIZE = 200_000
ZIPF_EXPONENT = 1.1
SENTENCE_WORDS = 18
DOMAINS = (
    "dailyherald-news.example",
    "metrowire.example",
    "theledger-post.example",
    "capitalbeat.example",
    "northstar-times.example",
)
DOMAIN_WEIGHTS = np.array([0.34, 0.27, 0.17, 0.12, 0.10])
STORIES_PER_DAY = 24
STORY_SHARE = 0.6  # articles that belong to one of the day's stories
STORY_WORDS = 40  # the words a story is told with
STORY_TEXT_SHARE = 0.12  # share of an article's text words drawn from its story
STORY_TITLE_SHARE = 0.5
DAYS_PER_MEMBER = 8
MAX_TEXT_CHARS = 9_990  # ingest keeps 800 < len(text) < 10,000

# Common English function words: the top ranks of the vocabulary.
FUNCTION_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "that",
    "is",
    "for",
    "it",
    "on",
    "was",
    "with",
    "he",
    "as",
    "at",
    "by",
    "this",
    "had",
    "not",
    "are",
    "but",
    "from",
    "or",
    "have",
    "an",
    "they",
    "which",
    "one",
    "you",
    "were",
    "her",
    "all",
    "she",
    "there",
    "would",
    "their",
    "we",
    "him",
    "been",
    "has",
    "when",
    "who",
    "will",
    "more",
    "no",
    "if",
    "out",
    "so",
    "said",
    "what",
    "up",
    "its",
    "about",
    "into",
    "than",
    "them",
    "can",
    "only",
    "other",
    "new",
    "some",
    "could",
    "time",
    "these",
    "two",
    "may",
    "then",
    "do",
    "first",
    "any",
    "my",
    "now",
    "such",
    "like",
    "our",
    "over",
    "man",
    "me",
    "even",
    "most",
    "made",
    "after",
    "also",
    "did",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "make",
    "world",
    "still",
    "own",
    "see",
    "men",
    "work",
    "long",
    "get",
    "here",
    "between",
    "both",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "last",
    "might",
    "us",
    "great",
    "old",
    "year",
    "off",
    "come",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
]

_CONSONANTS = [
    *"bcdfghjklmnprstvwz",
    "br",
    "ch",
    "cl",
    "cr",
    "dr",
    "fl",
    "gr",
    "pl",
    "pr",
    "sh",
    "st",
    "th",
    "tr",
]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "ou", "y"]
_CODAS = ["", "", "", "n", "r", "s", "l", "t", "nd", "st", "rk", "m"]


@dataclass(frozen=True)
class Vocabulary:
    """Word forms by rank, as one byte buffer: entry i is word i followed by a space,
    entry i + V the same word followed by ". " (a sentence end)."""

    words: list[str]
    buf: np.ndarray  # uint8
    start: np.ndarray  # int64, 2V
    length: np.ndarray  # int64, 2V
    cdf: np.ndarray  # float64, V


def _made_up_words(rng: np.random.Generator, n: int, avoid: set[str]) -> list[str]:
    out: list[str] = []
    seen = set(avoid)
    while len(out) < n:
        k = n - len(out) + 1000
        syll = rng.choice([1, 2, 3, 4], size=k, p=[0.1, 0.4, 0.35, 0.15])
        parts_c = rng.integers(0, len(_CONSONANTS), size=(k, 4))
        parts_v = rng.integers(0, len(_VOWELS), size=(k, 4))
        coda = rng.integers(0, len(_CODAS), size=k)
        for i in range(k):
            w = "".join(_CONSONANTS[parts_c[i, j]] + _VOWELS[parts_v[i, j]] for j in range(syll[i]))
            w += _CODAS[coda[i]]
            if w not in seen:
                seen.add(w)
                out.append(w)
                if len(out) == n:
                    break
    return out


@lru_cache(maxsize=2)
def vocabulary(size: int = VOCAB_SIZE, exponent: float = ZIPF_EXPONENT) -> Vocabulary:
    """The seeded vocabulary: function words first, then made-up forms in a seeded
    order (the mean word length, 6 characters with its space, is the shared corpus's)."""
    rng = np.random.default_rng([SEED, 1])
    made = _made_up_words(rng, size - len(FUNCTION_WORDS), set(FUNCTION_WORDS))
    words = [*FUNCTION_WORDS, *made]
    plain = [f"{w} ".encode() for w in words]
    stop = [f"{w}. ".encode() for w in words]
    entries = plain + stop
    length = np.fromiter((len(e) for e in entries), dtype=np.int64, count=len(entries))
    start = np.concatenate([[0], np.cumsum(length)[:-1]])
    buf = np.frombuffer(b"".join(entries), dtype=np.uint8)
    weights = 1.0 / np.arange(1, size + 1, dtype=float) ** exponent
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    return Vocabulary(words, buf, start, length, cdf)


def _gather(vocab: Vocabulary, idx: np.ndarray) -> tuple[bytes, np.ndarray]:
    """The bytes of entries ``idx`` concatenated, and each entry's end offset."""
    lens = vocab.length[idx]
    ends = np.cumsum(lens)
    total = int(ends[-1]) if len(ends) else 0
    starts_out = ends - lens
    src = np.repeat(vocab.start[idx] - starts_out, lens) + np.arange(total, dtype=np.int64)
    return vocab.buf[src].tobytes(), ends


def day_count(day: dt.date) -> int:
    """Articles published on ``day`` (seeded by the day alone)."""
    rng = np.random.default_rng([SEED, 2, day.toordinal()])
    mean = MEAN_PER_DAY * WEEKDAY_FACTOR[day.weekday()]
    return max(1, int(round(mean * (1.0 + DAY_NOISE * rng.standard_normal()))))


def _draw_words(rng: np.random.Generator, vocab: Vocabulary, n: int) -> np.ndarray:
    return np.searchsorted(vocab.cdf, rng.random(n), side="right").clip(max=len(vocab.cdf) - 1)


def day_lines(day: dt.date, vocab: Vocabulary) -> bytes:
    """The JSON lines of one day's articles (a function of the day alone)."""
    rng = np.random.default_rng([SEED, 3, day.toordinal()])
    v = len(vocab.cdf)
    n = day_count(day)
    # Lengths: inverse CDF of the embedded quantiles.
    q = np.linspace(0.0, 1.0, len(WORD_QUANTILES))
    n_words = np.interp(rng.random(n), q, WORD_QUANTILES).round().astype(np.int64)
    n_title = rng.integers(TITLE_WORDS[0], TITLE_WORDS[1] + 1, size=n)
    story = np.where(rng.random(n) < STORY_SHARE, rng.integers(0, STORIES_PER_DAY, size=n), -1)
    # Each story's words: mid-frequency ranks (names, places, topics).
    story_words = rng.integers(
        len(FUNCTION_WORDS) + 500, 60_000, size=(STORIES_PER_DAY, STORY_WORDS)
    )
    domain = rng.choice(len(DOMAINS), size=n, p=DOMAIN_WEIGHTS)

    def words_for(counts: np.ndarray, share: float) -> np.ndarray:
        total = int(counts.sum())
        idx = _draw_words(rng, vocab, total)
        owner = np.repeat(np.arange(n), counts)
        st = story[owner]
        topical = (st >= 0) & (rng.random(total) < share)
        pick = rng.integers(0, STORY_WORDS, size=total)
        idx[topical] = story_words[st[topical], pick[topical]]
        return idx

    text_idx = words_for(n_words, STORY_TEXT_SHARE)
    # Sentence ends: every SENTENCE_WORDS words on average, and always the last word.
    ends = rng.random(len(text_idx)) < 1.0 / SENTENCE_WORDS
    ends[np.cumsum(n_words) - 1] = True
    text_idx = text_idx + v * ends
    title_idx = words_for(n_title, STORY_TITLE_SHARE)
    text_bytes, text_end = _gather(vocab, text_idx)
    title_bytes, title_end = _gather(vocab, title_idx)
    t_bounds = np.concatenate([[0], text_end[np.cumsum(n_words) - 1]])
    h_bounds = np.concatenate([[0], title_end[np.cumsum(n_title) - 1]])
    iso = day.isoformat()
    path = day.strftime("%Y/%m/%d")
    ids = rng.integers(0, 2**40, size=n)
    out = []
    for i in range(n):
        text = text_bytes[t_bounds[i] : t_bounds[i + 1] - 1].decode()
        text = text[:1].upper() + text[1:]
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS].rsplit(" ", 1)[0] + "."
        title = title_bytes[h_bounds[i] : h_bounds[i + 1] - 1].decode().replace(".", "")
        title = title[:1].upper() + title[1:]
        slug = "-".join(title.lower().split()[:6])
        dom = DOMAINS[domain[i]]
        row = {
            "date": iso,
            "title": title,
            "text": text,
            "url": f"https://www.{dom}/{path}/{slug}-{ids[i]:010x}{i:04d}",
            "source_domain": dom,
        }
        out.append(json.dumps(row, ensure_ascii=False))
    return ("\n".join(out) + "\n").encode()


def span_for_scale(scale: float, end: dt.date = PAPER_END) -> tuple[dt.date, dt.date]:
    """The date span of a scale fraction: the last ``scale`` of the paper's days."""
    days = max(1, int(round(PAPER_DAYS * scale)))
    return end - dt.timedelta(days=days - 1), end


def days(start: dt.date, end: dt.date) -> Iterator[dt.date]:
    d = start
    while d <= end:
        yield d
        d += dt.timedelta(days=1)


def write_corpus(start: dt.date, end: dt.date, out: Path, threads: int = 2) -> dict[str, int]:
    """Write the corpus of ``[start, end]`` to ``out`` (gzip members of DAYS_PER_MEMBER
    days from ``start``, compressed on ``threads`` threads). Returns counts."""
    vocab = vocabulary()
    all_days = list(days(start, end))
    blocks = [all_days[i : i + DAYS_PER_MEMBER] for i in range(0, len(all_days), DAYS_PER_MEMBER)]
    articles = 0
    raw = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".part")

    def compress(data: bytes) -> bytes:
        return gzip.compress(data, compresslevel=1, mtime=0)

    with tmp.open("wb") as fh, ThreadPoolExecutor(max_workers=threads) as pool:
        pending = []
        for block in blocks:
            data = b"".join(day_lines(d, vocab) for d in block)
            articles += data.count(b"\n")
            raw += len(data)
            pending.append(pool.submit(compress, data))
            while len(pending) > threads:
                fh.write(pending.pop(0).result())
        for f in pending:
            fh.write(f.result())
    tmp.replace(out)
    return {
        "articles": articles,
        "days": len(all_days),
        "raw_bytes": raw,
        "gz_bytes": out.stat().st_size,
    }


def day_file(day: dt.date) -> str:
    """The name of a day's file in a daily feed (:func:`write_daily`)."""
    return f"news-{day.isoformat()}.jsonl.gz"


def write_daily(start: dt.date, end: dt.date, folder: Path, threads: int = 2) -> dict[str, int]:
    """Write the corpus of ``[start, end]`` as a daily feed: one file a day in ``folder``
    (:func:`day_file`, one gzip member each), as a crawl delivers it. A day's file that
    exists is left as it is (its bytes are a function of the day alone), so the feed one
    day longer writes one file. Returns counts of the whole span."""
    vocab = vocabulary()
    folder.mkdir(parents=True, exist_ok=True)
    written = 0

    def one(day: dt.date) -> int:
        path = folder / day_file(day)
        if path.exists():
            return 0
        tmp = path.with_name(path.name + ".part")
        tmp.write_bytes(gzip.compress(day_lines(day, vocab), compresslevel=1, mtime=0))
        tmp.replace(path)
        return 1

    span = list(days(start, end))
    with ThreadPoolExecutor(max_workers=threads) as pool:
        written = sum(pool.map(one, span))
    return {
        "days": len(span),
        "files_written": written,
        "gz_bytes": sum((folder / day_file(d)).stat().st_size for d in span),
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--start", required=True)
    ap.add_argument("--end", required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    counts = write_corpus(
        dt.date.fromisoformat(args.start), dt.date.fromisoformat(args.end), args.out
    )
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
