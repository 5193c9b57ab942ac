"""What retrieval keeps between runs: the tokenized corpus, a month at a time, and the
answers of its queries (params ``retrieval.reuse``).

Retrieval is exact over a date-ordered prefix of the corpus, so every run builds the
index of the whole archive and answers every (question, RAG cutoff). Most of that is the
same work as the day before: a daily update adds one day of articles at the end of the
index (under :mod:`prescient.arrival` a new article is known from a day after every
article already indexed) and a day of questions. So two things are kept, in DVC's cache
directory beside the response store (``<DVC cache>/prescient/retrieval``), where every
clone, experiment and queue worker of the project finds them:

- **A month of tokens** (``tokens/``): the term ids, term frequencies and lengths of the
  articles the index holds for one calendar month of the days they are known from, with
  the terms that month added to the vocabulary. Term ids are numbered by first
  occurrence in index order (:mod:`prescient.retrieval.bm25`), so a month's ids are a
  function of every article up to its end: a month is stored under the digest of that
  whole prefix. The newest month, not over yet, is kept as stretches of days, each
  named by the prefixes where it starts and ends: a run tokenizes only the days after
  those kept, and keeps them as the next stretch. Once the index holds a later month,
  the month is kept whole and its stretches are removed.
- **The answer of a query** (``queries/``): the ranked articles and scores of one
  (tokens, prefix length, k, excluded positions), stored with the other queries over
  the same prefix under that prefix's digest.

Identity: an article's key is the digest of its ``article_id`` and of what decides the
exact text the index reads: its indexed fields, the text by the SHA-256 that ingest
records beside it (``text_sha256``; computed from the text when a table lacks it), so a
kept month is recognised without reading its texts (:data:`DIGEST_SIZE` bytes of
BLAKE2b), and the digest of a prefix chains the
keys of its articles day by day in index order, with the retrieval settings and the
code's own bytes (a change to the tokenizer, the fields or BM25's parameters makes a new
store, and so does an edit of this module, :mod:`prescient.retrieval.tokenize` or
:mod:`prescient.retrieval.bm25`, or another numpy). A stored part is used
only when the articles it came from are, byte for byte, this run's articles before the
same point; so a late article inserted into the past, a changed ingest, or another
corpus only makes the parts after it miss. Every part is also checked when read (its
payload's digest, its shape, its place in the vocabulary); anything missing, damaged
or inconsistent is computed again. **No output depends on the store**: with it, without
it or with half of it, the tables are the same bytes (tests/unit/retrieval/test_reuse.py).

Parts are files of :mod:`prescient.kept` (written whole, checked when read). The
directory may be deleted at any time (the next run builds what it needs again); ``dvc
gc`` leaves it alone, and months a changed corpus no longer reaches stay until it is
deleted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from prescient.kept import DIGEST_SIZE, KeptStore, code_of, digest, pack_strings, unpack_strings
from prescient.retrieval import bm25 as bm25_module
from prescient.retrieval import tokenize as tokenize_module
from prescient.retrieval.bm25 import BM25Params, Hit, TokenBuffers
from prescient.retrieval.ray_queries import Query
from prescient.retrieval.tokenize import Tokenizer, TokenizerSettings

logger = logging.getLogger(__name__)

STORE_NAME = "retrieval"
"""The store's name under DVC's cache directory (:meth:`prescient.kept.KeptStore.in_cache`)."""
FORMAT = 1
"""What the stored parts hold; part of every digest."""
SAVE_EVERY = 20_000
"""New answers between two saves of the queries' parts (about 50 s at the paper's size)."""


def _code(*modules: Any) -> bytes:
    """The bytes of the modules whose code decides what a stored part holds, and the
    versions of the numerical libraries they run on."""
    return code_of(*modules) + f"numpy {np.__version__}".encode()


def token_config(fields: Sequence[str], tokenizer: TokenizerSettings) -> bytes:
    """What a month of tokens depends on besides its articles: the indexed fields, the
    tokenizer's settings and the code that turns texts into term ids and stores them."""
    settings = json.dumps(
        {"fields": list(fields), "tokenizer": tokenizer.model_dump(mode="json")},
        sort_keys=True,
    ).encode()
    code = _code(tokenize_module, bm25_module, sys.modules[__name__])
    return digest(b"tokens", str(FORMAT).encode(), settings, code)


