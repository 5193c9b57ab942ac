"""DVC's queued experiments and the params each one will run with.

``dvc exp run --queue`` composes the experiment's params.yaml there and then (its ``-S``
overrides applied to conf/ by Hydra, or to params.yaml itself where Hydra is off) and
saves the workspace, that params.yaml included, as a stash commit under
``refs/exps/celery/stash``; a queue worker later runs the experiment from that commit.
:func:`queued_experiments` lists the experiments ``dvc queue status`` shows as
``Queued`` (not those running or done), in its order and under its names, through DVC's
own queue (``Repo.experiments.celery_queue``), and reads each one's params.yaml from
its stash commit: exactly the params it will run with, whatever overrides made them.

:func:`changed` names what an experiment changes with respect to other params (the
workspace's), leaf by leaf, and :func:`override` writes one such change back as an
``-S`` override (Hydra's grammar, which DVC also applies to params.yaml without Hydra).
"""

from __future__ import annotations

import json
import math
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from prescient.plumbing.params import PARAMS_FILE

_MISSING = object()
_BARE = re.compile(r"[A-Za-z_][\w./:-]*")
"""A string Hydra reads back as that same string without quotes."""


@dataclass(frozen=True)
class QueuedExperiment:
    """One queued experiment.

    Attributes:
        name: its name, as ``dvc queue status`` shows it (``-n``, or DVC's random words).
        rev: its stash commit.
        params: its params.yaml, as composed when it was queued.
    """

    name: str
    rev: str
    params: dict[str, Any]


def queued_experiments(root: str | Path) -> list[QueuedExperiment]:
    """The experiments ``dvc queue status`` lists as Queued in ``root``'s project.

    Raises:
        ValueError: ``root`` is not a DVC project in a git repository, or a queued
            experiment's commit holds no params.yaml.
    """
    from dvc.exceptions import NotDvcRepoError
    from dvc.repo import Repo
    from dvc.scm import NoSCM

    root = Path(root).resolve()
    try:
        repo = Repo(str(root))
    except NotDvcRepoError as exc:
        raise ValueError(f"{root} is not a DVC project: {exc}") from exc
    with repo:
        if isinstance(repo.scm, NoSCM):
            raise ValueError(f"{root}: DVC without git has no experiment queue")
        entries = list(repo.experiments.celery_queue.iter_queued())
    return [
        QueuedExperiment(e.name or e.stash_rev[:7], e.stash_rev, _params_at(root, e.stash_rev))
        for e in entries
    ]


def _params_at(root: Path, rev: str) -> dict[str, Any]:
    """params.yaml (of the project at ``root``) at commit ``rev``."""
    out = subprocess.run(
        ["git", "show", f"{rev}:./{PARAMS_FILE}"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise ValueError(
            f"queued experiment {rev[:7]} holds no {PARAMS_FILE}: {out.stderr.strip()} "
            "(remove it with `dvc queue remove` and queue it again)"
        )
    params = yaml.safe_load(out.stdout)
    if not isinstance(params, dict):
        raise ValueError(f"queued experiment {rev[:7]}: {PARAMS_FILE} is not a mapping")
    return params


def _leaves(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _leaves(v, f"{prefix}.{k}" if prefix else str(k), out)
    else:
        out[prefix] = value


def changed(base: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Each dotted key whose value ``params`` changes with respect to ``base``: its new
    value, or :data:`REMOVED` where ``params`` has no such key (lists are one value)."""
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    _leaves(base, "", old)
    _leaves(params, "", new)
    diff = {k: v for k, v in new.items() if old.get(k, _MISSING) != v}
    # an empty mapping is a leaf: keys added under it, or all of its keys removed, are
    # the change, not the mapping's removal (nor its keys' one by one)
    nested = {k for a in new for k in old if a.startswith(f"{k}.") or k.startswith(f"{a}.")}
    diff.update({k: REMOVED for k in old if k not in new and k not in nested})
    return dict(sorted(diff.items()))


class _Removed:
    def __repr__(self) -> str:
        return "REMOVED"


REMOVED: Any = _Removed()
"""The value :func:`changed` gives a key the new params no longer have."""


def hydra_value(value: Any) -> str:
    """``value`` in Hydra's override grammar (what ``-S key=<this>`` sets it to)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return {"nan": "nan", "inf": "inf", "-inf": "-inf"}[str(value)]
        return repr(value)
    if isinstance(value, str):
        bare = _BARE.fullmatch(value) and value.lower() not in {"null", "true", "false"}
        return value if bare else json.dumps(value, ensure_ascii=False)  # Hydra: a quoted string
    if isinstance(value, list | tuple):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{hydra_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no override syntax for {type(value).__name__} {value!r}")


def override(key: str, value: Any, base: dict[str, Any] | None = None) -> str:
    """The ``-S`` argument setting ``key`` to ``value`` (``~key`` removes it; ``+key=``
    adds a key ``base`` lacks), shell-quoted."""
    if value is REMOVED:
        return shlex.quote(f"~{key}")
    present = base is None or _has(base, key)
    return shlex.quote(f"{'' if present else '+'}{key}={hydra_value(value)}")


def _has(params: dict[str, Any], dotted: str) -> bool:
    value: Any = params
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    return True
