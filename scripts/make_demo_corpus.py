"""Write the embedded demo corpus, ``data/raw/demo/news.jsonl.gz``, and its timelines.

The default pipeline has to run offline on a fresh machine, so the project ships a small
news corpus of its own. Every sentence of it was written for the project and lives in
data files under ``scripts/demo_corpus/`` (see its README for the schema; they are
validated on load by ``scripts/demo_content.py``); this script only assembles articles
from them. The country (Aldmark), its towns, companies, people,
teams and news outlets are fictional; outlets use the reserved ``.example`` domain.

How the corpus is built, and why:

* Thirteen story arcs (``arcs/*.yaml``: a city's tram referendum, a chip maker's new
  plant, a football league, a drought, an offshore wind farm, a vaccine trial,
  central-bank decisions, a university, a film festival and a museum, port and naval
  security, social surveys, national politics, a satellite) each advance through dated
  episodes from 2019 to 2025. A later article recalls earlier episodes of its arc ("In
  March 2020, voters approved ..."), so retrieval over earlier dates has something real
  to find, and every episode carries a forward-looking element (a scheduled vote, a
  launch window, a decision due "by May"), which is what forecasting questions are built
  from.
* On a busy day an episode is reported by three or four outlets in different words
  (different ledes, headlines, fact order, quote subsets and attributions) so that the
  daily hot-topic step (TF-IDF, DBSCAN with cosine distance, min_samples 3) finds real
  clusters; the other articles of that day are unrelated singletons.
* Singletons come from the arcs and from generic story kinds (``kinds/*.yaml``: company
  results, strikes, storms, court cases, school news, quirky local stories ...) whose
  templates are filled from pools of fictional entities and seeded numbers, so the
  eleven question categories of the Daily Oracle paper are all represented.
* The last six busy days (2024-11-19 to 2025-03-18) are the richest, with 9-10 articles
  and two or three multi-outlet stories each, because the demo configuration builds
  questions from a few recent days.

Deliberately flawed rows (``flawed.yaml``; each must be dropped by ``stages.ingest`` under
exactly one reason, so the accounting has work to do on the default run); all other
rows are clean:

1. ``duplicate_text``: a syndicated copy of an article's exact text under another
   outlet's URL, on the same day (the original comes first and is kept).
2. ``duplicate_url``: the same article re-posted two days later at its URL plus
   ``utm_`` tracking parameters and a trailing slash, with an update note appended.
3. ``title_prefix``: an "Opinion: ..." column (long enough to pass the length filter).
4. ``text_too_short``: a news brief of about 250 characters.
5. ``text_too_long``: a live blog of more than 10,000 characters.
6. ``empty_text``: a photo gallery whose text is empty.
7. ``unparseable_date``: a preview whose date reads "next Tuesday".
8. ``missing_date``: a row whose date is an empty string.

Beside the news the script writes ``timelines.jsonl``: each arc as an event chain
(OpenForecast, COLING 2025, section 3: a dated, ordered chain of atomic events on one
topic), one line per episode with its atomic event in one sentence and the URLs of the
clean articles that report it.

Both outputs are reproducible byte for byte: a fixed seed, no network, no clock, and a
gzip header with mtime 0. Run it from the repository root::

    python scripts/make_demo_corpus.py [--out data/raw/demo/news.jsonl.gz]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import io
import json
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from demo_content import (
    CONTENT,
    Arc,
    ArticleTemplates,
    Calendar,
    Content,
    DemoDataError,
    Episode,
    FixedFlaw,
    FlawsSpec,
    KindSpec,
    Outlet,
    Slots,
    UndatedFlaw,
    base_slots,
    load_content,
)

SEED = 1_907_2019
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "raw" / "demo" / "news.jsonl.gz"
TIMELINES_NAME = "timelines.jsonl"
FIELDS = ("date", "title", "text", "url", "source_domain")
MIN_CHARS, MAX_CHARS = 800, 10_000  # the ingest stage's defaults (strict bounds)


# --- writing an article -----------------------------------------------------------------


def cap(text: str) -> str:
    """Capitalise the first character only (keeps proper nouns and acronyms intact)."""
    return text[:1].upper() + text[1:]


def fill(template: str, slots: Slots) -> str:
    """Fill {slots}; entity values may hold slots themselves, so fill until none are left."""
    text = template
    for _ in range(3):
        if "{" not in text:
            break
        text = text.format(**slots)
    if "{" in text or "}" in text:
        raise DemoDataError(f"unfilled slot in {template!r}")
    return cap(text)


class Writer:
    """Writes articles with the corpus's outlets and framing templates."""

    def __init__(self, templates: ArticleTemplates) -> None:
        self.t = templates

    def speaker(self, who: str, sentence_start: bool) -> str:
        """The speaker as written mid-sentence ("said a neighbour, ...") or at its start."""
        if not sentence_start and who.startswith(self.t.lower_case_leads):
            return who[0].lower() + who[1:]
        return who

    def quote_paragraph(self, who: str, text: str, form: int, outlet: Outlet) -> str:
        """One quote in one of five attribution styles; appositives get their comma."""
        comma = "," if ", " in who else ""
        mid = self.speaker(who, False)
        return self.t.quote_forms[form % len(self.t.quote_forms)].format(
            quote=text,
            quote_comma=text[:-1] + "," if text.endswith(".") else text,
            lead=self.speaker(who, True) + comma,
            mid=mid,
            mid_subject=mid + comma,
            outlet=outlet.name,
        )

    def background(
        self,
        rng: random.Random,
        today: dt.date,
        history: Sequence[tuple[dt.date, str]],
        pool: Sequence[str],
    ) -> str:
        """Recall earlier episodes of the arc (most recent first), plus timeless facts."""
        sentences: list[str] = []
        if history:
            day, recap = history[-1]
            if (day.year, day.month) == (today.year, today.month):
                sentences.append(self.t.this_month.format(recap=recap))
            else:
                frame = rng.choice(self.t.history)
                sentences.append(frame.format(month=day.strftime("%B %Y"), recap=recap))
            if len(history) > 1 and rng.random() < 0.75:
                day, recap = rng.choice(history[:-1])
                frame = rng.choice(self.t.earlier)
                sentences.append(frame.format(month=day.strftime("%B %Y"), recap=recap))
        picks = rng.sample(pool, k=min(len(pool), 3))
        return " ".join(cap(s) for s in sentences + picks)

    def article(
        self, rng: random.Random, episode: Episode, variant: int, outlet: Outlet, background: str
    ) -> tuple[str, str]:
        """One outlet's article about an episode: (title, text).

        Each variant of a cluster opens with its own lede and headline, orders and trims
        the shared facts differently and quotes a rotated subset of the speakers, so the
        cluster is clearly about one event without any two articles being copies.
        """
        wd = episode.day.strftime("%A")
        title = episode.headlines[variant % len(episode.headlines)].replace("{wd}", wd)
        lede = episode.ledes[variant % len(episode.ledes)].replace("{wd}", wd)
        facts = [f.replace("{wd}", wd) for f in episode.facts]
        if variant:
            rng.shuffle(facts)
            if len(facts) > 4 and variant % 2:
                facts.pop(rng.randrange(len(facts)))
        k = variant % len(episode.quotes)
        quotes = list(episode.quotes[k:] + episode.quotes[:k])[: 3 if episode.outlets > 1 else 2]
        form0 = rng.randrange(len(self.t.quote_forms))
        said = [
            self.quote_paragraph(who, text, form0 + i * 2, outlet)
            for i, (who, text) in enumerate(quotes)
        ]
        outlook = outlet.outlook_prefix + " ".join(o.replace("{wd}", wd) for o in episode.outlook)

        body: list[str] = [" ".join(facts[:2])]
        if rng.random() < 0.5:
            body += [said[0], " ".join(facts[2:4]), background]
        else:
            body += [" ".join(facts[2:4]), said[0], background]
        body.extend(said[1:2])
        body.append(" ".join(facts[4:]))
        body.extend(said[2:])
        body.append(outlook)
        if rng.random() < 0.35:
            body.append(self.t.additional_reporting.format(reporter=rng.choice(outlet.reporters)))
        paragraphs = [lede] + [p for p in body if p.strip()]
        return cap(title), "\n\n".join(paragraphs)


