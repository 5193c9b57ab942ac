"""Scoring documents through a content-addressed ledger.

Each document's request is keyed like a gateway request
(:func:`prescient.llm.ledger.request_key`): the model's litellm string, the document as
one message ``{"role": "document", "content": text}`` (the text scored: the whole
article, or its first ``bpc.max_text_chars`` characters) and the method parameters
(:func:`prescient.benchmarks.freshbench.bpc.scorers.method_params`: context, segmenting, scoring method, ...).
Entries carry the same request fields as the gateway's (``litellm_model``, ``messages``,
``params``), so the key of every entry is the hash of its own request; the ledger
writes each with ``response_sha256``, the hash of its answer (the score, usage and
error), and ``prescient ledger verify`` checks both.

An entry's ``response`` is :meth:`DocScore.to_json`: the sums and counts, plus every
scored token and its ``ln p`` (about 18 bytes a token: 25 KB for a 1,400-token article,
beside the ~6 KB text the entry already holds), so an auditor can recompute each
document's BPC from the ledger alone.
Entries hold no clock time, so the same work writes the same bytes; what produced a
score (scoring method, GGUF file, llama-cpp-python version) is in the entry's ``tags``.

Each result is appended (fsync'd) before the next document starts, so a killed run
keeps everything it finished and a rerun scores only what is missing. Failures are
recorded but never served: a rerun tries them again.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
from tqdm import tqdm

from prescient.benchmarks.freshbench.bpc.scoring import DocScore, Scorer, ScoringError
from prescient.llm.ledger import Ledger, request_key
from prescient.llm.registry import ModelSpec
from prescient.llm.store import StageLedger

logger = logging.getLogger(__name__)

STAGE = "bpc"
TEMPLATE = "bpc_document"
TEMPLATE_VERSION = "1"


@dataclass(frozen=True)
class DocResult:
    """One document's outcome under one model.

    Attributes:
        article_id: the document.
        key: its ledger key.
        score: the score, or None when scoring failed.
        error: why it failed (None when scored).
        from_ledger: answered by the ledger without scoring.
    """

    article_id: str
    key: str
    score: DocScore | None
    error: str | None
    from_ledger: bool


def document_messages(text: str) -> list[dict[str, str]]:
    """The request's messages: the text scored, as one message."""
    return [{"role": "document", "content": text}]


def _entry(
    spec: ModelSpec,
    key: str,
    text: str,
    params: Mapping[str, Any],
    article_id: str,
    result: DocScore | None,
    error: str | None,
    provenance: Mapping[str, Any],
) -> dict[str, Any]:
    read = 0 if result is None else result.n_text_tokens
    return {
        "key": key,
        "stage": STAGE,
        "model": spec.name,
        "litellm_model": spec.litellm_model,
        "template": TEMPLATE,
        "template_version": TEMPLATE_VERSION,
        "messages": document_messages(text),
        "params": dict(params),
        "tags": {"article_id": article_id, **provenance},
        "response": None if result is None else result.to_json(),
        "finish_reason": None,
        "usage": {"prompt_tokens": read, "completion_tokens": 0, "total_tokens": read},
        "cost": None,
        "latency_s": None,
        "tries": 1,  # one recorded result; retries of remote scorers are not counted
        "error": error,
    }


def _from_ledger(entry: Mapping[str, Any]) -> DocScore | None:
    try:
        return DocScore.from_json(str(entry["response"]))
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def score_documents(
    spec: ModelSpec,
    documents: pd.DataFrame,
    params: Mapping[str, Any],
    make_scorer: Callable[[], Scorer],
    ledger: Ledger | StageLedger,
    progress: bool = True,
) -> list[DocResult]:
    """Score every document (``article_id``, ``text``) under one model, in order.

    Args:
        spec: the model's registry entry.
        documents: the sample, ``text`` the text to score (already cut to
            ``bpc.max_text_chars``).
        params: the method parameters (ledger key).
        make_scorer: builds the scorer; called only when some document is not in the
            ledger, so a rerun loads no model.
        ledger: the model's ledger.
        progress: show a progress bar.

    Returns:
        One result per document, in the order of ``documents``. Failures are results
        with ``error`` set, never exceptions.
    """
    params = {k: v for k, v in params.items() if v is not None}
    todo: list[tuple[int, str, str, str]] = []
    results: dict[int, DocResult] = {}
    for i, (aid, text) in enumerate(zip(documents["article_id"], documents["text"], strict=True)):
        key = request_key(spec.litellm_model, document_messages(str(text)), params)
        entry = ledger.get(key)
        score = _from_ledger(entry) if entry is not None else None
        if score is not None:
            results[i] = DocResult(str(aid), key, score, None, True)
        else:
            todo.append((i, str(aid), str(text), key))
    logger.info(
        "%s: %d documents, %d from the ledger, %d to score",
        spec.name,
        len(documents),
        len(results),
        len(todo),
    )
    if todo:
        scorer = make_scorer()
        try:
            bar = tqdm(total=len(todo), desc=f"bpc {spec.name}", unit="doc", disable=not progress)
            for i, aid, text, key, score, error in _run(scorer, todo):
                ledger.append(
                    _entry(spec, key, text, params, aid, score, error, scorer.provenance())
                )
                results[i] = DocResult(aid, key, score, error, False)
                if error:
                    logger.warning("%s: %s failed: %s", spec.name, aid, error)
                bar.update(1)
            bar.close()
        finally:
            scorer.close()
    return [results[i] for i in range(len(documents))]


def _score_one(scorer: Scorer, text: str) -> tuple[DocScore | None, str | None]:
    try:
        return scorer.score(text), None
    except ScoringError as exc:
        return None, str(exc)[:500]


def _run(
    scorer: Scorer, todo: list[tuple[int, str, str, str]]
) -> Iterator[tuple[int, str, str, str, DocScore | None, str | None]]:
    """Results as they finish: in order with one at a time, else as the pool returns them."""
    if scorer.concurrency <= 1:
        for i, aid, text, key in todo:
            yield (i, aid, text, key, *_score_one(scorer, text))
        return
    with concurrent.futures.ThreadPoolExecutor(scorer.concurrency) as pool:
        futures = {
            pool.submit(_score_one, scorer, text): (i, aid, text, key) for i, aid, text, key in todo
        }
        for fut in concurrent.futures.as_completed(futures):
            yield (*futures[fut], *fut.result())
