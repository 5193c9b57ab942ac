"""The embedded model's scoring on Ray: ``local/`` log-probability requests answered by
a pool of Ray actors, each with its own llama.cpp.

Scoring a text (FreshBench's bits per character) is the embedded model's costly request,
and one llama.cpp context answers one request at a time. :class:`RayScoringPool` starts
``workers`` actors (each loads the model once, with ``threads`` llama.cpp threads) and
takes the place of the process's own scoring instance
(:func:`prescient.llm.embedded.scoring_pool`): the gateway sends up to ``workers``
requests at once, each to a free actor, and everything else (keys, the ledger, the
response store, retries, failures) stays in this process, as for any model. An actor
computes what the local instance computes: the same GGUF, the same code, and llama.cpp's
logits do not depend on the thread count or the micro-batch (tested), so the ledger
entries are the same bytes. On a cluster that holds only while the nodes run the same
llama.cpp build on the same instruction sets (each entry's provenance names them).

A request that cannot be scored fails in the actor as it would here (its error crosses
back as itself), so recorded failures read the same too.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
from typing import Annotated, Any

from pydantic import Field

from prescient.ray_cluster import RayCluster, cluster_cpus, connect

logger = logging.getLogger(__name__)


class LlamaRay(RayCluster):
    """Where the embedded model scores on Ray (a stage's ``ray`` params; ``address`` and
    ``num_cpus`` as :class:`prescient.ray_cluster.RayCluster`).

    Attributes:
        workers: actors, each with its own model (None: the cluster's CPUs divided by
            ``threads``).
        threads: llama.cpp threads of each actor (the CPUs it reserves).
    """

    workers: Annotated[int, Field(ge=1)] | None
    threads: Annotated[int, Field(ge=1)]


class _Scorer:
    """One actor's scoring instance (the process-local one of an actor's process)."""

    def __init__(self, threads: int) -> None:
        from prescient.llm.embedded import LocalLlamaProvider
        from prescient.llm.llama_eval import LlamaEvals

        self.evals = LlamaEvals(LocalLlamaProvider.GGUF, lambda: threads)

    def call(self, method: str, args: tuple[Any, ...]) -> tuple[bool, Any]:
        try:
            return True, getattr(self.evals, method)(*args)
        except Exception as exc:  # crosses back as itself (module docstring)
            return False, exc


class RayScoringPool:
    """``workers`` Ray actors answering the embedded model's scoring requests, with the
    interface of :class:`prescient.llm.llama_eval.LlamaEvals` (``score``,
    ``answer_logprobs``, ``close``) and an executor of as many threads to call them from.

    Args:
        settings: the cluster, the workers and their threads.
    """

    def __init__(self, settings: LlamaRay) -> None:
        import ray

        self._started = connect(settings)
        self.size = settings.workers or max(1, cluster_cpus() // settings.threads)
        actor: Any = ray.remote(num_cpus=settings.threads)(_Scorer)
        self._actors: list[Any] = [actor.remote(settings.threads) for _ in range(self.size)]
        self._free: queue.Queue[Any] = queue.Queue()
        for a in self._actors:
            self._free.put(a)
        self.executor = concurrent.futures.ThreadPoolExecutor(
            self.size, thread_name_prefix="llama-ray"
        )
        logger.info("ray: %d scoring workers of %d llama.cpp threads", self.size, settings.threads)

    def _call(self, method: str, *args: Any) -> Any:
        import ray

        actor = self._free.get()
        try:
            ok, value = ray.get(actor.call.remote(method, args))
        finally:
            self._free.put(actor)
        if not ok:
            raise value
        return value

    def score(self, *args: Any) -> Any:
        """:meth:`prescient.llm.llama_eval.LlamaEvals.score`, in a free actor."""
        return self._call("score", *args)

    def answer_logprobs(self, *args: Any) -> Any:
        """:meth:`prescient.llm.llama_eval.LlamaEvals.answer_logprobs`, in a free actor."""
        return self._call("answer_logprobs", *args)

    def close(self) -> None:
        """Stop the actors (and the Ray started for them)."""
        import ray

        self.executor.shutdown(wait=True)
        for a in self._actors:
            ray.kill(a)
        self._actors = []
        if self._started:
            ray.shutdown()
            self._started = False

    def __enter__(self) -> RayScoringPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
