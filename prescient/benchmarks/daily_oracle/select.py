"""Daily article selection (Daily Oracle, ICML 2025, section 3.1 and appendix A.2): random
articles plus hot topics.

Hot topics are found per day: TF-IDF vectors of the day's articles, DBSCAN with cosine
distance, incoherent clusters dropped (mean pairwise in-cluster cosine similarity below
a threshold), the largest clusters kept, one random article from each. Days are
independent: the vocabulary, the clustering and the random generator (seeded from the
base seed and the day, :func:`prescient.seeds.derive_seed`) depend only on that day's
articles, so adding other days never changes a day's selection.

Being a function of its day alone, a day's selection is kept for the next run
(``select.reuse``, :class:`KeptDays`): under the name of the digest of the day's
candidate articles (ids, dates, titles and the texts' SHA-256, the article table's
``text_sha256``), its seed, the settings that decide it and this code, in DVC's cache
directory (:mod:`prescient.kept`). A daily update then reads the texts of, and clusters,
only the days it has not seen; the table is the same bytes with or without it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, cast

import numpy as np
import pandas as pd
from pydantic import Field

from prescient import similarity
from prescient.arrival import on_time_mask
from prescient.corpus.normalize import TEXT_DIGEST, text_hash
from prescient.kept import KeptStore, code_of, digest
from prescient.seeds import derive_seed
from prescient.settings import Day, Settings, WindowEnd
from prescient.similarity import mean_pairwise_similarity

SELECTED_COLUMNS = ("article_id", "date", "selection", "cluster_id", "cluster_size", "padded")
SELECT_READS = ("article_id", "date", "title", "text", "arrived", "text_sha256")
"""The columns of the article table selection reads (``arrived`` and ``text_sha256`` when
the table has them); with kept days, ``text`` only for the days the store lacks
(:class:`KeptDays`)."""


class SelectSettings(Settings):
    """Parameters of stage ``select`` (params section ``select``; see conf/select/default.yaml)."""

    n_random: Annotated[int, Field(ge=0)]
    n_hot_topic: Annotated[int, Field(ge=0)]
    eps: Annotated[float, Field(gt=0, le=2)]
    min_samples: Annotated[int, Field(ge=1)]
    min_coherence: Annotated[float, Field(ge=0, le=1)]
    svd_components: Annotated[int, Field(ge=1)] | None
    max_features: Annotated[int, Field(ge=1)]
    date_start: Day | None
    date_end: WindowEnd
    reuse: bool


DECIDING = (
    "n_random",
    "n_hot_topic",
    "eps",
    "min_samples",
    "min_coherence",
    "svd_components",
    "max_features",
)
"""The settings a day's selection depends on (the day range only says which days run)."""


def day_seed(base_seed: int, day: dt.date) -> int:
    """The seed of one day's selection: the base seed and the day, nothing else."""
    return derive_seed(base_seed, "select", day)


@dataclass(frozen=True)
class Cluster:
    label: int
    members: tuple[int, ...]  # row positions within the day
    coherence: float


def hot_topic_clusters(texts: list[str], s: SelectSettings) -> tuple[list[Cluster], list[Cluster]]:
    """Coherent and incoherent DBSCAN clusters of one day's texts, largest first."""
    from sklearn.cluster import DBSCAN
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    if len(texts) < max(2, s.min_samples):
        return [], []
    vec = TfidfVectorizer(stop_words="english", sublinear_tf=True, max_features=s.max_features)
    try:
        x = vec.fit_transform(texts)
    except ValueError:  # only stop words: nothing to cluster
        return [], []
    if s.svd_components and min(x.shape) > s.svd_components:
        from sklearn.decomposition import TruncatedSVD

        x = TruncatedSVD(n_components=s.svd_components, random_state=0).fit_transform(x)
    labels = DBSCAN(eps=s.eps, min_samples=s.min_samples, metric="cosine").fit_predict(x)
    sims = cosine_similarity(x)
    good: list[Cluster] = []
    bad: list[Cluster] = []
    for label in sorted(set(labels) - {-1}):
        members = tuple(int(i) for i in np.flatnonzero(labels == label))
        coherence = mean_pairwise_similarity(sims[np.ix_(members, members)])
        (good if coherence >= s.min_coherence else bad).append(
            Cluster(int(label), members, coherence)
        )
    good.sort(key=lambda c: (-len(c.members), c.label))
    return good, bad


