"""The language of an article, by py3langid's model evaluated in exact arithmetic.

py3langid (a maintained fork of langid.py, with its model in the package) scores a text
with a naive Bayes model over byte n-gram features: for each language, the sum over the
text's features of ``log1p(count) * weight`` plus the language's prior. The package sums
in float32 through numpy's matrix product, whose rounding depends on the CPU's SIMD
kernels, so a text whose two best languages score within rounding of each other could be
kept on one machine and dropped on another. Here the same features, weights and priors
are summed in 64-bit integers, which is exact, so the decision is the same on every
machine:

- the weights (float16) and priors (float32) are exact binary fractions, scaled to
  integers without rounding;
- ``log1p(count)`` is the one irrational term: it is computed with :mod:`decimal`
  (correctly rounded, in software) and rounded to a multiple of 2^-24, an error of at
  most 2^-25 per feature, far below float32's own rounding of the package's sums;
- the best language is the highest integer score; an exact tie goes to the language
  listed first in the model (py3langid's argmax does the same).

The detector reads the title and the first ``chars`` characters of the text (a news
page's opening is in its language; reading the whole text costs time and changes
nothing measurable), prepared as py3langid prepares any text (an all-capitals text
lowercased, NFC, UTF-8).

The detector is most of ingest's time, and its verdict is a function of what it reads:
:class:`KeptLanguages` keeps every verdict for the next run (``ingest.reuse``), by the
digest of that text, in DVC's cache directory (:mod:`prescient.kept`), one part per
month of the articles' dates; a daily update then runs the detector on the new day's
articles only, and the table is the same bytes.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from prescient.kept import DIGEST_SIZE, KeptStore, code_of, digest, pack_strings, unpack_strings

SAVE_EVERY = 50_000
"""New verdicts between two saves of the kept ones (about 15 s of detection)."""
_LOG_BITS = 24  # log1p(count) in units of 2^-24
_WEIGHT_BITS = 9  # the model's float16 weights are multiples of 2^-9 (all >= 2 in size)
_PRIOR_BITS = 21  # the float32 priors are multiples of 2^-21 (all in [4, 8))


class LanguageModelError(RuntimeError):
    """The installed py3langid model is not the one this evaluation is exact for."""


@dataclass(frozen=True)
class _Model:
    classes: tuple[str, ...]
    weights: np.ndarray  # int16 (features, classes): weight * 2^_WEIGHT_BITS
    priors: np.ndarray  # int64 (classes,): prior * 2^(_LOG_BITS + _WEIGHT_BITS)
    aliases: tuple[tuple[int, int], ...]
    nextmove: object
    rowbase: tuple[int, ...]
    output: object


def _exact_integers(values: np.ndarray, bits: int, what: str) -> np.ndarray:
    scaled = values.astype(np.float64) * float(2**bits)
    as_int = np.rint(scaled)
    if not np.array_equal(as_int, scaled):
        raise LanguageModelError(
            f"py3langid's {what} are not multiples of 2^-{bits}: this py3langid is not "
            "the version pyproject.toml names; reinstall the project"
        )
    return as_int.astype(np.int64)


@functools.cache
def _model() -> _Model:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ident = LanguageIdentifier.from_model_file(MODEL_FILE)
    weights = _exact_integers(np.asarray(ident.nb_ptc), _WEIGHT_BITS, "weights")
    priors = _exact_integers(np.asarray(ident.nb_pc), _PRIOR_BITS, "priors")
    classes = tuple(str(c) for c in ident.nb_classes)
    first: dict[str, int] = {}
    aliases = []
    for i, c in enumerate(classes):
        if c in first:
            aliases.append((first[c], i))
        else:
            first[c] = i
    return _Model(
        classes=classes,
        weights=weights.astype(np.int16),
        priors=priors << (_LOG_BITS + _WEIGHT_BITS - _PRIOR_BITS),
        aliases=tuple(aliases),
        nextmove=ident.tk_nextmove,
        rowbase=tuple(r << 8 for r in ident.tk_row),
        output=ident.tk_output,
    )


@functools.lru_cache(maxsize=4096)
def _log1p(count: int) -> int:
    """round(log(1 + count) * 2^24), the same on every machine."""
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        value = decimal.Decimal(count + 1).ln() * (2**_LOG_BITS)
        return int(value.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def languages() -> tuple[str, ...]:
    """ISO 639-1 codes the model knows, sorted."""
    return tuple(sorted(set(_model().classes)))


def _encode(text: str) -> bytes:
    if text.isupper():
        text = text.lower()
    return unicodedata.normalize("NFC", text).encode("utf-8", errors="surrogatepass")


def scores(text: str) -> dict[str, int]:
    """Each language's exact score (log-probability x 2^33) of ``text``; higher is
    likelier. A text without any feature (an empty one) scores 0 for every language."""
    from py3langid.langid import visit_counts

    m = _model()
    visits = visit_counts(m.nextmove, m.rowbase, m.output, _encode(text))
    if not visits:
        return dict.fromkeys(m.classes, 0)
    idx = np.fromiter(visits.keys(), dtype=np.intp, count=len(visits))
    logs = np.fromiter((_log1p(c) for c in visits.values()), dtype=np.int64, count=len(visits))
    total = logs @ m.weights[idx].astype(np.int64) + m.priors
    for i, j in m.aliases:
        total[i] = max(total[i], total[j])
    out: dict[str, int] = {}
    for lang, score in zip(m.classes, total.tolist(), strict=True):
        out.setdefault(lang, int(score))
    return out


def detect(text: str) -> str:
    """The likeliest language of ``text`` (ISO 639-1); an exact tie goes to the language
    listed first in the model."""
    s = scores(text)
    best = max(s.values())
    return next(lang for lang, v in s.items() if v == best)


def article_text(title: str, text: str, chars: int) -> str:
    """What the detector reads of an article: its title and the first ``chars``
    characters of its text."""
    return f"{title}\n{text[:chars]}"


def unknown_languages(codes: Iterable[str]) -> list[str]:
    """The codes the model does not know."""
    known = set(languages())
    return sorted(c for c in codes if c not in known)


class KeptLanguages:
    """:func:`detect`, its verdicts kept between runs (module docstring).

    Args:
        store: the kept store (``<DVC cache>/prescient/ingest``).
    """

    def __init__(self, store: KeptStore) -> None:
        import py3langid

        self.store = store
        version = f"py3langid {getattr(py3langid, '__version__', '')} numpy {np.__version__}"
        self.config = digest(b"language", version.encode(), code_of(sys.modules[__name__]))
        self._months: dict[str, dict[bytes, str]] = {}
        self._changed: set[str] = set()
        self.reused = self.detected = 0

    def _month(self, month: str) -> dict[bytes, str]:
        if month not in self._months:
            found: dict[bytes, str] = {}
            arrays = self.store.read("languages", digest(self.config, month.encode()))
            if arrays is not None and len(arrays) == 3:
                keys, blob, ends = arrays
                try:
                    codes = unpack_strings(blob, ends)
                    if keys.shape == (len(codes), DIGEST_SIZE):
                        found = dict(zip((k.tobytes() for k in keys), codes, strict=True))
                except ValueError:
                    found = {}
            self._months[month] = found
        return self._months[month]

    def detect(self, text: str, day: dt.date) -> str:
        """:func:`detect` of ``text`` (an article of ``day``), from the store when kept."""
        key = digest(text.encode("utf-8", errors="surrogatepass"))
        month = day.strftime("%Y-%m")
        kept = self._month(month)
        lang = kept.get(key)
        if lang is not None:
            self.reused += 1
            return lang
        lang = detect(text)
        kept[key] = lang
        self._changed.add(month)
        self.detected += 1
        if self.detected % SAVE_EVERY == 0:  # a killed run keeps what it detected
            self.save()
        return lang

    def save(self) -> None:
        """Write every month that gained verdicts (its earlier ones kept)."""
        for month in sorted(self._changed):
            kept = self._months[month]
            keys = sorted(kept)
            key_array = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, DIGEST_SIZE)
            self.store.write(
                "languages",
                digest(self.config, month.encode()),
                [key_array.copy(), *pack_strings([kept[k] for k in keys])],
            )
        self._changed.clear()
