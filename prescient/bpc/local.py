"""In-process scoring with llama.cpp: the embedded model reads each document once.

A separate llama.cpp instance with ``logits_all=True`` keeps the logits of every
position (its buffer is ``n_ctx x vocabulary x 4`` bytes: about 100 MB for SmolLM2 at
512 tokens, 1.6 GB at 8192, hence a context of just ``token_limit + 1``). The scorer
evaluates ``[condition token] + the first token_limit tokens`` in one pass; row ``j`` of
the logits is the distribution after position ``j``, so the text's token ``j`` is scored
by the log-softmax of row ``j`` (row ``j - 1`` without a condition token, when the first
token has no prediction and is left out).

llama-cpp-python 0.3.x also offers ``create_completion(echo=True, logprobs=...)``; for a
model that adds no BOS token (SmolLM2) it pairs token ``i`` with row ``i``, the
distribution that predicts token ``i + 1``: one position off. A test shows the shift so
that nobody switches to it.

The logits of a position are the same for every micro-batch size from two tokens up, but
llama.cpp computes a batch of a single token (the generation path) with other kernels,
and with earlier tokens in its cache those logits differ by up to ~0.5 (~0.2 nats per
token): scores therefore always come from one pass over the whole prefix, and
``n_ubatch`` must be at least 2. (A one-token micro-batch can only be the last, whose
logits predict nothing that is scored.)

The log-softmax is computed in float64 and every ``ln p`` rounded to six decimals:
numpy's vectorised exp and sum may differ in the last bits between CPUs, and the
rounding keeps those bits out of the ledger and the tables.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from prescient.bpc.scoring import DocScore, ScorerConfigError, ScoringError, account

logger = logging.getLogger(__name__)

DECIMALS = 6
"""Decimals kept of each ``ln p``."""


def log_softmax_at(rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``log_softmax(rows[k])[targets[k]]`` for every k, in float64."""
    x = rows.astype(np.float64)
    top = x.max(axis=1, keepdims=True)
    lse = np.log(np.exp(x - top).sum(axis=1)) + top[:, 0]
    return x[np.arange(len(targets)), targets] - lse


class LlamaScorer:
    """``local/<name>`` models (the GGUF files ``prescient.llm.providers`` knows).

    Args:
        name: the model part of the litellm string (``smollm2-135m``).
        token_limit: the most text tokens a document contributes (sizes the context).
        condition_token: special token placed before the text, or None.
        n_ubatch: llama.cpp micro-batch (speed only).
        n_threads: llama.cpp threads (None: the project's default for local models).
    """

    kind = "llama_cpp_eval"
    concurrency = 1

    def __init__(
        self,
        name: str,
        token_limit: int,
        condition_token: str | None,
        n_ubatch: int,
        n_threads: int | None = None,
    ) -> None:
        import llama_cpp

        from prescient.llm.providers import LocalLlamaProvider, default_threads

        if name not in LocalLlamaProvider.GGUF:
            raise ScorerConfigError(
                f"unknown local model {name!r}; known: {sorted(LocalLlamaProvider.GGUF)}"
            )
        path = LocalLlamaProvider.GGUF[name]()
        threads = n_threads or default_threads()
        n_ctx = token_limit + 1
        logger.info("loading %s for scoring (context %d, %d threads)", path.name, n_ctx, threads)
        self.llm = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_batch=n_ctx,
            n_ubatch=min(n_ubatch, n_ctx),
            logits_all=True,
            n_threads=threads,
            n_threads_batch=threads,
            seed=0,
            verbose=False,
        )
        self.token_limit = token_limit
        self.condition_token = condition_token
        self.condition_id: int | None = None
        if condition_token is not None:
            ids = self.llm.tokenize(condition_token.encode("utf-8"), add_bos=False, special=True)
            if len(ids) != 1:
                raise ScorerConfigError(
                    f"bpc.local.condition_token {condition_token!r} is not one token of "
                    f"{path.name} (it tokenizes to {ids}); name a special token or null"
                )
            self.condition_id = int(ids[0])
        self._provenance = {
            "scorer": self.kind,
            "gguf": path.name,
            "llama_cpp_python": llama_cpp.__version__,
        }

    def provenance(self) -> dict[str, Any]:
        return dict(self._provenance)

    def tokenize(self, text: str) -> list[int]:
        """The text's tokens, without BOS and with special-token text read as plain text."""
        return [int(t) for t in self.llm.tokenize(text.encode("utf-8"), False, False)]

    def logprobs(self, ids: list[int]) -> list[float | None]:
        """``ln p`` of each of ``ids`` given the tokens before it (None: no prediction).

        One pass over ``[condition token] + ids`` (at most ``token_limit`` ids).
        """
        if not ids:
            return []
        if len(ids) > self.token_limit:
            raise ValueError(f"{len(ids)} tokens exceed the context of {self.token_limit}")
        seq = ([self.condition_id] if self.condition_id is not None else []) + ids
        self.llm.reset()
        self.llm.eval(seq)
        shift = 0 if self.condition_id is not None else 1
        rows = self.llm.scores[: len(seq) - 1]
        targets = np.asarray(seq[1:], dtype=np.int64)
        values = np.round(log_softmax_at(rows, targets), DECIMALS).tolist()
        return [None] * shift + [float(v) for v in values]

    def score(self, text: str, token_limit: int) -> DocScore:
        if token_limit > self.token_limit:
            raise ValueError(f"token_limit {token_limit} exceeds the scorer's {self.token_limit}")
        ids = self.tokenize(text)
        if not ids:
            raise ScoringError("the text has no tokens")
        lps = self.logprobs(ids[:token_limit])
        pieces = [bytes(self.llm.detokenize([t])) for t in ids]
        return account(text, pieces, lps + [None] * (len(ids) - len(lps)), token_limit, ids)

    def close(self) -> None:
        closer = getattr(self.llm, "close", None)
        if closer is not None:
            closer()
