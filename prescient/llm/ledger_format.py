"""The ledger's line format: what a line holds, its key, its answer's hash, and why a
line is not an entry.

A ledger is JSON Lines (:mod:`prescient.llm.ledger` writes it, :mod:`prescient.llm.ledger_read`
reads it); this module is what both agree on, and what the audit
(``prescient ledger verify``) checks.

No line can break a reader. A line that is not UTF-8, not JSON (a 5,000-digit number,
200,000 nested brackets), not an object or has fields of the wrong type is skipped and
counted with its line number (``prescient ledger verify`` lists them). Only successful
entries are served again, and only when their key is the hash of their own request: a
line that reuses a real key for another request is never served (nor is an answer that
no longer matches its hash, below). When several successes share one key, the first
one in the file is served, so a later line can never change an answer a stage has
already used. Failures are kept for the audit, and a rerun asks the model again.

Any text a model returns can be stored. A lone UTF-16 surrogate (``\\ud800``: valid in
a JSON string, which is how servers send it, but not encodable as UTF-8) is written as
its JSON escape, six ASCII characters, so the line stays UTF-8 and JSON parses it back
to the very same string; every other character is written as itself, so lines without
one are byte-identical to what they always were. (JSON reads an escaped high surrogate
directly followed by an escaped low one as the one character they encode: an HTTP reply
never holds such a pair uncombined, an in-process model's may, and stages are handed the
combined character either way, see :func:`readable_text`.)

Every entry written carries ``response_sha256``, the sha256 of the canonical JSON of its
answer: the four fields :data:`RESPONSE_FIELDS` name, the reply text (``response``), why
generation stopped (``finish_reason``), the token counts (``usage``) and the failure
(``error``), each ``null`` when the entry lacks it. These are what a stage reads of an
entry; the request is covered by the key, and timings, cost, tags and provenance
describe the call, not the answer. The hash is a function of the entry alone (no clock,
the same bytes on every machine, see :func:`response_hash`), so a reply edited after it
was written (one "No" turned into "Yes") is told apart from a damaged or forged line:
such an entry is never served, and ``prescient ledger verify`` reports it as changed.
The writer (:meth:`prescient.llm.ledger.Ledger.append`,
:meth:`~prescient.llm.ledger.Ledger.append_async`) adds the field to any
entry that lacks it and keeps one an entry already carries, so an answer copied from
another ledger keeps the hash it was first written with. Entries written before the field
existed are read and served as before; the audit counts them as unverifiable. The key is
unchanged: it hashes the request only, so existing ledgers keep serving their answers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from prescient.jsonl import LineError, parse_json

# Parameters that change how a request travels, not what the model is asked: never part
# of the key, never stored in the ledger's params.
TRANSPORT_PARAMS = frozenset(
    {
        "timeout",
        "request_timeout",
        "num_retries",
        "max_retries",
        "api_key",
        "api_base",
        "base_url",
        "api_version",
        "extra_headers",
        "headers",
        "stream",
        "metadata",
        "drop_params",
    }
)

_NONE = type(None)
FIELD_TYPES: Mapping[str, tuple[type, ...]] = {
    "key": (str,),
    "stage": (str,),
    "model": (str,),
    "litellm_model": (str,),
    "template": (str,),
    "template_version": (str,),
    "timestamp": (str,),
    "response": (str, _NONE),
    "error": (str, _NONE),
    "finish_reason": (str, _NONE),
    "messages": (list,),
    "params": (dict,),
    "tags": (dict,),
    "usage": (dict,),
    "provenance": (dict, _NONE),
    "cost": (int, float, _NONE),
    "latency_s": (int, float, _NONE),
    "tries": (int,),
    "response_sha256": (str,),
}
"""The JSON types an entry's fields may have; a field of another type damages the line."""

_JSON_NAMES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    _NONE: "null",
}


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
"""The encoder ``json.dumps`` would build for :func:`canonical_json` on every call; it
keeps no state between calls, so one serves every thread."""


def _c_canonical() -> Callable[[Any], str] | None:
    """What ``_CANONICAL.encode`` does for a container, calling json's C encoder directly
    (its Python wrappers cost more than encoding a small object); None where there is no
    C encoder, or it does not write what ``_CANONICAL`` writes."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    c = _CANONICAL
    args = (c.default, json.encoder.encode_basestring, None, c.key_separator)
    rest = (c.item_separator, c.sort_keys, c.skipkeys, c.allow_nan)

    def encode(obj: Any) -> str:
        return "".join(make({}, *args, *rest)(obj, 0))  # a fresh circular-reference check

    sample = {"b": [1, 2.5, 1e16, -0.0, None, True, 'é\ud800\n"x'], "a": {"z": {}, "y": []}}
    try:
        return encode if encode(sample) == c.encode(sample) else None
    except (TypeError, ValueError):
        return None


_ENCODE = _c_canonical()


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, UTF-8 kept as is."""
    if _ENCODE is None or isinstance(obj, str):
        return _CANONICAL.encode(obj)
    return _ENCODE(obj)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as its ``\\uXXXX`` escape.

    In ``json.dumps(..., ensure_ascii=False)`` output a surrogate can only stand inside a
    string literal, where the escape means the same code point, so ``json.loads`` of the
    result is equal to ``json.loads`` of the input. Text without one is returned as is.
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def has_surrogate(text: str) -> bool:
    """True when ``text`` holds a lone surrogate (a code point UTF-8 cannot carry)."""
    return _SURROGATE.search(text) is not None


