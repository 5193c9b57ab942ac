"""DVC reads its parameters with the same values, in a time that does not grow with the
number of stages times the size of ``params.yaml``.

To decide whether a stage changed, DVC parses ``params.yaml`` again for every stage
(``dvc.dependency.param.read_param_file``) and looks each of the stage's keys up with
``dpath.get``, which walks the whole parsed file for every key. With a stage per model
and month (``eval.partitions``), a no-op ``dvc repro`` at the paper's size checks some six
hundred stages: that was most of its time (on the 10% scale run, 82 parses and 615 walks
of a 967-line file were 4.7 of ``dvc status``'s 7.4 profiled seconds). Two changes, each
giving DVC exactly what its own code gives:

- :func:`memoized_parse_yaml`: a YAML text parsed by DVC's safe loader is parsed once
  per process; each call gets its own deep copy of the result, so no caller can see
  another's changes. The text itself is the key, so a changed file is parsed again.
  The texts kept total at most :data:`MAX_CACHED_CHARS` (the least recently used go
  first); a larger one is parsed every time.
- :func:`fast_read_param_file`: a key of plain names (``eval.models``,
  ``models.gpt_4o``) is looked up dict by dict; anything else (a list index, a glob, a
  key that is not a string, a missing key) goes to ``dpath.get`` as before.

The project's environment makes both changes in every DVC process, with the atomic
writes (:mod:`prescient.plumbing.dvc_hook`, :mod:`prescient.plumbing.dvc_atomic`).
"""

from __future__ import annotations

import copy
import importlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

MAX_CACHED_CHARS = 4_000_000
"""The most characters of YAML a process keeps parsed, all texts together
(``params.yaml`` and ``dvc.yaml`` are tens of KB; a paper-sized ``dvc.lock`` 2.5 MB). The
parsed objects take about 17 times their text's size, so about 70 MB at most."""
_GLOB = frozenset("*?[]!")
_YAML_MODULES = ("dvc.utils.serialize._yaml", "dvc.utils.serialize")
"""Where DVC looks ``parse_yaml`` up (``load_yaml`` in ``_yaml``; ``strictyaml`` imports it
from the package by name)."""
_PARAM_MODULE = "dvc.dependency.param"


def memoized_parse_yaml(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` (DVC's ``parse_yaml``), parsing each safe-loaded text once."""
    cache: OrderedDict[str, Any] = OrderedDict()
    held = [0]  # characters in the cache
    guard = threading.Lock()  # DVC parses in threads too (``dvc plots``)

    def parse_yaml(text: Any, path: Any, typ: str = "safe") -> Any:
        if typ != "safe" or not isinstance(text, str) or len(text) > MAX_CACHED_CHARS:
            return original(text, path, typ=typ)
        with guard:
            parsed = cache.get(text)
            if parsed is not None:
                cache.move_to_end(text)
        if parsed is None:
            parsed = original(text, path, typ=typ)
            with guard:
                if text not in cache:
                    cache[text] = parsed
                    held[0] += len(text)
                while held[0] > MAX_CACHED_CHARS and cache:
                    gone, _ = cache.popitem(last=False)
                    held[0] -= len(gone)
        return copy.deepcopy(parsed)

    parse_yaml.__wrapped__ = original  # type: ignore[attr-defined]
    return parse_yaml


def plain_lookup(config: Any, key_path: str) -> tuple[bool, Any]:
    """``(True, value)`` of a key of plain names in nested dicts whose keys are all
    strings; ``(False, None)`` where ``dpath`` must decide (module docstring)."""
    if not isinstance(key_path, str):
        return False, None
    names = key_path.split(".")
    if not all(names) or _GLOB.intersection(key_path):
        return False, None
    node = config
    for name in names:
        if not isinstance(node, Mapping) or name not in node:
            return False, None
        if not all(isinstance(k, str) for k in node):
            return False, None
        node = node[name]
    return True, node


def fast_read_param_file(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` (DVC's ``read_param_file``), with :func:`plain_lookup` before
    ``dpath.get`` for flattened keys."""

    def read_param_file(
        fs: Any,
        path: str,
        key_paths: list[str] | None = None,
        flatten: bool = False,
        **load_kwargs: Any,
    ) -> Any:
        if not key_paths or not flatten:
            return original(fs, path, key_paths, flatten=flatten, **load_kwargs)
        import dpath
        from dvc.utils.serialize import load_path

        config = load_path(path, fs, **load_kwargs)
        ret = {}
        for key_path in key_paths:
            found, value = plain_lookup(config, key_path)
            if found:
                ret[key_path] = value
                continue
            try:
                ret[key_path] = dpath.get(config, key_path, separator=".")
            except KeyError:
                continue
        return ret

    read_param_file.__wrapped__ = original  # type: ignore[attr-defined]
    return read_param_file


def wrap_once(owner: Any, attr: str, wrap: Callable[..., Any]) -> None:
    """Replace ``owner.attr`` (a module's function, a class's method) by ``wrap`` of it,
    unless it is already a wrapper (one with ``__wrapped__``)."""
    current = getattr(owner, attr)
    if not hasattr(current, "__wrapped__"):
        setattr(owner, attr, wrap(current))


def fast_yaml() -> None:
    """Parse each of DVC's YAML texts once per process (idempotent)."""
    original = getattr(importlib.import_module(_YAML_MODULES[0]), "parse_yaml")  # noqa: B009
    original = getattr(original, "__wrapped__", original)
    patched = memoized_parse_yaml(original)
    for name in _YAML_MODULES:
        module = importlib.import_module(name)
        if not hasattr(getattr(module, "parse_yaml"), "__wrapped__"):  # noqa: B009
            setattr(module, "parse_yaml", patched)  # noqa: B010


def fast_params() -> None:
    """Look DVC's parameter keys up without walking the file per key (idempotent)."""
    wrap_once(importlib.import_module(_PARAM_MODULE), "read_param_file", fast_read_param_file)
