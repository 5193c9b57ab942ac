"""DVC's parameters read faster, with the same values (prescient.plumbing.dvc_reads): each
YAML text parsed once per process, each caller its own copy; plain keys looked up dict by
dict, everything else by dpath as before."""

from __future__ import annotations

import copy
from pathlib import Path

import dpath
import pytest
import yaml
from dvc.dependency import param as dvc_param
from dvc.utils.serialize import _yaml

from prescient.plumbing import dvc_reads

ROOT = Path(__file__).resolve().parents[3]
ORIGINAL_PARSE = getattr(_yaml.parse_yaml, "__wrapped__", _yaml.parse_yaml)
ORIGINAL_READ = getattr(dvc_param.read_param_file, "__wrapped__", dvc_param.read_param_file)


def _stage_keys() -> list[str]:
    """Every params key the pipeline's stages name (matrix items as their first value)."""
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    keys: list[str] = []
    for stage in stages.values():
        for key in stage.get("params", []):
            if isinstance(key, str):
                keys.append(key.replace("${item.model}", "smollm2_135m"))
    assert len(keys) > 50
    return keys


def test_a_text_is_parsed_once_and_each_caller_gets_its_own_copy() -> None:
    calls: list[str] = []

    def counting(text: str, path: str, typ: str = "safe") -> object:
        calls.append(typ)
        return ORIGINAL_PARSE(text, path, typ=typ)

    parse = dvc_reads.memoized_parse_yaml(counting)
    text = "a:\n  b: [1, 2]\n  c: x\n"
    first = parse(text, "p.yaml")
    first["a"]["b"].append(3)  # a caller changing its copy
    second = parse(text, "p.yaml")
    assert second == {"a": {"b": [1, 2], "c": "x"}} == ORIGINAL_PARSE(text, "p.yaml")
    assert calls == ["safe"]
    assert parse("a: 2\n", "p.yaml") == {"a": 2}  # another text, parsed
    assert len(calls) == 2
    parse(text, "p.yaml", typ="rt")  # round-trip parses are DVC's own, every time
    assert calls[-1] == "rt"


def test_the_cache_keeps_only_recent_texts_up_to_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counting(text: str, path: str, typ: str = "safe") -> object:
        calls.append(text)
        return ORIGINAL_PARSE(text, path, typ=typ)

    texts = [f"k: {i}\n" for i in range(4)]  # 5 characters each
    monkeypatch.setattr(dvc_reads, "MAX_CACHED_CHARS", 3 * len(texts[0]))
    parse = dvc_reads.memoized_parse_yaml(counting)
    for t in texts:
        parse(t, "p")
    parse(texts[0], "p")  # the least recently used was let go
    assert calls.count(texts[0]) == 2
    parse(texts[-1], "p")
    assert calls.count(texts[-1]) == 1
    big = "k: " + "x" * 30 + "\n"  # larger than the whole cache
    parse(big, "p")
    parse(big, "p")
    assert calls.count(big) == 2
    parse(texts[-1], "p")
    assert calls.count(texts[-1]) == 1


CONFIG = {
    "eval": {"models": ["a", "b"], "settings": {"closed_book": 1}, "x.y": 2},
    "models": {"gpt_4o": {"release_date": "2024-05-13"}, "m": None},
    "years": {2024: "int key", "2025": "str key"},
    "mixed": {"1": "str", 1: "int"},
    "globs": {"a*": 1, "ab": 2},
}


@pytest.mark.parametrize(
    "key",
    [
        "eval",
        "eval.models",
        "eval.settings.closed_book",
        "eval.models.0",  # a list index: dpath's rule
        "eval.missing",
        "models.gpt_4o.release_date",
        "models.m",
        "years.2024",  # an int key: dpath's rule
        "years.2025",
        "globs.a*",
        "globs.ab",
        "nothing",
        "eval..models",
    ],
)
def test_a_key_gives_what_dpath_gives(key: str) -> None:
    found, value = dvc_reads.plain_lookup(CONFIG, key)
    try:
        expected = dpath.get(copy.deepcopy(CONFIG), key, separator=".")
    except (KeyError, ValueError):  # absent, or a glob matching several
        assert not found
        return
    if found:
        assert value == expected
    if "*" in key or key.startswith("years.2024") or key.endswith(".0"):
        assert not found


def test_mixed_key_types_go_to_dpath() -> None:
    assert dvc_reads.plain_lookup(CONFIG, "mixed.1") == (False, None)
    assert dvc_reads.plain_lookup(CONFIG, 1) == (False, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="only one leaf"):
        dpath.get(CONFIG, "mixed.1", separator=".")


def test_every_stage_reads_the_same_params(tmp_path: Path) -> None:
    """The pipeline's params.yaml and every key its stages name: the same values."""
    from dvc.fs import LocalFileSystem

    fs = LocalFileSystem()
    path = str(ROOT / "params.yaml")
    keys = _stage_keys()
    fast = dvc_reads.fast_read_param_file(ORIGINAL_READ)
    assert fast(fs, path, keys, flatten=True) == ORIGINAL_READ(fs, path, keys, flatten=True)
    for key in keys:
        assert fast(fs, path, [key], flatten=True) == ORIGINAL_READ(fs, path, [key], flatten=True)
    assert fast(fs, path, keys[:3]) == ORIGINAL_READ(fs, path, keys[:3])  # not flattened
    assert fast(fs, path, None, flatten=True) == ORIGINAL_READ(fs, path, None, flatten=True)


def test_the_changes_are_made_once() -> None:
    dvc_reads.fast_yaml()
    dvc_reads.fast_params()
    once = (_yaml.parse_yaml, dvc_param.read_param_file)
    dvc_reads.fast_yaml()
    dvc_reads.fast_params()
    assert (_yaml.parse_yaml, dvc_param.read_param_file) == once
    assert once[0].__wrapped__ is ORIGINAL_PARSE
    assert once[1].__wrapped__ is ORIGINAL_READ
