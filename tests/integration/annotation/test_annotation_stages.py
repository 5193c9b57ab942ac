"""The two stages and the import command end to end on the fixture tables."""

from __future__ import annotations

import csv
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from prescient.annotation.ratings import Rating, append_ratings
from prescient.vocab import PRINCIPLES
from stages import agreement as agreement_stage
from stages import annotation_sample as sample_stage
from tests.conftest import ROOT
from tests.fixtures.annotation.build import write_inputs, write_params

ANNOTATORS = ["ann_a", "ann_b", "ann_c"]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    write_inputs(tmp_path / "interim")
    write_params(
        tmp_path / "params.yaml",
        annotators=tuple(ANNOTATORS),
        sample={"n_tf": 5, "n_mc": 5},
        agreement={"bootstrap": {"reps": 200, "confidence": 0.95}},
    )
    return tmp_path


def _sample(w: Path) -> int:
    return sample_stage.main(
        [
            "--params", str(w / "params.yaml"),
            "--candidates", str(w / "interim/qa_candidates.parquet"),
            "--articles", str(w / "interim/articles.parquet"),
            "--rubric", str(ROOT / "conf/prompts/construct/filter.yaml"),
            "--out", str(w / "packets"),
        ]
    )  # fmt: skip


def _agreement(w: Path) -> int:
    return agreement_stage.main(
        [
            "--params", str(w / "params.yaml"),
            "--packets", str(w / "packets"),
            "--ratings", str(w / "ratings"),
            "--candidates", str(w / "interim/qa_candidates.parquet"),
            "--table-csv", str(w / "out/human_agreement.csv"),
            "--table-md", str(w / "out/human_agreement.md"),
            "--metrics", str(w / "out/agreement.json"),
        ]
    )  # fmt: skip


def test_sample_stage_writes_one_packet_per_annotator(workdir: Path) -> None:
    assert _sample(workdir) == 0
    packets = workdir / "packets"
    names = sorted(p.name for p in packets.iterdir())
    assert names == sorted(
        ["manifest.json", "rubric.json", "rubric.md"]
        + [f"{a}.{ext}" for a in ANNOTATORS for ext in ("jsonl", "csv")]
    )
    manifest = json.loads((packets / "manifest.json").read_text())
    assert len(manifest["item_ids"]) == 10
    assert manifest["sample"]["drawn"] == {
        "tf": {"accepted": 3, "rejected": 2},
        "mc": {"accepted": 3, "rejected": 2},
    }
    assert manifest["rubric"]["template"].startswith("filter@")
    for a in ANNOTATORS:
        lines = (packets / f"{a}.jsonl").read_text().splitlines()
        assert sorted(json.loads(x)["item_id"] for x in lines) == sorted(manifest["item_ids"])
        assert (packets / f"{a}.csv").read_bytes().startswith(b"\xef\xbb\xbf")  # UTF-8 BOM
    # Rerun: byte-identical packets.
    before = {p.name: p.read_bytes() for p in packets.iterdir()}
    assert _sample(workdir) == 0
    assert {p.name: p.read_bytes() for p in packets.iterdir()} == before
    assert not [p for p in workdir.iterdir() if p.name.startswith(".packets")]


