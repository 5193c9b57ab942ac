"""Chain source ``cluster``: stories linked from the ingested corpus, one day at a time.

OpenForecast (COLING 2025, section 4.1 and appendix A.1) groups the articles of one topic
into a complex event from curated sources (Wikipedia, the Current Events Portal). A news
corpus has no such headings, so stories are linked online, as topic detection and
tracking systems do:

1. Titles lose boilerplate suffixes (" | CNN", " - The Week UK") by the rule ingest
   uses (:mod:`prescient.corpus.titles`), counted over the whole corpus: a part after
   the last separator that recurs in ``title_suffix_min_count`` titles is a masthead,
   not news, and left in it would tie every article of an outlet together. A trailing
   "..." of a cut title goes too.
2. Title and text are TF-IDF vectors (English stop words, sublinear tf, terms in at most
   ``max_df`` of the articles), fitted on the whole corpus.
3. Names (capitalised words that do not open a sentence) get a TF-IDF space of their own.
   A continuing story keeps naming its people, places and organisations; articles cut
   from one recurring template ("<company> raises <n> million to expand") share its words
   but not its names, so a link also needs the names to agree (``name_threshold``).
4. Day by day, in date order, each article of the day is scored against the centroids of
   all stories whose last article is at most ``window_days`` old, in one sparse product
   per space; it joins the most similar story whose text cosine reaches ``threshold`` and
   name cosine ``name_threshold``. The day's other articles start stories: the connected
   components of their own similarity graph under the same two thresholds (the outlets
   covering one new event on one day).
5. A story whose mean pairwise cosine similarity is below ``min_coherence`` is dropped
   (the coherence rule of stage ``select``), as is one with fewer than ``min_dates``
   distinct dates.

Everything is a function of the articles and the settings: days are processed in order,
articles within a day by id, ties go to the older story.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from tqdm import tqdm

from prescient.benchmarks.openforecast.settings import ClusterChains
from prescient.corpus.titles import strip_title_suffixes
from prescient.dates import as_date
from prescient.similarity import mean_pairwise_similarity

logger = logging.getLogger(__name__)

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")


_CALENDAR = frozenset(
    [d.strftime("%A") for d in (dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(7))]
    + [dt.date(2024, m, 1).strftime("%B") for m in range(1, 13)]
)


def proper_names(text: str) -> list[str]:
    """Capitalised words that do not open a sentence and are not a weekday or month (a
    crude but exact name finder: every article of a week says "Monday")."""
    out: list[str] = []
    for sentence in _SENTENCES.split(text):
        sentence = sentence.strip(" \"'“‘(")
        found = [(m.start(), m.group(0)) for m in _CAPITALISED.finditer(sentence)]
        out.extend(word for start, word in found if start > 0 and word not in _CALENDAR)
    return out


def vectorize(texts: Sequence[str], s: ClusterChains, *, names: bool = False) -> sparse.csr_matrix:
    """L2-normalised TF-IDF rows of the texts (``names``: of their proper names)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    common: dict[str, Any] = {
        "sublinear_tf": True,
        "max_features": s.max_features,
        "min_df": s.min_df,
        "max_df": s.max_df,
        "dtype": np.float64,
    }
    if names:
        vec = TfidfVectorizer(tokenizer=proper_names, lowercase=False, token_pattern=None, **common)
    else:
        vec = TfidfVectorizer(stop_words="english", **common)
    try:
        return sparse.csr_matrix(vec.fit_transform(texts))
    except ValueError:  # no term survives min_df / max_df (a tiny corpus)
        return sparse.csr_matrix((len(texts), 1))


def _normalise_rows(m: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ m)


@dataclass
class _Active:
    """The stories still open: member sums of both spaces (rows), last day, number."""

    sums: sparse.csr_matrix
    name_sums: sparse.csr_matrix
    last: np.ndarray
    ids: np.ndarray

    def keep(self, mask: np.ndarray) -> _Active:
        return _Active(self.sums[mask], self.name_sums[mask], self.last[mask], self.ids[mask])


def _grow(m: sparse.csr_matrix, rows: int, added: sparse.csr_matrix) -> sparse.csr_matrix:
    """``m`` with ``rows`` empty rows appended, plus ``added`` (same final shape)."""
    grown = sparse.vstack([m, sparse.csr_matrix((rows, m.shape[1]))]).tocsr()
    return sparse.csr_matrix(grown + added)


