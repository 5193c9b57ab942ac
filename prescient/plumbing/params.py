"""Compose params.yaml from conf/ and read stage parameters back.

DVC composes conf/ into params.yaml itself when ``dvc exp run`` is used (hydra.enabled);
``dvc repro`` does not, so ``make params`` calls the same DVC function to keep the two
paths byte-identical.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from omegaconf import OmegaConf

logger = logging.getLogger("prescient.plumbing.params")

PARAMS_FILE = "params.yaml"
CONF_DIR = "conf"
CONFIG_NAME = "config"


def compose(root: str | Path = ".", overrides: Sequence[str] = ()) -> dict[str, Any]:
    """Compose conf/ (with Hydra overrides) into a plain dict, as DVC would."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    conf_dir = (Path(root) / CONF_DIR).resolve()
    with initialize_config_dir(config_dir=str(conf_dir), version_base=None):
        cfg = hydra_compose(config_name=CONFIG_NAME, overrides=list(overrides))
    obj = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(obj, dict)
    return cast(dict[str, Any], obj)


def compose_to_file(root: str | Path = ".", overrides: Sequence[str] = ()) -> Path:
    """Write params.yaml with DVC's own composition routine."""
    from dvc.utils.hydra import compose_and_dump

    root = Path(root).resolve()
    out = root / PARAMS_FILE
    compose_and_dump(out, str(root / CONF_DIR), None, CONFIG_NAME, str(root), list(overrides))
    return out


def load(path: str | Path = PARAMS_FILE) -> dict[str, Any]:
    """Load params.yaml as a plain dict, logging the budget it runs with (conf/budget/)."""
    obj = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    if not isinstance(obj, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    budget = obj.get("budget")
    if isinstance(budget, dict) and budget.get("name"):
        logger.info("budget %s: %s", budget["name"], budget.get("note") or "")
    return cast(dict[str, Any], obj)
