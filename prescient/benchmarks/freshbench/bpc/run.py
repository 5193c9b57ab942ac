"""Scoring documents through the gateway: one log-probability request per document.

Each document is an :class:`~prescient.llm.types.LLMRequest` of kind ``logprobs``
(:mod:`prescient.llm.logprobs`): the model, the document as one message ``{"role":
"document", "content": text}`` (the text scored: the whole article, or its first
``bpc.max_text_chars`` characters) and the method parameters
(:func:`prescient.benchmarks.freshbench.bpc.scorers.method_params`: context, segmenting, scoring method, ...),
keyed like every request (:func:`prescient.llm.ledger.request_key`). The gateway answers
it as it answers any request: from the stage's ledger or the response store when it
can, else through the model's transport with the limits, retries and failure rules of
every stage; each answer is appended (fsync'd) as it arrives, so a killed run keeps
everything it finished and a rerun scores only what is missing. Failures are recorded
but never served: a rerun tries them again.

An entry's ``response`` is :meth:`DocScore.to_json`: the sums and counts, plus every
scored token and its ``ln p`` (about 18 bytes a token: 25 KB for a 1,400-token article,
beside the ~6 KB text the entry already holds), so an auditor can recompute each
document's BPC from the ledger alone. What produced a score (llama.cpp's version, the
GGUF file) is in the entry's ``provenance``; entries of in-process models hold no clock
time, so the same work writes the same bytes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from prescient.llm.gateway import Gateway
from prescient.llm.logprobs import LOGPROBS, DocScore, document_messages
from prescient.llm.registry import ModelSpec
from prescient.llm.types import LLMRequest, LLMResult

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


def document_requests(
    spec: ModelSpec,
    documents: pd.DataFrame,
    params: Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
) -> list[LLMRequest]:
    """One log-probability request per document (``article_id``, ``text``), in order."""
    params = {k: v for k, v in params.items() if v is not None}
    return [
        LLMRequest(
            model=spec.name,
            messages=document_messages(str(text)),
            template=TEMPLATE,
            template_version=TEMPLATE_VERSION,
            params=params,
            tags={"article_id": str(aid)},
            kind=LOGPROBS,
            options=dict(options or {}),
        )
        for aid, text in zip(documents["article_id"], documents["text"], strict=True)
    ]


def doc_result(result: LLMResult) -> DocResult:
    """A document's outcome from its gateway result."""
    aid = str(result.request.tags.get("article_id", ""))
    if not result.ok or result.text is None:
        return DocResult(aid, result.key, None, result.error or "failed", result.from_ledger)
    try:
        score = DocScore.from_json(result.text)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        error = f"unreadable score in the ledger entry ({type(exc).__name__})"
        return DocResult(aid, result.key, None, error, result.from_ledger)
    return DocResult(aid, result.key, score, None, result.from_ledger)


def score_documents(
    gateway: Gateway,
    spec: ModelSpec,
    documents: pd.DataFrame,
    params: Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
) -> list[DocResult]:
    """Score every document (``article_id``, ``text``) under one model, in order.

    Args:
        gateway: the gateway over the model's ledger.
        spec: the model's registry entry.
        documents: the sample, ``text`` the text to score (already cut to
            ``bpc.max_text_chars``).
        params: the method parameters (ledger key).
        options: unkeyed computation options (llama.cpp's ``n_ubatch``).

    Returns:
        One result per document, in the order of ``documents``. Failures are results
        with ``error`` set, never exceptions.
    """
    requests = document_requests(spec, documents, params, options)
    results = [doc_result(r) for r in gateway.complete_many(requests, f"bpc {spec.name}")]
    served = sum(r.from_ledger for r in results)
    logger.info(
        "%s: %d documents, %d from the ledger, %d scored",
        spec.name,
        len(results),
        served,
        len(results) - served,
    )
    for r in results:
        if r.error and not r.from_ledger:
            logger.warning("%s: %s failed: %s", spec.name, r.article_id, r.error)
    return results
