"""The demo corpus's story files: their schema, validation and loading.

``scripts/make_demo_corpus.py`` builds the corpus from the YAML files under
``scripts/demo_corpus/`` (schema in its README). Every file is validated on load, so a
misspelt key, a missing field, an unknown category, person or template slot stops the
generator with a line naming the file and the field, before any article is written.
"""

from __future__ import annotations

import datetime as dt
import random
import string
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    ValidationError,
    model_validator,
)

from prescient.settings import Day
from prescient.vocab import CATEGORIES

CONTENT = Path(__file__).resolve().parent / "demo_corpus"
SLUG = r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$"

Slots = dict[str, str]
Quote = tuple[str, str]  # (who, what they said); "who" is a name with an optional appositive


class DemoDataError(ValueError):
    """A content file that cannot be used; the message names the file and the field."""


# --- calendar slots ---------------------------------------------------------------------
def month_year(day: dt.date, months: int) -> str:
    """'March 2021' for the month ``months`` after ``day``'s month."""
    m = day.month - 1 + months
    return dt.date(day.year + m // 12, m % 12 + 1, 1).strftime("%B %Y")


def day_name(day: dt.date, days: int) -> str:
    """'March 24' for ``days`` after ``day``."""
    d = day + dt.timedelta(days=days)
    return f"{d:%B} {d.day}"


def base_slots(day: dt.date) -> Slots:
    """Calendar slots every template may use: weekday, near dates and months."""
    slots = {"wd": day.strftime("%A"), "year": str(day.year), "last_year": str(day.year - 1)}
    for n in (3, 7, 10, 14, 21, 30):
        slots[f"d{n}"] = day_name(day, n)
    for n in (1, 2, 3, 6):
        slots[f"m{n}"] = month_year(day, n)
    return slots


# --- the content files' schema ------------------------------------------------------------


class Model(BaseModel):
    """Frozen, no unknown keys: a misspelt key in a content file is an error, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


Text = Annotated[StrictStr, Field(min_length=1)]
Texts = Annotated[tuple[Text, ...], Field(min_length=1)]


def _ordered(lo_hi: tuple[int, int]) -> tuple[int, int]:
    if lo_hi[0] > lo_hi[1]:
        raise ValueError(f"range {list(lo_hi)} runs backwards")
    return lo_hi


Range = Annotated[tuple[StrictInt, StrictInt], AfterValidator(_ordered)]


class Outlet(Model):
    """A fictional news outlet: its domain, masthead and a few house habits."""

    domain: Annotated[StrictStr, Field(pattern=r"^[a-z0-9-]+\.example$")]
    name: Text
    outlook_prefix: StrictStr
    reporters: Texts


class QuoteSpec(Model):
    """A quote: ``said`` by a ``person`` of the arc (a key of its ``people``) or by ``who``."""

    person: StrictStr | None = None
    who: StrictStr | None = None
    said: Text

    @model_validator(mode="after")
    def _one_speaker(self) -> QuoteSpec:
        if (self.person is None) == (self.who is None):
            raise ValueError("a quote names exactly one of `person` and `who`")
        return self


class EpisodeSpec(Model):
    """One dated event of an arc, with material for several outlets to report it.

    ``event`` is the episode's atomic event in one past-tense sentence (its timeline
    entry); ``recap`` is the clause later articles use to recall it.
    """

    date: Day
    outlets: Annotated[StrictInt, Field(ge=1)]
    event: Text
    headlines: Texts
    ledes: Texts
    facts: Texts
    quotes: Annotated[tuple[QuoteSpec, ...], Field(min_length=1)]
    outlook: Texts
    recap: Text


class ArcSpec(Model):
    """A running story (``arcs/<chain_id>.yaml``): its people, background and episodes."""

    chain_id: Annotated[StrictStr, Field(pattern=SLUG)]
    title: Text
    category: StrictStr
    people: dict[Annotated[StrictStr, Field(pattern=SLUG)], Text]
    background: Texts
    episodes: Annotated[tuple[EpisodeSpec, ...], Field(min_length=1)]

    @model_validator(mode="after")
    def _consistent(self) -> ArcSpec:
        if self.category not in CATEGORIES:
            raise ValueError(f"category {self.category!r} is not one of {list(CATEGORIES)}")
        days = [e.date for e in self.episodes]
        if days != sorted(set(days)):
            raise ValueError("episode dates must be distinct and in increasing order")
        for e in self.episodes:
            for q in e.quotes:
                if q.person is not None and q.person not in self.people:
                    raise ValueError(f"{e.date}: quote by unknown person {q.person!r}")
            for text in (*e.headlines, *e.ledes, *e.facts, *e.outlook):
                bad = set(_fields(text)) - {"wd"}
                if bad:
                    raise ValueError(f"{e.date}: arc texts may only use {{wd}}, found {bad}")
        return self


class Number(Model):
    """A kind's number slot: drawn in file order from the article's generator (the order
    is part of the seeded draw), then written as text. See demo_corpus/README.md."""

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        """The slot's value; ``env`` holds the values drawn before it."""
        raise NotImplementedError

    def text(self, value: Any) -> str | None:
        """The slot's text (None: a flag, not a slot)."""
        return str(value)