def generic_episode(
    rng: random.Random, kind: KindSpec, entity: Mapping[str, str], day: dt.date
) -> Episode:
    """Fill a kind's templates for one entity and day into a single-outlet episode."""
    slots = dict(base_slots(day))
    slots.update(kind.draw_numbers(rng, day))
    slots.update(entity)
    facts = [fill(f, slots) for f in kind.facts]
    keep = rng.sample(range(len(facts)), k=min(len(facts), rng.randint(5, 7)))
    return Episode(
        day=day,
        outlets=1,
        headlines=(fill(rng.choice(kind.headlines), slots),),
        ledes=(fill(rng.choice(kind.ledes), slots),),
        facts=tuple(facts[i] for i in sorted(keep)),
        quotes=tuple((fill(q.who or "", slots), fill(q.said, slots)) for q in kind.quotes),
        outlook=(fill(rng.choice(kind.outlook), slots),),
        recap="",
    )


def slug(title: str) -> str:
    """URL slug of a title: lower-case words joined by hyphens, at most about 70 chars."""
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return s[:70].rsplit("-", 1)[0] if len(s) > 70 else s


@dataclass
class Article:
    """One row of the corpus, plus what the summary and timelines need to know about it."""

    day: dt.date
    title: str
    text: str
    outlet: Outlet
    story: str  # "<chain_id>:<date>" or "<kind>:<n>": articles of one cluster share it
    category: str

    def url(self) -> str:
        return f"https://{self.outlet.domain}/{self.day:%Y/%m/%d}/{slug(self.title)}"


