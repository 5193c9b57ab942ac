"""reports/index.html as a reader meets it: the first screen says what was run and shows
the headline table, the parts follow in the outline's order with each figure and table
in its own part, BPC and OpenForecast appear when their tables are there and are one
line when they are not, an empty figure or part says why in one line, and the same
inputs give the same bytes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from prescient.page.contents import report_figures, report_tables
from prescient.page.summary import DEMO_LINE, headline
from prescient.report.table_files import read_tables
from prescient.report.tables import MIN_INTERVAL_N
from stages import report
from tests.fixtures.analysis.frames import candidates_for, sparse_demo
from tests.fixtures.analysis.page import Page, read_page
from tests.fixtures.analysis.results import bpc_tables, openforecast_tables
from tests.fixtures.analysis.run import Run, run_stages

REGISTRY = {"smollm2_135m": {"knowledge_cutoff": None, "release_date": "2024-11-01"}}
TOP = [
    "run",
    "daily-oracle",
    "beyond-the-papers",
    "freshbench",
    "open-forecast",
    "dataset",
    "provenance",
    "notes",
]
CHILDREN = {
    "daily-oracle": [
        "accuracy-over-time",
        "rag-cutoffs",
        "yearly",
        "decline-slopes",
        "refusals",
        "horizon",
        "examples",
    ],
    "beyond-the-papers": [
        "proper-scores",
        "brier-over-time",
        "calibration",
        "model-comparisons",
    ],
    "freshbench": ["bias-tests", "bpc"],
    "dataset": ["construction", "sources", "categories", "anderson-schooler"],
}


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The sparse demo with the BPC and OpenForecast tables."""
    root = tmp_path_factory.mktemp("whole")
    scores, questions, articles = sparse_demo()
    questions.loc[0, "question"] = "Will the <b>harbour</b> & board agree?"
    return run_stages(
        root / "run",
        scores,
        questions,
        articles,
        REGISTRY,
        bpc=bpc_tables(root / "bpc"),
        openforecast=openforecast_tables(root / "openforecast"),
        candidates=candidates_for(questions),
    )


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The same analysis with neither: the presets of an imported benchmark."""
    scores, questions, articles = sparse_demo()
    return run_stages(tmp_path_factory.mktemp("imported"), scores, questions, articles, REGISTRY)


def _page(run: Run) -> Page:
    return read_page(run.html.read_text())


def test_the_page_lists_its_parts_in_order(whole: Run) -> None:
    page = _page(whole)
    assert [s for s in page.sections if page.parent[s] == ""] == TOP
    for part, children in CHILDREN.items():
        assert [s for s in page.sections if page.parent[s] == part] == children
    # the contents list links every part in page order, the first screen aside
    assert page.contents == [s for s in page.sections if s != "run"]
    assert page.inside["contents"] == "run" and page.inside["headline"] == "run"


def test_accuracy_by_rag_cutoff_has_each_cutoff_with_its_interval(whole: Run) -> None:
    table = _page(whole).tables["rag-accuracy"]
    # RAG TF: 4 of 6 under the 2024-03-01 cutoff, 6 of 6 dynamic; closed book TF 4 of 6
    assert [r[:6] for r in table[1:3]] == [
        # six questions: below the floor of an interval (MIN_INTERVAL_N), said in its place
        ["smollm2_135m", "TF", "2024-03-01", "66.67 (n=6: too few for an interval)", "6", "66.67"],
        ["smollm2_135m", "TF", "dynamic", "100.00 (n=6: too few for an interval)", "6", "66.67"],
    ]
    assert [r[6] for r in table[1:]] == ["rag", "rag_dynamic"] * 2  # TF, then all types
    # the stage's summary: all types; gold's failed MC call is left out (9 of 9)
    summary = json.loads(whole.summary.read_text())
    proper = {"elicitation", "brier_tf", "brier_mc", "log_score", "uniform_fill"}
    assert summary["smollm2_135m"]["brier_tf"]["rag"] == 0.208333
    assert {k: {n: v for n, v in e.items() if n not in proper} for k, e in summary.items()} == {
        "outside_model": {"closed_book": 50.0, "n": 6},
        "smollm2_135m": {
            "closed_book": 66.666667,  # 6 of 9
            "gold": 100.0,
            "rag": 66.666667,  # 4 of 6
            "rag_cutoff": "2024-03-01",
            "rag_dynamic": 100.0,
            "n": 9,
        },
    }


def test_figures_and_tables_sit_in_their_parts(whole: Run) -> None:
    page = _page(whole)
    shown = set(page.inside.values())
    # parts with nothing to show are one line (the next tests); the others hold their own
    assert {s for s in page.sections if s not in shown} == {"decline-slopes", "horizon", "notes"}
    items = [(f.name, f.part) for f in report_figures()]
    items += [(t.section_id, t.part) for t in report_tables()]
    for ident, part in items:
        assert page.inside.get(ident, "") == (part if part in shown else ""), ident
    assert page.inside["bpc-tbi"] == "bpc" and page.parent["bpc"] == "freshbench"


def test_bpc_and_openforecast_appear_with_their_tables(whole: Run) -> None:
    page = _page(whole)
    assert (whole.figures / "bpc_over_time.png").is_file()
    assert (whole.figures / "openforecast.png").is_file()
    html = whole.html.read_text()
    assert 'id="bpc_over_time"><img' in html and 'id="openforecast"><img' in html
    # MCAC 2 of 3, MCNC 3 of 4, VQA 2 of 4 (tests/fixtures/analysis/results.py)
    closed = page.tables["of-closed-accuracy"]
    assert [(r[1], r[4], r[5]) for r in closed[1:]] == [
        ("MCAC", "3", "2"),
        ("MCNC", "4", "3"),
        ("VQA", "4", "2"),
    ]
    assert closed[2][-1] == "75.00 (n=4: too few for an interval)"  # 3 of 4
    f1 = [r for r in page.tables["of-open-scores"][1:] if r[2] == "f1"]
    assert [(r[1], r[3], r[5].split(" [")[0]) for r in f1] == [
        ("LTF", "1", "25.00 (n=1: too few for an interval)"),  # one sample: no bootstrap interval
        ("STF", "2", "75.00 (n=2: too few for an interval)"),
    ]
    tbi = read_tables(whole.root.parent / "bpc")["bpc_tbi"]
    row = page.tables["bpc-tbi"][1]
    assert row[0] == "Words" and row[1] == "all"
    assert row[7].startswith(f"{tbi.loc[tbi['span'] == 'all', 'tbi'].iloc[0]:.4f}")
    # The BPC table names how each model read the segments after a document's first.
    buckets = page.tables["bpc-buckets"]
    assert buckets[0][:2] == ["Model", "Later segments"]
    assert {r[1] for r in buckets[1:]} == {"lead"}
    assert "judged by smollm2_135m" in page.text["run-summary"]
    assert "BPC and TBI: report_words, 5 documents in 3 buckets" in page.text["run-summary"]


def test_a_run_without_bpc_or_openforecast_says_so_in_one_line(imported: Run) -> None:
    page = _page(imported)
    tables = imported.tables.as_posix()
    for part, what, heading in (
        ("bpc", "analysis.bpc) holds no BPC tables.", "Bits per character and the Temporal Bias Index"),
        ("open-forecast", "analysis.openforecast) holds no OpenForecast tables.", "OpenForecast"),
    ):  # fmt: skip
        assert page.text[part] == f"{heading}Not part of this run: {tables} ({what}"
    assert not (imported.figures / "bpc_over_time.png").exists()
    assert not (imported.figures / "openforecast.png").exists()
    assert not {s.name for s in report_figures() if s.part in ("bpc", "open-forecast")} & set(
        page.inside
    )
    summary = page.text["run-summary"]
    assert "BPC and TBI: not part of this run" in summary
    assert "OpenForecast: not part of this run" in summary
    assert page.text["contents"].count("(not part of this run)") == 2


def test_the_reader_sees_failures_construction_and_examples(whole: Run) -> None:
    page = _page(whole)
    # closed book TF c w | c r | c c (frames.sparse_demo): one refusal in six, counted wrong
    failures = page.tables["answer-failures"]
    row = next(r for r in failures[1:] if r[:4] == ["smollm2_135m", "closed book", "label", "TF"])
    assert row[4:] == ["6", "0", "0.00", "1", "16.67", "16.67"]
    assert "both count as wrong" in page.text["refusals"]
    assert "Unparseable replies and refusals, counted as wrong" in page.text["headline-block"]
    funnel = {r[0]: r[3:] for r in page.tables["construction-funnel"][1:]}
    # sparse_demo asks 6 TF and 4 MC questions; candidates_for adds two rejected TF ones
    assert funnel["candidate questions generated"] == ["12", "8", "4"]
    assert funnel["published questions"] == ["10", "6", "4"]
    assert funnel["of them evaluated"] == ["10", "6", "4"]
    leak = {r[0]: r[2] for r in page.tables["leakage-audit"][1:]}
    assert leak["near_duplicate"] == "1" and leak["any"] == "1"
    examples = page.tables["example-questions"]
    assert examples[0][:2] == ["Question", "Model"]
    assert sum(1 for r in examples if r[1] == "articles in the prompt") == 6
    html = whole.html.read_text()
    assert "<b>harbour</b>" not in html and "&lt;b&gt;harbour&lt;/b&gt; &amp; board" in html
    # every row of a type holds the same questions (the failed call is left out): no note
    assert "cover different questions" not in page.text["headline-block"]


def _cell(text: str) -> tuple[float, float | None, float | None, int]:
    """value [low, high] n=k, or value (n=k: too few for an interval)."""
    few = re.fullmatch(r"([\d.]+) \(n=(\d+): too few for an interval\)", text)
    if few:
        return float(few[1]), None, None, int(few[2])
    m = re.fullmatch(r"([\d.]+) \[([\d.]+), ([\d.]+)\] n=(\d+)", text)
    assert m, text
    return float(m[1]), float(m[2]), float(m[3]), int(m[4])


def test_the_headline_table_is_the_analysis_tables(whole: Run) -> None:
    page = _page(whole)
    rows = page.tables["headline"]
    header = rows[0]
    assert header == ["Model", "Type", "closed book", "RAG cutoff 2024-03-01", "RAG dynamic",
                      "gold article"]  # fmt: skip
    # smollm2_135m closed book TF: c w c r c c (frames.sparse_demo) -> 4 of 6
    by_key = {(r[0], r[1]): dict(zip(header[2:], r[2:], strict=True)) for r in rows[1:]}
    assert by_key[("smollm2_135m", "TF")]["closed book"] == "66.7 (n=6: too few for an interval)"
    assert by_key[("outside_model", "TF")]["gold article"] == "–"
    assert ("outside_model", "MC") not in by_key  # it answered no MC question
    tables = read_tables(whole.tables)
    acc = tables["accuracy"].set_index(["model", "cell", "qtype"])
    cells = tables["cells"].groupby(["model", "cell"])[["n_tf", "n_mc"]].sum()
    labels = {"closed book": "closed_book", "RAG cutoff 2024-03-01": "rag_2024-03-01",
              "RAG dynamic": "rag_dynamic", "gold article": "gold"}  # fmt: skip
    checked = 0
    for (model, qtype), shown in by_key.items():
        for label, text in shown.items():
            cell = labels[label]
            if text == "–":
                assert (model, cell, qtype.lower()) not in acc.index
                continue
            value, low, high, n = _cell(text)
            a = acc.loc[(model, cell, qtype.lower())]
            shown_bounds = ("accuracy",) if low is None else ("accuracy", "ci_low", "ci_high")
            assert tuple(x for x in (value, low, high) if x is not None) == tuple(
                round(100 * float(a[c]), 1) for c in shown_bounds
            )
            assert (low is None) == (int(a["n"]) < MIN_INTERVAL_N)
            assert n == int(a["n"]) == int(cells.loc[(model, cell), f"n_{qtype.lower()}"])
            checked += 1
    assert checked == 7


def test_an_empty_figure_or_part_says_why_in_one_line(imported: Run) -> None:
    page = _page(imported)
    # two months of scores: too few for a Fig. 6 slope, so no slopes table
    assert page.text["decline-slopes"] == (
        "Fig. 6: slope of the decline"
        "No slope: the expanding window needs more months with a defined moving average "
        "(analysis.slope) than the 2 calendar months the scores span."
    )
    assert page.text["horizon"].endswith("No evaluated question has a forecast date "
                                         "(map a source's forecast_date column).")  # fmt: skip
    assert page.text["construction"].endswith(
        "No candidates table: the questions were not made by this run's construct stage."
    )
    # Anderson-Schooler: a figure without points is one line, its fit table stays
    assert page.text["fig2_anderson_schooler"].startswith("Fig. 2: Not computed (article titles:")
    assert len(page.tables["anderson-schooler-fit"]) == 4
    html = imported.html.read_text()
    notes = html[html.index('<section id="notes">') :]
    assert notes.startswith('<section id="notes"><details><summary>Notes (')
    assert "Fig. 6 slopes need" in notes  # the analysis's notes, collapsed at the end


def test_the_demo_corpus_is_said_to_be_fictional(whole: Run, tmp_path: Path) -> None:
    assert DEMO_LINE in whole.html.read_text()
    other = whole.params | {"corpus": {**whole.params["corpus"], "name": "shared_news"}}
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(other))
    out = tmp_path / "index.html"
    rc = report.main(
        [
            "--params", str(params),
            "--tables", str(whole.tables),
            "--bpc", str(whole.root.parent / "bpc"),
            "--openforecast", str(whole.root.parent / "openforecast"),
            "--figures", str(whole.figures),
            "--out", str(out),
        ]
    )  # fmt: skip
    assert rc == 0
    page = out.read_text()
    assert DEMO_LINE not in page and "On the demo corpus" not in page
    assert "shared_news: 4 articles" in read_page(page).text["run-summary"]


def test_the_same_inputs_give_the_same_page(whole: Run, tmp_path: Path) -> None:
    again = tmp_path / "index.html"
    rc = report.main(
        [
            "--params", str(whole.root / "params.yaml"),
            "--tables", str(whole.tables),
            "--bpc", str(whole.root.parent / "bpc"),
            "--openforecast", str(whole.root.parent / "openforecast"),
            "--figures", str(whole.figures),
            "--out", str(again),
        ]
    )  # fmt: skip
    assert rc == 0
    assert again.read_bytes() == whole.html.read_bytes()
    assert "<script" not in again.read_text()


def test_the_headline_reads_the_accuracy_table_only(whole: Run) -> None:
    """Negative control: a doctored accuracy table changes the headline, so the numbers
    come from it and not from a recomputation."""
    tables = read_tables(whole.tables)
    acc = tables["accuracy"]
    acc.loc[(acc["model"] == "smollm2_135m") & (acc["cell"] == "closed_book"), "n"] = 99
    shown = headline(acc).set_index(["Model", "Type"])
    assert shown.loc[("smollm2_135m", "TF"), "closed book"] == "66.7 [30.0, 90.3] n=99"