class IntNumber(Number):
    """``{int: [lo, hi], times: k, commas: true}``: ``randint(lo, hi) * k``, "12,300"."""

    range: Range = Field(alias="int")
    times: StrictInt = 1
    commas: StrictBool = False

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return rng.randint(*self.range) * self.times

    def text(self, value: Any) -> str | None:
        return f"{value:,}" if self.commas else str(value)


class DecimalNumber(Number):
    """``{decimal: [lo, hi], over: 10, places: 1}``: ``randint(lo, hi) / over``, "3.4"."""

    range: Range = Field(alias="decimal")
    over: Annotated[StrictInt, Field(ge=1)]
    places: Annotated[StrictInt, Field(ge=0)]

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return rng.randint(*self.range) / self.over

    def text(self, value: Any) -> str | None:
        return f"{value:.{self.places}f}"


class ChoiceNumber(Number):
    """``{choice: [...]}``: one of the texts."""

    choice: Texts

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return rng.choice(self.choice)


class ChanceFlag(Number):
    """``{chance: p}``: a coin that is true with probability p; a flag, not a slot."""

    chance: Annotated[StrictFloat, Field(gt=0, lt=1)]

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return rng.random() < self.chance

    def text(self, value: Any) -> str | None:
        return None


class IfText(Number):
    """``{if: flag, then: a, else: b}``: text chosen by an earlier ``chance`` flag."""

    flag: StrictStr = Field(alias="if")
    then: StrictStr
    otherwise: StrictStr = Field(alias="else")

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return self.then if env[self.flag] else self.otherwise


class IfFactor(Model):
    """The factor of a ``product``, chosen by an earlier ``chance`` flag."""

    flag: StrictStr = Field(alias="if")
    then: StrictFloat
    otherwise: StrictFloat = Field(alias="else")


class ProductNumber(Number):
    """``{product: slot, by: f, places: n}`` (or ``truncate: true``): an earlier number
    times a factor, rounded to ``places`` or truncated to an integer."""

    product: StrictStr
    by: StrictFloat | IfFactor
    places: Annotated[StrictInt, Field(ge=0)] | None = None
    truncate: StrictBool = False

    @model_validator(mode="after")
    def _one_rounding(self) -> ProductNumber:
        if (self.places is None) == (not self.truncate):
            raise ValueError("a product states exactly one of `places` and `truncate: true`")
        return self

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        by = self.by
        factor = by if isinstance(by, float) else (by.then if env[by.flag] else by.otherwise)
        return env[self.product] * factor

    def text(self, value: Any) -> str | None:
        return str(int(value)) if self.truncate else f"{value:.{self.places}f}"


class YearsAhead(Number):
    """``{years_ahead: n}``: the article's year plus n."""

    years_ahead: StrictInt

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return str(day.year + self.years_ahead)


class YearsAgo(Number):
    """``{years_ago: [lo, hi]}``: the article's year minus ``randint(lo, hi)``."""

    years_ago: Range

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return str(day.year - rng.randint(*self.years_ago))


class DaysAgo(Number):
    """``{days_ago: [lo, hi]}``: "March 24" for a day ``randint(lo, hi)`` days earlier."""

    days_ago: Range

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return day_name(day, -rng.randint(*self.days_ago))


class ByYear(Number):
    """``{by_year: {2019: ..., ...}}``: the value for the article's year."""

    by_year: dict[StrictInt, Text]

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        if day.year not in self.by_year:
            raise DemoDataError(f"by_year has no value for {day.year}")
        return self.by_year[day.year]