def test_agreement_without_annotations_reports_awaiting(workdir: Path) -> None:
    assert _sample(workdir) == 0
    (workdir / "ratings").mkdir()
    (workdir / "ratings/README.md").write_text("ratings go here")
    assert _agreement(workdir) == 0
    metrics = json.loads((workdir / "out/agreement.json").read_text())
    assert metrics["status"] == "awaiting_annotations"
    assert metrics["packets_awaiting"] == ANNOTATORS
    assert metrics["n_items"] == 10 and metrics["n_annotation_files"] == 0
    assert "fleiss_kappa" not in metrics
    with open(workdir / "out/human_agreement.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert all(r["fleiss_kappa"] == "" and r["accuracy_pct"] == "" for r in rows)
    assert "Awaiting annotations" in (workdir / "out/human_agreement.md").read_text()


def _rate_all(w: Path, annotators: list[str]) -> None:
    manifest = json.loads((w / "packets/manifest.json").read_text())
    for k, name in enumerate(annotators):
        ratings = [
            Rating(
                item,
                name,
                {p: (i + j + k) % 3 if j == 0 else 2 for j, p in enumerate(PRINCIPLES)},
                "2025-01-01T00:00:00+00:00",
            )
            for i, item in enumerate(manifest["item_ids"])
        ]
        append_ratings(w / "ratings" / f"{name}.jsonl", ratings)


def test_agreement_with_annotations_writes_table_4(workdir: Path) -> None:
    assert _sample(workdir) == 0
    _rate_all(workdir, ["ann_a", "ann_b"])
    assert _agreement(workdir) == 0
    metrics = json.loads((workdir / "out/agreement.json").read_text())
    assert metrics["status"] == "ok"
    assert metrics["annotators"] == ["ann_a", "ann_b"]
    assert metrics["packets_awaiting"] == ["ann_c"]
    assert metrics["n_items_rated_by_all"] == 10
    # ann_b's correctness is ann_a's shifted by one (mod 3): never the same category.
    # Categories 0/1/2 are used equally, so P_e = 1/3 and P_bar = 0: kappa = -0.5.
    assert metrics["fleiss_kappa"]["correctness"] == pytest.approx(-0.5, abs=0.07)
    assert metrics["fleiss_kappa"]["objectivity"] is None  # all 2s: undefined
    md = (workdir / "out/human_agreement.md").read_text()
    assert "| Objectivity | n/a" in md
    with open(workdir / "out/human_agreement.csv") as fh:
        rows = {r["row"]: r for r in csv.DictReader(fh)}
    assert list(rows) == [*PRINCIPLES, "average", "accept_decision"]
    assert float(rows["average"]["accuracy_pct"]) == pytest.approx(
        100 * metrics["accuracy_average"], abs=1e-4
    )


def test_agreement_fails_listing_invalid_rows(
    workdir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert _sample(workdir) == 0
    _rate_all(workdir, ["ann_a", "ann_b"])
    with open(workdir / "ratings/ann_b.jsonl", "a") as fh:
        fh.write(
            json.dumps(
                {
                    "item_id": "made_up",
                    "annotator": "ann_b",
                    "scores": dict.fromkeys(PRINCIPLES, 5),
                    "saved_at": "x",
                }
            )
            + "\n"
        )
    caplog.set_level(logging.ERROR)
    assert _agreement(workdir) == 2
    errors = "\n".join(r.getMessage() for r in caplog.records)
    assert "ann_b.jsonl:11 item made_up: score correctness=5 is outside 0-2" in errors
    assert "ann_b.jsonl:11 item made_up: unknown item id (not in the packets)" in errors
    assert not (workdir / "out/agreement.json").exists()


def test_agreement_with_a_single_annotator_is_an_error(
    workdir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert _sample(workdir) == 0
    _rate_all(workdir, ["ann_a"])
    caplog.set_level(logging.ERROR)
    assert _agreement(workdir) == 2
    assert "at least 2 annotators; found 1" in caplog.text


def test_import_command_converts_a_filled_csv(workdir: Path) -> None:
    assert _sample(workdir) == 0
    packet = workdir / "packets/ann_c.csv"
    with open(packet, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows[:4]:
        r.update(dict.fromkeys(PRINCIPLES, "1"))
    filled = workdir / "filled.csv"
    with open(filled, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    cmd = [
        sys.executable, "-m", "prescient", "annotate", "import", "--annotator", "ann_c",
        "--csv", str(filled), "--packets", str(workdir / "packets"),
        "--ratings", str(workdir / "ratings"),
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "imported 4 ratings of ann_c" in out.stdout
    lines = (workdir / "ratings/ann_c.jsonl").read_text().splitlines()
    assert [json.loads(x)["item_id"] for x in lines] == [r["item_id"] for r in rows[:4]]
    assert json.loads(lines[0])["scores"] == dict.fromkeys(PRINCIPLES, 1)
    # A bad sheet: nothing written, the offending row named.
    rows[5].update(dict.fromkeys(PRINCIPLES, "7"))
    with open(filled, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    # Spreadsheet row 7 (header = row 1), though article texts span several physical lines.
    assert f"filled.csv row 7 item {rows[5]['item_id']}: score correctness='7'" in out.stderr
    assert len((workdir / "ratings/ann_c.jsonl").read_text().splitlines()) == 4


def _import(w: Path, annotator: str, csv_path: Path) -> subprocess.CompletedProcess[str]:
    cmd = [
        sys.executable, "-m", "prescient", "annotate", "import", "--annotator", annotator,
        "--csv", str(csv_path), "--packets", str(w / "packets"), "--ratings", str(w / "ratings"),
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)


def test_import_refuses_a_name_with_a_newline(workdir: Path) -> None:
    assert _sample(workdir) == 0
    packet = workdir / "packets/ann_a.csv"
    with open(packet, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    rows[0].update(dict.fromkeys(PRINCIPLES, "2"))
    filled = workdir / "filled.csv"
    with open(filled, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out = _import(workdir, "ann_a\n", filled)
    assert out.returncode == 2 and "annotator name 'ann_a\\n'" in out.stderr
    assert not (workdir / "ratings").exists()
    serve = [
        sys.executable, "-m", "prescient", "annotate", "serve", "--annotator", "ann_a\n",
        "--packets", str(workdir / "packets"), "--ratings", str(workdir / "ratings"),
        "--port", "0",
    ]  # fmt: skip
    done = subprocess.run(serve, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "annotator name 'ann_a\\n'" in done.stderr
    assert _import(workdir, "ann_a", filled).returncode == 0
    assert [p.name for p in (workdir / "ratings").iterdir()] == ["ann_a.jsonl"]


def test_the_commands_find_the_directories_in_dvc_yaml() -> None:
    from prescient.plumbing.annotation_cli import stage_option

    dvc_yaml = ROOT / "dvc.yaml"
    assert stage_option(dvc_yaml, "annotation_sample", "--out") == "data/annotations/packets"
    assert stage_option(dvc_yaml, "agreement", "--ratings") == "data/annotations/ratings"
    assert stage_option(dvc_yaml, "agreement", "--nope") is None


def test_stages_need_their_paths_and_valid_params(
    workdir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exit_:
        sample_stage.main(["--params", str(workdir / "params.yaml")])
    assert exit_.value.code == 2  # argparse: the required paths are missing
    with pytest.raises(SystemExit):
        agreement_stage.main(["--params", str(workdir / "params.yaml")])
    write_params(workdir / "params.yaml", sample={"n_tf": -1})
    caplog.set_level(logging.ERROR)
    assert _sample(workdir) == 2
    assert "annotation.sample.n_tf: Input should be greater than or equal to 0" in caplog.text
    assert not (workdir / "packets").exists()
    write_params(workdir / "params.yaml", agreement={"bootstrap": {"reps": 200, "confidence": 2}})
    assert _sample(workdir) == 0
    caplog.clear()
    assert _agreement(workdir) == 2
    assert "annotation.agreement.bootstrap.confidence: Input should be less than 1" in caplog.text


def test_each_stage_lists_exactly_the_params_it_reads() -> None:
    import yaml

    from prescient.annotation.settings import PacketSettings, TableSettings

    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    for stage, settings in (("annotation_sample", PacketSettings), ("agreement", TableSettings)):
        listed = set(stages[stage]["params"])
        assert listed == {"base.seed", *(f"annotation.{k}" for k in settings.model_fields)}