def link(
    x: sparse.csr_matrix,
    names: sparse.csr_matrix,
    days: Sequence[dt.date],
    s: ClusterChains,
    *,
    progress: bool = False,
) -> np.ndarray:
    """A story number per row (rows in date order; see the module docstring).

    Args:
        x: text TF-IDF rows (L2-normalised).
        names: proper-name TF-IDF rows of the same articles.
        days: each row's day.
        s: ``chains.cluster``.
        progress: show a progress bar over days.
    """
    n = x.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return labels
    ordinal = np.array([d.toordinal() for d in days], dtype=np.int64)
    bounds = np.flatnonzero(np.diff(ordinal)) + 1
    starts, ends = np.r_[0, bounds], np.r_[bounds, n]
    empty = np.zeros(0, np.int64)
    active = _Active(
        sparse.csr_matrix((0, x.shape[1])), sparse.csr_matrix((0, names.shape[1])), empty, empty
    )
    next_id = 0
    days_iter = list(zip(starts.tolist(), ends.tolist(), strict=True))
    for lo, hi in tqdm(days_iter, desc="link stories", unit="day", disable=not progress):
        today = int(ordinal[lo])
        keep = active.last >= today - s.window_days
        if not keep.all():
            active = active.keep(keep)
        xd, nd = x[lo:hi], names[lo:hi]
        joined = np.full(hi - lo, -1, dtype=np.int64)  # index into the active stories
        if active.ids.size:
            sims = np.asarray((xd @ _normalise_rows(active.sums).T).todense())
            name_sims = np.asarray((nd @ _normalise_rows(active.name_sums).T).todense())
            sims[name_sims < s.name_threshold] = 0.0
            best = sims.argmax(axis=1)  # ties: the first, i.e. the oldest story
            ok = sims[np.arange(hi - lo), best] >= s.threshold
            joined[ok] = best[ok]
        free = np.flatnonzero(joined < 0)
        comp = np.zeros(0, dtype=np.int64)
        n_new = 0
        if free.size:
            within = ((xd[free] @ xd[free].T).toarray() >= s.threshold) & (
                (nd[free] @ nd[free].T).toarray() >= s.name_threshold
            )
            np.fill_diagonal(within, True)
            n_new, comp = connected_components(sparse.csr_matrix(within), directed=False)
        rows = np.r_[joined[joined >= 0], active.ids.size + comp]
        cols = np.r_[np.flatnonzero(joined >= 0), free]
        assign = sparse.csr_matrix(
            (np.ones(rows.size), (rows, cols)), shape=(active.ids.size + n_new, hi - lo)
        )
        last = np.r_[active.last, np.zeros(n_new, np.int64)]
        last[np.unique(rows)] = today
        ids = np.r_[active.ids, np.arange(next_id, next_id + n_new)]
        next_id += n_new
        labels[lo + cols] = ids[rows]
        active = _Active(
            _grow(active.sums, n_new, assign @ xd),
            _grow(active.name_sums, n_new, assign @ nd),
            last,
            ids,
        )
    return labels


@dataclass(frozen=True)
class Story:
    """A kept story: its members' row positions (date order) and coherence."""

    members: tuple[int, ...]
    coherence: float
    n_dates: int


def stories(
    x: sparse.csr_matrix, labels: np.ndarray, days: Sequence[dt.date], s: ClusterChains
) -> tuple[list[Story], dict[str, int]]:
    """Coherent stories with at least ``min_dates`` distinct dates, longest first.

    Returns:
        (stories, counts: ``stories`` linked, ``singletons``, ``incoherent`` dropped,
        ``too_few_dates`` dropped, ``kept``).
    """
    groups: dict[int, list[int]] = {}
    for i, lab in enumerate(labels.tolist()):
        groups.setdefault(lab, []).append(i)
    kept: list[Story] = []
    counts = Counter({"stories": len(groups)})
    for members in groups.values():
        if len(members) < 2:
            counts["singletons"] += 1
            continue
        n_dates = len({days[i] for i in members})
        if n_dates < s.min_dates:
            counts["too_few_dates"] += 1
            continue
        xm = x[members]
        coherence = mean_pairwise_similarity((xm @ xm.T).toarray())
        if coherence < s.min_coherence:
            counts["incoherent"] += 1
            continue
        kept.append(Story(tuple(members), coherence, n_dates))
    kept.sort(key=lambda st: (-st.n_dates, -len(st.members), st.members[0]))
    counts["kept"] = len(kept)
    for key in ("singletons", "too_few_dates", "incoherent"):
        counts.setdefault(key, 0)
    return kept, dict(counts)


def link_articles(
    articles: pd.DataFrame, s: ClusterChains, *, progress: bool = False
) -> tuple[pd.DataFrame, list[Story], dict[str, Any]]:
    """Articles sorted for linking (with ``clean_title``), the kept stories and counts.

    Args:
        articles: ``article_id``, ``date``, ``title``, ``text``.
        s: ``chains.cluster``.
        progress: show a progress bar over days.
    """
    frame = articles.assign(_day=[as_date(d) for d in articles["date"]])
    frame = frame.sort_values(["_day", "article_id"], kind="stable").reset_index(drop=True)
    frame["clean_title"] = strip_title_suffixes(
        frame["title"].astype(str).tolist(), s.title_suffix_separators, s.title_suffix_min_count
    )
    texts = (frame["clean_title"] + "\n" + frame["text"].astype(str)).tolist()
    x = vectorize(texts, s)
    names = vectorize(texts, s, names=True)
    days = frame["_day"].tolist()
    labels = link(x, names, days, s, progress=progress)
    kept, counts = stories(x, labels, days, s)
    counts["articles"] = len(frame)
    counts["suffixes_stripped"] = int(
        (frame["clean_title"] != frame["title"].astype(str).str.strip()).sum()
    )
    return frame.drop(columns="_day"), kept, counts


def bcubed(
    predicted: dict[str, Any], gold: dict[str, Any], items: Sequence[str]
) -> dict[str, float]:
    """B-cubed precision, recall and F1 of a clustering (Bagga and Baldwin, 1998).

    Per item: the share of its predicted cluster that shares its gold cluster, and of its
    gold cluster that shares its predicted cluster; both averaged over ``items``. An item
    without a label in ``predicted`` or ``gold`` is a cluster of its own.
    """
    if not items:
        return {"precision": float("nan"), "recall": float("nan"), "f1": float("nan")}
    p_of = {i: predicted.get(i, ("alone", i)) for i in items}
    g_of = {i: gold.get(i, ("alone", i)) for i in items}
    p_groups: dict[Any, set[str]] = {}
    g_groups: dict[Any, set[str]] = {}
    for i in items:
        p_groups.setdefault(p_of[i], set()).add(i)
        g_groups.setdefault(g_of[i], set()).add(i)
    prec = rec = 0.0
    for i in items:
        both = len(p_groups[p_of[i]] & g_groups[g_of[i]])
        prec += both / len(p_groups[p_of[i]])
        rec += both / len(g_groups[g_of[i]])
    p, r = prec / len(items), rec / len(items)
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