def query_config(tokens: bytes, params: BM25Params) -> bytes:
    """What a query's answer depends on besides its prefix and itself: the tokens'
    configuration, BM25's parameters and this module."""
    settings = json.dumps(params.model_dump(mode="json"), sort_keys=True).encode()
    return digest(b"queries", tokens, settings, _code(sys.modules[__name__]))


def article_key(article_id: str, fields: Sequence[str]) -> bytes:
    """An indexed article's identity: its id and what decides the text the index reads,
    each indexed field's value in order, the ``text`` field by its SHA-256 (the article
    table's ``text_sha256``), so an article is named without reading its text."""
    return digest(article_id.encode("utf-8"), *(f.encode("utf-8") for f in fields))


@dataclass
class IndexBuild:
    """What building the index with the store gives besides the index: the digest of
    every day boundary's prefix (for the queries) and what was reused."""

    prefix: dict[int, bytes] = field(default_factory=dict)
    months_reused: int = 0
    months_tokenized: int = 0


def month_bounds(days: np.ndarray) -> list[int]:
    """Positions where a calendar month starts in ascending ``datetime64[D]`` days, and
    the end: consecutive pairs are the months' ranges."""
    if len(days) == 0:
        return [0]
    months = days.astype("datetime64[M]")
    starts = np.flatnonzero(np.r_[True, months[1:] != months[:-1]])
    return [*starts.tolist(), len(days)]


def tokenize_with_store(
    keys: Sequence[bytes],
    texts: Callable[[int, int], list[str]],
    days: np.ndarray,
    tokenizer: Tokenizer,
    config: bytes,
    store: KeptStore | None,
    *,
    progress: bool = False,
) -> tuple[TokenBuffers, IndexBuild]:
    """The token buffers of the index (the same as tokenizing every text), months taken
    from ``store`` where its parts are this corpus's, and every finished month stored.

    Args:
        keys: the indexed articles' :func:`article_key`, in index order.
        texts: the indexed texts of index positions ``[lo, hi)``; asked only for the
            months the store does not hold, in index order.
        days: the day each is known from (ascending), ``datetime64[D]``.
        tokenizer: the index's tokenizer.
        config: :func:`token_config` of the index's settings.
        store: where months are kept (None: tokenize everything, keep nothing; the
            prefix digests are computed all the same).
        progress: a progress bar over the articles.
    """
    from tqdm import tqdm

    buffers = TokenBuffers()
    build = IndexBuild()
    bounds = month_bounds(days)
    # A day ends where the next one starts, and the last where the corpus ends.
    starts = (np.flatnonzero(days[1:] != days[:-1]) + 1).tolist()
    day_ends: set[int] = {*starts, len(days)} if len(days) else set()
    chain = digest(b"prefix", config)
    build.prefix[0] = chain
    bar = tqdm(total=len(days), desc="bm25 index", unit="doc", disable=not progress)
    for m, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        day = hashlib.blake2b(digest_size=DIGEST_SIZE)
        ends = []
        for i in range(lo, hi):
            day.update(keys[i])
            if i + 1 in day_ends:
                chain = digest(chain, day.digest())
                build.prefix[i + 1] = chain
                ends.append(i + 1)
                day = hashlib.blake2b(digest_size=DIGEST_SIZE)
        finished = m < len(bounds) - 2  # a later month exists: this one is over
        name = digest(b"month", config, chain)
        stored = store.read("tokens", name) if store is not None and finished else None
        if stored is not None and _extend(buffers, stored, hi - lo):
            build.months_reused += 1
            bar.update(hi - lo)
            continue
        vocab_before, postings_before = len(buffers.terms_in_order), len(buffers.terms)
        at, used = lo, list[bytes]()
        if store is not None:
            at, used = _stretches(buffers, store, config, build.prefix, lo, ends)
        if at < hi:
            tail_vocab, tail_postings = len(buffers.terms_in_order), len(buffers.terms)
            for text in texts(at, hi):
                buffers.add(tokenizer(text))
            build.months_tokenized += 1
            if store is not None and not finished:
                # the month so far, from where its kept stretches end: the next run of a
                # grown month reads it and tokenizes only the days after it
                store.write(
                    "tokens",
                    _stretch_name(config, build.prefix[at], chain),
                    _month_arrays(buffers, at, hi, tail_vocab, tail_postings),
                )
        else:
            build.months_reused += 1
        if store is not None and finished:
            # a month is kept whole once over, and the stretches it was read from go
            store.write(
                "tokens", name, _month_arrays(buffers, lo, hi, vocab_before, postings_before)
            )
            for stretch in used:
                store.discard("tokens", stretch)
        bar.update(hi - lo)
    bar.close()
    return buffers, build