# --- building the corpus ----------------------------------------------------------------


def story_id(arc: Arc, day: dt.date) -> str:
    return f"{arc.spec.chain_id}:{day}"


def _pick_kind(
    rng: random.Random, kinds: Sequence[KindSpec], used: Counter[str], banned: set[str]
) -> KindSpec:
    """The least-used kind (relative to its number of entities) not already used today."""
    free = [k for k in kinds if k.key not in banned]
    best = min(used[k.key] / len(k.entities) for k in free)
    return rng.choice([k for k in free if used[k.key] / len(k.entities) == best])


def generic_counts(
    rng: random.Random, calendar: Calendar, busy: Mapping[dt.date, Sequence[Episode]]
) -> dict[dt.date, int]:
    """How many generic singletons each day gets, on top of its arc articles."""
    rich = set(calendar.rich_days)
    counts: dict[dt.date, int] = {}
    for day, episodes in busy.items():
        n_arc = sum(e.outlets for e in episodes)
        if day in rich:
            counts[day] = max(0, calendar.rich_target - n_arc)
        elif any(e.outlets > 1 for e in episodes):
            counts[day] = max(1, rng.choice(calendar.busy_targets) - n_arc)
    for day, n in calendar.quiet_days.items():
        counts[day] = counts.get(day, 0) + n
    return counts


def build_articles(content: Content, seed: int = SEED) -> list[Article]:
    """All clean articles, in file order (by date; within a day, shuffled)."""
    rng = random.Random(seed)
    writer = Writer(content.corpus.article)
    outlets = content.corpus.outlets
    arc_by_day: dict[dt.date, list[tuple[Arc, Episode, list[tuple[dt.date, str]]]]] = defaultdict(
        list
    )
    for arc in content.arcs:
        history: list[tuple[dt.date, str]] = []
        for episode in arc.episodes:
            arc_by_day[episode.day].append((arc, episode, list(history)))
            history.append((episode.day, episode.recap))
    busy = {day: [e for _, e, _ in items] for day, items in arc_by_day.items()}
    generic_count = generic_counts(rng, content.corpus.calendar, busy)

    cycles: dict[str, list[dict[str, str]]] = {}
    used: Counter[str] = Counter()
    articles: list[Article] = []
    for day in sorted(set(arc_by_day) | set(generic_count)):
        today: list[Article] = []
        for arc, episode, history in arc_by_day.get(day, []):
            for variant, outlet in enumerate(rng.sample(outlets, episode.outlets)):
                background = writer.background(rng, day, history, arc.spec.background)
                title, text = writer.article(rng, episode, variant, outlet, background)
                story = story_id(arc, day)
                today.append(Article(day, title, text, outlet, story, arc.spec.category))
        banned: set[str] = set()
        for _ in range(generic_count.get(day, 0)):
            kind = _pick_kind(rng, content.kinds, used, banned)
            banned.add(kind.key)
            if not cycles.get(kind.key):
                cycles[kind.key] = rng.sample(kind.entities, len(kind.entities))
            entity = cycles[kind.key].pop()
            used[kind.key] += 1
            episode = generic_episode(rng, kind, entity, day)
            context = " ".join(
                fill(c, {**base_slots(day), **kind.draw_numbers(rng, day), **entity})
                for c in kind.context
            )
            outlet = rng.choice(outlets)
            title, text = writer.article(rng, episode, 0, outlet, context)
            story = f"{kind.key}:{used[kind.key]}"
            today.append(Article(day, title, text, outlet, story, kind.category))
        rng.shuffle(today)
        articles.extend(today)
    return articles


