"""Input paths: in the project, or under a location recorded in .dvc/config.local."""

from __future__ import annotations

from pathlib import Path

import pytest

from prescient.plumbing.locations import LocationError, is_location, resolve


def _project(tmp_path: Path, local_config: str = "") -> Path:
    root = tmp_path / "proj"
    (root / ".dvc").mkdir(parents=True)
    (root / ".dvc" / "config").write_text("[core]\n    analytics = false\n")
    if local_config:
        (root / ".dvc" / "config.local").write_text(local_config)
    return root


def test_plain_paths_are_relative_to_the_project_root(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert resolve("data/raw/q.csv", root) == root / "data/raw/q.csv"
    assert resolve("/abs/q.csv", root) == Path("/abs/q.csv")
    assert not is_location("data/raw/q.csv") and is_location("remote://shared/x")


def test_a_location_resolves_against_the_directory_config_local_records(tmp_path: Path) -> None:
    # `dvc remote add --local shared ../shared` from the project root writes the url
    # relative to .dvc/; DVC reads it back relative to the config file.
    root = _project(tmp_path, "['remote \"shared\"']\n    url = ../../shared\n")
    got = resolve("remote://shared/data/news/x.jsonl.gz", root)
    assert got.resolve() == (tmp_path / "shared/data/news/x.jsonl.gz").resolve()
    # an absolute url (what DVC writes into a temporary workspace's config.local)
    absolute = _project(tmp_path / "b", f"['remote \"shared\"']\n    url = {tmp_path}/elsewhere\n")
    assert resolve("remote://shared/x.csv", absolute) == tmp_path / "elsewhere/x.csv"


def test_an_unknown_or_remote_location_is_a_clear_error(tmp_path: Path) -> None:
    root = _project(tmp_path, "['remote \"bucket\"']\n    url = s3://bucket/prefix\n")
    with pytest.raises(LocationError) as err:
        resolve("remote://shared/x.csv", root)
    assert str(err.value) == (
        "location 'shared' is not configured on this machine: record where it is once, from "
        "the project root, with `dvc remote add --local shared <directory>` (e.g. ../shared); "
        "it is kept in .dvc/config.local, never committed"
    )
    with pytest.raises(LocationError, match="not a local directory"):
        resolve("remote://bucket/x.csv", root)
    with pytest.raises(LocationError, match="expected remote://<name>/<path>"):
        resolve("remote://shared", root)
