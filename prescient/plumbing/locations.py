"""Where an input file named in params is: in the project, or in a named place outside it.

A path in params is read relative to the project root. That breaks for files outside the
project when DVC runs an experiment in a temporary workspace (``dvc exp run --temp``,
``--queue``): the workspace is a fresh checkout under ``.dvc/tmp/exps/...``, so
``../shared/x`` would name a file under ``.dvc/tmp/exps/`` instead. And an absolute path
in params would tie the configuration to one machine.

So a file outside the project is named through a *location*: ``remote://<name>/<path>``,
where ``<name>`` is a DVC remote recorded once per machine in ``.dvc/config.local``
(``dvc remote add --local shared ../shared``, run from the project root). DVC itself
resolves such a path when it checks the stage's dependency (it is DVC's syntax for an
external dependency, hashed into dvc.lock like any other), and it copies the machine's
``config.local`` into every temporary workspace with the location made absolute, so
the same params name the same file in the workspace, in ``--temp`` and in queued
experiments, while params and committed files never hold a machine path.

This module reads DVC's configuration only when a ``remote://`` path is resolved; plain
paths never touch DVC.
"""

from __future__ import annotations

from pathlib import Path

SCHEME = "remote://"
DVC_DIR = ".dvc"


class LocationError(ValueError):
    """A ``remote://`` path whose location is not configured or not a local directory."""


def is_location(path: str) -> bool:
    """True for ``remote://<name>/<path>``."""
    return str(path).startswith(SCHEME)


def _remote_url(name: str, root: Path) -> str:
    from dvc.config import Config, ConfigError

    try:
        config = Config(dvc_dir=str(root / DVC_DIR), validate=False)
        remotes = config["remote"]
    except ConfigError as exc:
        raise LocationError(
            f"cannot read the DVC configuration in {root / DVC_DIR}: {exc}"
        ) from exc
    entry = remotes.get(name) or remotes.get(name.lower())
    if not entry or "url" not in entry:
        raise LocationError(
            f"location {name!r} is not configured on this machine: record where it is once, "
            f"from the project root, with `dvc remote add --local {name} <directory>` "
            f"(e.g. ../{name}); it is kept in .dvc/config.local, never committed"
        )
    return str(entry["url"])


def resolve(path: str | Path, root: str | Path = ".") -> Path:
    """The file a params path names.

    Args:
        path: a path relative to the project root (or absolute), or
            ``remote://<name>/<path>``: ``<path>`` under location ``<name>``.
        root: the project root (the directory holding ``.dvc``).

    Raises:
        LocationError: the location is not configured, or is not a local directory.
    """
    text = str(path)
    root = Path(root)
    if not is_location(text):
        return root / text
    name, _, rest = text[len(SCHEME) :].partition("/")
    if not name or not rest:
        raise LocationError(f"{text!r}: expected remote://<name>/<path>")
    url = _remote_url(name, root)
    if "://" in url:
        raise LocationError(
            f"location {name!r} is {url}, not a local directory: input files are read from "
            "local directories only"
        )
    return (root / url / rest) if not Path(url).is_absolute() else Path(url) / rest


def dvc_cache_dir(root: str | Path = ".") -> Path | None:
    """DVC's cache directory of the project at ``root`` (its ``.dvc/config``,
    ``config.local`` included), or None when ``root`` is not a DVC project: where the
    response store lives (:mod:`prescient.llm.store`), passed to the gateway by the stage."""
    dvc_dir = Path(root) / DVC_DIR
    if not dvc_dir.is_dir():
        return None
    # DVC's own reader, so the directory resolves as DVC resolves it (config.local, the
    # global and system levels, relative paths); imported only when a stage asks.
    from dvc.config import Config

    configured = Config(dvc_dir=str(dvc_dir), validate=False).get("cache", {}).get("dir")
    return Path(str(configured)) if configured else dvc_dir / "cache"
