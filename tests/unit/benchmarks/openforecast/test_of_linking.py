"""The cluster source's linker: suffixes, names, online linking, coherence, and the demo's
arcs recovered as the shipped timelines tell them (B-cubed F1)."""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pandas as pd
import pytest

from prescient.benchmarks.openforecast.linking import bcubed, link_articles, proper_names
from prescient.benchmarks.openforecast.settings import ChainsSettings
from prescient.corpus.normalize import article_id, normalize_url
from prescient.corpus.titles import strip_title_suffixes
from prescient.plumbing import params
from prescient.settings import load_settings
from tests.conftest import ROOT


def settings(*overrides: str):  # type: ignore[no-untyped-def]
    return load_settings(ChainsSettings, params.compose(ROOT, list(overrides)), "chains").cluster


def test_recurring_title_suffixes_and_ellipses_are_stripped() -> None:
    titles = [
        "Storm hits coast | CNN",
        "Senate passes bill | CNN",
        "Markets fall - CNN Business | CNN",
        "Court rules on case | CNN",
        "Tax plan explained - The Week UK",
        "Rates rise - The Week UK",
        "Why the cup final matters - Opinion",
        "Mayor resigns over budget ...",
        "Fans cheer - a new era",
    ]
    out = strip_title_suffixes(titles, [" | ", " - "], 2)
    assert out == [
        "Storm hits coast",
        "Senate passes bill",
        "Markets fall - CNN Business",  # "CNN Business" occurs once: not a masthead
        "Court rules on case",
        "Tax plan explained",
        "Rates rise",
        "Why the cup final matters - Opinion",
        "Mayor resigns over budget",
        "Fans cheer - a new era",
    ]


def test_names_skip_sentence_openers() -> None:
    text = 'The council of Port Velden met. Mayor Ilse Varga spoke.\n"Trams help," said Varga.'
    assert proper_names(text) == ["Port", "Velden", "Ilse", "Varga", "Varga"]


def _articles(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "article_id": [f"a{i:02d}" for i in range(len(rows))],
            "date": [dt.date.fromisoformat(d) for d, _, _ in rows],
            "title": [t for _, t, _ in rows],
            "text": [x for _, _, x in rows],
        }
    )


FERRY = "The Brisk Island council and the Kestrel yard discussed the electric ferry Osprey for Brisk Island."
ORCHARD = "Calder valley apple growers and the Tallow orchard board counted frost damage to the Calder blossom."


def test_two_interleaved_stories_and_a_template_are_told_apart() -> None:
    rows = []
    for k in range(6):
        day = dt.date(2022, 1, 3) + dt.timedelta(days=7 * k)
        rows.append((day.isoformat(), f"Ferry update {k}", f"{FERRY} Step {k} of the ferry plan."))
        rows.append(
            (day.isoformat(), f"Orchard update {k}", f"{ORCHARD} Week {k} of the frost count.")
        )
        # one template, a different company each time: shared words, no shared names
        company = ["Heatwell", "Tidepool Labs", "Osterbank", "Valmora", "Norvik Steel", "Quill"][k]
        rows.append(
            (
                day.isoformat(),
                f"{company} raises money to expand",
                f"Investors said on Monday that {company} raises millions of crowns to expand "
                "its staff and open offices, the company said in a statement.",
            )
        )
    frame, kept, counts = link_articles(
        _articles(rows), settings("chains.cluster.min_df=1", "chains.cluster.max_df=1.0")
    )
    groups = sorted(sorted(frame.loc[list(st.members), "title"].str.split().str[0]) for st in kept)
    assert groups == [["Ferry"] * 6, ["Orchard"] * 6]
    assert counts["kept"] == 2
    assert all(st.n_dates == 6 for st in kept)
    # Without the name check the template makes a chain of its own.
    _, loose, _ = link_articles(
        _articles(rows),
        settings(
            "chains.cluster.min_df=1",
            "chains.cluster.max_df=1.0",
            "chains.cluster.name_threshold=0",
        ),
    )
    assert len(loose) == 3


