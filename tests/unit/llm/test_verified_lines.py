"""A stage's ledgers skip the checks of lines found sound before, and only those."""

from __future__ import annotations

import json
from pathlib import Path

from prescient.llm.ledger import Ledger, request_key
from prescient.llm.store import StageLedger, store_path
from prescient.llm.verified import VerifiedLines, verified_path, written_path
from prescient.plumbing.locations import dvc_cache_dir


def _project(root: Path) -> Path:
    (root / ".dvc").mkdir(parents=True)
    (root / ".dvc" / "config").write_text("[core]\n    analytics = false\n")
    return root


def _entry(name: str, response: str) -> dict[str, object]:
    messages = [{"role": "user", "content": name}]
    return {
        "key": request_key("openai/m", messages, {}),
        "model": "m",
        "litellm_model": "openai/m",
        "messages": messages,
        "params": {},
        "response": response,
        "error": None,
    }


def _stage(root: Path) -> tuple[Path, Path]:
    path = root / "data/llm/x.jsonl"
    store = store_path(path, dvc_cache_dir(root), root)
    assert store is not None
    return path, store


def _written(root: Path, names: list[str]) -> tuple[Path, Path]:
    path, store = _stage(root)
    ledger = StageLedger(path, store)
    for name in names:
        ledger.append(_entry(name, name.upper()))
    ledger.write_snapshot()
    ledger.close()
    return path, store


def test_a_line_read_again_is_served_without_its_check_and_equal(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    path, store = _written(root, ["a", "b", "c"])
    # The lines the run appended and the snapshot it wrote were kept as sound.
    for memo in (verified_path(store), verified_path(store, recorded=True)):
        assert memo.is_file() and memo.parent == store.parent
    again = StageLedger(path, store)
    assert again.store._verified.trusted == 3  # type: ignore[union-attr]
    assert again.recorded._verified.trusted == 3  # type: ignore[union-attr]
    unchecked = Ledger(path, pool=again.pool)
    for name in ("a", "b", "c"):
        k = request_key("openai/m", [{"role": "user", "content": name}], {})
        assert again.get(k) == unchecked.get(k) is not None
    again.close()
    unchecked.close()


def test_a_forged_line_appended_is_not_kept_as_sound(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    path, store = _written(root, ["a"])
    ledger = Ledger(store, verified=VerifiedLines(verified_path(store)))
    forged = {**_entry("b", "B"), "key": "0" * 64}
    ledger.append(forged)  # written (the store keeps what it is given), not served
    assert len(ledger.unserved) == 1 and len(ledger) == 1
    ledger.close()
    again = Ledger(store, verified=VerifiedLines(verified_path(store)))
    assert again._verified is not None and again._verified.trusted == 1
    assert len(again.unserved) == 1 and "not the hash of its own request" in again.unserved[0][1]
    again.close()


def test_an_edited_line_is_checked_again_and_a_forged_answer_not_served(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    path, store = _written(root, ["a", "b"])
    StageLedger(path, store).close()  # digests of both lines kept
    # Change the answer of a line (its response hash no longer matches), byte for byte
    # otherwise the same: a line that was sound is now another line.
    lines = path.read_bytes().splitlines(keepends=True)
    forged = json.loads(lines[0])
    forged["response"] = "FORGED"
    lines[0] = json.dumps(forged, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    again = StageLedger(path, store)
    recorded = again.recorded
    assert recorded._verified is not None and recorded._verified.trusted == 1
    assert len(recorded.unserved) == 1 and "changed answer" in recorded.unserved[0][1]
    assert recorded.get(str(forged["key"])) is None
    # The store still answers with what the model said.
    assert again.get(str(forged["key"]))["response"] != "FORGED"  # type: ignore[index]
    again.close()


def test_digests_of_other_code_or_damaged_are_none(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    path, store = _written(root, ["a", "b"])
    memo = verified_path(store)
    StageLedger(path, store).close()
    data = memo.read_bytes()
    memo.write_bytes(data[:-3])  # cut: not whole digests
    assert VerifiedLines(memo).known == set()
    memo.write_bytes(data.replace(data[30:40], bytes(10)))  # another code's digest
    opened = StageLedger(path, store)
    assert opened.store._verified is not None and opened.store._verified.trusted == 0
    assert len(opened.store) == 2
    opened.close()
    assert memo.read_bytes() == data  # rewritten by the load that checked every line
    # What a load found sound, no more: a digest not of a current line is dropped.
    memo.write_bytes(data + bytes(16))
    StageLedger(path, store).close()
    assert memo.read_bytes() == data


def _rewritten(path: Path, store: Path, asks: dict[str, str]) -> tuple[bytes, int]:
    """A run that asks for each name's answer under the template ``asks[name]`` and
    writes its snapshot: the snapshot's bytes and how many lines it wrote as found."""
    ledger = StageLedger(path, store)
    for name, template in asks.items():
        k = request_key("openai/m", [{"role": "user", "content": name}], {})
        ledger.note_request(k, {"stage": "s", "template": template})
        assert ledger.get(k) is not None
    ledger.write_snapshot()
    ledger.close()
    return path.read_bytes(), ledger.rewritten_as_found


def test_a_snapshot_line_written_before_under_the_same_asking_is_written_as_found(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path / "p")
    path, store = _written(root, ["a", "b", "c"])
    asks = {"a": "t1", "b": "t1", "c": "t1"}
    first, _ = _rewritten(path, store, asks)  # every line takes the template: rewritten
    assert written_path(store).is_file()
    again, found = _rewritten(path, store, asks)
    assert found == 3 and again == first
    # One answer asked for under another template: its line is made again, with it.
    changed, found = _rewritten(path, store, {**asks, "b": "t2"})
    assert found == 2 and changed != first and b'"template":"t2"' in changed
    # The same bytes as a run that keeps no written lines at all.
    written_path(store).unlink()
    path.write_bytes(first)
    plain, found = _rewritten(path, store, {**asks, "b": "t2"})
    assert found == 0 and plain == changed
    # Digests of other code, or cut, are none: every line is made again, the same.
    data = written_path(store).read_bytes()
    written_path(store).write_bytes(data[:-5])
    assert _rewritten(path, store, {**asks, "b": "t2"}) == (changed, 0)