# --- rows, the deliberately flawed ones, and the files ----------------------------------

Row = dict[str, str]


def clean_rows(articles: Sequence[Article]) -> list[Row]:
    """Articles as output rows (same order); a rare slug collision on one outlet gets a
    numeric suffix."""
    seen: set[str] = set()
    rows: list[Row] = []
    for a in articles:
        url = a.url()
        n = 2
        while url in seen:
            url, n = f"{a.url()}-{n}", n + 1
        seen.add(url)
        rows.append(
            {
                "date": a.day.isoformat(),
                "title": a.title,
                "text": a.text,
                "url": url,
                "source_domain": a.outlet.domain,
            }
        )
    return rows


def _first(rows: Sequence[Row], day: dt.date) -> int:
    iso = day.isoformat()
    try:
        return next(i for i, r in enumerate(rows) if r["date"] == iso)
    except StopIteration:
        raise DemoDataError(f"flawed.yaml: no clean article on {iso} to place the row by") from None


def _fixed_row(flaw: FixedFlaw, text: str) -> Row:
    return {
        "date": flaw.date.isoformat(),
        "title": flaw.title,
        "text": text,
        "url": flaw.url,
        "source_domain": flaw.source_domain,
    }


def _undated_row(flaw: UndatedFlaw, rows: Sequence[Row]) -> Row:
    src = rows[_first(rows, flaw.source_date)]
    return dict(
        src,
        date=flaw.date,
        title=flaw.title_prefix + src["title"],
        url=flaw.url_prefix + slug(src["title"]),
        source_domain=flaw.source_domain,
        text=f"{src['text']}\n\n{flaw.note}",
    )


def live_blog_text(rows: Sequence[Row], flaw: FixedFlaw) -> str:
    """The day's stories strung together until the blog is longer than ``min_chars``."""
    blog: list[str] = []
    for n, r in enumerate(r for r in rows if r["date"] == flaw.date.isoformat()):
        blog.append(f"{8 + n}:{(n * 17) % 60:02d} - {r['title']}\n\n{r['text']}")
        if sum(len(b) for b in blog) > flaw.min_chars:
            break
    return "\n\n".join(blog)


def add_flawed_rows(rows: Sequence[Row], outlets: Sequence[Outlet], flaws: FlawsSpec) -> list[Row]:
    """Insert the documented flawed rows (module docstring) at plausible places.

    Rows are kept in date order; the two undated rows go at the end, where a crawler's
    leftovers usually end up.
    """
    out = list(rows)

    # 1. duplicate_text: a syndicated copy on the same day, right after the original.
    i = _first(out, flaws.syndicated_copy.date)
    orig = out[i]
    other = next(o for o in outlets if o.domain != orig["source_domain"])
    path = (
        f"{orig['date'].replace('-', '/')}/{flaws.syndicated_copy.url_prefix}{slug(orig['title'])}"
    )
    out.insert(i + 1, dict(orig, url=f"https://{other.domain}/{path}", source_domain=other.domain))

    # 2. duplicate_url: the same article re-posted later with tracking parameters.
    repost = flaws.repost
    orig = out[_first(out, repost.date)]
    later = (repost.date + dt.timedelta(days=repost.days_later)).isoformat()
    copy = dict(
        orig,
        date=later,
        url=orig["url"] + repost.url_suffix,
        text=f"{orig['text']}\n\n{repost.note}",
    )
    out.insert(next(j for j, r in enumerate(out) if r["date"] > later), copy)

    # 3. title_prefix, 4. text_too_short, 5. text_too_long and 6. empty_text.
    out.insert(
        _first(out, flaws.opinion.date),
        _fixed_row(flaws.opinion, "\n\n".join(flaws.opinion.paragraphs)),
    )
    out.insert(_first(out, flaws.brief.date), _fixed_row(flaws.brief, flaws.brief.text))
    blog = live_blog_text(rows, flaws.live_blog)
    out.insert(_first(out, flaws.live_blog.date), _fixed_row(flaws.live_blog, blog))
    out.insert(_first(out, flaws.gallery.date), _fixed_row(flaws.gallery, ""))

    # 7. unparseable_date and 8. missing_date: undated leftovers.
    out.append(_undated_row(flaws.preview, rows))
    out.append(_undated_row(flaws.archive, rows))
    return out


