"""A stage recorded in dvc.lock by putting its entry into the lock's text
(prescient.plumbing.dvc_lock_update): the bytes DVC's whole-file dump writes."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from dvc.utils.serialize import dumps_yaml, parse_yaml_for_update
from dvc.utils.serialize._yaml import parse_yaml

from prescient.plumbing.dvc_lock_update import splice

ROOT = Path(__file__).resolve().parents[3]


def _dvc_dump(text: str, entries: dict[str, object]) -> str:
    """What DVC writes: the whole lock parsed round-trip, updated and dumped."""
    data = parse_yaml_for_update(text, "dvc.lock")
    data["stages"].update(copy.deepcopy(entries))
    return str(dumps_yaml(data))


def test_entries_changed_kept_and_added_give_dvcs_bytes() -> None:
    text = (ROOT / "dvc.lock").read_text()
    stages = parse_yaml(text, "dvc.lock")["stages"]
    names = list(stages)
    changed = copy.deepcopy(stages[names[len(names) // 2]])
    changed["outs"][0]["md5"] = "0" * 32
    changed["cmd"] += " --and an option long enough to be folded over more lines" * 3
    entries = {
        names[0]: copy.deepcopy(stages[names[0]]),  # the same entry
        names[len(names) // 2]: changed,
        "evaluate@new_model-all": copy.deepcopy(stages[names[-1]]),  # a new stage
    }
    spliced = splice(text, entries)
    assert spliced is not None
    assert spliced == (_dvc_dump(text, entries), True)
    assert splice(text, {names[0]: copy.deepcopy(stages[names[0]])}) == (text, False)


@pytest.mark.parametrize(
    "text",
    [
        "schema: '2.0'\n",  # no stages
        "schema: '2.0'\nstages:\n  a:\n    cmd: x\ndatasets:\n- name: d\n",
        "schema: '2.0'\nstages:\n  a: {cmd: x}\n  a: {cmd: y}\n",  # a key twice
        "schema: '2.0'\nstages:\n  a:\n    cmd: x",  # no final newline
        "schema: '2.0'\nstages:\n\n  a:\n    cmd: x\n",  # a blank line
    ],
)
def test_other_shapes_are_left_to_dvc(text: str) -> None:
    assert splice(text, {"a": {"cmd": "z"}}) is None


def test_an_entry_that_shares_an_object_is_left_to_dvc() -> None:
    text = "schema: '2.0'\nstages:\n  a:\n    cmd: x\n"
    shared = {"path": "p", "md5": "1" * 32}
    assert splice(text, {"a": {"cmd": "x", "deps": [shared], "outs": [shared]}}) is None
    assert splice(text, {"a": {"cmd": "y"}}) == ("schema: '2.0'\nstages:\n  a:\n    cmd: y\n", True)


@pytest.mark.parametrize(
    "line",
    ['  "s1":\n', "  's1':\n", "  s1:\n"],  # quoted by hand or by another tool
)
def test_a_stage_is_found_by_its_name_however_quoted(line: str) -> None:
    text = f"schema: '2.0'\nstages:\n  s0:\n    cmd: a\n{line}    cmd: b\n  s2:\n    cmd: c\n"
    entries = {"s1": {"cmd": "b2"}}
    assert splice(text, entries) == (_dvc_dump(text, entries), True)


@pytest.mark.parametrize("name", ["yes", "2024", "a:b", "x #y", "null", "é名"])
def test_names_yaml_reads_otherwise_are_matched_as_yaml_reads_them(name: str) -> None:
    base = "schema: '2.0'\nstages:\n  s0:\n    cmd: a\n"
    text = _dvc_dump(base, {name: {"cmd": "b"}})
    entries = {name: {"cmd": "b2"}}
    assert splice(text, entries) == (_dvc_dump(text, entries), True)


@pytest.mark.parametrize(
    "text",
    [
        # an alias in a stage kept as it is, pointing at an anchor in the one recorded
        "schema: '2.0'\nstages:\n  a:\n    params:\n      params.yaml: &p\n        x: 1\n"
        "  b:\n    params:\n      params.yaml: *p\n",
        "schema: '2.0'\nstages:\n  a:\n    deps:\n    - &d\n      path: x\n  b:\n    cmd: y\n",
    ],
)
def test_a_lock_with_anchors_is_left_to_dvc(text: str) -> None:
    assert splice(text, {"a": {"cmd": "z"}}) is None
