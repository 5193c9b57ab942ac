"""Write the embedded demo corpus: data/raw/demo/news.jsonl.gz.

Every word here was written for this project. The places, companies, people, teams and
outlets are fictional (outlets use the reserved ``.example`` domain). The generator
follows twelve story arcs across 2019-2025; each event of an arc is reported by one
outlet or, on busy days, by three or four outlets in different words, so that the
daily hot-topic clustering has real clusters to find and retrieval has earlier coverage
of the same arc to find.

It is deterministic (fixed seed, gzip mtime 0): running it again reproduces the shipped
file byte for byte.

A few rows are flawed on purpose, so the ingest accounting has work on the default run:
an exact copy of an article's text under another URL (``duplicate_text``), a repost of
an article's URL with tracking parameters and a trailing slash on a later day
(``duplicate_url``), an "Opinion:" column (``title_prefix``), a news brief under 800
characters (``text_too_short``), a row with empty text (``empty_text``) and a row whose
date reads "next Tuesday" (``unparseable_date``).

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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SEED = 7_2024
OUTLETS = (
    "harborline-gazette.example",
    "meridian-wire.example",
    "northgate-courier.example",
    "valley-ledger.example",
    "coastal-dispatch.example",
    "civic-record.example",
)


@dataclass(frozen=True)
class Arc:
    """A running story: its vocabulary, sentence templates and number ranges."""

    key: str
    headlines: tuple[str, ...]
    ledes: tuple[str, ...]
    facts: tuple[str, ...]
    quotes: tuple[tuple[str, str], ...]
    outlooks: tuple[str, ...]
    background: str


ARCS: tuple[Arc, ...] = (
    Arc(
        "transit",
        (
            "Port Velden council sets date for tram referendum",
            "Velden voters to decide on {n1}-kilometre tram line",
            "Tram plan splits Port Velden as referendum nears",
            "Port Velden tram vote: what the {money} million plan would change",
        ),
        (
            "The Port Velden city council voted {votes_for} to {votes_against} on {weekday} to put a {n1}-kilometre tram line to a public referendum.",
            "Residents of Port Velden will be asked whether to build a {n1}-kilometre tram line after councillors approved a referendum late on {weekday}.",
            "A long-running fight over public transport in Port Velden moved to the ballot box on {weekday}, when the council backed a referendum on a new tram line.",
        ),
        (
            "The line would link the harbour district with the northern suburbs and is projected to cost {money} million crowns.",
            "Planners estimate that {n2},000 passengers a day would use the tram within five years of opening.",
            "Bus ridership in the city fell {pct} percent last year, according to the municipal transport office.",
            "Opponents argue that the money would be better spent repairing {n3} kilometres of damaged roads.",
            "The council's own consultants warned that construction could close parts of Quay Street for up to {n4} months.",
            "Mayor Ilse Varga has made the tram the centrepiece of her second term.",
            "A petition against the project gathered {n2},{n3}00 signatures in six weeks.",
        ),
        (
            (
                "Ilse Varga, the mayor",
                "This is the biggest decision the city has faced in a generation, and it belongs to the voters.",
            ),
            (
                "Tomas Reinholt, who leads the Velden Taxpayers Association",
                "Nobody has shown us where the extra money will come from if the budget overruns.",
            ),
            (
                "Greta Lindqvist, a transport researcher",
                "Cities of this size usually see traffic fall within two years of a tram opening.",
            ),
        ),
        (
            "The referendum is scheduled for {deadline}, and a simple majority will decide it.",
            "Campaigning formally begins next month, with the vote expected by {deadline}.",
        ),
        "The tram proposal first surfaced in {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "chips",
        (
            "Corvane Semiconductor breaks ground on Ashgrove plant",
            "Corvane reports {pct} percent jump in quarterly revenue",
            "Corvane delays Ashgrove chip line amid equipment shortage",
            "Corvane unveils {n4}-nanometre processor for data centres",
        ),
        (
            "Corvane Semiconductor said on {weekday} that revenue rose {pct} percent in the latest quarter, driven by demand for data-centre chips.",
            "Chip maker Corvane Semiconductor announced on {weekday} a new step in its plan to manufacture processors at its Ashgrove site.",
            "Shares of Corvane Semiconductor moved sharply on {weekday} after the company updated investors on its Ashgrove factory.",
        ),
        (
            "The Ashgrove plant is expected to employ {n2}00 people when it reaches full production.",
            "The company has budgeted {money} million dollars for the first phase of construction.",
            "Corvane said orders from cloud providers accounted for {pct} percent of sales.",
            "Analysts at Brennan Hale Securities raised their price target to {n3} dollars a share.",
            "The firm's newest processor packs {n1} billion transistors and is aimed at machine-learning workloads.",
            "Corvane warned that lead times for lithography tools have stretched to {n4} months.",
        ),
        (
            (
                "Priya Anand, Corvane's chief executive",
                "Demand is outrunning our capacity, and Ashgrove is how we close that gap.",
            ),
            (
                "Marcus Feld, an analyst at Brennan Hale Securities",
                "The question is no longer demand but whether they can build fast enough.",
            ),
            (
                "Helen Oduya, the Ashgrove county commissioner",
                "These are the kind of jobs our region has been waiting twenty years for.",
            ),
        ),
        (
            "The company will report its next quarterly results in {deadline}.",
            "Corvane expects the first wafers to come off the Ashgrove line by {deadline}.",
        ),
        "Corvane's expansion has been closely watched since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "league",
        (
            "Harbor City Gulls beat Redmoor Rangers {score} to stay top",
            "Kestrel Bay FC stun Ellisford United in late comeback",
            "Northern Coast League title race tightens after weekend upsets",
            "Redmoor Rangers sack coach after {n4} straight defeats",
        ),
        (
            "The Harbor City Gulls beat the Redmoor Rangers {score} on {weekday} to keep their lead at the top of the Northern Coast League.",
            "A late winner on {weekday} reshaped the Northern Coast League title race, leaving {n4} points between the top three clubs.",
            "The Northern Coast League produced another dramatic round on {weekday}, with the leaders held and the chasing pack closing in.",
        ),
        (
            "Striker Dani Okafor scored twice and now has {n3} goals this season.",
            "A crowd of {n2},{n3}00 filled Gull Park despite heavy rain.",
            "Kestrel Bay FC have won {n4} of their last six matches.",
            "Ellisford United remain without a win away from home since the opening month.",
            "The league confirmed that video review will be used in the final {n4} rounds.",
            "Redmoor's defence has conceded {n3} goals, the most in the division.",
        ),
        (
            (
                "Gulls coach Ramon Estevez",
                "We have not won anything yet; the hardest games are still ahead of us.",
            ),
            (
                "Kestrel Bay captain Ollie Brandt",
                "Nobody outside this dressing room believed in us, and that suits us fine.",
            ),
            (
                "League chairman Fergus McAllen",
                "This is the closest title race we have seen in a decade.",
            ),
        ),
        (
            "The Gulls host Kestrel Bay next weekend in a match that could decide the title by {deadline}.",
            "The season ends in {deadline}, with the top two clubs qualifying for the continental cup.",
        ),
        "The title race has been building since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "drought",
        (
            "Tallow River reservoirs fall to {pct} percent as drought deepens",
            "Water restrictions widen across Tallow valley",
            "Farmers in Tallow valley warn of failed harvest",
            "Rain brings brief relief to Tallow River basin",
        ),
        (
            "Reservoirs along the Tallow River fell to {pct} percent of capacity this week, the lowest level recorded for the season, the regional water board said on {weekday}.",
            "The Tallow Valley Water Board on {weekday} extended hosepipe bans to {n4} more districts as the drought entered its third month.",
            "Farmers across the Tallow valley say the dry spell is threatening this year's grain harvest, as river levels keep dropping.",
        ),
        (
            "Rainfall since the start of the season is {pct} percent below the long-term average.",
            "The water board said {n2}0,000 households are now under restrictions.",
            "Grain growers estimate losses of {money} million crowns if rain does not arrive within weeks.",
            "Engineers have started pumping from a reserve aquifer near Millbrook for the first time since {year_back}.",
            "The regional meteorological office expects temperatures {n4} degrees above normal for the rest of the month.",
            "Fishing on the lower Tallow has been suspended to protect spawning grounds.",
        ),
        (
            (
                "Anneke Vos, head of the Tallow Valley Water Board",
                "Every litre saved now is a litre we will have in August.",
            ),
            (
                "Jonah Pell, a grain farmer near Millbrook",
                "I have farmed here for thirty years and never seen the soil this dry.",
            ),
            (
                "Dr. Leena Aro, a hydrologist at Lindenfield University",
                "Droughts like this used to come once a generation; now we see them every few years.",
            ),
        ),
        (
            "The water board will review the restrictions at its next meeting in {deadline}.",
            "Forecasters say significant rain is unlikely before {deadline}.",
        ),
        "Concern about water supplies has grown since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "vaccine",
        (
            "Brightwell Biologics reports trial results for BW-211 vaccine",
            "Regulator accepts Brightwell filing for BW-211",
            "Brightwell expands BW-211 trial to older adults",
            "Brightwell shares climb on {pct} percent efficacy figure",
        ),
        (
            "Brightwell Biologics said on {weekday} that its experimental respiratory vaccine BW-211 cut severe illness by {pct} percent in a late-stage trial.",
            "The medicines regulator has agreed to review Brightwell Biologics' application for its BW-211 vaccine, the company said on {weekday}.",
            "Brightwell Biologics will widen the trial of its BW-211 vaccine to include adults over 65, the company announced on {weekday}.",
        ),
        (
            "The trial enrolled {n2},{n3}00 volunteers across {n4} countries.",
            "Side effects were mostly mild, with sore arms and fatigue the most common complaints.",
            "The company said it could produce {n1} million doses in the first year after approval.",
            "Brightwell has spent {money} million dollars developing the vaccine.",
            "Independent experts cautioned that the results have not yet been published in a peer-reviewed journal.",
            "Public health officials said a vaccine could ease pressure on hospitals during the winter season.",
        ),
        (
            (
                "Dr. Samuel Okoye, Brightwell's head of research",
                "These numbers are what we hoped for when we began this programme five years ago.",
            ),
            (
                "Professor Ruth Calder, an infectious disease specialist",
                "The data look encouraging, but regulators will want to see the full safety picture.",
            ),
            (
                "Mira Holt, an analyst at Fenwick Partners",
                "If approved, this could become Brightwell's best-selling product within three years.",
            ),
        ),
        (
            "The regulator is expected to rule on the application by {deadline}.",
            "Brightwell plans to present the full results at a medical conference in {deadline}.",
        ),
        "Brightwell's vaccine programme has been in the spotlight since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "rates",
        (
            "Aldmark Reserve Bank raises rates to {rate} percent",
            "Aldmark Reserve Bank holds rates, signals caution",
            "Aldmark inflation eases to {rate} percent",
            "Aldmark central bank cuts rates for first time in {n4} years",
        ),
        (
            "The Aldmark Reserve Bank set its main interest rate at {rate} percent on {weekday}, as policymakers weighed stubborn inflation against a slowing economy.",
            "Consumer prices in Aldmark rose {rate} percent from a year earlier, official figures showed on {weekday}, putting pressure on the central bank.",
            "Aldmark's central bank surprised some economists on {weekday} with its latest decision on borrowing costs.",
        ),
        (
            "The decision was backed by {n4} of the bank's seven board members.",
            "Mortgage lenders said average home-loan rates have risen to {rate2} percent.",
            "Unemployment stands at {rate3} percent, close to a record low.",
            "The Aldmark crown weakened {pct} tenths of a percent against the euro after the announcement.",
            "Retail sales fell for the {n4}th month in a row, according to the statistics office.",
            "The bank now expects growth of {rate3} percent this year.",
        ),
        (
            (
                "Governor Elias Marrow",
                "We will do what is needed to bring inflation back to target, but we are watching the labour market closely.",
            ),
            (
                "Sofia Brandt, chief economist at Nordvik Bank",
                "The door to further moves is still open, and markets should not assume a pause.",
            ),
            (
                "Per Ekholm, who runs a hardware chain in Aldmark City",
                "Customers are putting off big purchases; you can feel it in the shops.",
            ),
        ),
        (
            "The board meets again in {deadline}.",
            "Economists polled by the statistics office expect the next change by {deadline}.",
        ),
        "Borrowing costs have been the dominant economic story since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "university",
        (
            "Lindenfield University raises tuition by {pct} percent",
            "Lindenfield students stage walkout over fees",
            "Lindenfield wins {money} million research grant for climate lab",
            "Lindenfield University names new president",
        ),
        (
            "Lindenfield University will raise tuition by {pct} percent next academic year, its governing board decided on {weekday}.",
            "Hundreds of students walked out of classes at Lindenfield University on {weekday} to protest rising fees.",
            "Lindenfield University has been awarded a major research grant to build a new climate research laboratory, it said on {weekday}.",
        ),
        (
            "The university enrols about {n2},{n3}00 students.",
            "Administrators blamed higher energy costs and a {pct} percent cut in state funding.",
            "The new laboratory will house {n4}0 researchers studying drought and river systems.",
            "Student union leaders said they would take their case to the regional parliament.",
            "Financial aid will be increased for families earning less than {n1}0,000 crowns a year.",
        ),
        (
            (
                "Provost Daniel Whitcombe",
                "No one on the board takes this decision lightly, but we have to keep the lights on.",
            ),
            (
                "Amara Jensen, president of the student union",
                "Students are being asked to pay for decisions they had no say in.",
            ),
            (
                "Dr. Leena Aro, who will direct the new laboratory",
                "This gives us the tools to understand what is happening to our rivers.",
            ),
        ),
        (
            "The board will publish its full budget in {deadline}.",
            "A final vote on the fee schedule is expected by {deadline}.",
        ),
        "The university's finances have been debated since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "arts",
        (
            "Marrowgate Film Festival opens with record {n2},{n3}00 tickets sold",
            "Greyhaven Museum unveils restored maritime gallery",
            "Director Lina Castell wins top prize at Marrowgate",
            "Greyhaven Museum to lend ship models to touring exhibition",
        ),
        (
            "The Marrowgate Film Festival opened on {weekday} with {n4}0 films from {n1} countries and its largest advance ticket sales on record.",
            "After a two-year restoration, the Greyhaven Museum reopened its maritime gallery to the public on {weekday}.",
            "Lina Castell's drama about a fishing family took the top prize at the Marrowgate Film Festival on {weekday}.",
        ),
        (
            "Organisers said {n2},{n3}00 tickets were sold before opening night.",
            "The restoration cost {money} million crowns, much of it raised from private donors.",
            "The gallery displays {n4}0 ship models, some more than two centuries old.",
            "The festival's jury was chaired by the actor Benedikt Sorensen.",
            "Local hotels reported occupancy of {pct} percent during the festival week.",
        ),
        (
            (
                "Festival director Hanna Vell",
                "People have come back to the cinema, and they want stories that feel close to home.",
            ),
            (
                "Greyhaven Museum curator Isak Moller",
                "These models are the closest thing we have to a photograph of the old harbour.",
            ),
            (
                "Director Lina Castell",
                "I made this film for my grandmother, who mended nets on the same quay.",
            ),
        ),
        (
            "The festival closes with an awards ceremony in {deadline}.",
            "The touring exhibition is due to open abroad in {deadline}.",
        ),
        "Cultural life in the region has drawn attention since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "cyber",
        (
            "Cyberattack disrupts Port Velden container terminal",
            "Navy and coast guard hold joint exercise off Kestrel Bay",
            "Investigators link port hack to ransomware group",
            "Government proposes {money} million cyber defence fund",
        ),
        (
            "A cyberattack on {weekday} knocked out booking systems at the Port Velden container terminal, leaving trucks queued for hours.",
            "Navy ships and coast guard cutters began a {n4}-day exercise off Kestrel Bay on {weekday}, practising responses to attacks on undersea cables.",
            "Investigators said on {weekday} that the attack on Port Velden's terminal bore the hallmarks of a known ransomware group.",
        ),
        (
            "About {n2}00 containers were delayed while systems were restored.",
            "The exercise involves {n4} ships and about {n2},{n3}00 personnel.",
            "The port authority said no customer data appears to have been stolen.",
            "Officials said the attackers demanded a payment in cryptocurrency, which the port refused.",
            "Parliament's defence committee has called the port's chief executive to testify.",
        ),
        (
            (
                "Karl Hedman, chief executive of the Port Velden authority",
                "We refused to pay, and we have rebuilt the systems from clean backups.",
            ),
            (
                "Rear Admiral Inga Sorvik",
                "Our coastline depends on cables and pipelines that are easy to reach and hard to guard.",
            ),
            (
                "Dr. Felix Aronsson, a security researcher",
                "Ports run on old software that was never designed to face this kind of threat.",
            ),
        ),
        (
            "The defence committee hearing is scheduled for {deadline}.",
            "Officials expect a full report on the attack by {deadline}.",
        ),
        "Security of critical infrastructure has been under scrutiny since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "survey",
        (
            "Halvorsen Institute survey: {pct} percent want to keep working from home",
            "Young adults report rising loneliness, Halvorsen study finds",
            "Survey finds trust in local government at {pct} percent",
        ),
        (
            "A new survey by the Halvorsen Institute found that {pct} percent of office workers want to keep working from home at least two days a week.",
            "Loneliness among adults under 30 has risen sharply over the past five years, according to a Halvorsen Institute study published on {weekday}.",
            "Trust in local government has slipped, a Halvorsen Institute poll released on {weekday} shows.",
        ),
        (
            "The institute questioned {n2},{n3}00 adults in {n1} regions.",
            "Respondents with children were the most likely to favour flexible hours.",
            "The share saying they had no one to confide in rose to {n4}0 percent.",
            "The margin of error is plus or minus {n4} percentage points.",
            "The institute has run the same questions every year since {year_back}.",
        ),
        (
            (
                "Dr. Maren Halvorsen, the institute's director",
                "The way people want to live and work has changed, and employers are still catching up.",
            ),
            (
                "Jonas Tiller, a labour economist",
                "Flexible work is now a bargaining chip as important as pay.",
            ),
            (
                "Elsa Brink, who runs a youth centre in Ellisford",
                "Young people tell us they have hundreds of contacts and nobody to call.",
            ),
        ),
        (
            "The institute will publish regional breakdowns in {deadline}.",
            "A follow-up survey is planned for {deadline}.",
        ),
        "The institute's polling has tracked these attitudes since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "wind",
        (
            "Solara Energy installs first turbines at Greywater Bank wind farm",
            "Greywater Bank wind farm faces {n4}-month delay",
            "Solara signs deal to supply power to Corvane's Ashgrove plant",
            "Greywater Bank wind farm begins delivering power",
        ),
        (
            "Solara Energy said on {weekday} that the first turbines are now standing at its Greywater Bank offshore wind farm.",
            "Solara Energy's Greywater Bank project will start later than planned after storms damaged an installation vessel, the company said on {weekday}.",
            "Solara Energy has agreed to supply renewable power to a major industrial customer, the company announced on {weekday}.",
        ),
        (
            "When complete, the farm's {n4}0 turbines will generate {n1}00 megawatts, enough for {n2}0,000 homes.",
            "The project is budgeted at {money} million euros.",
            "Fishing groups have raised concerns about cable routes across the bank.",
            "The grid operator must finish a new substation at Millbrook before full output is possible.",
            "Solara said wind accounted for {pct} percent of the region's electricity last year.",
        ),
        (
            (
                "Jana Voss, Solara's project director",
                "Every turbine we stand up is a year of clean power for thousands of homes.",
            ),
            (
                "Ole Strand, chairman of the Kestrel Bay fishermen's association",
                "We are not against wind, but nobody asked us where the cables should go.",
            ),
            (
                "Energy minister Tove Lindahl",
                "Greywater Bank is central to our plan to halve emissions from power.",
            ),
        ),
        (
            "Solara expects the farm to reach full output by {deadline}.",
            "The grid operator says the Millbrook substation will be finished by {deadline}.",
        ),
        "The offshore wind project has been tracked closely since {prev_month}, when {prev_headline}.",
    ),
    Arc(
        "festival",
        (
            "Lantern Festival draws record crowds to Ellisford",
            "Storm forces Ellisford to postpone Lantern Festival parade",
            "Ellisford plans bigger Lantern Festival after record year",
        ),
        (
            "An estimated {n2}0,000 people packed the streets of Ellisford on {weekday} for the opening night of the Lantern Festival.",
            "High winds forced organisers to postpone the Lantern Festival parade in Ellisford on {weekday}.",
            "Organisers of Ellisford's Lantern Festival said on {weekday} that next year's event will run for {n4} days.",
        ),
        (
            "More than {n4}00 volunteers helped build the paper lanterns.",
            "Local businesses estimate the festival brings in {money} million crowns.",
            "Police reported no serious incidents.",
            "The festival began in {year_back} as a small gathering of neighbours.",
        ),
        (
            (
                "Festival organiser Petra Lund",
                "Every year we think it cannot get bigger, and every year it does.",
            ),
            ("Ellisford police chief Arne Dahl", "The crowds were enormous but good-natured."),
            ("Café owner Rasmus Holm", "It is our busiest week of the year by far."),
        ),
        (
            "The postponed parade will take place in {deadline} if the weather allows.",
            "Dates for next year's festival will be announced in {deadline}.",
        ),
        "The festival has grown quickly since {prev_month}, when {prev_headline}.",
    ),
)

SIGN_OFFS = (
    "Reporting by the {desk} newsroom, with additional reporting from correspondents in the region.",
    "This story was compiled by the {desk} staff and will be updated as more information becomes available.",
    "The {desk} contacted all parties named in this report; those who responded are quoted above.",
)
CONNECTORS = ("", "Meanwhile, ", "Separately, ", "In addition, ", "At the same time, ")
QUOTE_FORMS = (
    '"{text_comma}" said {who}.',
    '{who} said: "{text}"',
    '"{text_comma}" {who} told reporters.',
)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def month_name(day: dt.date) -> str:
    return day.strftime("%B %Y")


def add_months(day: dt.date, months: int) -> dt.date:
    m = day.month - 1 + months
    return dt.date(day.year + m // 12, m % 12 + 1, 1)


def event_slots(rng: random.Random, day: dt.date) -> dict[str, str]:
    """Numbers and dates that one event's articles share."""
    a, b = rng.randint(1, 4), rng.randint(0, 3)
    rate = rng.randint(10, 55) / 10
    votes_for = rng.randint(16, 25)
    return {
        "n1": str(rng.randint(2, 9)),
        "n2": str(rng.randint(11, 48)),
        "n3": str(rng.randint(2, 9)),
        "n4": str(rng.randint(3, 9)),
        "pct": str(rng.randint(6, 74)),
        "money": str(rng.choice([45, 60, 85, 120, 240, 310, 450, 780])),
        "rate": f"{rate:.1f}",
        "rate2": f"{rate + rng.randint(15, 30) / 10:.1f}",
        "rate3": f"{rng.randint(15, 60) / 10:.1f}",
        "score": f"{a + b}-{b}" if a + b > b else f"{a}-{b}",
        "votes_for": str(votes_for),
        "votes_against": str(41 - votes_for),
        "weekday": day.strftime("%A"),
        "deadline": month_name(add_months(day, rng.randint(1, 5))),
        "year_back": str(day.year - rng.randint(8, 30)),
    }


