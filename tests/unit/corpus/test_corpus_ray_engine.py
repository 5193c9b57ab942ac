"""Units cross the Ray engine's Arrow tables unchanged: rows of every kind, damage events,
dates as text or as days, notes, and text that is not valid UTF-8."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from prescient.corpus.physical import Damage
from prescient.corpus.ray_engine import UNIT_SCHEMA, table_units, units_table
from prescient.corpus.readers import RawRow, read_rows
from tests.support.corpus import corpus_settings
from tests.support.warc_set import write_warc_set


def test_every_unit_of_a_damaged_warc_set_round_trips(tmp_path: Path) -> None:
    write_warc_set(tmp_path / "warc", n_files=4, pages=5, damaged=True)
    units = list(read_rows(corpus_settings("warc", tmp_path / "warc"), max_record_bytes=10**6))
    assert any(isinstance(u, Damage) for u in units)
    assert any(isinstance(u, RawRow) and u.fields for u in units)
    table = units_table(units)
    assert table.schema == UNIT_SCHEMA and table.num_rows == len(units)
    assert list(table_units(table)) == units


def test_odd_values_keep_their_types() -> None:
    units = [
        RawRow(
            "f.warc:record 1 @ byte 0 (https://x.example/\u00e9)",
            fields={
                "date": dt.date(2024, 5, 3),
                "title": "lone \udc80 surrogate",
                "text": "",
                "url": None,
                "source_domain": None,
            },
            reason=None,
            notes=("date_from_warc",),
            file_no=3,
            members=(4, 6),
            fetched=dt.date(2024, 5, 3),
        ),
        RawRow("f.warc:record 2", fields={"date": "2024-05-02"}, reason=""),
        RawRow("f.warc:record 3", reason="not_a_response", detail="warcinfo"),
        Damage(3, "f.warc.gz", "corrupt_gzip", 7, 1234, True, "bad crc \u2713"),
    ]
    back = list(table_units(units_table(units)))
    assert back == units
    assert isinstance(back[0], RawRow) and back[0].fields["date"] == dt.date(2024, 5, 3)
    assert (
        isinstance(back[1], RawRow)
        and back[1].reason == ""
        and back[1].fields == {"date": "2024-05-02"}
    )
    assert (
        isinstance(back[2], RawRow) and back[2].reason == "not_a_response" and back[2].fields == {}
    )


def test_the_ray_settings_refuse_what_cannot_work() -> None:
    from prescient.corpus.settings import IngestSettings
    from prescient.settings import ParamsError, load_settings
    from tests.support.corpus import _params

    shipped = _params(())
    assert load_settings(IngestSettings, shipped, "ingest").engine == "local"
    cases = {
        "ingest.ray.address=localhost:6379": r"ingest.ray.address: must be null \(a Ray on",
        "ingest.engine=spark": "ingest.engine",
        "ingest.ray.files_in_flight=0": "ingest.ray.files_in_flight",
    }
    for override, message in cases.items():
        with pytest.raises(ParamsError, match=message):
            load_settings(IngestSettings, _params((override,)), "ingest")
    with pytest.raises(ParamsError, match=r"applies to a Ray started here.*set it to null"):
        load_settings(
            IngestSettings,
            _params(("ingest.ray.address=ray://head:10001", "ingest.ray.num_cpus=4")),
            "ingest",
        )
    ok = load_settings(IngestSettings, _params(("ingest.ray.address=auto",)), "ingest")
    assert ok.ray.address == "auto" and ok.ray.num_cpus is None
