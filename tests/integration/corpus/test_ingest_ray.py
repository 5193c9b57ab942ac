"""The ``ray`` ingest engine gives the local engine's bytes: the article table, the
metrics (damage lists included) and the logged examples, on a generated multi-file WARC
set with damaged files and on a crawl of the loopback "CC-NEWS" with injected faults.

One local Ray (2 CPUs) serves the module; the engine joins it instead of starting its own.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from prescient import io
from prescient.corpus.accounting import IngestReport, summarize
from prescient.corpus.ingest import ingest_corpus
from prescient.corpus.settings import CorpusSettings, IngestSettings
from prescient.corpus.sources import ChecksumError
from prescient.crawl.manifest import MANIFEST_NAME
from prescient.crawl.run import crawl
from prescient.crawl.settings import CrawlSettings
from prescient.plumbing import params
from prescient.settings import load_settings
from stages import ingest as ingest_stage
from tests.conftest import ROOT
from tests.support.corpus import table_bytes
from tests.support.fake_ccnews import FakeCCNews, write_month
from tests.support.warc_set import write_warc_set

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def composed(corpus: str, path: Path, *overrides: str) -> dict[str, Any]:
    p = params.compose(ROOT, [f"corpus={corpus}", f"corpus.path={path}", *overrides])
    p["corpus"]["glob"] = None
    return p


def run(p: dict[str, Any], engine: str) -> tuple[bytes, dict[str, Any], IngestReport]:
    """Articles as Parquet bytes, the metrics and the report, from one engine."""
    corpus = load_settings(CorpusSettings, p, "corpus")
    settings = load_settings(IngestSettings, p, "ingest").model_copy(update={"engine": engine})
    df, report = ingest_corpus(corpus, settings)
    return io.frame_checksum(df).encode(), summarize(df, report, io.frame_checksum(df)), report


def test_ray_gives_the_local_bytes_on_a_damaged_multi_file_set(
    cluster: None, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = write_warc_set(tmp_path / "warc", n_files=6, pages=8, damaged=True)
    # Small batches and one file at a time ahead: every table boundary is crossed.
    p = composed(
        "warc", tmp_path / "warc", "ingest.ray.rows_per_batch=3", "ingest.ray.files_in_flight=2"
    )
    local_sum, local, local_report = run(p, "local")
    with caplog.at_level(logging.INFO, logger="prescient.corpus.ray_engine"):
        ray_sum, remote, ray_report = run(p, "ray")
    assert "ray: 6 files over 2 CPUs, 2 at a time" in caplog.text  # read by Ray tasks
    assert ray_sum == local_sum
    assert remote == local
    assert ray_report.examples == local_report.examples
    # The set is what it claims: every kind of damage, duplicates across files.
    dropped = {k: v for k, v in local["dropped"].items() if v}
    assert {"truncated_record", "corrupt_gzip", "malformed_record", "corrupt_record"} <= set(
        dropped
    )
    assert dropped["duplicate_url"] > 0 and local["rows_kept"] > 10
    assert [d["file"] for d in local["damage"]] == [str(files[1]), str(files[3])]
    assert local["rows_read"] == local["rows_kept"] + local["dropped_total"]

    # The stage with engine ray writes the same files as the stage with engine local.
    outs = {}
    for engine in ("local", "ray"):
        p["ingest"]["engine"] = engine
        params_path = tmp_path / f"params-{engine}.yaml"
        params_path.write_text(yaml.safe_dump(p))
        out, metrics = tmp_path / f"{engine}.parquet", tmp_path / f"{engine}.json"
        argv = ["--params", str(params_path), "--out", str(out), "--metrics", str(metrics)]
        assert ingest_stage.main(argv) == 0
        outs[engine] = (table_bytes(out), metrics.read_bytes())
    assert outs["ray"] == outs["local"]
    table = tmp_path / "ray.parquet"
    assert json.loads(outs["ray"][1])["checksum"] == io.parquet_checksum(table)
    assert io.frame_checksum(io.read_table(table)) == local_sum.decode()


def test_a_faulty_loopback_crawl_ingested_on_ray_is_the_local_corpus(
    cluster: None, tmp_path: Path
) -> None:
    served = tmp_path / "served"
    files = write_month(
        served, 2024, 1, [(dt.datetime(2024, 1, d, 6, 0, 0), 6) for d in (28, 29, 30, 31)]
    )
    out = tmp_path / "ccnews"
    with FakeCCNews(served) as server:
        server.fault(files[0].source, "drop", "503")
        server.fault(files[2].source, "truncated_gzip")
        crawl_params = params.compose(
            ROOT,
            [
                f"crawl.base_url={server.url}",
                "crawl.date_start=2024-01-28",
                "crawl.date_end=2024-01-31",
                "crawl.margin_days=0",
                "crawl.max_files=null",
                "crawl.backoff_base_s=0.01",
                "crawl.timeout_s=2.0",
                "crawl.progress=false",
            ],
        )
        report = crawl(load_settings(CrawlSettings, crawl_params, "crawl"), out)
    assert report.failed == [] and len(report.rows) == 4

    p = composed("ccnews", out / MANIFEST_NAME, "corpus.hosts=[news1.example,news3.example]")
    local_sum, local, _ = run(p, "local")
    ray_sum, remote, _ = run(p, "ray")
    assert ray_sum == local_sum and remote == local
    assert local["rows_read"] == 24 and local["rows_kept"] == 8
    assert local["dropped"]["host_not_allowed"] == 16

    # A crawled file changed on disk: the task's checksum stops ingest on Ray too.
    victim = out / files[3].name
    data = bytearray(victim.read_bytes())
    data[-1] ^= 0x01
    victim.write_bytes(bytes(data))
    with pytest.raises(ChecksumError, match=f"{victim}: its sha256 is"):
        run(p, "ray")