class ByDate(Number):
    """``{by_date: {day: ..., ...}}``: the value of the latest day on or before the article's."""

    by_date: dict[Day, Text]

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        since = [d for d in self.by_date if d <= day]
        if not since:
            raise DemoDataError(f"by_date has no value on or before {day}")
        return self.by_date[max(since)]


class ByMonth(Number):
    """``{by_month: [12 values]}``: the value for the article's month."""

    by_month: Annotated[tuple[Text, ...], Field(min_length=12, max_length=12)]

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return self.by_month[day.month - 1]


class PreviousMonth(Number):
    """``{previous_month: true}``: the name of the month before the article's."""

    previous_month: Literal[True]

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return (day.replace(day=1) - dt.timedelta(days=1)).strftime("%B")


class FormatText(Number):
    """``{format: "{a}-{b}"}``: earlier slots put together."""

    format: Text

    def draw(self, rng: random.Random, day: dt.date, env: Mapping[str, Any]) -> Any:
        return self.format.format(**env)


NUMBER_KINDS: dict[str, type[Number]] = {
    "int": IntNumber,
    "decimal": DecimalNumber,
    "choice": ChoiceNumber,
    "chance": ChanceFlag,
    "if": IfText,
    "product": ProductNumber,
    "years_ahead": YearsAhead,
    "years_ago": YearsAgo,
    "days_ago": DaysAgo,
    "by_year": ByYear,
    "by_date": ByDate,
    "by_month": ByMonth,
    "previous_month": PreviousMonth,
    "format": FormatText,
}


def _number_kind(value: Any) -> str | None:
    keys = [k for k in NUMBER_KINDS if isinstance(value, Mapping) and k in value]
    return keys[0] if len(keys) == 1 else None


NumberSpec = Annotated[
    Annotated[IntNumber, Tag("int")]
    | Annotated[DecimalNumber, Tag("decimal")]
    | Annotated[ChoiceNumber, Tag("choice")]
    | Annotated[ChanceFlag, Tag("chance")]
    | Annotated[IfText, Tag("if")]
    | Annotated[ProductNumber, Tag("product")]
    | Annotated[YearsAhead, Tag("years_ahead")]
    | Annotated[YearsAgo, Tag("years_ago")]
    | Annotated[DaysAgo, Tag("days_ago")]
    | Annotated[ByYear, Tag("by_year")]
    | Annotated[ByDate, Tag("by_date")]
    | Annotated[ByMonth, Tag("by_month")]
    | Annotated[PreviousMonth, Tag("previous_month")]
    | Annotated[FormatText, Tag("format")],
    Discriminator(
        _number_kind,
        custom_error_type="number_kind",
        custom_error_message=f"a number names exactly one of {', '.join(NUMBER_KINDS)}",
    ),
]


