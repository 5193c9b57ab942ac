"""Normalisation of article fields: URLs, identifiers, text and titles.

Dates are read by :func:`prescient.dates.parse_date`.

Every later stage keys on ``article_id``, so it must not change when a crawler sees the
same page with a tracking parameter, another scheme or a trailing slash.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import unicodedata
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# Query parameters that identify a campaign or a click, never the page itself.
_TRACKING_PREFIXES = ("utm_", "mc_", "pk_", "hsa_")
_TRACKING_KEYS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "msclkid",
        "yclid",
        "igshid",
        "cmpid",
        "ref",
        "ref_src",
        "ncid",
        "ito",
        "ftag",
        "cid",
        "sr_share",
        "smid",
        "taid",
        "at_medium",
        "at_campaign",
        "xtor",
    }
)


def normalize_url(url: str | None) -> str | None:
    """Canonical form of a URL for identity and de-duplication.

    Drops the scheme (http and https are the same article), a leading ``www.``, the
    fragment, tracking parameters and a trailing slash; lower-cases the host; sorts the
    remaining query parameters. Returns None for an empty, host-less or unparseable URL
    (the article then keeps its URL text and is identified by title and date).
    """
    if url is None:
        return None
    url = url.strip()
    if not url:
        return None
    if "://" not in url:
        url = "http://" + url
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower().rstrip(".")
        port = parts.port
    except ValueError:  # a port that is not a number, a broken IPv6 literal
        return None
    if not host:
        return None
    if host.startswith("www."):
        host = host[4:]
    if port and port not in (80, 443):
        host = f"{host}:{port}"
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith(_TRACKING_PREFIXES) and k.lower() not in _TRACKING_KEYS
    ]
    path = re.sub(r"/{2,}", "/", parts.path or "/")
    if len(path) > 1:
        path = path.rstrip("/")
    return urlunsplit(("", host, path, urlencode(sorted(query)), "")).lstrip("/")


def domain_of(url: str | None) -> str | None:
    """The registrable-looking host of a URL without ``www.`` (None when absent)."""
    norm = normalize_url(url)
    if norm is None:
        return None
    return norm.split("/", 1)[0].split(":", 1)[0]


def article_id(norm_url: str | None, title: str, date: dt.date) -> str:
    """Stable 16-hex-digit id: a hash of the normalised URL, else of title and date."""
    basis = f"url:{norm_url}" if norm_url else f"title-date:{title}|{date.isoformat()}"
    return hashlib.sha256(basis.encode("utf-8")).hexdigest()[:16]


TEXT_DIGEST = "text_sha256"
"""The article table's column of each text's :func:`text_hash`."""


def text_hash(text: str) -> str:
    """Hash of the normalised text: two articles with equal hashes are exact duplicates."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


SPACES = " \t\f\v\u00a0" + "".join(map(chr, range(0x2000, 0x200C))) + "\u202f\u205f\u3000"
"""The characters a run of which :func:`normalize_text` makes one space."""
_TO_SPACE = str.maketrans(dict.fromkeys(SPACES, " "))
_BLANK_RUNS = re.compile(r"\n{3,}")


def _one_space(line: str) -> str:
    """Every run of :data:`SPACES` in a line as one space (what a regular expression of
    the class would replace, at a fifth of its cost: each becomes a space, then runs of
    spaces are halved until none is left)."""
    line = line.translate(_TO_SPACE)
    while "  " in line:
        line = line.replace("  ", " ")
    return line


def normalize_text(text: str) -> str:
    """NFC, unified newlines, collapsed spaces, at most one blank line between paragraphs."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\x00", "")
    joined = "\n".join(_one_space(line).strip() for line in text.split("\n"))
    if "\n\n\n" in joined:
        joined = _BLANK_RUNS.sub("\n\n", joined)
    return joined.strip()


def normalize_title(title: str) -> str:
    """NFC and a single line with single spaces."""
    return " ".join(unicodedata.normalize("NFC", title).split())