def select_day(
    day: pd.DataFrame, s: SelectSettings, seed: int, kept: KeptDays | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Selection for one day's articles (sorted by article_id for stable positions);
    taken from ``kept`` when it holds this day's selection, else computed (and kept)."""
    day = day.sort_values("article_id").reset_index(drop=True)
    if kept is None:
        chosen, stats = _choose(day, s, seed)
    else:
        chosen, stats = kept.choose(day, s, seed)
    rows = [
        {
            "article_id": day.loc[c["pos"], "article_id"],
            "date": day.loc[c["pos"], "date"],
            **{k: v for k, v in c.items() if k != "pos"},
        }
        for c in chosen
    ]
    return rows, stats


def _texts(day: pd.DataFrame) -> list[str]:
    return (day["title"].astype(str) + "\n" + day["text"].astype(str)).tolist()


def _choose(
    day: pd.DataFrame, s: SelectSettings, seed: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The picks of one day (sorted), by position, and the day's statistics."""
    rng = np.random.default_rng(seed)
    clusters, incoherent = hot_topic_clusters(_texts(day), s)
    chosen: list[dict[str, Any]] = []
    taken: set[int] = set()
    for c in clusters[: s.n_hot_topic]:
        pick = int(rng.choice(c.members))
        taken.add(pick)
        chosen.append(
            {
                "pos": pick,
                "selection": "hot_topic",
                "cluster_id": c.label,
                "cluster_size": len(c.members),
                "padded": False,
            }
        )
    padding = s.n_hot_topic - len(chosen)
    rest = [i for i in range(len(day)) if i not in taken]
    n_rand = min(len(rest), s.n_random + padding)
    for k, pick in enumerate(
        rng.choice(rest, size=n_rand, replace=False).tolist() if n_rand else []
    ):
        chosen.append(
            {
                "pos": int(pick),
                "selection": "random",
                "cluster_id": None,
                "cluster_size": None,
                "padded": k >= s.n_random,
            }
        )
    stats = {
        "candidates": len(day),
        "clusters": len(clusters),
        "incoherent_clusters": len(incoherent),
        "cluster_sizes": [len(c.members) for c in clusters],
        "padded": sum(bool(c["padded"]) for c in chosen),
    }
    return chosen, stats


class KeptDays:
    """Days' selections kept between runs (module docstring).

    Args:
        store: the kept store (``<DVC cache>/prescient/select``).
        texts: the texts of article table rows (by the days' ``row`` column), for days
            the store lacks when the days were read without texts; None: every day
            comes with its texts.
    """

    def __init__(
        self, store: KeptStore, texts: Callable[[Sequence[int]], list[str]] | None = None
    ) -> None:
        import scipy
        import sklearn

        self.store = store
        self.texts = texts
        self.reused = self.computed = 0
        versions = f"numpy {np.__version__} scipy {scipy.__version__} sklearn {sklearn.__version__}"
        self._code = digest(versions.encode(), code_of(sys.modules[__name__], similarity))

    def _name(self, day: pd.DataFrame, s: SelectSettings, seed: int) -> bytes:
        deciding = json.dumps({k: getattr(s, k) for k in DECIDING}, sort_keys=True)
        rows = hashlib.blake2b(digest_size=16)
        shas = (
            day[TEXT_DIGEST].astype(str)
            if TEXT_DIGEST in day.columns
            else [text_hash(str(t)) for t in day["text"]]
        )
        for values in zip(
            day["article_id"].astype(str),
            day["date"].astype(str),
            day["title"].astype(str),
            shas,
            strict=True,
        ):
            rows.update(digest(*(v.encode("utf-8") for v in values)))
        return digest(
            b"select-day", deciding.encode(), self._code, str(seed).encode(), rows.digest()
        )

    def choose(
        self, day: pd.DataFrame, s: SelectSettings, seed: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """:func:`_choose` of the day, from the store when it holds it."""
        name = self._name(day, s, seed)
        stored = self.store.read("days", name)
        if stored is not None and len(stored) == 1:
            try:
                kept = json.loads(stored[0].tobytes().decode("utf-8"))
                chosen, stats = kept["chosen"], kept["stats"]
                if all(0 <= c["pos"] < len(day) for c in chosen):
                    self.reused += 1
                    return chosen, stats
            except (ValueError, KeyError, TypeError):
                pass
        if "text" not in day.columns:
            if self.texts is None:
                raise ValueError("a day to select has no texts and no way to read them")
            day = day.assign(text=self.texts(day["row"].tolist()))
        chosen, stats = _choose(day, s, seed)
        blob = json.dumps({"chosen": chosen, "stats": stats}, sort_keys=True).encode("utf-8")
        self.store.write("days", name, [np.frombuffer(blob, dtype=np.uint8).copy()])
        self.computed += 1
        return chosen, stats


def select_articles(
    articles: pd.DataFrame | Iterable[pd.DataFrame],
    s: SelectSettings,
    base_seed: int,
    grace_days: int = 0,
    kept_days: KeptDays | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Select articles for every day in the configured range; returns table and metrics.

    ``articles`` is the article table, or its consecutive parts in date order (the row
    groups of the ingested table: a day may span two parts), so only a part and a day are
    in memory at once. Only articles that arrived on time for their day are candidates
    (:func:`prescient.arrival.on_time`, ``grace_days`` = ``corpus.arrival_grace_days``):
    a day's candidates are final once the day is settled, so an article brought late by
    a later update never changes an earlier day's selection. Late ones are counted
    (``late_articles``). ``kept_days``: days selected before are taken from it (the same
    table either way).
    """
    parts = [articles] if isinstance(articles, pd.DataFrame) else articles
    rows: list[dict[str, Any]] = []
    per_day: list[dict[str, Any]] = []
    late_total = 0
    pending: pd.DataFrame | None = None
    last: dt.date | None = None
    last_seen: Any = None

    def select(days: pd.DataFrame) -> None:
        nonlocal last
        for day, group in days.groupby("date", sort=True):
            day = cast(dt.date, day)
            if last is not None and day <= last:
                raise ValueError(
                    f"articles table: day {day} after day {last}; the table must be "
                    "sorted by date (the ingest stage writes it so)"
                )
            last = day
            day_rows, stats = select_day(group, s, day_seed(base_seed, day), kept_days)
            rows.extend(day_rows)
            per_day.append({"date": day, **stats, "selected": len(day_rows)})

    for part in parts:
        dates = part["date"]
        if len(part) and last_seen is not None and dates.min() < last_seen:
            raise ValueError(
                f"articles table: day {dates.min()} after day {last_seen}; the table must "
                "be sorted by date (the ingest stage writes it so)"
            )
        if len(part):
            last_seen = dates.max()
        mask = pd.Series(True, index=part.index)
        if s.date_start:
            mask &= dates >= s.date_start
        if s.date_end:
            mask &= dates <= s.date_end
        late = mask & ~pd.Series(on_time_mask(part, grace_days), index=part.index)
        late_total += int(late.sum())
        kept = part[mask & ~late]
        if pending is not None:
            kept = pd.concat([pending, kept], ignore_index=True)
        if kept.empty:
            pending = None
            continue
        final = kept["date"].max()
        select(kept[kept["date"] < final])
        pending = kept[kept["date"] == final]
    if pending is not None:
        select(pending)
    out = pd.DataFrame.from_records(rows, columns=list(SELECTED_COLUMNS))
    out["cluster_id"] = out["cluster_id"].astype("Int64")
    out["cluster_size"] = out["cluster_size"].astype("Int64")
    out["padded"] = out["padded"].astype(bool)
    return out, {**summarize(per_day, out, s), "late_articles": late_total}


def summarize(
    per_day: list[dict[str, Any]], out: pd.DataFrame, s: SelectSettings
) -> dict[str, Any]:
    target = s.n_random + s.n_hot_topic
    sizes = [n for d in per_day for n in d["cluster_sizes"]]
    clusters_per_day = pd.Series([d["clusters"] for d in per_day], dtype="int64")
    return {
        "days": len(per_day),
        "articles_selected": len(out),
        "selected_by_kind": {
            k: int(v) for k, v in out["selection"].value_counts().sort_index().items()
        },
        "articles_per_day_mean": round(len(out) / len(per_day), 3) if per_day else 0.0,
        "days_with_fewer_than_target_candidates": sum(d["candidates"] < target for d in per_day),
        "target_per_day": target,
        "hot_topic_padded_with_random": int(out["padded"].sum()),
        "clusters_per_day": {
            str(k): int(v) for k, v in clusters_per_day.value_counts().sort_index().items()
        },
        "incoherent_clusters_dropped": sum(d["incoherent_clusters"] for d in per_day),
        "cluster_size": {
            "count": len(sizes),
            "mean": round(float(np.mean(sizes)), 3) if sizes else None,
            "median": float(np.median(sizes)) if sizes else None,
            "max": int(max(sizes)) if sizes else None,
        },
    }