class KindSpec(Model):
    """A kind of everyday story (``kinds/<key>.yaml``): templates over entity and number
    slots, plus the calendar slots of :func:`base_slots`."""

    key: Annotated[StrictStr, Field(pattern=SLUG)]
    category: StrictStr
    numbers: dict[StrictStr, NumberSpec]
    entities: Annotated[tuple[dict[StrictStr, Text], ...], Field(min_length=1)]
    headlines: Texts
    ledes: Texts
    facts: Texts
    quotes: Annotated[tuple[QuoteSpec, ...], Field(min_length=1)]
    outlook: Texts
    context: Texts

    @model_validator(mode="after")
    def _consistent(self) -> KindSpec:
        if self.category not in CATEGORIES:
            raise ValueError(f"category {self.category!r} is not one of {list(CATEGORIES)}")
        if any(q.person is not None for q in self.quotes):
            raise ValueError("quotes of a kind name their speaker with `who` (a template)")
        self._check_numbers()
        self._check_slots()
        return self

    def _check_numbers(self) -> None:
        """Every number refers only to numbers drawn before it, of the right kind."""
        seen: dict[str, Number] = {}
        for name, spec in self.numbers.items():
            if name in base_slots(dt.date(2000, 1, 1)):
                raise ValueError(f"numbers.{name} hides the calendar slot of that name")
            flag = spec.flag if isinstance(spec, IfText) else None
            if isinstance(spec, ProductNumber):
                flag = spec.by.flag if isinstance(spec.by, IfFactor) else None
                if not isinstance(seen.get(spec.product), IntNumber | DecimalNumber):
                    raise ValueError(f"numbers.{name}: {spec.product!r} is no earlier number")
            if flag is not None and not isinstance(seen.get(flag), ChanceFlag):
                raise ValueError(f"numbers.{name}: {flag!r} is no earlier `chance` flag")
            if isinstance(spec, FormatText) and not set(_fields(spec.format)) <= set(seen):
                raise ValueError(f"numbers.{name}: the format uses slots not drawn before it")
            seen[name] = spec

    def _check_slots(self) -> None:
        """Every template slot is filled, for every entity (none is filled twice)."""
        numbers = {n for n, s in self.numbers.items() if not isinstance(s, ChanceFlag)}
        calendar = set(base_slots(dt.date(2000, 1, 1)))
        templates = [
            *self.headlines,
            *self.ledes,
            *self.facts,
            *(t for q in self.quotes for t in (q.who or "", q.said)),
            *self.outlook,
            *self.context,
        ]
        for i, entity in enumerate(self.entities):
            clash = sorted(set(entity) & (numbers | calendar))
            if clash:
                raise ValueError(f"entities.{i}: {clash} are also number or calendar slots")
            known = calendar | numbers | set(entity)
            for text in [*templates, *entity.values()]:
                unknown = set(_fields(text)) - known
                if unknown:
                    raise ValueError(f"entities.{i} leaves {sorted(unknown)} unfilled in {text!r}")

    def draw_numbers(self, rng: random.Random, day: dt.date) -> Slots:
        """The number slots for one article, drawn in file order."""
        env: dict[str, Any] = {}
        slots: Slots = {}
        for name, spec in self.numbers.items():
            env[name] = spec.draw(rng, day, env)
            text = spec.text(env[name])
            if text is not None:
                slots[name] = text
        return slots


class Calendar(Model):
    """Which days carry articles: busy days come from the arcs; these top them up."""

    rich_days: Annotated[tuple[Day, ...], Field(min_length=1)]
    rich_target: Annotated[StrictInt, Field(ge=1)]
    busy_targets: Annotated[tuple[StrictInt, ...], Field(min_length=1)]
    quiet_days: dict[Day, Annotated[StrictInt, Field(ge=1)]]


class ArticleTemplates(Model):
    """The sentences that frame an article: recalls of earlier episodes, quote styles."""

    history: Texts
    earlier: Texts
    this_month: Text
    quote_forms: Annotated[tuple[Text, ...], Field(min_length=5, max_length=5)]
    additional_reporting: Text
    lower_case_leads: Texts


class CorpusSpec(Model):
    """``corpus.yaml``: outlets, the story files in draw order, calendar and templates."""

    outlets: Annotated[tuple[Outlet, ...], Field(min_length=4)]
    arcs: Annotated[tuple[Annotated[StrictStr, Field(pattern=SLUG)], ...], Field(min_length=1)]
    kinds: Annotated[tuple[Annotated[StrictStr, Field(pattern=SLUG)], ...], Field(min_length=1)]
    calendar: Calendar
    article: ArticleTemplates


class CopyFlaw(Model):
    """A flawed row made from the first clean article of ``date``."""

    date: Day
    url_prefix: Text


class RepostFlaw(Model):
    date: Day
    days_later: Annotated[StrictInt, Field(ge=1)]
    url_suffix: Text
    note: Text


class FixedFlaw(Model):
    """A flawed row written out in full (its text, when it has one)."""

    date: Day
    title: Text
    url: Text
    source_domain: Text
    text: StrictStr = ""
    paragraphs: tuple[Text, ...] = ()
    min_chars: StrictInt = 0


class UndatedFlaw(Model):
    """A copy of the first clean article of ``source_date`` with a broken date."""

    source_date: Day
    date: StrictStr = ""
    title_prefix: StrictStr = ""
    url_prefix: Text
    source_domain: Text
    note: Text


class FlawsSpec(Model):
    """``flawed.yaml``: one row per ingest drop reason."""

    syndicated_copy: CopyFlaw
    repost: RepostFlaw
    opinion: FixedFlaw
    brief: FixedFlaw
    live_blog: FixedFlaw
    gallery: FixedFlaw
    preview: UndatedFlaw
    archive: UndatedFlaw


M = TypeVar("M", bound=BaseModel)


