"""Normalisation of article fields: URLs, identifiers, text, titles and dates.

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
    remaining query parameters. Returns None for an empty or host-less URL.
    """
    if url is None:
        return None
    url = url.strip()
    if not url:
        return None
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        return None
    if host.startswith("www."):
        host = host[4:]
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
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


def text_hash(text: str) -> str:
    """Hash of the normalised text: two articles with equal hashes are exact duplicates."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_BLANK_RUNS = re.compile(r"\n{3,}")


def normalize_text(text: str) -> str:
    """NFC, unified newlines, collapsed spaces, at most one blank line between paragraphs."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\x00", "")
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def normalize_title(title: str) -> str:
    """NFC and a single line with single spaces."""
    return " ".join(unicodedata.normalize("NFC", title).split())


# Forms seen in news dumps, tried after ISO 8601. Day-first numeric forms are not
# guessed: 03/04/2024 is ambiguous, so it needs an explicit corpus.date_format.
_DATE_FORMATS = (
    "%Y/%m/%d",
    "%Y.%m.%d",
    "%B %d, %Y",
    "%b %d, %Y",
    "%d %B %Y",
    "%d %b %Y",
    "%a, %d %b %Y %H:%M:%S %Z",
    "%a, %d %b %Y %H:%M:%S %z",
    "%a, %d %b %Y",
    "%B %d %Y",
    "%b. %d, %Y",
)
_YEAR = re.compile(r"(?<!\d)(19|20)\d{2}(?!\d)")


def parse_date(value: object, date_format: str | None = None) -> dt.date | None:
    """Publication day of a raw date value, or None when it cannot be read.

    Accepts ``datetime.date``/``datetime`` objects, ISO 8601 strings (with or without a
    time and offset: the calendar day as written is kept, not converted to UTC, because
    that is the day the outlet published it), and the unambiguous textual forms above.
    With ``date_format`` only that strptime format is accepted.
    """
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str):
        return None
    s = " ".join(value.split())
    if not s:
        return None
    if date_format:
        try:
            return dt.datetime.strptime(s, date_format).date()
        except ValueError:
            return None
    iso = s.replace("Z", "+00:00") if s.endswith("Z") else s
    try:
        return dt.datetime.fromisoformat(iso).date()
    except ValueError:
        pass
    if not _YEAR.search(s):
        return None
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(s, fmt).date()
        except ValueError:
            continue
    return None