def readable_text(text: str) -> str:
    """``text`` as every UTF-8 output can hold it: a high surrogate directly followed by
    a low one becomes the character they encode (as JSON reads them back), and any other
    surrogate becomes U+FFFD, the replacement character. Text without one is returned
    as is. The ledger keeps the reply exactly; this is what stages are handed."""
    if not has_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def utf8_json(obj: Any) -> bytes:
    """:func:`canonical_json` as UTF-8 bytes; a lone surrogate is kept as its JSON escape
    (module doc), everything else is byte-identical to ``canonical_json(obj)``."""
    text = canonical_json(obj)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return escape_surrogates(text).encode("utf-8")


def _normalise(obj: Any) -> Any:
    """Make equal requests serialise equally: ``0`` and ``0.0``, tuples and lists.

    The plain JSON types are told by their exact type (what requests hold, and several
    times faster than the abstract checks below, which every other value takes).
    """
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:
        return obj
    if kind is dict:
        return {k if type(k) is str else str(k): _normalise(v) for k, v in obj.items()}
    if kind is list or kind is tuple:
        return [_normalise(v) for v in obj]
    if kind is float:
        return int(obj) if obj.is_integer() else obj
    return _normalise_other(obj)


def _normalise_other(obj: Any) -> Any:
    """:func:`_normalise` of a value that is not of a plain JSON type (subclasses too)."""
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, Mapping):
        return {str(k): _normalise(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_normalise(v) for v in obj]
    return obj


def request_key(
    litellm_model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> str:
    """The ledger key: sha256 of the canonical (litellm model, messages, generation params).

    Transport fields (timeouts, retries, keys, endpoints) are left out, so moving a model
    to another server or raising a timeout does not invalidate answers already paid for;
    any change to what the model is asked (one character, one sampling parameter) does.
    ``None`` values are dropped: an unset parameter and an explicit null ask the same.
    """
    gen = {k: v for k, v in params.items() if k not in TRANSPORT_PARAMS and v is not None}
    payload = {"model": litellm_model, "messages": list(messages), "params": gen}
    return hashlib.sha256(utf8_json(_normalise(payload))).hexdigest()


RESPONSE_FIELDS = ("response", "finish_reason", "usage", "error")
"""The fields of an entry that make up its answer (module docstring)."""

RESPONSE_HASH = "response_sha256"
"""The entry field holding :func:`response_hash` of the entry as written."""


def response_hash(entry: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the entry's :data:`RESPONSE_FIELDS` (absent: null).

    Computed on the fields as a reader parses them back from the line (a reply holding an
    uncombined surrogate pair is hashed as the one character JSON reads), so the hash of a
    written entry and of the same entry read from the file agree.
    """
    text = canonical_json({name: entry.get(name) for name in RESPONSE_FIELDS})
    if has_surrogate(text):
        return hashlib.sha256(utf8_json(json.loads(escape_surrogates(text)))).hexdigest()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def with_response_hash(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    """``entry`` with :data:`RESPONSE_HASH` set; an entry that already has one is returned as is."""
    if RESPONSE_HASH in entry:
        return entry
    return {**entry, RESPONSE_HASH: response_hash(entry)}


def response_problem(entry: Mapping[str, Any]) -> str | None:
    """None when the entry's answer matches its :data:`RESPONSE_HASH` (or it has none)."""
    recorded = entry.get(RESPONSE_HASH)
    if recorded is None:
        return None
    actual = response_hash(entry)
    if actual != recorded:
        return (
            f"changed answer: {', '.join(RESPONSE_FIELDS)} hash to {actual[:16]}..., "
            f"not the {RESPONSE_HASH} written with them ({str(recorded)[:16]}...)"
        )
    return None


def _json_name(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


def entry_problem(obj: Any) -> str | None:
    """Why a parsed line is not a usable ledger entry, or None when it is one."""
    if not isinstance(obj, dict):
        return f"not a ledger entry (a JSON line holding {_json_name(obj)})"
    if "key" not in obj:
        return "not a ledger entry (no key)"
    for name, types in FIELD_TYPES.items():
        if name not in obj:
            continue
        value = obj[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            allowed = " or ".join(dict.fromkeys(_JSON_NAMES[t] for t in types))
            return f"field {name!r} is {_json_name(value)}, not {allowed}"
    if not obj["key"]:
        return "field 'key' is empty"
    if not all(isinstance(m, dict) for m in obj.get("messages", [])):
        return "field 'messages' holds something other than objects"
    usage = obj.get("usage") or {}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values()):
        return "field 'usage' holds something other than whole numbers"
    return None


def key_problem(entry: Mapping[str, Any]) -> str | None:
    """None when the entry's key is the hash of its own request; else why it is not."""
    if not all(name in entry for name in ("litellm_model", "messages", "params")):
        return "the entry has no request to check its key against"
    try:
        expected = request_key(entry["litellm_model"], entry["messages"], entry["params"])
    except (ValueError, TypeError, RecursionError) as exc:
        return f"its request cannot be hashed ({type(exc).__name__})"
    if expected != entry["key"]:
        return f"key {str(entry['key'])[:16]}... is not the hash of its own request ({expected})"
    return None


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """``(entry, None)`` for a usable line, ``(None, problem)`` for a damaged one; never raises."""
    try:
        obj = parse_json(raw)  # lone surrogates are kept: replies may hold them
    except LineError as exc:
        return None, str(exc) if exc.not_utf8 else f"unreadable line ({exc.reason})"
    problem = entry_problem(obj)
    return (obj, None) if problem is None else (None, problem)


def is_success(entry: Mapping[str, Any]) -> bool:
    """An entry that answers its request (it may be served if its key checks out)."""
    return entry.get("error") is None and isinstance(entry.get("response"), str)