def _fields(template: str) -> list[str]:
    """The slot names a format template uses."""
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def load_file(path: Path, model: type[M]) -> M:
    """Read and validate one content file.

    Raises:
        DemoDataError: naming the file and every offending field.
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DemoDataError(f"{path}: cannot read: {exc}") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        lines = [
            f"{path}: {'.'.join(str(x) for x in e['loc']) or '(top level)'}: "
            f"{str(e['msg']).removeprefix('Value error, ')}"
            for e in exc.errors()
        ]
        raise DemoDataError("\n".join(lines)) from None


# --- the corpus in memory ---------------------------------------------------------------


@dataclass(frozen=True)
class Episode:
    """One news event as the article writer sees it.

    Attributes:
        day: publication day of every article about the event.
        outlets: how many outlets cover it (1 = a singleton, 3-4 = a hot-topic cluster).
        headlines: one per outlet (reused cyclically when there are fewer).
        ledes: the opening sentence, one per outlet; ``{wd}`` is the weekday.
        facts: sentences every outlet may use, in a different order and subset.
        quotes: who said what; each outlet quotes a rotated subset.
        outlook: the forward-looking sentences (what happens next, and when).
        recap: a clause that later articles of the arc use to recall this event.
    """

    day: dt.date
    outlets: int
    headlines: tuple[str, ...]
    ledes: tuple[str, ...]
    facts: tuple[str, ...]
    quotes: tuple[Quote, ...]
    outlook: tuple[str, ...]
    recap: str = ""


@dataclass(frozen=True)
class Arc:
    """A running story: its episodes in date order and timeless background sentences."""

    spec: ArcSpec
    episodes: tuple[Episode, ...]


def arc_from_spec(spec: ArcSpec) -> Arc:
    """The arc with each quote's ``person`` replaced by their description."""
    episodes = tuple(
        Episode(
            day=e.date,
            outlets=e.outlets,
            headlines=e.headlines,
            ledes=e.ledes,
            facts=e.facts,
            quotes=tuple(
                (spec.people[q.person] if q.person else str(q.who), q.said) for q in e.quotes
            ),
            outlook=e.outlook,
            recap=e.recap,
        )
        for e in spec.episodes
    )
    return Arc(spec, episodes)


@dataclass(frozen=True)
class Content:
    """Everything the generator reads, validated."""

    corpus: CorpusSpec
    arcs: tuple[Arc, ...]
    kinds: tuple[KindSpec, ...]
    flaws: FlawsSpec


def load_content(root: Path = CONTENT) -> Content:
    """Load and cross-check the content files under ``root``.

    Raises:
        DemoDataError: a file is missing or invalid, or the files disagree (an arc whose
            file name is not its chain id, an episode with more outlets than exist).
    """
    corpus = load_file(root / "corpus.yaml", CorpusSpec)
    arcs = tuple(
        arc_from_spec(load_file(root / "arcs" / f"{a}.yaml", ArcSpec)) for a in corpus.arcs
    )
    kinds = tuple(load_file(root / "kinds" / f"{k}.yaml", KindSpec) for k in corpus.kinds)
    flaws = load_file(root / "flawed.yaml", FlawsSpec)
    problems: list[str] = []
    for name, arc in zip(corpus.arcs, arcs, strict=True):
        if arc.spec.chain_id != name:
            problems.append(f"arcs/{name}.yaml: chain_id {arc.spec.chain_id!r} != its file name")
        problems += [
            f"arcs/{name}.yaml: {e.day}: {e.outlets} outlets, but corpus.yaml has "
            f"{len(corpus.outlets)}"
            for e in arc.episodes
            if e.outlets > len(corpus.outlets)
        ]
    problems += [
        f"kinds/{name}.yaml: key {kind.key!r} != its file name"
        for name, kind in zip(corpus.kinds, kinds, strict=True)
        if kind.key != name
    ]
    for what, names in (("arcs", corpus.arcs), ("kinds", corpus.kinds)):
        problems += [
            f"corpus.yaml: {what} lists {n!r} twice" for n, c in Counter(names).items() if c > 1
        ]
        listed = set(names)
        problems += [
            f"{what}/{p.name}: not listed in corpus.yaml `{what}`"
            for p in sorted((root / what).glob("*.yaml"))
            if p.stem not in listed
        ]
    if problems:
        raise DemoDataError("\n".join(f"{root}/{p}" for p in problems))
    return Content(corpus, arcs, kinds, flaws)
