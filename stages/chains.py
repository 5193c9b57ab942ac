"""Stage ``chains``: complex event chains, one row per atomic event (OpenForecast, COLING
2025, section 3).

Params: ``chains`` (the source and its options) and, for the cluster source's key points,
``llm`` and the summary model's registry entry. Reads the ingested articles (to map
source URLs to article ids, or to link stories), the source file ``chains.path``, the
construction prompts (the summary step) and the construction ledger (answers already
paid for). Writes data/interim/chains.parquet, reports/metrics/chains.json and the
stage's ledger (empty unless the cluster source asks for key points).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

import pandas as pd

from prescient import io, params
from prescient.openforecast.chains import ChainError, chain_frame, chain_stats
from prescient.openforecast.demo import read_timelines
from prescient.openforecast.importer import read_import
from prescient.openforecast.settings import ChainsSettings
from prescient.settings import ParamsError, load_settings

logger = logging.getLogger("stages.chains")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=params.PARAMS_FILE)
    ap.add_argument("--articles", required=True)
    ap.add_argument("--prompts", required=True, help="the construction prompts (summary step)")
    ap.add_argument("--reuse-ledger", required=True, help="the construction stage's ledger")
    ap.add_argument("--ledger", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--metrics", required=True)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    start = time.perf_counter()
    p = params.load(args.params)
    try:
        s = load_settings(ChainsSettings, p, "chains")
        articles = pd.read_parquet(args.articles)
        known = set(articles["article_id"].astype(str))
        metrics: dict[str, object] = {"source": s.source}
        if s.source == "demo":
            events, counts = read_timelines(s.demo.path, known)
            origin = "demo"
        elif s.source == "import":
            events, counts = read_import(s.import_, known)
            origin = f"import:{s.import_.name}"
        else:
            raise ChainError("chains.source=cluster: the linker is not available yet")
    except (ParamsError, ChainError, ValueError) as exc:
        logger.error("%s", exc)
        return 2
    frame, extra = chain_frame(events, origin)
    metrics.update({"input": counts, **extra, **chain_stats(frame)})
    Path(args.ledger).parent.mkdir(parents=True, exist_ok=True)
    Path(args.ledger).touch()  # a declared output even when no model was asked
    io.write_parquet(args.out, frame)
    io.write_json(args.metrics, metrics)
    logger.info(
        "%s: %d chains, %d atomic events in %.1fs",
        origin,
        frame["chain_id"].nunique(),
        len(frame),
        time.perf_counter() - start,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