def _stretch_name(config: bytes, start: bytes, end: bytes) -> bytes:
    """The name of a stretch of days of a month: the prefixes' digests where it starts
    and where it ends (which cover every article before and in it)."""
    return digest(b"stretch", config, start, end)


def _stretches(
    b: TokenBuffers,
    store: KeptStore,
    config: bytes,
    prefix: Mapping[int, bytes],
    lo: int,
    ends: Sequence[int],
) -> tuple[int, list[bytes]]:
    """Append to ``b`` the kept stretches of a month that follow one another from its
    start ``lo``, the longest first at each step (``ends``: the month's day ends,
    ascending); returns where they end and their names."""
    at, used = lo, list[bytes]()
    while True:
        for end in reversed([e for e in ends if e > at]):
            name = _stretch_name(config, prefix[at], prefix[end])
            stored = store.read("tokens", name)
            if stored is not None and _extend(b, stored, end - at):
                at = end
                used.append(name)
                break
        else:
            return at, used


def _month_arrays(
    b: TokenBuffers, lo: int, hi: int, vocab_before: int, postings_before: int
) -> list[np.ndarray]:
    return [
        np.array([hi - lo, vocab_before], dtype=np.int64),
        np.frombuffer(b.terms, dtype=np.int32)[postings_before:].copy(),
        _narrow(np.frombuffer(b.tfs, dtype=np.int32)[postings_before:]),
        np.frombuffer(b.lengths, dtype=np.int64)[lo:hi].copy(),
        np.frombuffer(b.nnz, dtype=np.int64)[lo:hi].copy(),
        *pack_strings(b.terms_in_order[vocab_before:]),
    ]


def _narrow(tfs: np.ndarray) -> np.ndarray:
    """Term frequencies in two bytes each when they fit (nearly always: a quarter less
    to store)."""
    fits = not len(tfs) or int(tfs.max()) <= np.iinfo(np.uint16).max
    return tfs.astype(np.uint16) if fits else tfs.copy()


def _extend(b: TokenBuffers, arrays: list[np.ndarray], n_docs: int) -> bool:
    """Append a stored month to ``b`` when it fits exactly where it was cut from."""
    if len(arrays) != 7:
        return False
    head, terms, tfs, lengths, nnz, blob, ends = arrays
    vocab_before = len(b.terms_in_order)
    if (
        head.tolist() != [n_docs, vocab_before]
        or terms.dtype != np.int32
        or tfs.dtype not in (np.dtype(np.int32), np.dtype(np.uint16))
        or lengths.shape != (n_docs,)
        or nnz.shape != (n_docs,)
        or int(nnz.sum()) != len(terms)
        or len(tfs) != len(terms)
    ):
        return False
    try:
        new_terms = unpack_strings(blob, ends)
    except (ValueError, TypeError):
        return False
    if len(terms) and int(terms.max()) >= vocab_before + len(new_terms):
        return False
    if len(set(new_terms)) != len(new_terms) or any(w in b.vocab for w in new_terms):
        return False  # checked before anything is added: a refused month leaves b as it was
    b.add_terms(new_terms)
    b.terms.frombytes(terms.tobytes())
    b.tfs.frombytes(tfs.astype(np.int32).tobytes())
    b.lengths.frombytes(lengths.astype(np.int64).tobytes())
    b.nnz.frombytes(nnz.astype(np.int64).tobytes())
    return True


