"""News pages written for extraction checks: each has its article text, title and date,
and the page furniture real news sites wrap around them (photo captions, a lead repeated
as a standfirst, "read more" teasers, related-article blocks, newsletter and share
boxes, advertisement labels). All text here is invented for these checks.

:data:`PAGES` pairs each page with its gold fields; ``keep`` says whether the article's
own text is longer than the ingest's length floor (``ingest.min_chars``, 800), so a
kept page is kept for its article, never for its furniture.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_CHARS = 800


@dataclass(frozen=True)
class NewsPage:
    """One page: its URL, HTML, and the article a good extractor returns."""

    name: str
    url: str
    html: str
    title: str
    date: str
    paragraphs: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.paragraphs)

    @property
    def keep(self) -> bool:
        return len(self.text) > MIN_CHARS


BRIEF = (
    "Police in Marlow Vale arrested a 34-year-old man on Sunday evening after a break-in "
    "at a pharmacy on Station Road, officers said.",
    "The suspect was held on suspicion of burglary and remains in custody. No one was hurt.",
    "Anyone with information is asked to contact the local station, quoting case 4471.",
)

BRIDGE = (
    "The town council of Kelby approved funding for a new road bridge over the River "
    "Amsel on Tuesday, ending a decade of argument about the crossing that carries most of "
    "the traffic between the old town and the industrial estate.",
    "Councillors voted seven to two for the plan, which will cost about 18 million euros "
    "and replace a steel bridge built in 1961. Engineers found cracks in two of its piers "
    "last year, and lorries heavier than 12 tonnes have been banned from it since March.",
    "Construction is expected to begin next spring and to take about two years. A "
    "temporary footbridge will keep pedestrians and cyclists moving while the old "
    "structure is taken down, the council's transport office said.",
    "Opponents argued that the money would be better spent on the bus network, and two "
    "residents' groups said they would ask the regional court to review the decision. "
    "The mayor, Hanne Ostrup, said the town could not wait any longer for a safe crossing.",
    "Businesses on the industrial estate welcomed the vote. A logistics firm that employs "
    "about 300 people had warned it might move if heavy vehicles could not reach it.",
)

HARBOUR = (
    "Dock workers at the port of Sandhavn ended a five-day strike on Friday after their "
    "union accepted a pay offer of 6.5 percent over two years, the port authority said.",
    "The walkout had left more than 40 container ships waiting at anchor off the coast and "
    "disrupted deliveries of fuel and building materials across the region.",
    "Under the agreement, night shifts will be paid at a higher rate from January, and the "
    "company will hire 120 more crane operators to reduce overtime. The union had asked for "
    "nine percent and a shorter working week.",
    "Port officials said it would take about ten days to clear the backlog. Some shipping "
    "lines diverted vessels to neighbouring ports during the strike, and the authority said "
    "it expected most of that traffic to return.",
    "The regional minister for trade said the dispute showed the need for a permanent "
    "forum where the port's employers and workers could settle pay before talks broke down.",
)

FESTIVAL = (
    "The summer music festival in Oster Lund will move to a larger site next year after "
    "selling out in under an hour for the third year running, its organisers announced.",
    "The festival, which began in 2011 as a one-day event in a primary school playground "
    "with four bands, will take "
    "place on farmland two kilometres north of the town, with room for 25,000 visitors a "
    "day instead of 9,000.",
    "Organisers said shuttle buses would run from the railway station every ten minutes "
    "and that a new camping area would open on the same site. Local hotels have already "
    "reported bookings for the festival weekend.",
    "Some residents near the new site raised concerns about noise and traffic at a public "
    "meeting last week. The organisers promised to end performances at 11 pm and to pay "
    "for extra road marshals.",
)

SCHOOL = (
    "A secondary school in Brenholt will close for two weeks after inspectors found "
    "asbestos in the ceilings of three classrooms during routine repair work, the district "
    "education office said on Wednesday.",
    "About 650 pupils will be taught online until the material is removed. Exams planned "
    "for the period have been moved to the following month, and the school said no pupil "
    "would lose marks because of the change.",
    "The building dates from 1968, and the district said it would check four other schools "
    "built in the same decade. Parents were told of the closure by text message on Tuesday "
    "night.",
    "The teachers' union said the district had been warned about the condition of its older "
    "buildings for years and called for a full survey to be published.",
)


def _doc(title: str, head: str, body: str, site: str = "The Kelby Courier") -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{title} | {site}</title>{head}</head><body>"
        f'<header><a href="/">{site}</a><nav><a href="/news">News</a> '
        f'<a href="/sport">Sport</a> <a href="/opinion">Opinion</a></nav></header>'
        f"{body}"
        f"<footer><p>Copyright {site}. All rights reserved.</p>"
        f'<p><a href="/privacy">Privacy</a> <a href="/contact">Contact us</a></p></footer>'
        f"</body></html>"
    )


def _meta(date: str) -> str:
    return f'<meta property="article:published_time" content="{date}T08:30:00+00:00">'


def _ps(paragraphs: tuple[str, ...]) -> str:
    return "".join(f"<p>{p}</p>" for p in paragraphs)


TEASERS = (
    '<div class="teaser"><p><strong>Read more:</strong> <a href="/news/ferry">Ferry '
    "timetable changes for the winter season announced by the island operator after a "
    "review of passenger numbers</a></p></div>"
    '<div class="teaser"><p><strong>Read more:</strong> <a href="/news/library">Library '
    "reopens after a year of renovation with a new children's wing and a rooftop reading "
    "terrace that overlooks the square</a></p></div>"
)

RELATED = (
    '<section class="related"><h2>Related articles</h2><ul>'
    '<li><a href="/a1">Council budget row deepens as opposition demands new vote on '
    "spending plans for the coming year</a></li>"
    '<li><a href="/a2">Traffic on the ring road doubled in a decade, new survey of '
    "commuters finds</a></li>"
    '<li><a href="/a3">Residents invited to comment on the plans for the old rail yard '
    "before the consultation closes</a></li></ul></section>"
)

NEWSLETTER = (
    '<div class="newsletter"><h3>Get the morning briefing</h3><p>Sign up for our free '
    "newsletter and get the day's most important local stories in your inbox every morning "
    'at seven.</p><form><input type="email"><button>Subscribe</button></form></div>'
)

SHARE = (
    '<div class="share"><a href="#">Share on Facebook</a> <a href="#">Share on X</a> '
    '<a href="#">Email this article</a></div>'
)


def _brief_with_furniture() -> NewsPage:
    title = "Man arrested after pharmacy break-in"
    caption = (
        '<div class="image"><img src="/img/station-road.jpg" alt=""><p class="caption">'
        "Station Road in Marlow Vale, where the pharmacy is one of a row of shops opposite "
        "the railway station. The street was closed to traffic for two hours on Sunday "
        "evening while officers examined the building. Photo: Courier staff</p></div>"
    )
    teasers = (
        '<p class="teaser"><a href="/news/ferry">Ferry timetable changes for the winter '
        "season</a> The island operator has announced a reduced service after a review of "
        "passenger numbers over the past two years.</p>"
        '<p class="teaser"><a href="/news/library">Library reopens after renovation</a> The '
        "building now has a children's wing and a rooftop reading terrace that overlooks "
        "the market square.</p>"
    )
    body = (
        f'<main><article><h1>{title}</h1><p class="byline">By Courier staff</p>'
        f'<div class="intro"><p>{BRIEF[0]}</p></div>{caption}<div class="body">{_ps(BRIEF)}'
        f"</div>{teasers}</article></main>"
    )
    return NewsPage(
        "brief_with_caption_lead_and_teasers",
        "https://www.kelbycourier.example/news/2024/03/05/pharmacy-break-in",
        _doc(title, _meta("2024-03-05"), body),
        title,
        "2024-03-05",
        BRIEF,
    )


def _related_block() -> NewsPage:
    title = "Council approves new bridge over the Amsel"
    body = (
        f"<main><article><h1>{title}</h1>{SHARE}{_ps(BRIDGE)}{RELATED}</article>"
        f"<aside>{NEWSLETTER}</aside></main>"
    )
    return NewsPage(
        "related_block_share_and_newsletter",
        "https://www.kelbycourier.example/news/2024/04/02/amsel-bridge",
        _doc(title, _meta("2024-04-02"), body),
        title,
        "2024-04-02",
        BRIDGE,
    )


def _repeated_lead() -> NewsPage:
    title = "Dock strike ends after pay deal"
    body = (
        f'<main><article><h1>{title}</h1><p class="standfirst"><strong>{HARBOUR[0]}'
        f"</strong></p>{_ps(HARBOUR)}</article></main>"
    )
    return NewsPage(
        "repeated_lead",
        "https://www.sandhavnpost.example/2024/06/14/dock-strike-ends",
        _doc(title, _meta("2024-06-14"), body, "Sandhavn Post"),
        title,
        "2024-06-14",
        HARBOUR,
    )


def _inline_teaser_and_ads() -> NewsPage:
    title = "Music festival moves to bigger site"
    ad = '<div class="ad"><p>Advertisement</p><p>Continue reading below</p></div>'
    inline = (
        '<p class="inline-teaser"><em>Read more: <a href="/x">Festival headliners announced '
        "for the anniversary edition</a></em></p>"
    )
    mid = len(FESTIVAL) // 2
    body = (
        f"<main><article><h1>{title}</h1>{_ps(FESTIVAL[:mid])}{ad}{inline}"
        f"{_ps(FESTIVAL[mid:])}{NEWSLETTER}</article></main>"
    )
    return NewsPage(
        "inline_teaser_and_advertisement",
        "https://www.lundnews.example/culture/2024/09/01/festival-new-site",
        _doc(title, _meta("2024-09-01"), body, "Lund News"),
        title,
        "2024-09-01",
        FESTIVAL,
    )


def _gallery_and_jsonld() -> NewsPage:
    title = "School closes after asbestos found"
    ld = (
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": '
        f'"NewsArticle", "headline": "{title}", "datePublished": "2024-11-20T06:00:00Z"}}'
        "</script>"
    )
    gallery = (
        '<div class="gallery"><figure><img src="/g1.jpg"><figcaption>The main building of '
        "the school, which opened in 1968 and was extended twice in the following decades. "
        '</figcaption></figure><figure><img src="/g2.jpg"><figcaption>Workers in '
        "protective suits outside one of the classrooms on Wednesday morning.</figcaption>"
        "</figure></div>"
    )
    body = f"<main><article><h1>{title}</h1>{gallery}{_ps(SCHOOL)}{SHARE}</article></main>"
    return NewsPage(
        "gallery_captions_and_json_ld_date",
        "https://www.brenholtdaily.example/education/asbestos-school",
        _doc(title, ld, body, "Brenholt Daily"),
        title,
        "2024-11-20",
        SCHOOL,
    )


def _clean() -> NewsPage:
    title = "Kelby bridge vote: what happens next"
    body = f"<main><article><h1>{title}</h1>{_ps(BRIDGE[1:] + BRIDGE[:1])}</article></main>"
    return NewsPage(
        "plain_article",
        "https://www.kelbycourier.example/news/2024/04/03/bridge-next-steps",
        _doc(title, _meta("2024-04-03"), body),
        title,
        "2024-04-03",
        BRIDGE[1:] + BRIDGE[:1],
    )


def _short_plain() -> NewsPage:
    title = "Pharmacy suspect charged"
    paragraphs = BRIEF[1:]
    body = f"<main><article><h1>{title}</h1>{_ps(paragraphs)}{RELATED}</article></main>"
    return NewsPage(
        "short_brief_with_related_block",
        "https://www.kelbycourier.example/news/2024/03/06/pharmacy-charge",
        _doc(title, _meta("2024-03-06"), body),
        title,
        "2024-03-06",
        paragraphs,
    )


PAGES: tuple[NewsPage, ...] = (
    _brief_with_furniture(),
    _related_block(),
    _repeated_lead(),
    _inline_teaser_and_ads(),
    _gallery_and_jsonld(),
    _clean(),
    _short_plain(),
)