def test_stories_expire_after_the_window() -> None:
    """Monthly reports on the 1st: gaps of 31, 28, 31, 30 and 31 days. A 30-day window
    keeps a story open from its last article for 30 days: Feb-Mar and Apr-May link,
    January and June stay alone; 31 days link all six."""
    rows = [(f"2022-0{m}-01", f"Ferry update {m}", f"{FERRY} Month {m}.") for m in range(1, 7)]
    base = ("chains.cluster.min_df=1", "chains.cluster.max_df=1.0", "chains.cluster.min_dates=2")
    frame, kept, counts = link_articles(_articles(rows), settings(*base))
    months = sorted([int(str(frame.loc[i, "date"])[5:7]) for i in st.members] for st in kept)
    assert months == [[2, 3], [4, 5]] and counts["singletons"] == 2
    _, kept31, _ = link_articles(_articles(rows), settings(*base, "chains.cluster.window_days=31"))
    assert [len(st.members) for st in kept31] == [6]


def test_linking_is_deterministic_and_input_order_free() -> None:
    rows = [(f"2022-01-{d:02d}", f"Ferry {d}", f"{FERRY} Day {d}.") for d in range(1, 9)]
    a = _articles(rows)
    s = settings("chains.cluster.min_df=1", "chains.cluster.max_df=1.0")
    _, k1, _ = link_articles(a, s)
    _, k2, _ = link_articles(a.sample(frac=1.0, random_state=3), s)
    assert k1 == k2
    assert np.isclose(k1[0].coherence, k2[0].coherence)


def test_bcubed_hand_computed() -> None:
    gold = {"a": 1, "b": 1, "c": 2, "d": 2}
    pred = {"a": "x", "b": "x", "c": "x"}  # d alone
    m = bcubed(pred, gold, ["a", "b", "c", "d"])
    # precision: a, b, c: 2/3, 2/3, 1/3; d: 1 -> 8/12; recall: a, b: 1; c, d: 1/2 -> 3/4
    assert m["precision"] == 8 / 12 and m["recall"] == 0.75
    assert m["f1"] == 2 * (8 / 12) * 0.75 / (8 / 12 + 0.75)


@pytest.fixture(scope="module")
def demo_articles(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    from stages import ingest

    out = tmp_path_factory.mktemp("demo") / "articles.parquet"
    assert ingest.main(["--out", str(out), "--metrics", str(out.with_suffix(".json"))]) == 0
    return pd.read_parquet(out)


def test_the_demo_arcs_are_recovered(demo_articles: pd.DataFrame) -> None:
    """The demo's 13 arcs as the shipped timelines tell them (episodes up to 945 days
    apart, hence the window); an article's arc is the chain whose event lists its URL."""
    gold: dict[str, str] = {}
    with open(ROOT / "data" / "raw" / "demo" / "timelines.jsonl", encoding="utf-8") as fh:
        for line in fh:
            event = json.loads(line)
            for url in event["source_urls"]:
                norm = normalize_url(url)
                assert norm is not None, url
                gold[article_id(norm, "", dt.date.fromisoformat(event["date"]))] = event["chain_id"]
    frame, kept, _ = link_articles(demo_articles, settings("chains.cluster.window_days=1000"))
    ids = frame["article_id"].tolist()
    assert set(gold) <= set(ids)  # every source URL is an ingested article
    pred = {ids[i]: k for k, st in enumerate(kept) for i in st.members}
    arc_items = [i for i in ids if i in gold]
    assert len(set(gold.values())) == 13 and len(arc_items) == 253
    assert bcubed(pred, gold, arc_items)["f1"] >= 0.95
    assert bcubed(pred, gold, ids)["f1"] >= 0.95  # other articles stay out of the chains