class QueryMemo:
    """Answers of queries kept in the store, by the digest of their prefix.

    Args:
        store: the store.
        config: :func:`query_config` of the index's settings.
        prefix: the digest of every day boundary's prefix (:class:`IndexBuild`).
    """

    def __init__(self, store: KeptStore, config: bytes, prefix: dict[int, bytes]) -> None:
        self.store, self.config, self.prefix = store, config, prefix
        self._files: dict[int, dict[bytes, list[Hit]]] = {}
        self._new: dict[int, dict[bytes, list[Hit]]] = {}
        self.hits = self.computed = 0

    def key(self, query: Query) -> bytes | None:
        tokens, n, k, excl = query
        if n not in self.prefix:
            return None
        visible = sorted(p for p in excl if p < n)  # others cannot change the answer
        return digest(json.dumps([tokens, k, visible], ensure_ascii=False).encode())

    def _file(self, n: int) -> dict[bytes, list[Hit]]:
        if n not in self._files:
            self._files[n] = self._load(n)
        return self._files[n]

    def _name(self, n: int) -> bytes:
        return digest(b"queries", self.config, self.prefix[n])

    def _load(self, n: int) -> dict[bytes, list[Hit]]:
        arrays = self.store.read("queries", self._name(n))
        if arrays is None:
            return {}
        if len(arrays) != 4:
            return {}
        keys, counts, docs, scores = arrays
        if (
            keys.ndim != 2
            or keys.shape[1:] != (DIGEST_SIZE,)
            or counts.shape != (len(keys),)
            or int(counts.sum()) != len(docs)
            or len(scores) != len(docs)
            or (len(docs) and (int(docs.max()) >= n or int(docs.min()) < 0))
        ):
            logger.warning(
                "retrieval store: the answers over prefix %d do not fit; asking again", n
            )
            return {}
        out: dict[bytes, list[Hit]] = {}
        at = 0
        for key, c in zip(keys, counts.tolist(), strict=True):
            out[key.tobytes()] = [
                Hit(int(d), float(s))
                for d, s in zip(docs[at : at + c], scores[at : at + c], strict=True)
            ]
            at += c
        return out

    def lookup(self, query: Query, key: bytes | None) -> list[Hit] | None:
        """The kept answer of ``query``, whose :meth:`key` is ``key``."""
        if key is None:
            return None
        found = self._file(query[1]).get(key)
        if found is not None:
            self.hits += 1
        return found

    def add(self, query: Query, key: bytes | None, hits: list[Hit]) -> None:
        """Keep the answer of ``query``, whose :meth:`key` is ``key``."""
        self.computed += 1
        if key is None:
            return
        n = query[1]
        self._file(n)[key] = hits
        self._new.setdefault(n, {})[key] = hits

    def save(self) -> None:
        """Write every prefix's file that gained answers (old answers kept)."""
        for n in sorted(self._new):
            entries = self._files[n]
            keys = sorted(entries)
            counts = np.array([len(entries[k]) for k in keys], dtype=np.int32)
            docs = np.array([h.doc for k in keys for h in entries[k]], dtype=np.int64)
            scores = np.array([h.score for k in keys for h in entries[k]], dtype=np.float64)
            key_array = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, DIGEST_SIZE)
            self.store.write("queries", self._name(n), [key_array.copy(), counts, docs, scores])
        self._new.clear()


def answered(queries: Sequence[Query], memo: QueryMemo | None, ask: Any) -> Iterator[list[Hit]]:
    """The hits of every query in order: from ``memo`` where it has them, the others
    from ``ask`` (a function of the missing queries, in order), each distinct query asked
    once."""
    if memo is None:
        yield from ask(list(queries))
        return
    keys = [memo.key(q) for q in queries]
    found: list[list[Hit] | None] = [memo.lookup(q, k) for q, k in zip(queries, keys, strict=True)]
    missing = [i for i, f in enumerate(found) if f is None]
    distinct: dict[Any, int] = {}
    todo: list[int] = []
    markers: dict[int, Any] = {}
    for i in missing:
        markers[i] = (queries[i][1], keys[i]) if keys[i] is not None else i
        if markers[i] not in distinct:
            distinct[markers[i]] = len(todo)
            todo.append(i)
    answers: list[list[Hit]] = []
    asked = [queries[i] for i in todo]
    for i, hits in zip(todo, ask(asked) if asked else (), strict=True):
        memo.add(queries[i], keys[i], hits)
        answers.append(hits)
        if len(answers) % SAVE_EVERY == 0:  # a killed run keeps what it answered
            memo.save()
    for i in missing:
        found[i] = answers[distinct[markers[i]]]
    memo.save()
    logger.info(
        "retrieval store: %d of %d queries answered from it, %d asked",
        len(queries) - len(missing),
        len(queries),
        len(todo),
    )
    for f in found:
        assert f is not None
        yield f


__all__ = [
    "IndexBuild",
    "QueryMemo",
    "answered",
    "article_key",
    "month_bounds",
    "query_config",
    "token_config",
    "tokenize_with_store",
]
