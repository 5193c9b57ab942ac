"""The ``ray`` retrieval engine gives the local engine's bytes: the same retrieval table,
whether it starts its own Ray or joins the one this process has."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from prescient import io
from prescient.retrieval.search import ArticleIndex, RetrievalSettings
from tests.unit.retrieval.test_retrieval_search import shipped

ray = pytest.importorskip("ray")

WORDS = [f"w{i}" for i in range(60)]
DAY0 = dt.date(2024, 3, 1)


def corpus(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    zipf = 1.0 / np.arange(1, len(WORDS) + 1)
    p = zipf / zipf.sum()

    def words(k: int) -> str:
        return " ".join(rng.choice(WORDS, size=k, p=p))

    articles = pd.DataFrame(
        {
            "article_id": [f"a{i:04d}" for i in range(n)],
            "date": [DAY0 + dt.timedelta(days=int(d)) for d in rng.integers(0, 40, n)],
            "title": [words(4) for _ in range(n)],
            "text": [words(int(k)) for k in rng.integers(5, 60, n)],
        }
    )
    questions = pd.DataFrame(
        {
            "question_id": [f"q{i:03d}" for i in range(60)],
            "question": [words(6) for _ in range(60)],
            "resolution_date": [DAY0 + dt.timedelta(days=int(d)) for d in rng.integers(3, 45, 60)],
            "article_id": [f"a{int(i):04d}" for i in rng.integers(0, n, 60)],
        }
    )
    return articles, questions


CUTOFFS = [None, DAY0 + dt.timedelta(days=10), DAY0 + dt.timedelta(days=30)]


def table(settings: RetrievalSettings, articles: pd.DataFrame, questions: pd.DataFrame) -> str:
    out = ArticleIndex(articles, settings).retrieve_table(questions, CUTOFFS)
    assert len(out) > 100  # the comparison covers real hits
    return io.frame_checksum(out)


def on_ray(settings: RetrievalSettings, **ray: object) -> RetrievalSettings:
    return settings.model_copy(update={"engine": "ray", "ray": settings.ray.model_copy(update=ray)})


def test_the_engine_starts_its_own_ray_and_gives_the_local_table() -> None:
    assert not ray.is_initialized()
    articles, questions = corpus(400, 1)
    local = shipped()
    assert local.engine == "local"
    got = table(on_ray(local, num_cpus=1, queries_per_task=25), articles, questions)
    assert got == table(local, articles, questions)
    assert not ray.is_initialized()  # the Ray it started is shut down


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("chunk", [1, 7, 10_000])
def test_chunks_of_any_size_give_the_local_table(cluster: None, chunk: int) -> None:
    articles, questions = corpus(300, 2)
    local = shipped("retrieval.exclude_gold=true", "retrieval.gap_days=0")
    got = table(on_ray(local, queries_per_task=chunk), articles, questions)
    assert got == table(local, articles, questions)
    assert ray.is_initialized()  # the test's Ray is used and left running