@dataclass
class Event:
    arc: Arc
    day: dt.date
    headline_i: int
    slots: dict[str, str]
    fact_idx: list[int]
    quote_idx: list[int]
    outlook_i: int
    prev: tuple[dt.date, str] | None


def fill(template: str, slots: dict[str, str]) -> str:
    return template.format(**slots)


def write_article(ev: Event, rng: random.Random, variant: int, outlet: str) -> tuple[str, str]:
    """One outlet's article on an event: title and text. Variants reorder and reword."""
    arc, s = ev.arc, ev.slots
    headline = fill(arc.headlines[(ev.headline_i + variant) % len(arc.headlines)], s)
    if variant:
        headline = rng.choice(
            [
                headline,
                headline + " - live reaction",
                "Update: " + headline,
                headline + ", officials say",
            ]
        )
    lede = fill(arc.ledes[(ev.headline_i + variant) % len(arc.ledes)], s)
    facts = [fill(arc.facts[i], s) for i in ev.fact_idx]
    rng.shuffle(facts)
    quotes = [arc.quotes[i] for i in ev.quote_idx]
    paragraphs = [lede]
    for k in range(0, len(facts), 2):
        connector = rng.choice(CONNECTORS) if k else ""
        pair = facts[k : k + 2]
        pair[0] = connector + (pair[0][0].lower() + pair[0][1:] if connector else pair[0])
        paragraphs.append(" ".join(pair))
        if k // 2 < len(quotes):
            who, text = quotes[k // 2]
            text_comma = text[:-1] + "," if text.endswith(".") else text
            paragraphs.append(
                rng.choice(QUOTE_FORMS).format(who=who, text=text, text_comma=text_comma)
            )
    if ev.prev:
        prev_day, prev_head = ev.prev
        paragraphs.append(
            arc.background.replace(
                "when {prev_headline}", 'when coverage ran under the headline "{prev_headline}"'
            ).format(prev_month=month_name(prev_day), prev_headline=prev_head)
        )
    outlooks = [fill(o, s) for o in arc.outlooks]
    paragraphs.append(" ".join(outlooks[ev.outlook_i :] + outlooks[: ev.outlook_i]))
    paragraphs.append(
        rng.choice(SIGN_OFFS).format(desk=outlet.split(".")[0].replace("-", " ").title())
    )
    return headline, "\n\n".join(paragraphs)


def busy_days(rng: random.Random) -> list[dt.date]:
    """About fifty busy days over 2019-2025, denser at the end (the demo builds questions there)."""
    days: set[dt.date] = set()
    month = dt.date(2019, 2, 1)
    while month < dt.date(2024, 11, 1):
        days.add(month + dt.timedelta(days=rng.randint(2, 25)))
        month = add_months(month, rng.choice([1, 1, 2]))
    for offset in (0, 3, 9, 14, 22, 31):
        days.add(dt.date(2024, 12, 2) + dt.timedelta(days=offset))
    return sorted(days)


def build(seed: int = SEED) -> list[dict[str, str]]:
    rng = random.Random(seed)
    history: dict[str, tuple[dt.date, str]] = {}
    rows: list[dict[str, str]] = []
    days = busy_days(rng)
    for day_no, day in enumerate(days):
        rich = day.year >= 2024 and day.month == 12 or day.year == 2025
        n_clusters = 3 if rich else rng.choice([1, 2, 2])
        arcs = rng.sample(ARCS, n_clusters + (4 if rich else rng.randint(2, 4)))
        for k, arc in enumerate(arcs):
            size = rng.randint(3, 4) if k < n_clusters else 1
            ev = Event(
                arc=arc,
                day=day,
                headline_i=rng.randrange(len(arc.headlines)),
                slots=event_slots(rng, day),
                fact_idx=rng.sample(
                    range(len(arc.facts)), k=max(4, len(arc.facts) - rng.randint(0, 1))
                ),
                quote_idx=rng.sample(range(len(arc.quotes)), k=3),
                outlook_i=rng.randrange(len(arc.outlooks)),
                prev=history.get(arc.key),
            )
            outlets = rng.sample(OUTLETS, size)
            first_title = ""
            for variant, outlet in enumerate(outlets):
                title, text = write_article(ev, rng, variant, outlet)
                first_title = first_title or title
                rows.append(
                    {
                        "date": day.isoformat(),
                        "title": title,
                        "text": text,
                        "url": f"https://{outlet}/{day:%Y/%m/%d}/{slug(title)}-{day_no}{k}{variant}",
                        "source_domain": outlet,
                    }
                )
            history[arc.key] = (day, first_title)
    return rows + flawed_rows(rows)


def flawed_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Deliberately bad rows (see the module docstring); each maps to one drop reason."""
    a, b = rows[10], rows[40]
    later = (dt.date.fromisoformat(b["date"]) + dt.timedelta(days=2)).isoformat()
    return [
        dict(
            a,
            url=a["url"].replace("https://", "https://mirror.") + "-copy",
            source_domain="mirror." + a["source_domain"],
        ),
        dict(
            b,
            date=later,
            url=b["url"] + "/?utm_source=newsletter&utm_medium=email",
            text=b["text"] + "\n\nThis article was updated.",
        ),
        {
            "date": rows[60]["date"],
            "title": "Opinion: Port Velden deserves a better debate about its future",
            "text": "\n\n".join(
                [
                    "Every few years this city argues about how people should get around, and every few years the argument ends where it started.",
                    "The tram may or may not be the right answer. But voters deserve numbers they can check, timetables they can believe and a plan for the years of disruption that any large project brings.",
                    "Instead they are offered slogans from both sides. Supporters promise a transformed harbour; opponents promise ruin. Neither is likely.",
                    "What would help is a public, line-by-line account of the budget, published before the campaign starts, and a promise that the council will stick to it.",
                    "It would also help to hear from the people who will live with the construction: the shop owners on Quay Street, the bus drivers whose routes will change, the families in the northern suburbs who spend an hour each way getting to work.",
                    "A referendum is a blunt instrument. Used well, it settles a question that politics cannot. Used badly, it leaves half a city feeling cheated. Port Velden can still choose which kind this will be.",
                ]
            ),
            "url": "https://civic-record.example/opinion/port-velden-better-debate",
            "source_domain": "civic-record.example",
        },
        {
            "date": rows[80]["date"],
            "title": "Brief: Quay Street closed overnight for repairs",
            "text": "Quay Street in Port Velden will be closed between midnight and 5 a.m. on Thursday while crews repair a water main. Buses will be diverted via Harbour Road.",
            "url": "https://valley-ledger.example/briefs/quay-street-closed",
            "source_domain": "valley-ledger.example",
        },
        {
            "date": rows[90]["date"],
            "title": "Photo gallery: harbour at dawn",
            "text": "",
            "url": "https://coastal-dispatch.example/gallery/harbour-dawn",
            "source_domain": "coastal-dispatch.example",
        },
        dict(
            rows[100],
            date="next Tuesday",
            url="https://meridian-wire.example/undated/preview",
            text=rows[100]["text"] + "\n\nPreview edition.",
        ),
    ]


def write(rows: list[dict[str, str]], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        for r in rows:
            gz.write(
                (
                    json.dumps(
                        {k: r[k] for k in ("date", "title", "text", "url", "source_domain")},
                        ensure_ascii=False,
                    )
                    + "\n"
                ).encode()
            )
    out.write_bytes(buf.getvalue())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "data/raw/demo/news.jsonl.gz",
    )
    args = ap.parse_args()
    rows = build()
    write(rows, args.out)
    per_day = Counter(r["date"] for r in rows)
    months = {r["date"][:7] for r in rows if re.match(r"\d{4}-\d{2}", r["date"])}
    lengths = sorted(len(r["text"]) for r in rows)
    print(
        f"{len(rows)} articles, {len(months)} months, {sum(1 for n in per_day.values() if n >= 5)} days with >=5 articles, "
        f"text length median {lengths[len(lengths) // 2]}, file {args.out.stat().st_size / 1024:.0f} KB"
    )


if __name__ == "__main__":
    main()
