"""The project's DVC remote, described where DVC's own message does not say what is wrong.

``dvc pull`` from a remote folder that does not exist (the shipped remote is a folder
beside the repository, ``../prescient-dvc-remote``) fails with DVC's generic "Checkout
failed ... Is your cache up to date?". :func:`local_remote` resolves the remote a pull
uses as DVC does (``-r NAME`` or ``core.remote``, ``.dvc/config.local`` over
``.dvc/config``, a relative url read from the folder of the file that sets it), and
:func:`missing_folder_message` names the folder, that file and the fix;
``python -m prescient pull`` prints it when a pull fails that way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

README_SECTION = 'README, "Publishing results and auditing them"'
"""Where remotes other than a folder (S3, GCS, SSH) are set up."""


@dataclass(frozen=True)
class LocalRemote:
    """A DVC remote that is a folder on this machine.

    Attributes:
        name: the remote's name (``storage`` as shipped).
        path: the folder, absolute.
        config_file: the DVC config file whose url wins (``.dvc/config.local`` over
            ``.dvc/config`` over the user's and the system's).
    """

    name: str
    path: Path
    config_file: Path


def local_remote(root: str | os.PathLike[str], name: str | None = None) -> LocalRemote | None:
    """The remote ``dvc pull`` in ``root`` would use, when it is a local folder.

    Args:
        root: the project (a DVC repository).
        name: ``-r NAME``; None: the default remote (``core.remote``).

    Returns:
        The remote, or None when there is none of that name (DVC says so itself) or it is
        not a folder (cloud or SSH storage).
    """
    from dvc.config import Config
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        config = repo.config
        name = name or config["core"].get("remote")
        remote = config["remote"].get(name) if name else None
        if not name or remote is None:
            return None
        parsed = urlparse(str(remote["url"]))
        if parsed.scheme not in ("", "file"):
            return None
        path = Path(parsed.path if parsed.scheme == "file" else str(remote["url"]))
        level = next(
            level
            for level in reversed(Config.LEVELS)
            if "url" in config.load_one(level).get("remote", {}).get(name, {})
        )
        return LocalRemote(name, Path(repo.root_dir, path).resolve(), Path(config.files[level]))


def missing_folder_message(remote: LocalRemote, root: str | os.PathLike[str]) -> str:
    """Why a pull from ``remote`` failed, and the fix, naming the folder and the config file."""
    config_file = remote.config_file
    if config_file.is_relative_to(Path(root).resolve()):
        config_file = config_file.relative_to(Path(root).resolve())
    return (
        f"the DVC remote '{remote.name}' is the folder {remote.path}, which does not exist "
        f"(its url is set in {config_file}; a relative url is read from that file's "
        "folder). Fix: put the published remote there (the folder the publisher's "
        "`dvc push` filled, copied or mounted), or point the remote at it on this machine: "
        f"`dvc remote modify --local {remote.name} url /path/to/remote`, then pull again. "
        f"Cloud or SSH storage: see the {README_SECTION}."
    )
