"""Ingest keeps the languages of ``ingest.languages`` (English by default), detected by
py3langid's model in exact arithmetic: the same decision on every machine, and the
decision py3langid itself makes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import py3langid
import pytest

from prescient.corpus import language
from prescient.corpus.accounting import DROP_REASONS, summarize
from prescient.corpus.ingest import ingest_corpus_to, ingest_rows
from prescient.corpus.readers import RawRow
from prescient.kept import KeptStore
from prescient.settings import ParamsError
from tests.support.corpus import BODY, corpus_settings, ingest_settings, jsonl_bytes, table_bytes
from tests.support.corpus import article as art
from tests.support.kept import flip_payload_byte

# Short news-like paragraphs written for these tests, repeated past ingest.min_chars.
PARAGRAPHS = {
    "en": "The city council approved the new budget for schools and roads on Monday evening.",
    "el": "Το δημοτικό συμβούλιο ενέκρινε τη Δευτέρα τον νέο προϋπολογισμό για σχολεία και δρόμους.",
    "ru": "Городской совет в понедельник утвердил новый бюджет на школы и дороги.",
    "pt": "A câmara municipal aprovou na segunda-feira o novo orçamento para escolas e estradas.",
    "es": "El ayuntamiento aprobó el lunes el nuevo presupuesto para escuelas y carreteras.",
}
TITLES = {
    "en": "Council approves budget",
    "el": "Εγκρίθηκε ο προϋπολογισμός | Alpha Πάτρας",
    "ru": "Совет утвердил бюджет",
    "pt": "Câmara aprova orçamento",
    "es": "El ayuntamiento aprueba el presupuesto",
}


def text_in(lang: str, n: int = 12) -> str:
    return " ".join(f"{PARAGRAPHS[lang]}" for _ in range(n)) + f" ({lang})"


def rows() -> list[RawRow]:
    return [
        RawRow(
            f"mem:{i}",
            art(url=f"https://site.example/{lang}", title=TITLES[lang], text=text_in(lang)),
        )
        for i, lang in enumerate(PARAGRAPHS, 1)
    ]


@pytest.mark.parametrize("lang", list(PARAGRAPHS))
def test_each_text_is_detected_as_py3langid_detects_it(lang: str) -> None:
    text = language.article_text(TITLES[lang], text_in(lang), 1000)
    assert language.detect(text) == lang
    assert py3langid.classify(text)[0] == lang
    # The exact scores are py3langid's scores in units of 2^-33, up to its float32
    # rounding (at most 0.003 on shared_news).
    ranked = py3langid.rank(text)
    exact = language.scores(text)
    assert all(isinstance(v, int) for v in exact.values())
    for code, score in ranked[:5]:
        assert exact[code] / 2**33 == pytest.approx(score, abs=0.05)


def test_the_default_keeps_english_and_counts_the_rest_under_a_named_reason() -> None:
    df, report = ingest_rows(rows(), ingest_settings(), date_format=None)
    m = summarize(df, report, "x")
    assert df["url"].tolist() == ["https://site.example/en"]
    assert m["dropped"]["language_not_allowed"] == 4
    assert m["rows_read"] == 5 == m["rows_kept"] + m["dropped_total"]
    assert report.examples["language_not_allowed"] == [
        "mem:2: el: Εγκρίθηκε ο προϋπολογισμός | Alpha Πάτρας",
        "mem:3: ru: Совет утвердил бюджет",
        "mem:4: pt: Câmara aprova orçamento",
    ]
    # Checked after the source allow-list, before de-duplication.
    assert (
        DROP_REASONS.index("language_not_allowed") == DROP_REASONS.index("source_not_allowed") + 1
    )
    assert DROP_REASONS.index("language_not_allowed") + 1 == DROP_REASONS.index("duplicate_url")


def test_null_keeps_every_language_and_a_list_keeps_its_own() -> None:
    df, _ = ingest_rows(rows(), ingest_settings("ingest.languages=null"), date_format=None)
    assert len(df) == 5
    df, report = ingest_rows(rows(), ingest_settings("ingest.languages=[EN,el]"), date_format=None)
    assert sorted(df["url"]) == ["https://site.example/el", "https://site.example/en"]
    assert report.dropped["language_not_allowed"] == 3


def test_the_detector_reads_the_title_and_the_first_language_chars_of_the_text() -> None:
    # English for the first 1,020 characters, then Greek for five times as long.
    mixed = BODY + text_in("el", 60)
    row = [RawRow("mem:1", art(text=mixed[:9000]))]
    df, _ = ingest_rows(row, ingest_settings(), date_format=None)
    assert len(df) == 1
    df, report = ingest_rows(row, ingest_settings("ingest.language_chars=9000"), date_format=None)
    assert df.empty and report.examples["language_not_allowed"] == [
        "mem:1: el: Council approves plan"
    ]


def test_an_unknown_language_code_names_the_parameter() -> None:
    with pytest.raises(ParamsError) as err:
        ingest_settings("ingest.languages=[en,english]")
    text = str(err.value)
    assert text.startswith("ingest.languages: ") and "unknown language codes ['english']" in text
    with pytest.raises(ParamsError, match="ingest.languages: must list at least one language"):
        ingest_settings("ingest.languages=[]")


def test_exact_ties_and_empty_texts_go_to_the_first_language_of_the_model() -> None:
    assert set(language.scores("").values()) == {0}
    first = next(iter(language.scores("")))
    assert language.detect("") == first == py3langid.classify("")[0]


def multilingual(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    """A JSON Lines corpus over three months, in five languages."""
    out = []
    for i in range(40):
        lang = list(PARAGRAPHS)[i % 5]
        day = dt.date(2024, 1, 3) + dt.timedelta(days=2 * i)
        out.append(
            art(
                date=day.isoformat(),
                url=f"https://site.example/{i}",
                title=f"{TITLES[lang]} {i}",
                text=text_in(lang) + f" {i}",
            )
        )
    path = tmp_path / "news.jsonl"
    path.write_bytes(jsonl_bytes(out))
    return path, out


def test_kept_verdicts_give_the_same_table_and_new_articles_alone_are_detected(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source, rows_written = multilingual(tmp_path)
    corpus, settings = corpus_settings("jsonl", source), ingest_settings()
    plain = tmp_path / "plain.parquet"
    ingest_corpus_to(corpus, settings, plain)
    store = KeptStore(tmp_path / "kept")
    for run in ("first", "second"):
        kept = language.KeptLanguages(store)
        out = tmp_path / f"{run}.parquet"
        ingest_corpus_to(corpus, settings, out, kept)
        assert table_bytes(out) == table_bytes(plain)
        assert (kept.detected, kept.reused) == ((40, 0) if run == "first" else (0, 40))
    # A day more: only its article is detected. A month's part damaged: its verdicts
    # are detected again, with a warning; the table is the same bytes as without.
    extra = art(date="2024-03-30", url="https://site.example/new", title="New", text=text_in("pt"))
    source.write_bytes(jsonl_bytes([*rows_written, extra]))
    ingest_corpus_to(corpus, settings, plain)
    part = sorted(p for p in (tmp_path / "kept").rglob("*") if p.is_file())[0]
    flip_payload_byte(part, -9)  # a byte of the payload
    kept = language.KeptLanguages(store)
    out = tmp_path / "third.parquet"
    ingest_corpus_to(corpus, settings, out, kept)
    assert table_bytes(out) == table_bytes(plain)
    # The parts are named by digest, not by month: the damaged one is some month's.
    damaged = kept.detected - 1
    assert damaged in {
        sum(r["date"][:7] == m for r in rows_written) for m in ("2024-01", "2024-02", "2024-03")
    }  # type: ignore[index]
    assert kept.reused == 40 - damaged
    assert "fails its digest" in caplog.text


def test_a_killed_ingest_keeps_the_verdicts_it_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(language, "SAVE_EVERY", 5)
    source, _ = multilingual(tmp_path)
    corpus, settings = corpus_settings("jsonl", source), ingest_settings()
    store = KeptStore(tmp_path / "kept")
    detect, calls = language.detect, []

    def killed(text: str) -> str:
        calls.append(text)
        if len(calls) == 13:
            raise KeyboardInterrupt  # the stage killed while detecting
        return detect(text)

    monkeypatch.setattr(language, "detect", killed)
    with pytest.raises(KeyboardInterrupt):
        ingest_corpus_to(corpus, settings, tmp_path / "a.parquet", language.KeptLanguages(store))
    monkeypatch.setattr(language, "detect", detect)
    kept = language.KeptLanguages(store)
    ingest_corpus_to(corpus, settings, tmp_path / "b.parquet", kept)
    assert kept.reused == 10 and kept.detected == 30  # two saves of five
    ingest_corpus_to(corpus, settings, tmp_path / "c.parquet")
    assert table_bytes(tmp_path / "b.parquet") == table_bytes(tmp_path / "c.parquet")