def encode(rows: Iterable[Row]) -> bytes:
    """gzip'd JSON Lines with mtime 0 and no file name, so equal rows give equal bytes."""
    payload = "".join(
        json.dumps({k: r[k] for k in FIELDS}, ensure_ascii=False) + "\n" for r in rows
    ).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(payload)
    return buf.getvalue()


def timelines(
    content: Content, articles: Sequence[Article], rows: Sequence[Row]
) -> list[dict[str, Any]]:
    """One record per arc episode: the event chains, sorted by chain id and order.

    ``source_urls`` are the clean articles of the episode (the ones ingest keeps), sorted.
    """
    urls: dict[str, list[str]] = defaultdict(list)
    for article, row in zip(articles, rows, strict=True):
        urls[article.story].append(row["url"])
    records = []
    for arc in sorted(content.arcs, key=lambda a: a.spec.chain_id):
        for seq, (spec, episode) in enumerate(zip(arc.spec.episodes, arc.episodes, strict=True)):
            records.append(
                {
                    "chain_id": arc.spec.chain_id,
                    "chain_title": arc.spec.title,
                    "category": arc.spec.category,
                    "seq": seq,
                    "date": episode.day.isoformat(),
                    "date_precision": "day",
                    "text": spec.event,
                    "source_urls": sorted(urls[story_id(arc, episode.day)]),
                }
            )
    return records


def encode_timelines(records: Iterable[Mapping[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def write(data: bytes, out: Path) -> None:
    """Write atomically (temp file + rename), so a killed run never leaves half a file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(out)


def summary(articles: Sequence[Article], rows: Sequence[Row], out: Path) -> str:
    """A human-readable account of what was written."""
    per_day = Counter(a.day for a in articles)
    months = sorted({f"{a.day:%Y-%m}" for a in articles})
    busy = sorted(d for d, n in per_day.items() if n >= 5)
    clusters = Counter(a.story for a in articles)
    story_day = {a.story: a.day for a in articles}
    stories_per_day = Counter(story_day[s] for s, n in clusters.items() if n >= 3)
    lengths = sorted(len(a.text) for a in articles)
    lines = [
        f"rows written          {len(rows)} ({len(articles)} clean + "
        f"{len(rows) - len(articles)} deliberately flawed)",
        f"date range            {articles[0].day} .. {articles[-1].day}",
        f"months covered        {len(months)} ({months[0]} .. {months[-1]})",
        f"days with articles    {len(per_day)}",
        f"busy days (>= 5)      {len(busy)}",
        f"articles per day      {dict(sorted(Counter(per_day.values()).items()))} (articles: days)",
        f"multi-outlet stories  {sum(1 for s, n in clusters.items() if n >= 3)} (3-4 outlets each)",
        f"text length (chars)   min {lengths[0]}, median {lengths[len(lengths) // 2]}, "
        f"max {lengths[-1]}",
        f"per year              {dict(sorted(Counter(a.day.year for a in articles).items()))}",
        f"per category          {dict(sorted(Counter(a.category for a in articles).items()))}",
        "last six busy days    "
        + ", ".join(f"{d}: {per_day[d]} ({stories_per_day[d]} stories)" for d in busy[-6:]),
        f"file                  {out} ({out.stat().st_size / 1024:.0f} KB)",
    ]
    return "\n".join(lines)


def check(articles: Iterable[Article]) -> None:
    """Fail loudly if a clean article breaks the length bounds the pipeline relies on."""
    for a in articles:
        if not MIN_CHARS < len(a.text) < MAX_CHARS:
            raise DemoDataError(f"{a.day} {a.title!r}: {len(a.text)} chars")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the embedded demo news corpus.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output .jsonl.gz")
    parser.add_argument(
        "--timelines", type=Path, help=f"output timelines (default: {TIMELINES_NAME} beside --out)"
    )
    parser.add_argument("--content", type=Path, default=CONTENT, help="the story files")
    args = parser.parse_args(argv)
    try:
        content = load_content(args.content)
        articles = build_articles(content)
        check(articles)
        clean = clean_rows(articles)
        rows = add_flawed_rows(clean, content.corpus.outlets, content.flaws)
        chains = timelines(content, articles, clean)
    except DemoDataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write(encode(rows), args.out)
    write(encode_timelines(chains), args.timelines or args.out.with_name(TIMELINES_NAME))
    print(summary(articles, rows, args.out))
    print(f"timelines             {len(content.arcs)} chains, {len(chains)} events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
