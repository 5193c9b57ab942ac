"""The ``ray`` retrieval engine: the queries of the retrieve stage answered by Ray tasks.

After the index, answering every (question, RAG cutoff) is retrieval's cost at the
paper's size (31,510 questions x 7 cutoffs over 1.2 million articles), and each query
is independent of the others: it reads the index and nothing else. So the index is
built once here, put in Ray's object store (its arrays are shared, not copied, by the
tasks of a node), and the queries go out in chunks of ``queries_per_task``; each task
runs the same :meth:`~prescient.retrieval.bm25.PrefixBM25.search` as the local engine,
and the hits come back in query order. A query's hits depend on its tokens, its prefix
and the index alone, so the retrieval table is byte-identical to the local engine's.

What stays here: building the index (its vocabulary is numbered by first occurrence,
which fixes rank-bm25's summation order of the average idf, so documents are consumed
one after another), tokenising the queries (microseconds each) and assembling the table.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Annotated, Any

from pydantic import Field

from prescient.ray_cluster import RayCluster, cluster_cpus, connect
from prescient.retrieval.bm25 import Hit, PrefixBM25

logger = logging.getLogger(__name__)

Query = tuple[list[str], int, int, tuple[int, ...]]
"""A tokenized query, its prefix length, how many hits, and positions never returned."""


class RetrievalRay(RayCluster):
    """Where the ``ray`` retrieval engine runs (params ``retrieval.ray``; ``address`` and
    ``num_cpus`` as :class:`prescient.ray_cluster.RayCluster`).

    Attributes:
        queries_per_task: queries one task answers (each task reads the index's
            vocabulary from the object store once, so a chunk should take seconds).
    """

    queries_per_task: Annotated[int, Field(ge=1)]


def answer(index: PrefixBM25, queries: Sequence[Query]) -> list[list[Hit]]:
    """The hits of each query, in order (what a task runs, and the local engine too)."""
    return [index.search(tokens, n, k, exclude=excl) for tokens, n, k, excl in queries]


def _task(index: PrefixBM25, queries: Sequence[Query]) -> list[list[tuple[int, float]]]:
    return [[(h.doc, h.score) for h in hits] for hits in answer(index, queries)]


def answer_on_ray(
    index: PrefixBM25, queries: Sequence[Query], settings: RetrievalRay
) -> Iterator[list[Hit]]:
    """The hits of each query, in order, answered by Ray tasks (module docstring).

    At most twice the cluster's CPUs of chunks are in flight; their results wait in
    the object store until their turn.
    """
    import ray

    started = connect(settings)
    try:
        in_flight = 2 * cluster_cpus()
        size = settings.queries_per_task
        chunks = [queries[i : i + size] for i in range(0, len(queries), size)]
        logger.info(
            "ray: %d queries in %d tasks over %d CPUs", len(queries), len(chunks), in_flight // 2
        )
        shared = ray.put(index)
        task = ray.remote(num_cpus=1)(_task)
        pending: deque[Any] = deque()
        submitted = 0
        while submitted < len(chunks) or pending:
            while submitted < len(chunks) and len(pending) < in_flight:
                pending.append(task.remote(shared, chunks[submitted]))
                submitted += 1
            for hits in ray.get(pending.popleft()):
                yield [Hit(doc, score) for doc, score in hits]
    finally:
        if started:
            ray.shutdown()
