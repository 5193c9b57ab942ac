"""Write the embedded demo corpus: ``data/raw/demo/news.jsonl.gz``.

The default pipeline has to run offline on a fresh machine, so the project ships a small
news corpus of its own. Every sentence in this file was written for the project. The
country (Aldmark), its towns, companies, people, teams and news outlets are fictional;
outlets use the reserved ``.example`` domain. Nothing here was taken from a real outlet.

How the corpus is built, and why:

* Thirteen story arcs (a city's tram referendum, a chip maker's new plant, a football
  league, a drought, an offshore wind farm, a vaccine trial, central-bank decisions, a
  university, a film festival and a museum, port and naval security, social surveys,
  national politics, a satellite) each advance through hand-written episodes from 2019
  to 2025. A later article recalls earlier episodes of its arc ("In March 2020, voters
  approved ..."), so retrieval over earlier dates has something real to find, and every
  episode carries a forward-looking element (a scheduled vote, a launch window, a
  decision due "by May"), which is what forecasting questions are built from.
* On a busy day an episode is reported by three or four outlets in different words
  (different ledes, headlines, fact order, quote subsets and attributions) so that the
  daily hot-topic step (TF-IDF, DBSCAN with cosine distance, min_samples 3) finds real
  clusters; the other articles of that day are unrelated singletons.
* Singletons come from the arcs and from twenty-two generic story kinds (company
  results, strikes, storms, court cases, school news, quirky local stories ...) whose
  templates are filled from pools of fictional entities, so the eleven question
  categories of the Daily Oracle paper are all represented.
* The last six busy days (2024-11-19 to 2025-03-18) are the richest, with 9-10 articles
  and two or three multi-outlet stories each, because the demo configuration builds
  questions from a few recent days.

Deliberately flawed rows (each must be dropped by ``stages.ingest`` under exactly one
reason, so the accounting has work to do on the default run); all other rows are clean:

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

The output is reproducible byte for byte: a fixed seed, no network, no clock, and a gzip
header with mtime 0. Run it from the repository root::

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
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SEED = 1_907_2019
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "raw" / "demo" / "news.jsonl.gz"
FIELDS = ("date", "title", "text", "url", "source_domain")
MIN_CHARS, MAX_CHARS = 800, 10_000  # the ingest stage's defaults (strict bounds)

# A quote: (who, what they said). "who" is a name with an optional appositive.
Quote = tuple[str, str]


@dataclass(frozen=True)
class Outlet:
    """A fictional news outlet: its domain, masthead and a few house habits."""

    domain: str
    name: str
    outlook_prefix: str
    reporters: tuple[str, ...]


OUTLETS: tuple[Outlet, ...] = (
    Outlet("harborline-gazette.example", "Harborline Gazette", "", ("Nora Castel", "Ben Aukrust")),
    Outlet(
        "meridian-wire.example", "Meridian Wire", "Looking ahead: ", ("Tariq Omar", "Liv Sande")
    ),
    Outlet("northgate-courier.example", "Northgate Courier", "", ("Ada Brekk", "Milo Hart")),
    Outlet(
        "valley-ledger.example", "Valley Ledger", "What comes next: ", ("Ruth Engel", "Kasper Vik")
    ),
    Outlet("coastal-dispatch.example", "Coastal Dispatch", "", ("Selma Roos", "Otto Fjell")),
    Outlet("civic-record.example", "Civic Record", "Next steps: ", ("Hana Ueda", "Per Lysne")),
    Outlet("lantern-post.example", "Lantern Post", "", ("Iris Moe", "Emil Dahl")),
    Outlet("summit-herald.example", "Summit Herald", "The outlook: ", ("Vera Holt", "Sam Kirke")),
)


@dataclass(frozen=True)
class Episode:
    """One news event, with enough material for several outlets to report it differently.

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

    key: str
    category: str
    background: tuple[str, ...]
    episodes: tuple[Episode, ...]


def ep(
    day: str,
    outlets: int,
    headlines: list[str],
    ledes: list[str],
    facts: list[str],
    quotes: list[Quote],
    outlook: list[str],
    recap: str,
) -> Episode:
    """Compact constructor used by the hand-written arcs below."""
    return Episode(
        dt.date.fromisoformat(day),
        outlets,
        tuple(headlines),
        tuple(ledes),
        tuple(facts),
        tuple(quotes),
        tuple(outlook),
        recap,
    )


# ---------------------------------------------------------------------------------------
# Story arcs. People who recur in an arc are named once here.
# ---------------------------------------------------------------------------------------

VARGA = "Ilse Varga, the mayor of Port Velden"
HOLM = "Birgit Holm, who chairs the city council's transport committee"
REINHOLT = "Tomas Reinholt, chairman of the Velden Taxpayers Association"
LINDQVIST = "Greta Lindqvist, a transport researcher at Lindenfield University"
EKLUND = "Mats Eklund, chief executive of Velcor-Baltram"
SANDVIK = "Paul Sandvik, director of the Aldmark Rail Safety Authority"
AALTO = "Sven Aalto, who chairs the Harbour District residents' association"

TRAM = Arc(
    "tram",
    "Politics & Governance",
    (
        "Port Velden, a port city of about 410,000 people, last had trams in 1957, when the old network was torn up to make room for cars.",
        "The Harbour Line runs 14.2 kilometres from Harbour Square along Quay Street and the old rail corridor to the Northfield district, with 19 stops.",
        "The tram has been the defining issue of Mayor Ilse Varga's time in office.",
        "Supporters argue that the harbour corridor, where buses crawl at peak times, needs a line with its own right of way; critics have questioned the cost from the start.",
        "Quay Street, the city's main shopping street, sits on the route and has borne the brunt of the disruption.",
        "Trams were once common in Aldmark's cities, but most networks closed in the 1950s and 1960s.",
        "The city's bus network carries about 160,000 passengers on an average weekday.",
        "A ridge separates the harbour district from the northern suburbs, funnelling traffic onto a few congested roads.",
    ),
    (
        ep(
            "2019-01-22",
            1,
            ["Port Velden mayor floats tram line to ease harbour congestion"],
            [
                "Port Velden's mayor, Ilse Varga, on {wd} proposed building the city's first tram line in more than sixty years, arguing that buses alone can no longer cope with traffic between the harbour and the northern suburbs."
            ],
            [
                "The idea, outlined in a speech to business leaders at the Harbour Exchange, would run a light-rail line from Harbour Square to the Northfield district.",
                "Average bus speeds on the harbour corridor have fallen to 13 kilometres an hour at peak times, according to the municipal transport office.",
                "Varga said a feasibility study had already been commissioned from the engineering firm Holmgren & Dahl.",
                "Opposition councillors were quick to ask how the city would pay for the project, which Varga did not put a price on.",
                "The number of cars registered in the city has risen by a fifth in ten years.",
            ],
            [
                (
                    VARGA,
                    "We cannot widen our way out of congestion. The harbour corridor needs a line with its own right of way.",
                ),
                (
                    REINHOLT,
                    "Before anyone draws a map, the mayor should tell residents what this will cost them.",
                ),
            ],
            [
                "The feasibility study is due to be presented to the city council before the end of February."
            ],
            "Mayor Ilse Varga first proposed a tram line between the harbour and the northern suburbs",
        ),
        ep(
            "2019-02-12",
            3,
            [
                "Port Velden tram study puts cost at 610 million crowns",
                "Study backs 14-kilometre tram line for Port Velden",
                "Consultants say Port Velden tram could carry 38,000 a day",
            ],
            [
                "A feasibility study commissioned by Port Velden's city council estimates that a 14.2-kilometre tram line between the harbour and the Northfield district would cost 610 million crowns and carry about 38,000 passengers a day.",
                "Port Velden's proposed tram line would cost 610 million crowns and could be running by the middle of the decade, according to a consultants' report published by the city on {wd}.",
                "The engineering firm hired to test Mayor Ilse Varga's tram idea has come back in favour, telling Port Velden's council on {wd} that a harbour-to-Northfield line is feasible and would pay its way in passengers.",
            ],
            [
                "The report, prepared by Holmgren & Dahl, recommends a route with 19 stops, running from Harbour Square along Quay Street and the old rail corridor to Northfield.",
                "It estimates that journey times between the two ends of the line would fall from 48 minutes by bus to 26 minutes by tram.",
                "The consultants put the annual operating cost at 31 million crowns, about a third of which would be covered by fares.",
                "The study warns that construction on Quay Street, the city's main shopping street, would take at least 18 months.",
                "About 120 parking spaces would be removed along the route.",
                "The national government has indicated that it could cover up to 40 percent of the construction cost through its urban transport fund.",
            ],
            [
                (
                    HOLM,
                    "The numbers show that this is not a vanity project. It is the cheapest way to move this many people.",
                ),
                (
                    REINHOLT,
                    "Six hundred million crowns is a starting figure. Every project of this kind ends up costing more.",
                ),
                (
                    LINDQVIST,
                    "The passenger estimate looks cautious to me. Tram lines usually attract riders who never used the bus.",
                ),
            ],
            [
                "The council is expected to debate the study in March and to decide by the autumn whether to put the project to a referendum."
            ],
            "consultants estimated that a 14.2-kilometre tram line would cost 610 million crowns and carry 38,000 passengers a day",
        ),
        ep(
            "2019-10-29",
            3,
            [
                "Port Velden council votes to put tram line to referendum",
                "Velden voters to decide on tram plan in March",
                "Tram referendum set for March 15 after close council vote",
            ],
            [
                "Port Velden's city council voted 23 to 18 on {wd} to hold a referendum on the proposed Harbour Line tram, setting the vote for March 15 next year.",
                "Voters in Port Velden will decide the future of the city's proposed tram line in a referendum on March 15, after the council narrowly backed a public vote late on {wd}.",
                "After a five-hour debate that ran past midnight, Port Velden's councillors agreed on {wd} to let residents settle the fate of the Harbour Line tram at the ballot box.",
            ],
            [
                "The referendum will ask residents whether the city should borrow up to 370 million crowns to build the 14.2-kilometre line, with the rest of the cost expected to come from the national urban transport fund.",
                "The motion passed by 23 votes to 18, with two members of the mayor's own coalition voting against.",
                "The result will be binding if turnout exceeds 40 percent, under rules adopted by the council in 2016.",
                "A council poll conducted in September found 47 percent of residents in favour, 39 percent against and the rest undecided.",
                "The Velden Taxpayers Association said it would campaign for a No vote and had already raised 1.2 million crowns.",
                "Business groups in the harbour district have come out in favour, citing the difficulty of hiring staff who live in the north of the city.",
            ],
            [
                (
                    VARGA,
                    "Residents asked for a say, and now they will have it. I am confident they will choose to build.",
                ),
                (
                    REINHOLT,
                    "We will take our case to every doorstep. People deserve to know what the borrowing means for their tax bills.",
                ),
                (
                    "Erik Sundqvist, head of the Port Velden Chamber of Commerce",
                    "Our members cannot hire people who spend two hours a day stuck in traffic. The tram would change that.",
                ),
            ],
            [
                "Official campaigning begins on January 15, and the city will post an information booklet to every household by late February."
            ],
            "the city council voted 23 to 18 to put the tram line to a referendum",
        ),
        ep(
            "2020-03-17",
            3,
            [
                "Port Velden votes yes to tram line",
                "Tram backers win Port Velden referendum with 54 percent",
                "Port Velden tram approved as turnout tops 60 percent",
            ],
            [
                "Voters in Port Velden approved the construction of a tram line on Sunday, with 54.3 percent backing the Harbour Line in a binding referendum, official results showed on {wd}.",
                "Port Velden will build its first tram line in more than six decades after residents voted in favour in Sunday's referendum, according to final results published by the city election office on {wd}.",
                "The Harbour Line tram won the backing of 54.3 percent of Port Velden voters, the city election office confirmed on {wd}, ending a campaign that divided neighbours and split the mayor's coalition.",
            ],
            [
                "Turnout was 61.8 percent, well above the 40 percent threshold needed to make the result binding.",
                "The Yes side won in 11 of the city's 16 districts, with the strongest support in Northfield, where 71 percent voted in favour.",
                "The No campaign carried the older neighbourhoods around the harbour, where shop owners fear years of construction on Quay Street.",
                "The result allows the council to borrow up to 370 million crowns for the project.",
                "The city will now launch a tender for a construction consortium, with bids due by the end of the year.",
            ],
            [
                (
                    VARGA,
                    "This is a vote for a city that works for the next fifty years, not just the next five.",
                ),
                (
                    REINHOLT,
                    "We respect the result. Our job now is to watch every crown that is spent.",
                ),
                (
                    LINDQVIST,
                    "The margin is clear enough to give the project legitimacy, but the council will have to keep the No voters on board through construction.",
                ),
            ],
            [
                "The city expects to choose a builder by spring 2021 and to start construction in 2022."
            ],
            "voters approved the tram line in a referendum, with 54.3 percent in favour",
        ),
        ep(
            "2021-02-09",
            1,
            ["Three groups shortlisted to build Port Velden tram"],
            [
                "Port Velden has shortlisted three consortia to build its Harbour Line tram, the city's procurement office said on {wd}, keeping the project on course for a contract award this spring."
            ],
            [
                "The shortlisted bidders are Velcor-Baltram, a joint venture of two regional construction firms; Nordspor Infrastructure; and a group led by the engineering company Hallam Civil.",
                "A fourth bidder was excluded for failing to meet the financial requirements, the office said.",
                "Bids will be judged 60 percent on price and 40 percent on quality and construction time.",
                "Quay Street businesses have asked that the winning bidder be required to keep shop entrances accessible throughout the works.",
            ],
            [
                (
                    HOLM,
                    "We have three serious bids, which is exactly what a competitive process needs.",
                ),
                (
                    "Hanne Rask, who runs a bakery on Quay Street",
                    "We voted no, but if it is coming, we want to know how long our street will be dug up.",
                ),
            ],
            ["The council is due to vote on the winning bid in May."],
            "the city shortlisted three consortia to build the line",
        ),
        ep(
            "2021-05-18",
            3,
            [
                "Velcor-Baltram wins 648 million crown Port Velden tram contract",
                "Port Velden picks builder for Harbour Line tram",
                "Tram contract signed; Port Velden targets 2024 opening",
            ],
            [
                "Port Velden's city council on {wd} awarded the contract to build the Harbour Line tram to the Velcor-Baltram consortium, which bid 648 million crowns and promised to open the line by autumn 2024.",
                "The Velcor-Baltram consortium will build Port Velden's tram line after councillors approved its 648 million crown bid on {wd}, more than a year after residents voted for the project.",
                "Port Velden has its tram builder. Councillors voted on {wd} to hand the Harbour Line contract to Velcor-Baltram, a regional joint venture, after a tender that drew three final bids.",
            ],
            [
                "The winning bid was 38 million crowns above the estimate in the 2019 feasibility study, which the council attributed to higher steel and labour costs.",
                "Velcor-Baltram beat two rival bids, one of which was cheaper but promised a later opening date.",
                "The contract includes 22 low-floor trams, to be built by the rolling-stock maker Ostrava Railcar, and a depot in Northfield.",
                "The consortium faces penalties of 150,000 crowns a day if the line is not ready for passengers by October 31, 2024.",
                "Construction on Quay Street will be split into three phases so that no section of the street is closed for more than seven months.",
            ],
            [
                (
                    HOLM,
                    "This contract shifts the risk of delay on to the builder, where it belongs.",
                ),
                (
                    EKLUND,
                    "We know the city is watching closely. We intend to finish on time and leave Quay Street better than we found it.",
                ),
                (
                    REINHOLT,
                    "The price has risen before a single rail has been laid. We will be asking for quarterly cost reports.",
                ),
            ],
            [
                "Preparatory utility works are due to start in the autumn, with main construction beginning in early 2022."
            ],
            "the council awarded the 648 million crown construction contract to the Velcor-Baltram consortium",
        ),
        ep(
            "2022-03-08",
            3,
            [
                "Construction begins on Port Velden tram line",
                "Diggers arrive on Quay Street as tram works start",
                "Port Velden tram works begin, and so do the diversions",
            ],
            [
                "Construction of Port Velden's Harbour Line tram began on {wd}, as crews closed the first section of Quay Street and bus routes were diverted across the city centre.",
                "After three years of studies, votes and tenders, work on Port Velden's tram line finally got under way on {wd} with the closure of the northern end of Quay Street.",
                "Excavators moved on to Quay Street on {wd} as the Velcor-Baltram consortium started the main works on Port Velden's 648 million crown tram line.",
            ],
            [
                "The first phase covers 600 metres of Quay Street between Harbour Square and Market Lane and is scheduled to last seven months.",
                "Eleven bus routes have been rerouted, adding up to ten minutes to some journeys, according to the municipal transport office.",
                "The city has set up a 4 million crown fund to compensate shops that lose trade during the works.",
                "About 240 construction workers will be on site at the peak of the works.",
                "Velcor-Baltram said it had secured all the rail it needs for the project despite a sharp rise in steel prices.",
            ],
            [
                (VARGA, "Today the argument ends and the building begins."),
                (
                    "Hanne Rask, who runs a bakery on Quay Street",
                    "The first week will tell us whether the promises about access were real.",
                ),
                (
                    EKLUND,
                    "We have planned this street section by section. People will be able to reach every shop.",
                ),
            ],
            [
                "The consortium says the line remains on schedule to carry its first passengers in October 2024."
            ],
            "construction began on Quay Street",
        ),
        ep(
            "2023-04-18",
            3,
            [
                "Port Velden tram 94 million crowns over budget, audit finds",
                "Tram opening slips to 2025 as costs climb",
                "Auditors fault Port Velden's handling of tram overruns",
            ],
            [
                "Port Velden's tram project is running 94 million crowns over budget and will not open until early 2025, several months later than promised, according to an audit published on {wd}.",
                "An independent audit released on {wd} found that the Harbour Line tram will cost Port Velden about 742 million crowns, up from the 648 million agreed with the builder, and that the opening has slipped into 2025.",
                "Auditors on {wd} criticised Port Velden's council for keeping cost overruns on its tram line from councillors for almost six months, as they confirmed the project is 94 million crowns over budget.",
            ],
            [
                "The audit, carried out by the regional audit office, blamed unexpected utility pipes under Quay Street, a redesign of the Northfield depot and higher energy prices.",
                "It found that 41 million crowns of the overrun would fall on the city under the terms of the contract, with the rest borne by the Velcor-Baltram consortium.",
                "The auditors said problems were known to officials in the autumn but were not reported to councillors until March.",
                "Velcor-Baltram now expects the line to open in the first quarter of 2025 rather than in October 2024.",
                "The report noted that 63 percent of the track had been laid by the end of March.",
            ],
            [
                (
                    REINHOLT,
                    "This is exactly what we warned about in 2019, and the council kept it from us.",
                ),
                (
                    HOLM,
                    "The report is fair, and we accept its recommendations. The project is still worth building.",
                ),
                (
                    "Annika Strand, the regional auditor who led the review",
                    "The risks were identified early. What was missing was a clear line of reporting to the people who approve the money.",
                ),
            ],
            [
                "The council will debate the audit on May 4, and opposition members have called for an independent project board."
            ],
            "an audit found the project 94 million crowns over budget and pushed the opening into 2025",
        ),
        ep(
            "2023-12-12",
            1,
            ["First Harbour Line trams arrive in Port Velden"],
            [
                "The first two of Port Velden's 22 new trams arrived at the Northfield depot on {wd} after a four-day journey by rail from the Ostrava Railcar factory."
            ],
            [
                "The 32-metre vehicles can carry 210 passengers each and are painted in the city's blue and white colours, chosen in a public vote last year.",
                "Ostrava Railcar expects to deliver the remaining 20 trams at a rate of two a month.",
                "Test runs on the depot's own track will begin in January, with runs on the main line to follow once the overhead wires are complete.",
                "The project's budget was revised to 742 million crowns earlier this year after an audit.",
            ],
            [
                (
                    HOLM,
                    "Seeing a tram in the depot makes this real for people who have lived with the roadworks.",
                ),
                (
                    "Jana Kovar, Ostrava Railcar's project manager",
                    "These are the first trams we have built for the region, and we are proud they will run by the sea.",
                ),
            ],
            ["The city says the line remains on track to open in the first quarter of 2025."],
            "the first of the line's 22 trams were delivered",
        ),
        ep(
            "2024-08-27",
            3,
            [
                "Port Velden trams begin test runs on northern section",
                "Tram tests start as Port Velden eyes early 2025 opening",
                "Harbour Line trams take to the streets for first trials",
            ],
            [
                "Trams ran on the streets of Port Velden for the first time in 67 years on {wd}, as test runs began on the northern section of the Harbour Line between Northfield and the university.",
                "Port Velden's Harbour Line began test runs on {wd}, a milestone for a project that has been dogged by cost overruns and delays.",
                "Empty trams glided between Northfield and the university campus on {wd} as Port Velden started testing its long-delayed tram line.",
            ],
            [
                "The tests, without passengers, cover 6.1 kilometres of the 14.2-kilometre line and will run day and night for the next six weeks.",
                "Drivers are being trained on the route; the operator, Velden Trams, has hired 64 of the 90 drivers it needs.",
                "Track work on the southern section, including Quay Street, is 94 percent complete, according to the consortium.",
                "The project's final cost is now estimated at 751 million crowns.",
                "Police warned pedestrians and cyclists to take care near the tracks, as the trams are nearly silent at low speed.",
            ],
            [
                (
                    VARGA,
                    "After everything this city has been through with the roadworks, today is a good day.",
                ),
                (EKLUND, "We will be running trams end to end by November."),
                (LINDQVIST, "Test runs usually expose small problems. That is what they are for."),
            ],
            [
                "The city plans to announce the opening date by the end of November, once the national rail safety authority has scheduled its inspection."
            ],
            "test runs started on the northern section of the line",
        ),
        ep(
            "2024-11-19",
            4,
            [
                "Port Velden tram to open on February 2",
                "Harbour Line gets opening date and 2.80 crown fare",
                "Port Velden sets tram launch for February, pending safety check",
                "Council confirms February start for Port Velden trams",
            ],
            [
                "Port Velden's Harbour Line tram will carry its first passengers on Sunday, February 2, the city council announced on {wd}, provided the line passes a final safety inspection in January.",
                "The Port Velden tram has an opening date: February 2, 2025, Mayor Ilse Varga told a news conference on {wd}, nearly six years after she first proposed the line.",
                "Councillors in Port Velden on {wd} approved a single fare of 2.80 crowns for the city's new tram and set February 2 as the day the Harbour Line opens.",
                "Port Velden expects to open its tram line on February 2, the city said on {wd}, although the date still hangs on a safety inspection by the national rail regulator in early January.",
            ],
            [
                "The opening depends on the Aldmark Rail Safety Authority granting an operating certificate after an inspection scheduled for the week of January 6.",
                "A single fare will cost 2.80 crowns, the same as a bus ticket, and existing monthly passes will be valid on the tram.",
                "Rides will be free on the opening weekend.",
                "Trams will run every six minutes at peak times and every 12 minutes in the evenings.",
                "Four bus routes that duplicate the tram will be cut back once the line opens, a decision opposed by some residents of the harbour district.",
                "The final cost of the project stands at 751 million crowns, 141 million more than the 2019 estimate.",
            ],
            [
                (VARGA, "February 2 is the day the argument about this tram becomes a timetable."),
                (
                    SANDVIK,
                    "We do not set our inspections by anyone's calendar. If the line is ready, it will be certified.",
                ),
                (REINHOLT, "The city should publish the full bill before it cuts the ribbon."),
                (
                    HOLM,
                    "We will review the bus network three months after opening, based on what passengers actually do.",
                ),
            ],
            [
                "The rail safety authority is expected to decide on the operating certificate by mid-January."
            ],
            "the council set February 2, 2025 as the opening date, subject to a safety inspection in January",
        ),
        ep(
            "2025-01-14",
            3,
            [
                "Port Velden tram passes safety inspection",
                "Regulator clears Harbour Line to carry passengers",
                "Tram opening on February 2 confirmed after safety approval",
            ],
            [
                "The Aldmark Rail Safety Authority on {wd} granted Port Velden's Harbour Line tram an operating certificate, clearing the way for the line to open to passengers on February 2.",
                "Port Velden's tram will open as planned on February 2 after the national rail safety regulator approved the line on {wd} following a week of inspections.",
                "The last hurdle before Port Velden's tram opens fell on {wd}, when safety inspectors signed off on the Harbour Line with two conditions attached.",
            ],
            [
                "The certificate came with two conditions: a speed limit of 20 kilometres an hour through Harbour Square until additional signals are installed, and extra staff at the three busiest stops for the first month.",
                "Inspectors ran 48 test journeys, including emergency braking trials with trams loaded with sandbags to simulate full passenger loads.",
                "The city said the signal work at Harbour Square would be completed by the end of March.",
                "All 22 trams have now been delivered and 90 drivers have completed training.",
                "The operator expects about 30,000 passengers on each day of the free opening weekend.",
            ],
            [
                (
                    SANDVIK,
                    "The line meets the standard. The conditions reflect a busy square where trams, buses and pedestrians meet.",
                ),
                (VARGA, "Nineteen days from now, the first passengers will board."),
                (
                    AALTO,
                    "We still want the buses that are being cut. The tram does not go everywhere the number 4 bus went.",
                ),
            ],
            [
                "The line opens at 10 a.m. on Sunday, February 2, with rides free until the end of that weekend."
            ],
            "the national rail safety authority certified the line",
        ),
        ep(
            "2025-02-04",
            3,
            [
                "Crowds pack Port Velden trams on opening weekend",
                "Harbour Line carries 41,000 on first day despite breakdown",
                "Port Velden's tram era begins with long queues and a stalled car",
            ],
            [
                "Port Velden's Harbour Line carried 41,300 passengers on its first day on Sunday, well above forecasts, although a broken-down tram halted part of the line for 40 minutes, the operator said on {wd}.",
                "More than 41,000 people rode Port Velden's new tram on its opening day, the city said on {wd}, as residents queued for up to an hour at Harbour Square for a free first ride.",
                "The first weekend of Port Velden's tram brought packed cars, a 40-minute breakdown and a flood of complaints about cancelled buses, according to figures and statements released on {wd}.",
            ],
            [
                "Services were suspended between Market Lane and Northfield for 40 minutes on Sunday afternoon after a tram's pantograph was damaged.",
                "On Monday, the first day of paid service, the line carried 26,800 passengers, according to the operator, Velden Trams.",
                "The city's 2019 feasibility study forecast 38,000 passengers a day once the line was established.",
                "Four bus routes were cut back on Monday, and the transport office received 310 complaints about the changes in a single day.",
                "The speed limit through Harbour Square imposed by the safety regulator remains in force.",
            ],
            [
                (
                    VARGA,
                    "I saw grandparents who rode the old trams as children bring their grandchildren. That is what this was for.",
                ),
                (
                    "Lena Voss, operations director of Velden Trams",
                    "One pantograph failure on the first day is frustrating, but the fault was found and fixed quickly.",
                ),
                (AALTO, "The tram is lovely. The bus I used to take to the clinic is gone."),
            ],
            [
                "The council will publish the first full month of ridership figures in mid-March and review the bus changes in May."
            ],
            "the line opened and carried 41,300 people on its first day",
        ),
        ep(
            "2025-03-18",
            3,
            [
                "Port Velden tram averages 29,500 riders in first month",
                "Tram ridership below forecast, Port Velden figures show",
                "Council to revisit bus cuts as tram numbers settle",
            ],
            [
                "Port Velden's Harbour Line carried an average of 29,500 passengers a day in its first full month, about a fifth below the long-term forecast, figures published by the city on {wd} showed.",
                "Ridership on Port Velden's new tram settled at about 29,500 a day in February, the city said on {wd}, as councillors prepared to reconsider cuts to the bus routes the line replaced.",
                "Six weeks after opening, Port Velden's tram is busy on weekdays and quiet at weekends, according to the first monthly figures, released on {wd}.",
            ],
            [
                "Weekday ridership averaged 33,100, while weekends averaged 20,400.",
                "The busiest stop was Harbour Square, with 6,200 boardings a day, followed by the university stop.",
                "The 2019 feasibility study forecast 38,000 passengers a day once the line was established, a level it said could take up to three years to reach.",
                "Punctuality was 96.4 percent, according to the operator.",
                "The extra signals at Harbour Square are due to be switched on in the last week of March, allowing the speed limit there to be lifted.",
                "A petition to restore the number 4 bus has gathered 8,900 signatures.",
            ],
            [
                (
                    HOLM,
                    "A first month in winter is not the number that matters. We will judge the line after a full year.",
                ),
                (
                    REINHOLT,
                    "The forecasts were sold as facts in 2020. Now we learn they were hopes.",
                ),
                (
                    LINDQVIST,
                    "Ridership on new lines usually grows for three to five years as people change where they live and work.",
                ),
            ],
            [
                "The council will vote on May 13 on whether to restore part of the number 4 bus route."
            ],
            "the line averaged 29,500 passengers a day in its first full month",
        ),
    ),
)

ANAND = "Priya Anand, Corvane's chief executive"
FELD = "Marcus Feld, an analyst at Brennan Hale Securities"
ODUYA = "Helen Oduya, the Ashgrove county commissioner"
LUND = "Karin Lund, the industry minister"

CHIPS = Arc(
    "chips",
    "Science & Tech",
    (
        "Corvane Semiconductor, founded in Lindenfield in 1994, designs processors for data centres, cars and industrial machines.",
        "Until the Ashgrove plant, Corvane relied entirely on contract manufacturers abroad to make its chips.",
        "Ashgrove county, a former coal-mining area, has had one of the highest unemployment rates in Aldmark for two decades.",
        "Corvane's shares are listed on the Aldmark stock exchange, where it is the largest technology company by market value.",
        "Chip plants need large amounts of clean water and stable electricity, which narrowed the choice of sites.",
        "Corvane employs about 3,000 people in Aldmark, most of them engineers in Lindenfield.",
        "The company's two founders, both engineers from Lindenfield University, still sit on its board.",
    ),
    (
        ep(
            "2019-04-09",
            3,
            [
                "Corvane plans 2.4 billion crown chip plant in Ashgrove",
                "Chip maker Corvane picks Ashgrove for first factory",
                "Corvane promises 1,200 jobs with new semiconductor plant",
            ],
            [
                "Corvane Semiconductor said on {wd} that it plans to build its first chip factory in Ashgrove county, an investment of 2.4 billion crowns that would create about 1,200 jobs.",
                "Chip designer Corvane Semiconductor will start making its own processors at a new plant in Ashgrove, the company announced on {wd}, ending its complete reliance on foreign contract manufacturers.",
                "Ashgrove, a former mining county, has been chosen as the site of Corvane Semiconductor's first factory, a 2.4 billion crown project the company unveiled on {wd}.",
            ],
            [
                "The plant would make chips for cars and industrial equipment at first, with more advanced processors to follow.",
                "Corvane said the project depends on a government subsidy, which it has requested under the national industry programme.",
                "The company chose Ashgrove over two other sites because of its water supply, grid capacity and available land, it said.",
                "Corvane expects construction to take about three years once it starts.",
                "The company's shares rose 4 percent after the announcement.",
            ],
            [
                (
                    ANAND,
                    "We have designed chips here for twenty-five years. It is time we made them here too.",
                ),
                (ODUYA, "These are the kind of jobs our region has been waiting twenty years for."),
                (
                    FELD,
                    "The plan makes strategic sense, but the subsidy will decide whether the numbers work.",
                ),
            ],
            [
                "The government has said it will decide on the subsidy request by the end of the year."
            ],
            "Corvane announced plans for a 2.4 billion crown chip plant in Ashgrove",
        ),
        ep(
            "2019-12-03",
            1,
            ["Government approves 380 million crown subsidy for Corvane plant"],
            [
                "The government on {wd} approved a subsidy of 380 million crowns for Corvane Semiconductor's planned chip factory in Ashgrove, the largest award ever made under the national industry programme."
            ],
            [
                "The grant covers about 16 percent of the plant's estimated cost of 2.4 billion crowns.",
                "In return, Corvane must keep the plant in operation and employ at least 900 people there for ten years.",
                "Opposition lawmakers questioned whether the subsidy would have been better spent on smaller firms.",
                "Corvane said it would now finalise the design and seek building permits.",
            ],
            [
                (
                    LUND,
                    "This is a long-term bet on skilled manufacturing jobs in a region that needs them.",
                ),
                (ANAND, "With this decision we can move from plans to permits."),
            ],
            ["Corvane expects to break ground at Ashgrove by the middle of next year."],
            "the government approved a 380 million crown subsidy for the plant",
        ),
        ep(
            "2020-06-30",
            3,
            [
                "Corvane breaks ground on Ashgrove chip plant",
                "Construction starts at Corvane's Ashgrove factory",
                "Corvane targets late 2023 for first Ashgrove chips",
            ],
            [
                "Corvane Semiconductor broke ground on its Ashgrove chip factory on {wd}, saying it expects to start production in late 2023.",
                "Construction of Aldmark's first large chip factory began on {wd}, as Corvane Semiconductor executives and government ministers gathered on a muddy field in Ashgrove county.",
                "Work began on {wd} on Corvane Semiconductor's 2.4 billion crown plant in Ashgrove, a project the company says will employ 1,200 people at full production.",
            ],
            [
                "The 42-hectare site will include a clean-room building, a water treatment plant and a training centre run with the regional technical college.",
                "The main construction contract has gone to the builder Stenhaug Bygg.",
                "Up to 1,500 construction workers will be on site at the peak of the works.",
                "Corvane has ordered lithography and etching equipment from suppliers in Europe and Asia, some of which has lead times of more than a year.",
                "The county has agreed to upgrade the road from the site to the motorway at a cost of 65 million crowns.",
            ],
            [
                (
                    ANAND,
                    "Three years from now, wafers will come out of this building with Ashgrove written on the box.",
                ),
                (
                    ODUYA,
                    "People here have heard promises before. This time the diggers are already running.",
                ),
                (FELD, "The timetable is ambitious. Equipment delivery is the risk to watch."),
            ],
            ["Corvane said it expects the building shell to be finished by the end of 2021."],
            "Corvane broke ground on the Ashgrove plant",
        ),
        ep(
            "2021-07-06",
            3,
            [
                "Corvane delays Ashgrove chip production to 2024",
                "Equipment shortage pushes back Corvane's Ashgrove plant",
                "Corvane revenue jumps 31 percent, but factory start slips",
            ],
            [
                "Corvane Semiconductor said on {wd} that production at its Ashgrove factory will start in 2024, about a year later than planned, because of long delays in the delivery of chipmaking equipment.",
                "Corvane Semiconductor reported a 31 percent jump in quarterly revenue on {wd} but warned that its Ashgrove plant will not make chips before 2024.",
                "Strong demand for chips lifted Corvane Semiconductor's sales in the latest quarter, the company said on {wd}, but the same shortage is now delaying its own factory.",
            ],
            [
                "Revenue rose 31 percent to 1.6 billion crowns in the second quarter, driven by orders from carmakers and industrial customers.",
                "Lead times for some lithography tools have stretched to 18 months, according to the company.",
                "The building shell at Ashgrove is on schedule, and the company has hired 210 of the plant's future staff.",
                "Corvane said the delay would not change the plant's estimated cost of 2.4 billion crowns.",
                "The company's shares fell 3 percent on the news of the delay.",
            ],
            [
                (
                    ANAND,
                    "Everyone in the industry is waiting for the same machines. We are not going to cut corners to save a few months.",
                ),
                (
                    FELD,
                    "Investors will forgive a delay if the demand is still there in 2024, and today it looks like it will be.",
                ),
                (
                    ODUYA,
                    "A year's delay is disappointing, but the jobs are still coming, and that is what matters here.",
                ),
            ],
            ["Corvane will report its third-quarter results in October."],
            "Corvane delayed the start of Ashgrove production to 2024 because of equipment shortages",
        ),
        ep(
            "2022-05-03",
            1,
            ["Corvane posts record quarter as data-centre orders surge"],
            [
                "Corvane Semiconductor reported record first-quarter revenue of 1.9 billion crowns on {wd}, as orders from data-centre operators overtook those from carmakers for the first time."
            ],
            [
                "Data-centre customers accounted for 44 percent of sales, up from 29 percent a year earlier.",
                "Operating profit rose to 410 million crowns.",
                "The company said it would give details of a new processor for artificial-intelligence workloads later in the year.",
                "Installation of equipment at the Ashgrove plant began in March.",
            ],
            [
                (ANAND, "The demand we see from data centres is unlike anything in our history."),
                (
                    FELD,
                    "They are hinting at a new product without saying what it is, which tells you they think it matters.",
                ),
            ],
            ["Corvane said it would unveil its next data-centre processor in the autumn."],
            "Corvane reported record quarterly revenue of 1.9 billion crowns",
        ),
        ep(
            "2022-10-11",
            3,
            [
                "Corvane unveils K7 processor for AI data centres",
                "Corvane's new K7 chip aims at machine-learning market",
                "Corvane bets on K7 accelerator as data-centre demand grows",
            ],
            [
                "Corvane Semiconductor on {wd} unveiled the K7, a processor designed to train and run machine-learning models in data centres, and said it will begin shipping in the middle of next year.",
                "Chip maker Corvane Semiconductor took the wraps off its most ambitious product yet on {wd}: an accelerator for artificial-intelligence workloads that it says uses 30 percent less power than its predecessor.",
                "Corvane Semiconductor said on {wd} that its new K7 accelerator has already drawn orders from three large cloud operators, months before the first chips ship.",
            ],
            [
                "The K7 packs 58 billion transistors and will initially be made by a contract manufacturer abroad, not at the Ashgrove plant.",
                "Corvane said three cloud operators had placed advance orders, without naming them.",
                "The company expects the K7 to account for a quarter of its revenue by 2024.",
                "Corvane's shares rose 9 percent on the day of the launch.",
                "The chip will be sold as part of a board that plugs into standard servers.",
            ],
            [
                (
                    ANAND,
                    "The K7 is the most important product in our history, and it was designed in Lindenfield.",
                ),
                (
                    FELD,
                    "The performance claims are strong. The question is whether Corvane can get enough manufacturing capacity.",
                ),
                (
                    "Dr. Yusuf Demir, a computer architecture researcher at Lindenfield University",
                    "Power efficiency is now the main constraint in data centres, so a 30 percent gain is significant if it holds up in real workloads.",
                ),
            ],
            [
                "Corvane plans to ship the first K7 boards to customers by the end of June next year."
            ],
            "Corvane unveiled the K7 processor for machine-learning data centres",
        ),
        ep(
            "2023-08-29",
            3,
            [
                "Corvane begins K7 shipments, lifts revenue forecast",
                "Corvane shares jump 12 percent as K7 orders pile up",
                "Record quarter for Corvane as first K7 chips reach customers",
            ],
            [
                "Corvane Semiconductor said on {wd} that it had started shipping its K7 machine-learning processor and raised its revenue forecast for the year, sending its shares up 12 percent.",
                "Shares in Corvane Semiconductor jumped 12 percent on {wd} after the chip maker reported record quarterly revenue of 2.6 billion crowns and said demand for its new K7 processor exceeds supply.",
                "The first K7 processors have reached customers, Corvane Semiconductor said on {wd}, two months later than promised but in larger volumes than analysts expected.",
            ],
            [
                "Quarterly revenue rose 36 percent from a year earlier to 2.6 billion crowns.",
                "Corvane now expects full-year revenue of about 10 billion crowns, up from its previous forecast of 9.2 billion.",
                "The company said it had a backlog of K7 orders worth 3.4 billion crowns.",
                "The K7 shipments began in August, about two months later than the company had planned.",
                "Equipment installation at Ashgrove is 80 percent complete.",
            ],
            [
                (
                    ANAND,
                    "We could sell more K7s than we can make this year. That is a good problem, but it is still a problem.",
                ),
                (
                    FELD,
                    "The delay was short and the demand is real. We are raising our price target.",
                ),
                (ODUYA, "Every good quarter at Corvane is good news for the jobs at Ashgrove."),
            ],
            ["Corvane expects the first wafers from the Ashgrove plant in the first half of 2024."],
            "Corvane began shipping the K7 and raised its revenue forecast",
        ),
        ep(
            "2024-04-16",
            3,
            [
                "First wafers roll off Corvane's Ashgrove line",
                "Corvane starts chip production in Ashgrove, five years after plan",
                "Ashgrove plant makes its first chips; full output due in 2025",
            ],
            [
                "Corvane Semiconductor's Ashgrove factory produced its first silicon wafers on {wd}, five years after the company announced the plant and a year later than originally planned.",
                "Chip production began in Ashgrove on {wd}, as Corvane Semiconductor started up the first line of its 2.4 billion crown factory.",
                "Aldmark made its first commercial chips on home soil on {wd}, when Corvane Semiconductor's Ashgrove plant began production.",
            ],
            [
                "The first line will make controllers for cars and factory machines; the plant is not yet equipped to make the K7.",
                "The plant employs 740 people and will reach its full workforce of 1,200 when it reaches full output in 2025.",
                "Corvane said early yields, the share of usable chips on each wafer, were in line with its targets.",
                "The final cost of the plant came in at 2.55 billion crowns, slightly above the original estimate.",
                "The company said it is studying whether to add a second building on the site.",
            ],
            [
                (ANAND, "Five years ago this was a field. Today it is a chip factory."),
                (
                    LUND,
                    "This shows what public and private investment can do together in a region that was written off.",
                ),
                (
                    FELD,
                    "Production has started, which removes a big uncertainty. The next question is whether Ashgrove ever makes the leading-edge chips.",
                ),
            ],
            ["Corvane will decide by the end of the year whether to expand the Ashgrove site."],
            "the Ashgrove plant produced its first wafers",
        ),
        ep(
            "2024-12-10",
            3,
            [
                "Corvane signs 4.1 billion crown supply deal with Stratalink",
                "Cloud firm Stratalink commits to Corvane chips for five years",
                "Corvane lands biggest contract in its history",
            ],
            [
                "Corvane Semiconductor has signed a five-year agreement to supply K7 processors to the cloud operator Stratalink, a deal worth about 4.1 billion crowns, the companies said on {wd}.",
                "Stratalink, one of Europe's larger cloud operators, will buy Corvane Semiconductor's K7 processors under a 4.1 billion crown contract announced on {wd}, the largest in Corvane's history.",
                "Shares in Corvane Semiconductor rose 8 percent on {wd} after the chip maker said it had won a five-year supply contract from the cloud operator Stratalink.",
            ],
            [
                "Deliveries under the contract will begin in the second quarter of 2025.",
                "Stratalink will also co-design a successor chip, the K8, with Corvane engineers.",
                "The agreement includes a commitment by Corvane to reserve capacity for Stratalink even when supply is tight.",
                "Corvane said it would decide early next year whether to build a second building at Ashgrove, partly to serve the deal.",
                "Corvane's shares have more than doubled since the start of 2023.",
            ],
            [
                (ANAND, "This agreement gives us the visibility to invest with confidence."),
                (
                    "Olga Mertens, Stratalink's chief technology officer",
                    "We wanted a supplier that would still answer the phone when the market is tight.",
                ),
                (
                    FELD,
                    "It is a big contract, but it also concentrates Corvane's risk on a single customer.",
                ),
            ],
            ["Corvane will report its fourth-quarter and full-year results on February 25."],
            "Corvane signed a five-year, 4.1 billion crown supply deal with the cloud operator Stratalink",
        ),
        ep(
            "2025-02-25",
            3,
            [
                "Corvane revenue up 44 percent; second Ashgrove building approved",
                "Corvane to double Ashgrove plant after record year",
                "Corvane's board backs 3.1 billion crown Ashgrove expansion",
            ],
            [
                "Corvane Semiconductor reported a 44 percent rise in fourth-quarter revenue on {wd} and said its board had approved a second building at its Ashgrove plant, at an estimated cost of 3.1 billion crowns.",
                "Corvane Semiconductor will double the size of its Ashgrove chip plant, the company said on {wd} as it reported record annual revenue of 11.8 billion crowns.",
                "A record year for its K7 processor has persuaded Corvane Semiconductor to expand in Ashgrove, the company said on {wd}, announcing a 3.1 billion crown second building.",
            ],
            [
                "Fourth-quarter revenue rose 44 percent to 3.2 billion crowns, and full-year revenue reached 11.8 billion crowns.",
                "The second building, known as Ashgrove 2, would be equipped to make the K8 processor and would add about 800 jobs.",
                "Corvane said it would apply for a building permit in April and hopes to start construction by the end of 2025.",
                "The company is also choosing between Lindenfield and Port Velden for a new research centre.",
                "Corvane expects 2025 revenue of between 14 and 15 billion crowns.",
            ],
            [
                (ANAND, "We built Ashgrove once. We know how to do it faster the second time."),
                (
                    FELD,
                    "Guidance of 14 to 15 billion is above what the market expected, and it assumes the Stratalink deliveries start on time.",
                ),
                (
                    ODUYA,
                    "Eight hundred more jobs would make Corvane the largest private employer in the county.",
                ),
            ],
            ["Corvane said it will announce the location of the research centre by June 30."],
            "Corvane approved a 3.1 billion crown second building at Ashgrove",
        ),
    ),
)

ESTEVEZ = "Ramon Estevez, the Harbor City Gulls coach"
BRANDT = "Ollie Brandt, the Kestrel Bay FC captain"
MCALLEN = "Fergus McAllen, the league's chairman"
LINDAHL = "Mette Lindahl, the Kestrel Bay FC coach"

LEAGUE = Arc(
    "league",
    "Sports",
    (
        "The Northern Coast League, the top division of Aldmark football, has twelve clubs, and its champions qualify for the continental cup.",
        "The Harbor City Gulls are the league's most successful club, with eleven titles.",
        "Kestrel Bay FC, promoted in 2016, have become the Gulls' main rivals under coach Mette Lindahl.",
        "The league season runs from August to May, with a break in December and January.",
        "Gull Park, the Gulls' stadium on the Harbor City waterfront, holds about 22,000 spectators.",
        "Most Northern Coast League clubs are owned by their members, although several have private investors.",
        "League matches are played mostly on Saturday and Sunday afternoons.",
    ),
    (
        ep(
            "2019-05-21",
            3,
            [
                "Gulls win Northern Coast League title on final day",
                "Okafor double hands Harbor City the championship",
                "Harbor City Gulls edge Kestrel Bay to the title",
            ],
            [
                "The Harbor City Gulls won the Northern Coast League title on Sunday, beating Ellisford United 2-0 on the final day to finish one point ahead of Kestrel Bay FC.",
                "Two second-half goals from Dani Okafor gave the Harbor City Gulls their eleventh league title on Sunday, ending a three-way race that went to the last afternoon of the season.",
                "Harbor City are champions again. The Gulls beat Ellisford United 2-0 at Gull Park on Sunday while Kestrel Bay FC could only draw, handing the title to the club from the harbour for the first time since 2015.",
            ],
            [
                "Kestrel Bay drew 1-1 with Redmoor Rangers and finished second on 71 points, one behind the Gulls.",
                "Okafor finished the season with 19 goals, second in the scoring charts.",
                "A crowd of 21,400 filled Gull Park, a record for the stadium.",
                "The Gulls qualify for the qualifying rounds of the continental cup, which begin in July.",
                "Ellisford United finished ninth, comfortably clear of relegation.",
            ],
            [
                (
                    ESTEVEZ,
                    "Nobody gave us a chance in October. This group of players refused to listen.",
                ),
                (
                    BRANDT,
                    "One point over a whole season. It will hurt for a while, and then it will drive us.",
                ),
                (
                    MCALLEN,
                    "This was the closest title race we have seen in a decade, and it was good for the whole league.",
                ),
            ],
            ["The continental cup draw for the first qualifying round takes place on June 18."],
            "the Harbor City Gulls won the title on the final day, one point ahead of Kestrel Bay FC",
        ),
        ep(
            "2019-09-10",
            1,
            ["Kestrel Bay sign striker Tomasz Wren for club record fee"],
            [
                "Kestrel Bay FC have signed the striker Tomasz Wren from Greyhaven Athletic for a club record fee of 2.3 million crowns, the club said on {wd}."
            ],
            [
                "Wren, 24, scored 14 goals for Greyhaven last season and has signed a four-year contract.",
                "The fee beats the previous club record of 1.4 million crowns, paid in 2017.",
                "Kestrel Bay have started the season with two wins and a draw.",
                "The transfer was completed hours before the domestic transfer window closed.",
            ],
            [
                (
                    LINDAHL,
                    "We finished one point short last season. Tomasz gives us goals we did not have.",
                ),
                (
                    "Tomasz Wren",
                    "Everyone knows what this club wants to win. That is why I am here.",
                ),
            ],
            ["Wren could make his debut away at Redmoor Rangers on Saturday."],
            "Kestrel Bay FC signed the striker Tomasz Wren for a club record fee",
        ),
        ep(
            "2020-05-12",
            3,
            [
                "Kestrel Bay FC win first Northern Coast League title",
                "Wren's winner seals historic title for Kestrel Bay",
                "Kestrel Bay champions for the first time as Gulls stumble",
            ],
            [
                "Kestrel Bay FC won the Northern Coast League for the first time in their history on Sunday, beating Millbrook Town 1-0 with two matches to spare.",
                "A 78th-minute goal from Tomasz Wren secured Kestrel Bay FC's first league championship on Sunday, four years after the club was promoted to the top division.",
                "The Harbor City Gulls' 3-1 defeat at Greyhaven Athletic on Sunday handed the Northern Coast League title to Kestrel Bay FC, who had beaten Millbrook Town earlier in the afternoon.",
            ],
            [
                "Kestrel Bay have 70 points from 30 matches, eight more than the Gulls with two rounds left.",
                "Wren has 22 goals this season, the most in the league.",
                "The club was promoted to the top division in 2016 and finished second last season, one point behind the Gulls.",
                "Thousands of fans gathered on the seafront in Kestrel Bay on Sunday evening.",
                "Kestrel Bay will play in the continental cup qualifying rounds in July.",
            ],
            [
                (
                    LINDAHL,
                    "Last May we cried on the pitch. This May we are crying for a different reason.",
                ),
                (BRANDT, "This is for everyone who watched this club in the second division."),
                (ESTEVEZ, "Kestrel Bay deserve it. They were the best team over the season."),
            ],
            [
                "The trophy will be presented after Kestrel Bay's final home match, against Redmoor Rangers, on May 24."
            ],
            "Kestrel Bay FC won their first league title",
        ),
        ep(
            "2020-10-20",
            1,
            ["Redmoor Rangers sack coach after five straight defeats"],
            [
                "Redmoor Rangers dismissed their coach, Aksel Thorsen, on {wd} after a fifth consecutive league defeat left the club bottom of the Northern Coast League."
            ],
            [
                "Rangers have one point from their first seven matches and have conceded 19 goals.",
                "Thorsen was appointed in the summer of 2018 on a three-year contract.",
                "Assistant coach Hilde Brun will take charge on an interim basis.",
                "The bottom club is relegated at the end of the season, and the second-bottom club enters a play-off.",
            ],
            [
                (
                    "Rangers chairman Leif Saetre",
                    "We thank Aksel for his work, but the results left us no choice.",
                ),
                (
                    "Hilde Brun",
                    "The players are better than the table says. My job is to prove it quickly.",
                ),
            ],
            ["Rangers play the Harbor City Gulls at home on Saturday."],
            "Redmoor Rangers sacked their coach after five straight defeats",
        ),
        ep(
            "2021-03-23",
            3,
            [
                "Gulls beat Kestrel Bay 3-2 in stormy coast derby",
                "Video review row overshadows Gulls' derby win",
                "Late penalty decides Harbor City v Kestrel Bay thriller",
            ],
            [
                "The Harbor City Gulls beat Kestrel Bay FC 3-2 on Sunday in a derby decided by a disputed 89th-minute penalty, cutting the champions' lead at the top of the Northern Coast League to two points.",
                "A penalty awarded after a video review in the 89th minute gave the Harbor City Gulls a 3-2 win over Kestrel Bay FC on Sunday, and on {wd} Kestrel Bay asked the league to explain the decision.",
                "Kestrel Bay FC have lodged a formal complaint with the Northern Coast League over the penalty that decided Sunday's 3-2 defeat by the Harbor City Gulls, the club said on {wd}.",
            ],
            [
                "Dani Okafor scored the penalty, his second goal of the match, after the referee reviewed a challenge by Ollie Brandt on a pitchside monitor.",
                "Kestrel Bay had led 2-1 at half-time through goals from Tomasz Wren and Brandt.",
                "Kestrel Bay now lead the league by two points with eight rounds to play.",
                "The league introduced video review at the start of this season.",
                "The match was watched by 19,800 spectators at Gull Park.",
            ],
            [
                (
                    LINDAHL,
                    "I have watched it twenty times. It is not a penalty in any league in the world.",
                ),
                (ESTEVEZ, "The referee had the pictures in front of him. I trust the process."),
                (
                    MCALLEN,
                    "We will publish the referee's explanation, as we do in every case where a club asks.",
                ),
            ],
            ["The league's refereeing panel will publish its review of the decision by Friday."],
            "the Gulls beat Kestrel Bay 3-2 in a derby decided by a disputed penalty",
        ),
        ep(
            "2021-11-02",
            1,
            ["Northern Coast League clubs vote for salary cap"],
            [
                "Clubs in the Northern Coast League voted 9 to 3 on {wd} to introduce a salary cap from the 2022-23 season, limiting wage spending to 70 percent of each club's revenue."
            ],
            [
                "Clubs that break the cap will face points deductions after an independent review.",
                "The three clubs that voted against were the Harbor City Gulls, Kestrel Bay FC and Greyhaven Athletic.",
                "Eight clubs reported losses last season, according to the league's financial report.",
                "The players' union said it had not been properly consulted.",
            ],
            [
                (
                    MCALLEN,
                    "Clubs have been spending money they do not have. This protects them from themselves.",
                ),
                (
                    "Rune Aasen, head of the footballers' union",
                    "Players were told about this after the decision was made. That is not how partnership works.",
                ),
            ],
            ["The league will publish the detailed rules by the end of March."],
            "the clubs voted to introduce a salary cap",
        ),
        ep(
            "2022-06-21",
            3,
            [
                "Northern Coast League to expand to 14 clubs",
                "League signs 212 million crown TV deal with Tidewave",
                "Bigger league, bigger deal: Northern Coast League reshapes",
            ],
            [
                "The Northern Coast League will expand from 12 to 14 clubs from the 2023-24 season and has signed a four-year television deal with Tidewave Media worth 212 million crowns, the league said on {wd}.",
                "Aldmark's top football division is growing. The Northern Coast League announced on {wd} that two more clubs will join from 2023, backed by a new broadcast contract that nearly doubles its television income.",
                "Tidewave Media has won the rights to broadcast the Northern Coast League for four seasons from 2023, paying 212 million crowns, the league said on {wd} as it confirmed plans to add two clubs.",
            ],
            [
                "The deal is worth 53 million crowns a season, up from 29 million under the current contract.",
                "Every match will be shown live, either on Tidewave's channels or on its streaming service.",
                "Next season, the top three clubs in the second division will be promoted and only one club relegated.",
                "Smaller clubs will receive a larger share of the money than before, under a formula approved by 10 of the 12 clubs.",
                "The league said attendance rose 11 percent last season to an average of 9,400.",
            ],
            [
                (MCALLEN, "This is the biggest change to the league since it was founded."),
                (
                    "Clara Winther, Tidewave's chief executive",
                    "Football is the one thing people still watch live together. We want all of it.",
                ),
                (
                    LINDAHL,
                    "More teams means more matches against clubs we do not know. That is exciting for the supporters.",
                ),
            ],
            ["The final promotion places will be decided in the play-offs in May next year."],
            "the league announced it would expand to 14 clubs and signed a 212 million crown television deal with Tidewave Media",
        ),
        ep(
            "2023-06-06",
            3,
            [
                "Gulls reclaim title as Okafor breaks scoring record",
                "Harbor City Gulls crowned champions for 12th time",
                "Okafor's 27th goal seals Gulls championship",
            ],
            [
                "The Harbor City Gulls won the Northern Coast League title on Sunday, and Dani Okafor set a league record with his 27th goal of the season in a 3-0 win over Millbrook Town.",
                "Dani Okafor scored twice on Sunday to lift the Harbor City Gulls to their twelfth league title and break a scoring record that had stood since 1988.",
                "For the first time in four years the Northern Coast League trophy is going back to Gull Park, after Harbor City beat Millbrook Town 3-0 on Sunday while Kestrel Bay FC lost at Greyhaven.",
            ],
            [
                "The Gulls finished on 74 points, five ahead of Kestrel Bay FC.",
                "Okafor's 27 goals beat the previous record of 26, set by Harald Vinje in 1988.",
                "It is the Gulls' first title since 2019 and the first season under the league's new salary cap.",
                "Kestrel Bay's defeat at Greyhaven Athletic was their third in the last five matches.",
                "More than 30,000 people attended a parade through Harbor City on Monday.",
            ],
            [
                (ESTEVEZ, "Dani does not just score goals, he makes everyone around him better."),
                ("Dani Okafor", "I will think about the record later. Today is about the title."),
                (BRANDT, "We ran out of legs in the last month. Credit to the Gulls."),
            ],
            ["The Gulls will learn their continental cup opponents in the draw on June 20."],
            "the Harbor City Gulls won the title and Dani Okafor set a scoring record of 27 goals",
        ),
        ep(
            "2024-02-20",
            3,
            [
                "Redmoor Rangers win approval for 18,000-seat stadium",
                "Council backs new Redmoor stadium after long fight",
                "Rangers stadium plan clears final vote, opening set for 2026",
            ],
            [
                "Redmoor's town council on {wd} approved plans for an 18,000-seat stadium for Redmoor Rangers, ending a three-year planning dispute over the site on the edge of the town.",
                "Redmoor Rangers will leave their 92-year-old ground for a new stadium after the town council voted 19 to 8 on {wd} to grant planning permission.",
                "The long argument over a new home for Redmoor Rangers ended on {wd}, when councillors backed the club's 340 million crown stadium plan.",
            ],
            [
                "The stadium will cost about 340 million crowns and will be paid for by the club's owners and a loan from the town.",
                "Rangers currently play at Moor Lane, which holds 7,800 spectators and has not met league safety standards since 2021.",
                "Residents near the new site had objected to the traffic and noise, and the club has agreed to pay for a new road junction.",
                "Construction is due to start in May, with the stadium ready for the start of the 2026-27 season.",
                "The stadium will include a public sports hall and a health clinic.",
            ],
            [
                (
                    "Rangers chairman Leif Saetre",
                    "Our supporters have waited a generation for this night.",
                ),
                (
                    "Councillor Agnes Tveten, who voted against",
                    "I am not against football. I am against putting a stadium where there is no road to reach it.",
                ),
                (MCALLEN, "Modern grounds are how this league grows. Redmoor will set an example."),
            ],
            ["Rangers said they would sign the construction contract by the end of April."],
            "Redmoor's council approved an 18,000-seat stadium for Redmoor Rangers",
        ),
        ep(
            "2024-06-11",
            1,
            ["Okafor leaves Gulls for Valmora in 9 million crown move"],
            [
                "Dani Okafor, the Harbor City Gulls striker who holds the Northern Coast League scoring record, has joined FC Valmora for a fee of 9 million crowns, the Gulls said on {wd}."
            ],
            [
                "The fee is the highest ever received by a Northern Coast League club.",
                "Okafor scored 96 goals in 181 matches for the Gulls over six seasons.",
                "The Gulls finished third this season, eleven points behind champions Kestrel Bay FC.",
                "The club said it would reinvest the money in its squad and youth academy.",
            ],
            [
                (ESTEVEZ, "You cannot replace Dani. You have to build a different team."),
                (
                    "Dani Okafor",
                    "Gull Park will always be home. I leave with two titles and a lot of friends.",
                ),
            ],
            ["The Gulls begin pre-season training on July 8."],
            "the Gulls sold their record scorer Dani Okafor to FC Valmora",
        ),
        ep(
            "2024-11-19",
            3,
            [
                "Kestrel Bay top at the break as Gulls close in",
                "Title race tightens: four points separate leaders",
                "Gulls v Kestrel Bay on November 30 could reshape the title race",
            ],
            [
                "Kestrel Bay FC will go into the international break on top of the Northern Coast League with 28 points from 12 matches, four points ahead of the Harbor City Gulls, after both won on Sunday.",
                "The Northern Coast League title race has narrowed to two clubs, with leaders Kestrel Bay FC four points clear of the Harbor City Gulls ahead of their meeting at Gull Park on November 30.",
                "With a third of the season gone, the defending champions Kestrel Bay FC lead the Harbor City Gulls by four points, and the two meet at Gull Park when the league resumes after the international break.",
            ],
            [
                "Kestrel Bay beat Ellisford United 2-0 on Sunday, while the Gulls won 3-1 at Redmoor Rangers.",
                "Kestrel Bay have conceded only six goals in 12 matches, the fewest in the league.",
                "The Gulls have struggled to score since selling Dani Okafor in June and have 17 goals, compared with 29 at the same point last season.",
                "Greyhaven Athletic are third, seven points behind the leaders.",
                "Kestrel Bay are chasing a third title in five seasons.",
            ],
            [
                (
                    LINDAHL,
                    "Four points is nothing in November. Ask anyone who has led this league.",
                ),
                (
                    ESTEVEZ,
                    "We will see where we stand on November 30. That match matters more than any table.",
                ),
                (
                    BRANDT,
                    "We know how it feels to lose a title by a point. Nobody here is relaxed.",
                ),
            ],
            [
                "The Gulls host Kestrel Bay at Gull Park on Saturday, November 30, when the league resumes."
            ],
            "Kestrel Bay FC led the Harbor City Gulls by four points at the November break",
        ),
        ep(
            "2025-02-04",
            1,
            ["Gulls sack coach Estevez after fourth straight defeat"],
            [
                "The Harbor City Gulls dismissed their coach, Ramon Estevez, on {wd}, after a 2-0 defeat by Greyhaven Athletic on Sunday left the club ten points behind Kestrel Bay FC."
            ],
            [
                "It was the Gulls' fourth league defeat in a row, their worst run since 2012.",
                "Estevez had been in charge since 2017 and won two league titles.",
                "Assistant coach Sanna Berg will take over until the end of the season.",
                "The Gulls lost the first meeting with Kestrel Bay 1-0 at Gull Park on November 30.",
            ],
            [
                (
                    "Gulls chairman Arvid Lunde",
                    "Ramon gave this club its best years in a long time. But four defeats in a row cannot be explained away.",
                ),
                (
                    "Sanna Berg",
                    "There are fourteen matches left. That is enough to turn a season around.",
                ),
            ],
            ["Berg's first match in charge is at home to Redmoor Rangers on Saturday."],
            "the Gulls sacked coach Ramon Estevez after four straight defeats",
        ),
        ep(
            "2025-03-18",
            3,
            [
                "Kestrel Bay beat Gulls 2-1, move seven points clear",
                "Wren double puts Kestrel Bay in sight of the title",
                "Kestrel Bay could be champions by April 26 after derby win",
            ],
            [
                "Kestrel Bay FC beat the Harbor City Gulls 2-1 at home on Sunday to move seven points clear at the top of the Northern Coast League with six rounds to play.",
                "Two goals from Tomasz Wren gave Kestrel Bay FC a 2-1 win over the Harbor City Gulls on Sunday and left the leaders needing eleven points from their last six matches to be sure of the title.",
                "The Harbor City Gulls' revival under interim coach Sanna Berg came to a halt at Kestrel Bay on Sunday, where a 2-1 defeat left them seven points behind the leaders.",
            ],
            [
                "Kestrel Bay have 61 points from 26 matches; the Gulls have 54.",
                "The Gulls had won five of their six matches since Sanna Berg replaced Ramon Estevez in February.",
                "Wren has 19 league goals this season, two fewer than Greyhaven Athletic's Luka Simic.",
                "If results go their way, Kestrel Bay could clinch the title at home to Redmoor Rangers on April 26.",
                "The attendance of 16,200 was a record for Kestrel Bay's Seafront Stadium.",
            ],
            [
                (LINDAHL, "We have done nothing yet. Six finals left."),
                (
                    "Sanna Berg, the Gulls' interim coach",
                    "We lost a battle today. Seven points with six to play is not over.",
                ),
                (
                    "Tomasz Wren",
                    "I have waited five years for another title. I can wait six more weeks.",
                ),
            ],
            [
                "The Gulls will announce by the end of April whether Berg stays on as permanent coach."
            ],
            "Kestrel Bay FC beat the Gulls 2-1 to lead by seven points with six rounds left",
        ),
    ),
)

VOS = "Anneke Vos, head of the Tallow Valley Water Board"
PELL = "Jonah Pell, a grain farmer near Millbrook"
ARO = "Dr. Leena Aro, a hydrologist at Lindenfield University"

DROUGHT = Arc(
    "drought",
    "Environment & Energy",
    (
        "The Tallow River supplies drinking water to about 600,000 people and irrigates most of the farmland in the valley.",
        "The valley's three main reservoirs, Harrow Fell, Oster Dam and Millbrook Lake, hold a combined 190 million cubic metres when full.",
        "The Tallow Valley Water Board manages the reservoirs and sets restrictions on water use when levels fall.",
        "Scientists at Lindenfield University have linked the valley's more frequent dry spells to a shift in winter rainfall patterns.",
        "Farmers in the valley grow mainly wheat, barley and potatoes, and many keep dairy cattle.",
        "The Millbrook aquifer is an underground reserve that the water board keeps for emergencies.",
        "Water use in the valley peaks in July, when gardens, farms and visitors all draw on the same supply.",
    ),
    (
        ep(
            "2019-07-16",
            3,
            [
                "Tallow valley reservoirs fall to 41 percent; hosepipe ban ordered",
                "Water board bans garden hoses as Tallow River drops",
                "Dry summer brings first water restrictions in six years",
            ],
            [
                "The Tallow Valley Water Board on {wd} banned the use of garden hoses and sprinklers for 180,000 households after reservoirs fell to 41 percent of capacity, the lowest July level since 2013.",
                "Reservoirs in the Tallow valley have dropped to 41 percent of capacity, prompting the first water restrictions in six years, the regional water board said on {wd}.",
                "A hosepipe ban will take effect across the Tallow valley on Saturday, the water board announced on {wd}, as weeks of heat and little rain drained the region's reservoirs.",
            ],
            [
                "The ban applies to households in Millbrook, Ellisford and the northern half of the valley, and will be enforced with fines of up to 2,000 crowns.",
                "Rainfall since April has been 46 percent below the long-term average, according to the regional meteorological office.",
                "Farmers who draw water directly from the river have been asked to cut use by 15 percent voluntarily.",
                "Demand for water reached a record 410,000 cubic metres a day during last week's heatwave.",
                "The board said it had no plans to restrict water for businesses for now.",
            ],
            [
                (VOS, "Every litre saved now is a litre we will have in September."),
                (
                    PELL,
                    "We can live with a voluntary cut. A compulsory one in August would finish some farms.",
                ),
                (
                    ARO,
                    "Droughts like this used to come once a generation. We are now seeing them every few years.",
                ),
            ],
            [
                "The board will review the restrictions on September 10, or sooner if heavy rain arrives."
            ],
            "the water board imposed a hosepipe ban with reservoirs at 41 percent",
        ),
        ep(
            "2019-08-20",
            1,
            ["Tallow valley farmers count cost of dry summer"],
            [
                "Grain farmers in the Tallow valley expect harvests to be about a quarter below normal this year after the driest summer in six years, the regional farmers' association said on {wd}."
            ],
            [
                "The association estimates losses of about 140 million crowns across the valley.",
                "Wheat yields on unirrigated land near Millbrook have been especially poor.",
                "Some livestock farmers have started buying hay from other regions, at prices up to 40 percent higher than last year.",
                "The government has been asked to release emergency support, which it has not yet done.",
            ],
            [
                (
                    PELL,
                    "I have farmed here for thirty years and I have rarely seen the soil this dry in August.",
                ),
                (
                    "Marit Aune, chair of the Tallow Valley Farmers' Association",
                    "We are not asking for charity. We are asking for a plan for the next dry year, because there will be one.",
                ),
            ],
            [
                "The agriculture ministry has said it will respond to the request for support by the end of September."
            ],
            "farmers estimated harvest losses of 140 million crowns",
        ),
        ep(
            "2019-09-10",
            3,
            [
                "Rain returns to Tallow valley; hosepipe ban eased",
                "Water board lifts restrictions as reservoirs recover",
                "Tallow reservoirs back above 50 percent after wet fortnight",
            ],
            [
                "The Tallow Valley Water Board on {wd} lifted the hosepipe ban it imposed in July, after two weeks of heavy rain pushed reservoir levels back above half of capacity.",
                "Two weeks of steady rain have ended the summer's water restrictions in the Tallow valley, where reservoirs stood at 52 percent of capacity on {wd}.",
                "Gardeners in the Tallow valley can use their hoses again from Sunday, the regional water board said on {wd}, although it warned that the region's underground water has not yet recovered.",
            ],
            [
                "The ban on hoses and sprinklers, which covered 180,000 households, will end on September 15.",
                "Reservoir levels have risen 11 percentage points since the end of August.",
                "Groundwater levels near Millbrook remain well below normal, the board said.",
                "The board issued 37 fines during the two months of restrictions.",
                "The board said it will study whether the Harrow Fell reservoir could be enlarged.",
            ],
            [
                (
                    VOS,
                    "We were lucky this time. The rain came before we had to restrict businesses.",
                ),
                (
                    ARO,
                    "Reservoirs refill quickly. Aquifers take years, and that is the real warning sign.",
                ),
                (
                    PELL,
                    "The rain is too late for this year's wheat, but it will help the autumn sowing.",
                ),
            ],
            [
                "The board will present options for expanding the valley's storage to its members in 2020."
            ],
            "the hosepipe ban was lifted after heavy rain refilled the reservoirs",
        ),
        ep(
            "2020-09-08",
            1,
            ["Water board orders study on enlarging Harrow Fell reservoir"],
            [
                "The Tallow Valley Water Board has commissioned a study into raising the dam at Harrow Fell, its largest reservoir, by six metres, the board said on {wd}."
            ],
            [
                "Raising the dam would increase the reservoir's capacity by about 35 percent.",
                "The study, costing 4.5 million crowns, will also examine the effect on wildlife and on two farms that would be partly flooded.",
                "The board rejected an alternative plan for a desalination plant on the coast as too expensive to run.",
                "Rainfall this summer was close to normal, and no restrictions were needed.",
            ],
            [
                (
                    VOS,
                    "Last summer showed that we have no margin. This study is about building one.",
                ),
                (
                    "Erling Dahl, whose farm borders the reservoir",
                    "Nobody has yet told me how much of my land would end up under water.",
                ),
            ],
            ["The study is due to report by the end of 2021."],
            "the board commissioned a study on enlarging the Harrow Fell reservoir",
        ),
        ep(
            "2022-08-16",
            3,
            [
                "Tallow valley faces worst drought in 40 years",
                "Reservoirs at 29 percent as water board restricts industry",
                "Emergency pumping begins as Tallow River runs low",
            ],
            [
                "The Tallow valley is in its worst drought in 40 years, the regional water board said on {wd}, as reservoirs fell to 29 percent of capacity and restrictions were extended to factories and farms.",
                "With reservoirs at 29 percent, the Tallow Valley Water Board on {wd} ordered businesses to cut water use by 10 percent and began pumping from the Millbrook aquifer for the first time since 1983.",
                "The Tallow River is running at a third of its normal summer flow, and on {wd} the water board took emergency steps to keep taps running across the valley.",
            ],
            [
                "Households have been under a hosepipe ban since June 20.",
                "Factories and farms that draw more than 5,000 cubic metres a month must cut use by 10 percent from August 22.",
                "Engineers started pumping from the Millbrook aquifer, a reserve meant for emergencies, on Monday.",
                "The farmers' association puts harvest losses at about 230 million crowns.",
                "Rainfall since March has been 58 percent below average.",
                "Fishing on the lower Tallow has been suspended to protect salmon in the warm, shallow water.",
            ],
            [
                (VOS, "We are now in the situation we have planned for and hoped never to see."),
                (
                    ARO,
                    "Forty years ago a drought like this was a freak. In the climate we have now it is a warning of what is normal.",
                ),
                (PELL, "The wheat is gone. Now we are trying to keep the animals fed."),
            ],
            [
                "The board says the restrictions will remain until reservoirs are back above 45 percent, which forecasters do not expect before October."
            ],
            "the valley suffered its worst drought in 40 years, with reservoirs at 29 percent",
        ),
        ep(
            "2022-10-11",
            1,
            ["Emergency aquifer pumping ends as autumn rain arrives"],
            [
                "The Tallow Valley Water Board stopped pumping from the Millbrook aquifer on {wd} after heavy autumn rain lifted reservoir levels to 47 percent of capacity."
            ],
            [
                "Restrictions on businesses were lifted at the same time, although the hosepipe ban remains in force until November 1.",
                "The aquifer supplied about a fifth of the valley's water during the eight weeks of pumping.",
                "Hydrologists will measure how far the aquifer has fallen before deciding when it can be used again.",
                "The board said the Harrow Fell study would be presented to members in January.",
            ],
            [
                (VOS, "The aquifer saved us this summer. Now it needs years to recover."),
                (
                    ARO,
                    "We borrowed water from the future. The question is how long the repayment will take.",
                ),
            ],
            ["The board will vote on the Harrow Fell expansion plan in early 2023."],
            "emergency pumping from the Millbrook aquifer ended after autumn rain",
        ),
        ep(
            "2023-02-07",
            3,
            [
                "Water board approves 420 million crown Harrow Fell expansion",
                "Harrow Fell dam to be raised six metres after drought",
                "Tallow valley to get bigger reservoir, higher water bills",
            ],
            [
                "The Tallow Valley Water Board voted on {wd} to raise the dam at Harrow Fell by six metres, a 420 million crown project meant to stop a repeat of last summer's drought emergency.",
                "Households in the Tallow valley will pay about 6 percent more for water from next year to fund a bigger Harrow Fell reservoir, the water board decided on {wd}.",
                "Six months after the worst drought in four decades, the Tallow Valley Water Board on {wd} approved the largest investment in its history.",
            ],
            [
                "The expansion will increase Harrow Fell's capacity by 35 percent, adding about 24 million cubic metres of storage.",
                "Water bills will rise by about 6 percent from January 2024 to pay for the project.",
                "About 40 hectares of farmland and a stretch of hiking trail will be flooded.",
                "A public consultation on the detailed design will run until May 31.",
                "Construction is expected to start in early 2025 and take three years.",
            ],
            [
                (VOS, "We cannot make it rain. We can make sure we keep more of it when it does."),
                (
                    "Erling Dahl, whose farm borders the reservoir",
                    "I have been offered compensation, but no one can compensate for land my family has farmed since 1880.",
                ),
                (
                    ARO,
                    "Storage is part of the answer. Using less is the other part, and it is cheaper.",
                ),
            ],
            ["The final design will be published after the consultation closes on May 31."],
            "the water board approved a 420 million crown expansion of the Harrow Fell reservoir",
        ),
        ep(
            "2024-07-16",
            1,
            ["Dry spring leaves Tallow reservoirs at 47 percent"],
            [
                "Reservoirs in the Tallow valley stood at 47 percent of capacity on {wd}, well below normal for the time of year after the driest spring since 2022, the regional water board said."
            ],
            [
                "The board has asked households to use water carefully but has not imposed a ban.",
                "Rainfall between March and June was 38 percent below average.",
                "The Millbrook aquifer has recovered only about half of the level it lost in 2022.",
                "Work on the Harrow Fell expansion is due to begin next year.",
            ],
            [
                (VOS, "We are not in a drought yet. We are watching the numbers every day."),
                (ARO, "The aquifer is the worry. It has not had time to recover."),
            ],
            [
                "The board meets on August 5 and could impose restrictions then if there is no significant rain."
            ],
            "a dry spring left reservoirs at 47 percent in July",
        ),
        ep(
            "2024-12-10",
            3,
            [
                "Tallow reservoirs hit record December low of 33 percent",
                "Winter drought grips Tallow valley",
                "Water board warns of restrictions after driest autumn on record",
            ],
            [
                "Reservoirs in the Tallow valley have fallen to 33 percent of capacity, the lowest level ever recorded in December, the regional water board said on {wd}, warning that restrictions could follow in the new year.",
                "The Tallow valley is facing a rare winter drought after the driest autumn on record, with reservoir levels at 33 percent, the water board said on {wd}.",
                "Winter is normally when the Tallow valley's reservoirs refill. This year they are still falling, and on {wd} the water board said it would consider restrictions in January.",
            ],
            [
                "Rainfall from September to November was 61 percent below the long-term average, the driest autumn since records began in 1901.",
                "The previous record low for December, 39 percent, was set in 1976.",
                "The board has asked businesses to draw up plans to cut water use by 10 percent.",
                "The Millbrook aquifer cannot be used, because it has not recovered from the 2022 drought.",
                "Work on the Harrow Fell expansion is due to begin in March, and the reservoir will need to be partly drained for it.",
            ],
            [
                (VOS, "If we do not get a wet January, we will have to act before spring."),
                (
                    ARO,
                    "A winter drought is a different animal. There is no autumn rain left to rescue us.",
                ),
                (
                    PELL,
                    "Everybody worries about water in summer. We are worrying about it at Christmas.",
                ),
            ],
            ["The board will decide on winter restrictions at a meeting on January 13."],
            "reservoirs fell to a record December low of 33 percent",
        ),
        ep(
            "2025-01-14",
            1,
            ["Tallow valley to impose winter water restrictions from February 1"],
            [
                "The Tallow Valley Water Board voted on {wd} to impose water restrictions from February 1, the first winter restrictions in the valley's history, after reservoirs fell to 31 percent."
            ],
            [
                "Households will be barred from using hoses, and businesses that use more than 5,000 cubic metres a month must cut use by 10 percent.",
                "The board also delayed the partial draining of Harrow Fell for the expansion works by two months, to May.",
                "January rainfall so far has been less than half the normal amount.",
                "The restrictions will be reviewed every month.",
            ],
            [
                (
                    VOS,
                    "We do not take this lightly, but the alternative is much harsher measures in the summer.",
                ),
                (
                    "Arne Solheim, who runs a dairy near Ellisford",
                    "A ten percent cut in winter is manageable. I fear what summer will bring.",
                ),
            ],
            ["The board will next review the restrictions at its March 17 meeting."],
            "the water board imposed the valley's first winter water restrictions from February 1",
        ),
        ep(
            "2025-03-18",
            1,
            ["March storms lift Tallow reservoirs to 44 percent"],
            [
                "A series of Atlantic storms in late February and early March has lifted reservoirs in the Tallow valley to 44 percent of capacity, the water board said on {wd}, but it kept water restrictions in place for now."
            ],
            [
                "Levels have risen 13 percentage points in six weeks.",
                "The board said it would lift restrictions only once reservoirs reach 55 percent.",
                "The partial draining of Harrow Fell for the expansion works is now due to start in May.",
                "Business water use fell 12 percent in February, more than the 10 percent required.",
            ],
            [
                (
                    VOS,
                    "The storms helped, but we are still well below where we should be in March.",
                ),
                (ARO, "One wet month does not end a drought that built up over a year."),
            ],
            ["The board will review the restrictions again on April 22."],
            "March storms lifted reservoirs to 44 percent",
        ),
    ),
)

INGSTAD = "Rolf Ingstad, chief executive of Nordhavn Energy"
AUNE = "Sigrid Aune, the energy minister"

WIND = Arc(
    "wind",
    "Environment & Energy",
    (
        "Saltmere Bank is a shallow sandbank about 40 kilometres off the coast of Greyhaven.",
        "Aldmark aims to produce 70 percent of its electricity from renewable sources by 2030.",
        "Nordhavn Energy, the former state power company, was partly privatised in 2008 and remains 51 percent owned by the government.",
        "Fishing crews from Greyhaven have long used Saltmere Bank for cod and plaice.",
        "Offshore wind farms in the North Sea typically take five to six years from licence to full operation.",
        "Aldmark's electricity still comes mostly from hydropower, with wind making up a growing share.",
        "The sandbank lies in water between 15 and 30 metres deep.",
    ),
    (
        ep(
            "2020-01-21",
            3,
            [
                "Nordhavn Energy wins licence for Saltmere Bank wind farm",
                "Aldmark's largest wind farm to be built off Greyhaven",
                "900-megawatt Saltmere Bank project gets go-ahead",
            ],
            [
                "Nordhavn Energy has won the licence to build a 900-megawatt offshore wind farm on Saltmere Bank, the energy ministry said on {wd}, in what would be the largest renewable energy project in Aldmark's history.",
                "The government on {wd} awarded Nordhavn Energy the right to build 60 wind turbines on Saltmere Bank, off the coast of Greyhaven.",
                "A wind farm big enough to power about 900,000 homes will be built off Greyhaven after Nordhavn Energy beat two rivals for the Saltmere Bank licence, the energy ministry announced on {wd}.",
            ],
            [
                "The project, estimated to cost 29 billion crowns, would use 60 turbines of 15 megawatts each.",
                "Nordhavn beat bids from two international consortia, offering the lowest guaranteed power price.",
                "The company expects to make a final investment decision in 2021 and to deliver first power in 2024.",
                "The fishing industry has asked for compensation for lost access to Saltmere Bank.",
                "About 1,000 jobs are expected during construction, many at the port of Greyhaven.",
            ],
            [
                (AUNE, "This is the single biggest step we have taken towards our 2030 target."),
                (
                    INGSTAD,
                    "Saltmere Bank has some of the best wind in northern Europe, in water shallow enough to build in cheaply.",
                ),
                (
                    "Per Moe, chairman of the Greyhaven Fishermen's Association",
                    "Our members were fishing that bank before anyone had heard of wind turbines. We want a fair deal.",
                ),
            ],
            [
                "Nordhavn expects to choose a turbine supplier and take its final investment decision by the end of 2021."
            ],
            "Nordhavn Energy won the licence for the 900-megawatt Saltmere Bank wind farm",
        ),
        ep(
            "2021-09-14",
            3,
            [
                "Nordhavn commits 29 billion crowns to Saltmere Bank",
                "Final go-ahead for Saltmere Bank wind farm",
                "Vestrand to supply turbines for Aldmark's biggest wind farm",
            ],
            [
                "Nordhavn Energy took its final investment decision on the Saltmere Bank offshore wind farm on {wd}, committing 29 billion crowns and choosing Vestrand to supply the turbines.",
                "The Saltmere Bank wind farm will be built, Nordhavn Energy said on {wd}, after its board approved the 29 billion crown investment.",
                "Turbine maker Vestrand has won the contract to supply 60 machines for the Saltmere Bank wind farm, whose owner, Nordhavn Energy, gave the project a final green light on {wd}.",
            ],
            [
                "The 60 turbines will be assembled at the port of Greyhaven, where 350 million crowns is being spent on a new quay.",
                "Offshore construction will begin in the spring of 2023.",
                "Nordhavn agreed to pay 180 million crowns over ten years into a fund for the Greyhaven fishing fleet.",
                "The first turbines are expected to produce power in the second half of 2024.",
                "Nordhavn's shares rose 3 percent after the announcement.",
            ],
            [
                (INGSTAD, "This is the moment the drawings become steel."),
                (
                    "Per Moe, chairman of the Greyhaven Fishermen's Association",
                    "The fund is not everything we asked for, but it is a fair start.",
                ),
                (AUNE, "Saltmere Bank will produce about a tenth of the country's electricity."),
            ],
            ["Work on the new quay in Greyhaven starts in November."],
            "Nordhavn took the final investment decision and chose Vestrand turbines",
        ),
        ep(
            "2022-11-29",
            1,
            ["Export cable for Saltmere Bank wind farm approved"],
            [
                "The national grid operator on {wd} approved the route of the export cable that will bring power from the Saltmere Bank wind farm ashore at Greyhaven."
            ],
            [
                "The 52-kilometre cable will come ashore north of Greyhaven harbour and connect to a new substation inland.",
                "The route avoids a protected seal colony, which had been a concern for environmental groups.",
                "Cable laying is scheduled for the summer of 2023.",
                "The substation will cost about 1.1 billion crowns.",
            ],
            [
                (
                    INGSTAD,
                    "With the grid connection settled, every major permit for Saltmere Bank is in place.",
                ),
                (
                    "Kari Sunde of the Coastal Nature Trust",
                    "We are pleased the seals were listened to.",
                ),
            ],
            ["The first turbine foundation is due to be installed in the spring of 2023."],
            "the grid operator approved the export cable route",
        ),
        ep(
            "2023-10-17",
            3,
            [
                "First turbine stands on Saltmere Bank",
                "Saltmere Bank wind farm installs first of 60 turbines",
                "Giant turbine rises off Greyhaven as wind farm takes shape",
            ],
            [
                "The first of 60 turbines at the Saltmere Bank offshore wind farm was installed on {wd}, Nordhavn Energy said, keeping Aldmark's largest renewable project on course to deliver power next year.",
                "A 15-megawatt turbine with blades 115 metres long now stands on Saltmere Bank, the first of 60 that Nordhavn Energy will install there by the end of next year, the company said on {wd}.",
                "Installation of turbines at the Saltmere Bank wind farm began on {wd}, when a specialist vessel lifted the first nacelle onto its tower 40 kilometres off Greyhaven.",
            ],
            [
                "All 60 foundations have been installed, and the export cable was laid in the summer.",
                "The installation vessel can put up about two turbines a week in good weather.",
                "Nordhavn said the project remains within its 29 billion crown budget.",
                "The company expects first power in the autumn of 2024 and full operation in 2025.",
                "About 1,150 people work on the project, 400 of them at the port of Greyhaven.",
            ],
            [
                (
                    INGSTAD,
                    "From the shore it looks small. Up close, each of these machines is taller than anything in the country.",
                ),
                (
                    "Anja Lie, who manages the Greyhaven assembly quay",
                    "We have built a new industry in this port in two years.",
                ),
                (AUNE, "This is what the energy transition looks like when it works."),
            ],
            ["Installation will pause for the worst of the winter weather and resume in March."],
            "the first of the 60 turbines was installed",
        ),
        ep(
            "2024-10-08",
            3,
            [
                "Saltmere Bank wind farm delivers first power",
                "First electricity flows from Saltmere Bank turbines",
                "Nordhavn's offshore wind farm starts supplying the grid",
            ],
            [
                "The Saltmere Bank offshore wind farm delivered its first electricity to the grid on {wd}, Nordhavn Energy said, with 24 of its 60 turbines now producing power.",
                "Electricity from Saltmere Bank reached the Aldmark grid for the first time on {wd}, a milestone for a wind farm that will eventually supply about a tenth of the country's power.",
                "Nordhavn Energy said on {wd} that the Saltmere Bank wind farm had started commercial operation of its first turbines and that the full project will be running by the middle of 2025.",
            ],
            [
                "The 24 turbines in operation have a combined capacity of 360 megawatts.",
                "The remaining 36 turbines will be installed by the spring, with full operation expected by July 2025.",
                "The project remains within its 29 billion crown budget, Nordhavn said.",
                "Wholesale power prices in Aldmark fell about 4 percent on windy days last month, which analysts partly attributed to the new supply.",
                "The Greyhaven fishermen's fund has paid out 18 million crowns so far.",
            ],
            [
                (
                    INGSTAD,
                    "Five years ago this was a licence on a map. Today it is lighting homes.",
                ),
                (AUNE, "Saltmere Bank shows we can build big and build on budget."),
                (
                    "Lise Holberg, an energy analyst at Nordvik Bank",
                    "Once the full farm is running, you will see it in prices on windy days across the whole country.",
                ),
            ],
            [
                "Nordhavn expects to complete the last turbine by April and reach full output by July 2025."
            ],
            "Saltmere Bank delivered its first power with 24 turbines in operation",
        ),
        ep(
            "2025-02-25",
            3,
            [
                "Storm Ingrid damages two Saltmere Bank turbines",
                "Saltmere Bank wind farm cuts output after storm damage",
                "Nordhavn says wind farm still on track despite storm",
            ],
            [
                "Two turbines at the Saltmere Bank wind farm were damaged when Storm Ingrid swept across the coast at the weekend, Nordhavn Energy said on {wd}, but the company still expects full operation by July.",
                "Storm Ingrid has knocked two of Saltmere Bank's turbines out of action, Nordhavn Energy said on {wd}, after winds of up to 150 kilometres an hour hit the offshore site.",
                "Nordhavn Energy said on {wd} that a blade failure and a damaged nacelle had taken two Saltmere Bank turbines offline after Storm Ingrid.",
            ],
            [
                "One turbine lost part of a blade and another suffered damage to its nacelle, the housing that holds the generator.",
                "No one was injured, and the rest of the wind farm shut down automatically during the storm and restarted on Monday.",
                "Repairs will take about six weeks and require a specialist vessel that is now working off Scotland.",
                "Forty-eight of the 60 turbines are now installed, and 46 are producing power.",
                "Vestrand, the turbine maker, is investigating the blade failure.",
            ],
            [
                (
                    INGSTAD,
                    "Offshore wind is built for storms. When something fails, we need to understand why.",
                ),
                (
                    "Tor Vestby, a spokesman for Vestrand",
                    "We are treating the blade failure very seriously and will share our findings with Nordhavn.",
                ),
                (
                    "Lise Holberg, an energy analyst at Nordvik Bank",
                    "Two turbines out of sixty will not move prices much. A fault that affects the whole fleet would.",
                ),
            ],
            ["Vestrand expects to report the cause of the blade failure by the end of March."],
            "Storm Ingrid damaged two Saltmere Bank turbines",
        ),
    ),
)

OKOYE = "Dr. Samuel Okoye, Brightwell's head of research"
CALDER = "Professor Ruth Calder, an infectious disease specialist at Greyhaven University Hospital"
MHOLT = "Mira Holt, an analyst at Fenwick Partners"
LERCHE = "Dr. Jakob Lerche, who chairs the national vaccination committee"

VACCINE = Arc(
    "vaccine",
    "Healthcare & Biology",
    (
        "Respiratory syncytial virus, or RSV, causes cold-like symptoms in most people but can lead to pneumonia in older adults and infants.",
        "RSV puts about 4,000 older people in Aldmark in hospital each winter, according to the national public health institute.",
        "Brightwell Biologics, based in Lindenfield, employs about 900 people and has never before brought a vaccine to market.",
        "BW-211 uses a stabilised version of a protein on the surface of the virus to train the immune system.",
        "The RSV season in Aldmark usually runs from November to March.",
        "Infants are also at high risk from RSV, but BW-211 is being developed only for adults.",
        "Brightwell was founded in 2004 as a spin-off from Lindenfield University's immunology department.",
    ),
    (
        ep(
            "2019-12-03",
            3,
            [
                "Brightwell RSV vaccine shows promise in mid-stage trial",
                "Brightwell to start large BW-211 trial after positive data",
                "Brightwell shares rise on RSV vaccine results",
            ],
            [
                "Brightwell Biologics said on {wd} that its experimental RSV vaccine, BW-211, produced a strong immune response in a mid-stage trial in older adults, and that it will begin a large final-stage trial next year.",
                "An experimental vaccine against RSV developed by Brightwell Biologics passed a key test on {wd}, when the company reported that it triggered high levels of protective antibodies in people over 60.",
                "Shares in Brightwell Biologics rose 14 percent on {wd} after the company said its RSV vaccine candidate had performed well in a phase 2 trial.",
            ],
            [
                "The phase 2 trial enrolled 620 volunteers aged 60 to 85.",
                "Antibody levels rose about eightfold a month after a single dose.",
                "Side effects were mostly mild, with sore arms and tiredness the most common.",
                "The trial was not designed to show whether the vaccine prevents illness; that will be tested in phase 3.",
                "Brightwell has spent about 620 million crowns developing the vaccine so far.",
            ],
            [
                (
                    OKOYE,
                    "These numbers are what we hoped for when we began this programme six years ago.",
                ),
                (
                    CALDER,
                    "Antibodies are encouraging, but the real test is whether fewer people end up in hospital.",
                ),
                (MHOLT, "If phase 3 works, this could be Brightwell's first blockbuster."),
            ],
            ["Brightwell plans to start the phase 3 trial in the second half of 2020."],
            "a mid-stage trial of the BW-211 RSV vaccine showed a strong immune response",
        ),
        ep(
            "2020-10-20",
            3,
            [
                "Brightwell launches 24,000-person trial of RSV vaccine",
                "Final-stage trial of BW-211 begins in nine countries",
                "Brightwell starts phase 3 test of RSV shot",
            ],
            [
                "Brightwell Biologics has begun the final stage of testing for its RSV vaccine, BW-211, with plans to enrol 24,000 adults over 60 in nine countries, the company said on {wd}.",
                "The first volunteers in a 24,000-person trial of Brightwell Biologics' RSV vaccine received their shots on {wd}, starting the study that will decide whether the vaccine reaches the market.",
                "Brightwell Biologics said on {wd} that it had dosed the first participants in the phase 3 trial of its RSV vaccine, the largest clinical study ever run by an Aldmark company.",
            ],
            [
                "Half of the volunteers will receive the vaccine and half a placebo, and neither they nor their doctors will know which.",
                "The trial will follow participants through at least one RSV season.",
                "Brightwell expects enrolment to be complete by the end of 2021.",
                "The study will cost about 1.4 billion crowns, partly funded by a loan from the national innovation bank.",
                "Sites in Aldmark include Greyhaven University Hospital and Lindenfield General.",
            ],
            [
                (OKOYE, "This trial will give us a clear answer, one way or the other."),
                (
                    CALDER,
                    "This is the right size of study to detect an effect on hospitalisation, which is what matters.",
                ),
                (
                    "Maria Feldt, Brightwell's chief executive",
                    "We have bet the company on this vaccine, and we are comfortable with that bet.",
                ),
            ],
            ["The first results are expected in late 2022."],
            "Brightwell began a 24,000-person phase 3 trial of BW-211",
        ),
        ep(
            "2021-12-14",
            1,
            ["Brightwell completes enrolment in RSV vaccine trial"],
            [
                "Brightwell Biologics has finished enrolling volunteers in the final-stage trial of its RSV vaccine BW-211, with 24,310 participants, the company said on {wd}."
            ],
            [
                "About 38 percent of participants are over 70, a group that is often under-represented in trials.",
                "The trial is running in nine countries on two continents.",
                "Brightwell said no safety concerns had been raised by the independent monitoring board.",
                "The company's shares have fallen 9 percent this year amid concern about competition.",
            ],
            [
                (OKOYE, "We enrolled more of the oldest adults than any RSV trial we know of."),
                (MHOLT, "Enrolment is done on time. Now the market waits for one number."),
            ],
            ["Brightwell expects headline efficacy results in the second half of 2022."],
            "the company completed enrolment of 24,310 trial participants",
        ),
        ep(
            "2022-11-29",
            3,
            [
                "Brightwell's RSV vaccine cuts severe illness by 71 percent",
                "BW-211 succeeds in final-stage trial",
                "Brightwell shares soar 38 percent on vaccine results",
            ],
            [
                "Brightwell Biologics said on {wd} that its RSV vaccine BW-211 reduced severe respiratory illness by 71 percent in a trial of more than 24,000 older adults, clearing the way for an application to regulators.",
                "Shares in Brightwell Biologics soared 38 percent on {wd} after the company said its experimental RSV vaccine had met its main goal in a large final-stage trial.",
                "Brightwell Biologics' RSV vaccine worked, the company said on {wd}: in its phase 3 trial, vaccinated adults over 60 were 71 percent less likely than others to develop severe illness.",
            ],
            [
                "Among those who received a placebo, 86 developed severe RSV illness during the first season, compared with 25 among those vaccinated.",
                "Protection against any RSV illness, including mild cases, was 58 percent.",
                "Serious side effects were equally rare in both groups.",
                "The company said it would file for approval with the Aldmark Medicines Agency in the first half of 2023.",
                "The full results will be presented at a medical conference and submitted to a journal.",
            ],
            [
                (
                    OKOYE,
                    "Seventy-one percent protection against severe disease in people over 60 is the result we designed this trial to find.",
                ),
                (
                    CALDER,
                    "This looks like a real advance. I want to see the data for people over 80 before I get too excited.",
                ),
                (
                    MHOLT,
                    "This transforms Brightwell from a research company into one with a product to sell.",
                ),
            ],
            [
                "Brightwell will present the full results at a conference in Lindenfield in February."
            ],
            "the phase 3 trial showed BW-211 cut severe RSV illness by 71 percent",
        ),
        ep(
            "2023-06-06",
            3,
            [
                "Regulator accepts Brightwell filing for RSV vaccine",
                "Decision on BW-211 expected by early 2024",
                "Brightwell's vaccine enters regulatory review",
            ],
            [
                "The Aldmark Medicines Agency has accepted Brightwell Biologics' application to approve its RSV vaccine BW-211 for adults over 60, with a decision expected by the end of March 2024, the company said on {wd}.",
                "Brightwell Biologics' RSV vaccine is now under formal review by the Aldmark Medicines Agency, the company said on {wd}, starting a process that is expected to last about nine months.",
                "Regulators will decide by March 2024 whether Brightwell Biologics can sell its RSV vaccine, the company said on {wd} after its application was accepted.",
            ],
            [
                "The application covers adults aged 60 and over and is based on the 24,310-person phase 3 trial.",
                "The agency's expert committee is expected to give its opinion in February.",
                "Brightwell has already started building stocks of the vaccine at its plant in Lindenfield, at its own risk.",
                "The company said it could supply 3 million doses in the first year after approval.",
                "Full trial results were published in a medical journal in April.",
            ],
            [
                (OKOYE, "We have submitted the largest data package in our history."),
                (
                    "Maria Feldt, Brightwell's chief executive",
                    "We are manufacturing now so that people can be vaccinated in the first autumn after approval.",
                ),
                (
                    CALDER,
                    "The published data hold up well. The open question is how long protection lasts.",
                ),
            ],
            ["The agency is expected to decide on the application by the end of March 2024."],
            "the medicines agency accepted Brightwell's application for BW-211",
        ),
        ep(
            "2024-02-20",
            3,
            [
                "Brightwell's RSV vaccine approved for over-60s",
                "Regulator clears BW-211, Aldmark's first home-grown vaccine",
                "RSV vaccine to be offered to older adults this autumn",
            ],
            [
                "The Aldmark Medicines Agency on {wd} approved Brightwell Biologics' RSV vaccine BW-211 for adults aged 60 and over, the first vaccine developed in Aldmark to win approval in more than thirty years.",
                "Older adults in Aldmark will be offered a vaccine against RSV from this autumn after regulators approved Brightwell Biologics' BW-211 on {wd}.",
                "Brightwell Biologics won approval for its RSV vaccine on {wd}, five weeks earlier than expected, capping a development programme that began in 2013.",
            ],
            [
                "The approval covers a single dose for adults aged 60 and over.",
                "The national vaccination committee recommended offering the vaccine free to everyone aged 75 and over, and to people aged 60 to 74 with chronic heart or lung disease.",
                "The government has agreed to buy 1.2 million doses at an undisclosed price.",
                "The agency asked Brightwell to run a follow-up study on how long protection lasts.",
                "Brightwell's shares rose 11 percent.",
            ],
            [
                (
                    LERCHE,
                    "We are starting with the people most at risk. We will widen the offer as the evidence grows.",
                ),
                (OKOYE, "Ten years of work, tens of thousands of volunteers, and now a vaccine."),
                (MHOLT, "The government order alone covers Brightwell's costs for the year."),
            ],
            ["Vaccinations will begin in October, ahead of the winter RSV season."],
            "the medicines agency approved BW-211 for adults over 60",
        ),
        ep(
            "2024-10-08",
            1,
            ["RSV vaccinations begin for older adults"],
            [
                "Health centres across Aldmark began giving Brightwell Biologics' RSV vaccine to older adults on {wd}, with about 180,000 appointments booked for the first week."
            ],
            [
                "The vaccine is being offered free to everyone aged 75 and over and to people aged 60 to 74 with chronic heart or lung disease.",
                "About 1.1 million people are eligible under the current recommendation.",
                "Pharmacies in four regions will also give the vaccine from November.",
                "Brightwell said it had delivered the first 600,000 doses.",
            ],
            [
                (
                    "Health Minister Anette Krog",
                    "This is the first winter in which our oldest citizens have this protection.",
                ),
                (
                    LERCHE,
                    "We will watch hospital data closely this winter to see how the vaccine performs outside a trial.",
                ),
            ],
            [
                "The public health institute will publish the first data on hospital admissions in January."
            ],
            "vaccinations with BW-211 began for older adults",
        ),
        ep(
            "2025-01-14",
            3,
            [
                "RSV hospital admissions of older adults fall 38 percent",
                "Early data suggest Brightwell vaccine is working",
                "Committee to consider widening RSV vaccine offer",
            ],
            [
                "Hospital admissions for RSV among people over 75 fell 38 percent this winter compared with last, early figures from the national public health institute showed on {wd}, the first sign that Brightwell Biologics' vaccine is working outside a trial.",
                "Fewer older adults have been taken to hospital with RSV since vaccination with Brightwell Biologics' BW-211 began, according to figures released on {wd}.",
                "The national vaccination committee will meet on March 11 to consider offering the RSV vaccine to more people, after data published on {wd} showed a sharp fall in hospital admissions among the oldest adults.",
            ],
            [
                "Admissions of people over 75 with RSV fell from 1,140 between October and December 2023 to 707 in the same period of 2024.",
                "About 62 percent of those eligible have been vaccinated.",
                "The institute cautioned that RSV seasons vary in severity and that a fuller analysis will take into account other factors.",
                "The committee will consider extending the offer to everyone aged 60 to 74, not only those with chronic illness.",
                "Brightwell's shares rose 6 percent.",
            ],
            [
                (LERCHE, "These are early figures, but they point in the right direction."),
                (
                    CALDER,
                    "A fall of this size is hard to explain by chance alone, though I would want a second season before drawing firm conclusions.",
                ),
                (
                    MHOLT,
                    "A broader recommendation would roughly double the market for the vaccine in Aldmark.",
                ),
            ],
            [
                "The vaccination committee will meet on March 11, and its recommendation is expected within a week of that meeting."
            ],
            "early data showed RSV hospital admissions among over-75s fell 38 percent",
        ),
        ep(
            "2025-03-18",
            3,
            [
                "Committee recommends RSV vaccine for all over-60s",
                "RSV vaccine offer to be widened to 1.4 million more people",
                "Government to decide on wider RSV jab by May 15",
            ],
            [
                "The national vaccination committee on {wd} recommended offering Brightwell Biologics' RSV vaccine to everyone aged 60 and over, widening a programme that has so far been limited to the oldest and sickest.",
                "About 1.4 million more people in Aldmark could be offered an RSV vaccine this autumn after an expert committee backed a broader programme on {wd}.",
                "Everyone aged 60 and over should be offered Brightwell Biologics' RSV vaccine, the national vaccination committee advised on {wd}, leaving the final decision, and the bill, to the government.",
            ],
            [
                "The committee's recommendation would add about 1.4 million people to the 1.1 million already eligible.",
                "It based its advice on the trial data and on this winter's fall in hospital admissions among vaccinated groups.",
                "The health ministry estimates the extra cost at about 900 million crowns a year.",
                "The committee did not recommend a second dose for people vaccinated last autumn, saying more data are needed.",
                "Brightwell said it could supply the extra doses by September.",
            ],
            [
                (LERCHE, "The evidence now supports offering protection to everyone over 60."),
                (
                    "Health Minister Anette Krog",
                    "We will look carefully at the cost and give our answer by May 15.",
                ),
                (
                    MHOLT,
                    "The government has rarely gone against this committee, so Brightwell is likely to get a much bigger order.",
                ),
            ],
            [
                "The government has said it will decide whether to fund the wider programme by May 15."
            ],
            "the vaccination committee recommended offering BW-211 to everyone over 60",
        ),
    ),
)

MARROW = "Elias Marrow, governor of the Aldmark Reserve Bank"
SBRANDT = "Sofia Brandt, chief economist at Nordvik Bank"
EKHOLM = "Per Ekholm, who runs a chain of hardware shops in Aldmark City"
BREKKE = "Lars Brekke, the finance minister"

RATES = Arc(
    "rates",
    "Economics & Business",
    (
        "The Aldmark Reserve Bank targets inflation of 2 percent and sets its main policy rate eight times a year.",
        "About two thirds of Aldmark's mortgages carry variable rates, so changes in the policy rate reach households quickly.",
        "The Aldmark crown is one of the most actively traded small currencies in Europe.",
        "The bank's seven-member board votes on rate decisions, and the votes are published with the minutes two weeks later.",
        "Rate decisions are announced at 10 a.m. and followed by a press conference with the governor.",
        "Aldmark's economy depends heavily on exports of fish, metals, timber and machinery.",
        "Elias Marrow has been governor of the bank since 2016.",
    ),
    (
        ep(
            "2019-07-16",
            1,
            ["Aldmark Reserve Bank holds rate at 1.75 percent"],
            [
                "The Aldmark Reserve Bank kept its main interest rate at 1.75 percent on {wd}, saying that slowing exports had been offset by steady consumer spending."
            ],
            [
                "Inflation was 2.1 percent in June, close to the bank's target.",
                "The board voted 6 to 1 to hold, with one member favouring a cut.",
                "Exports fell 3 percent in the first half of the year.",
                "The bank said it expects growth of 1.6 percent this year.",
            ],
            [
                (MARROW, "The economy is cooling, not stalling. We see no reason to act today."),
                (
                    SBRANDT,
                    "One vote for a cut tells you which way the next move is more likely to go.",
                ),
            ],
            ["The board's next decision is due on September 17."],
            "the central bank held its rate at 1.75 percent",
        ),
        ep(
            "2020-03-17",
            3,
            [
                "Aldmark Reserve Bank cuts rate to 0.75 percent in emergency move",
                "Central bank slashes rates as export orders collapse",
                "Surprise one-point cut from Aldmark Reserve Bank",
            ],
            [
                "The Aldmark Reserve Bank cut its main interest rate by a full percentage point to 0.75 percent on {wd}, an unscheduled move it said was needed to cushion a sudden collapse in export orders.",
                "In its first emergency decision since 2009, the Aldmark Reserve Bank lowered borrowing costs to 0.75 percent on {wd}.",
                "Aldmark's central bank surprised markets on {wd} with a one-point rate cut outside its normal schedule, warning that the economy could shrink this year.",
            ],
            [
                "The bank said new export orders fell 22 percent in February, the steepest drop on record.",
                "The board also announced a 40 billion crown programme of cheap loans to banks, on condition that they lend to small businesses.",
                "The crown fell 1.4 percent against the euro after the decision.",
                "The decision was unanimous.",
                "The bank now expects the economy to shrink by between 1 and 3 percent this year.",
            ],
            [
                (
                    MARROW,
                    "When the ground shifts this quickly, waiting for the next scheduled meeting is not an option.",
                ),
                (SBRANDT, "This is a bank telling you it is worried, and it is right to be."),
                (BREKKE, "The government will announce its own support measures within days."),
            ],
            [
                "The government is expected to present a support package for exporters to parliament next week."
            ],
            "the central bank made an emergency cut to 0.75 percent",
        ),
        ep(
            "2021-09-14",
            1,
            ["Central bank holds, signals first rate rise in 2022"],
            [
                "The Aldmark Reserve Bank left its main rate at 0.75 percent on {wd} but said it expects to begin raising borrowing costs in the first half of next year as the recovery gathers pace."
            ],
            [
                "Inflation rose to 3.4 percent in August, the highest since 2011.",
                "The bank raised its growth forecast for this year to 3.9 percent.",
                "Unemployment has fallen back to 4.1 percent.",
                "House prices are up 12 percent from a year earlier.",
            ],
            [
                (MARROW, "The emergency is over. Policy will return towards normal, gradually."),
                (
                    SBRANDT,
                    "The bank has now pre-announced its first hike. March looks like the most likely date.",
                ),
            ],
            ["The board's next decision is due on November 2."],
            "the central bank signalled its first rate rise for 2022",
        ),
        ep(
            "2022-03-08",
            3,
            [
                "Aldmark Reserve Bank raises rates for first time since 2018",
                "Central bank lifts rate to 1.25 percent as inflation hits 5.8 percent",
                "Borrowing costs rise as Aldmark fights inflation",
            ],
            [
                "The Aldmark Reserve Bank raised its main interest rate by half a percentage point to 1.25 percent on {wd}, its first increase since 2018, as inflation climbed to 5.8 percent.",
                "Mortgage holders in Aldmark will pay more after the central bank lifted its policy rate to 1.25 percent on {wd} and signalled further increases this year.",
                "With inflation nearly three times its target, the Aldmark Reserve Bank began raising interest rates on {wd}, moving more quickly than most economists had expected.",
            ],
            [
                "Consumer prices rose 5.8 percent in the year to February, driven by energy and food.",
                "Most economists had expected a smaller increase of a quarter point.",
                "The board voted 5 to 2 for the half-point rise; two members preferred a quarter point.",
                "The bank's forecasts imply a policy rate of about 2.5 percent by the end of the year.",
                "Banks said average variable mortgage rates would rise to about 3.1 percent.",
            ],
            [
                (
                    MARROW,
                    "Inflation is too high and it is spreading. We will do what is needed to bring it down.",
                ),
                (
                    SBRANDT,
                    "A half-point move tells you the bank is more worried about inflation than about growth.",
                ),
                (
                    EKHOLM,
                    "Customers are already putting off big purchases. Higher mortgage bills will not help.",
                ),
            ],
            ["The next rate decision is due on April 26."],
            "the central bank raised rates for the first time since 2018, to 1.25 percent",
        ),
        ep(
            "2023-02-07",
            3,
            [
                "Aldmark Reserve Bank raises rate to 3.75 percent",
                "Central bank hikes again but hints at end of cycle",
                "Inflation eases to 7.9 percent as rates reach 14-year high",
            ],
            [
                "The Aldmark Reserve Bank raised its main interest rate by a quarter point to 3.75 percent on {wd}, the highest level since 2008, but said it might be close to the end of its tightening cycle.",
                "Aldmark's central bank lifted borrowing costs for the seventh time in eleven months on {wd}, to 3.75 percent, while noting that inflation has started to fall.",
                "Interest rates in Aldmark are at a 14-year high after the central bank's quarter-point rise on {wd}, but the governor signalled that the peak may be near.",
            ],
            [
                "Inflation fell to 7.9 percent in December from a peak of 8.6 percent in October.",
                "The decision was unanimous.",
                "The bank said it expects one more rise at most.",
                "House prices have fallen 7 percent from their peak last spring.",
                "Unemployment has edged up to 4.4 percent.",
            ],
            [
                (
                    MARROW,
                    "Inflation has turned, but it is still far too high. We are not declaring victory.",
                ),
                (
                    SBRANDT,
                    "The language has clearly shifted. We think the bank will stop at 4 percent.",
                ),
                (
                    EKHOLM,
                    "Sales of anything bigger than a tin of paint are down a fifth from last year.",
                ),
            ],
            ["The board's next decision is due on March 28."],
            "the central bank raised its rate to 3.75 percent",
        ),
        ep(
            "2023-10-17",
            1,
            ["Central bank holds rate at 4 percent for third meeting"],
            [
                "The Aldmark Reserve Bank kept its main interest rate at 4.00 percent on {wd}, the third meeting in a row without a change, as inflation continued to fall."
            ],
            [
                "Inflation eased to 4.2 percent in September.",
                "The bank said rates would stay at the current level well into 2024.",
                "Growth has stalled, with output flat over the past two quarters.",
                "The crown strengthened slightly after the decision.",
            ],
            [
                (MARROW, "We are on the right path. Cutting too soon would put that at risk."),
                (SBRANDT, "We expect the first cut around the middle of next year."),
            ],
            ["The board's next decision is due on December 12."],
            "the central bank held its rate at 4.00 percent",
        ),
        ep(
            "2024-06-11",
            3,
            [
                "Aldmark Reserve Bank makes first rate cut since 2020",
                "Central bank trims rate to 3.75 percent as inflation cools",
                "Relief for borrowers as Aldmark begins cutting rates",
            ],
            [
                "The Aldmark Reserve Bank cut its main interest rate to 3.75 percent from 4.00 percent on {wd}, its first reduction since the emergency cut of March 2020, after inflation fell to 2.9 percent.",
                "Borrowing costs in Aldmark are coming down. The central bank lowered its policy rate by a quarter point on {wd} and said further cuts are likely this year.",
                "Aldmark's central bank began easing monetary policy on {wd} with a quarter-point cut, saying inflation is now close enough to target to give the economy some relief.",
            ],
            [
                "Inflation was 2.9 percent in May, down from a peak of 8.6 percent in October 2022.",
                "The board voted 6 to 1, with one member preferring to wait.",
                "The bank's forecasts imply two more cuts by the end of the year.",
                "Banks said variable mortgage rates would fall by about 0.2 percentage points from July.",
                "Retail sales have fallen in seven of the past twelve months.",
            ],
            [
                (
                    MARROW,
                    "Inflation is not beaten, but it is under control. That allows us to begin reducing rates with care.",
                ),
                (SBRANDT, "This is the start of a slow easing cycle, not a rush to the exit."),
                (
                    EKHOLM,
                    "It is a small cut, but it is the first good news about rates in two years.",
                ),
            ],
            ["The board's next decision is due on August 20."],
            "the central bank made its first cut since 2020, to 3.75 percent",
        ),
        ep(
            "2024-12-10",
            3,
            [
                "Aldmark Reserve Bank cuts rate to 3.25 percent",
                "Central bank delivers third cut of the year",
                "Aldmark rate cut to 3.25 percent; February move in play",
            ],
            [
                "The Aldmark Reserve Bank cut its main interest rate by a quarter point to 3.25 percent on {wd}, its third reduction this year, and said it could lower borrowing costs again in February.",
                "Aldmark's central bank lowered its policy rate to 3.25 percent on {wd}, citing weak growth and inflation that has fallen to 2.3 percent.",
                "For the third time since June, the Aldmark Reserve Bank has cut interest rates, lowering its main rate to 3.25 percent on {wd}.",
            ],
            [
                "Inflation fell to 2.3 percent in November, its lowest level since early 2021.",
                "The bank cut its forecast for growth next year to 0.9 percent from 1.3 percent.",
                "The board voted 5 to 2; two members favoured a larger half-point cut.",
                "The previous cut, to 3.50 percent, came in October.",
                "The crown weakened 0.6 percent against the euro after the announcement.",
            ],
            [
                (
                    MARROW,
                    "With inflation close to target and growth weak, it is appropriate to keep reducing rates, step by step.",
                ),
                (SBRANDT, "Two votes for a half point means February is very much alive."),
                (BREKKE, "Lower rates will help households, and the budget will help too."),
            ],
            ["The board's next decision is due on February 4."],
            "the central bank cut its rate to 3.25 percent",
        ),
        ep(
            "2025-02-04",
            3,
            [
                "Aldmark Reserve Bank cuts to 3 percent, signals pause",
                "Central bank trims rates again but says it may now wait",
                "Fourth cut in eight months takes Aldmark rate to 3 percent",
            ],
            [
                "The Aldmark Reserve Bank cut its main interest rate to 3.00 percent on {wd}, its fourth reduction since June, but signalled that it may pause at its next meeting to assess the effect.",
                "Aldmark's central bank lowered its policy rate by a quarter point to 3.00 percent on {wd} and said the pace of cuts would slow from here.",
                "Borrowing costs in Aldmark fell to 3 percent on {wd} after another quarter-point cut by the central bank, which warned that a weaker crown could push import prices up.",
            ],
            [
                "Inflation was 2.2 percent in December.",
                "The board voted 6 to 1; one member wanted to hold.",
                "The bank said the crown's recent weakness could raise import prices later this year.",
                "Growth in the fourth quarter was 0.1 percent, according to a first estimate.",
                "Economists polled by Nordvik Bank expect the rate to end the year at 2.50 percent.",
            ],
            [
                (MARROW, "We have come a long way. Now we need to see how the economy responds."),
                (SBRANDT, "The message is a pause in March, with more cuts later in the year."),
                (
                    EKHOLM,
                    "People are starting to ask about kitchens and bathrooms again. It is slow, but it is there.",
                ),
            ],
            ["The board's next decision is due on March 25."],
            "the central bank cut its rate to 3.00 percent and signalled a pause",
        ),
        ep(
            "2025-02-25",
            1,
            ["Aldmark inflation edges up to 2.4 percent in January"],
            [
                "Consumer prices in Aldmark rose 2.4 percent in the year to January, up from 2.2 percent in December, the statistics office said on {wd}, as a weaker crown pushed up the cost of imported goods."
            ],
            [
                "Prices of imported goods rose 3.1 percent, the fastest increase in a year.",
                "Core inflation, which excludes energy and fresh food, was unchanged at 2.6 percent.",
                "The figures were slightly above the 2.3 percent expected by economists.",
                "The central bank cut its main rate to 3.00 percent earlier this month and signalled a pause.",
            ],
            [
                (SBRANDT, "This will confirm the bank's decision to pause in March."),
                (
                    "Anders Lie, a spokesman for the statistics office",
                    "The increase was broad, but mostly in goods that Aldmark imports.",
                ),
            ],
            [
                "The central bank's next rate decision is due on March 25, and February inflation figures will be published on March 11."
            ],
            "inflation rose to 2.4 percent in January",
        ),
    ),
)

WHITCOMBE = "Daniel Whitcombe, Lindenfield's provost"
MOEN = "Harald Moen, the president of Lindenfield University"

UNIVERSITY = Arc(
    "university",
    "Education & Research",
    (
        "Lindenfield University, founded in 1871, is Aldmark's second-oldest university and has about 18,000 students.",
        "Public funding covers about 55 percent of Lindenfield's budget, with tuition and research grants making up most of the rest.",
        "Lindenfield is known for its engineering and environmental science departments.",
        "Lindenfield's campus sits on the northern bank of the Tallow River.",
        "About a tenth of Lindenfield's students come from outside Aldmark.",
        "The university is the largest employer in the city of Lindenfield.",
    ),
    (
        ep(
            "2020-01-21",
            1,
            ["Lindenfield University sets out ten-year plan to grow research"],
            [
                "Lindenfield University on {wd} published a ten-year plan that aims to double its research income and add 2,000 students by 2030."
            ],
            [
                "The plan calls for new buildings for engineering and environmental science.",
                "The university wants to raise 400 million crowns from donors over the decade.",
                "Student numbers would rise to about 20,000.",
                "The plan will be paid for partly by higher tuition, the university said, without giving figures.",
            ],
            [
                (
                    MOEN,
                    "We want Lindenfield to be the university people think of first when they think about climate and water.",
                ),
                (
                    "Amara Jensen, president of the student union",
                    "Students want to know what higher tuition means before we applaud the plan.",
                ),
            ],
            ["The board will set next year's tuition in September."],
            "the university published a ten-year plan to double its research income",
        ),
        ep(
            "2020-09-08",
            3,
            [
                "Lindenfield University raises tuition 6 percent",
                "Students walk out as Lindenfield approves fee rise",
                "Lindenfield fee increase draws protest from students",
            ],
            [
                "Lindenfield University's governing board voted on {wd} to raise tuition by 6 percent next academic year, prompting hundreds of students to walk out of classes.",
                "Hundreds of students walked out of lectures at Lindenfield University on {wd} after the governing board approved a 6 percent increase in tuition.",
                "Tuition at Lindenfield University will rise 6 percent from next autumn, the board decided on {wd}, in a vote that drew a noisy protest outside the administration building.",
            ],
            [
                "Annual tuition for Aldmark students will rise to 41,300 crowns.",
                "The board said the increase was needed to cover rising energy costs and a 3 percent cut in state funding.",
                "Financial aid will be increased for students from families earning less than 400,000 crowns a year.",
                "The student union estimated that about 600 students took part in the walkout.",
                "The board vote was 9 to 4, with both student representatives voting against.",
            ],
            [
                (
                    WHITCOMBE,
                    "No one on the board takes this decision lightly, but we have to keep the lights on.",
                ),
                (
                    "Amara Jensen, president of the student union",
                    "Students are being asked to pay for decisions they had no say in.",
                ),
                (MOEN, "We have protected the students who need it most."),
            ],
            [
                "The student union said it would take its case to the regional parliament's education committee, which meets on October 6."
            ],
            "the university raised tuition 6 percent, prompting a student walkout",
        ),
        ep(
            "2021-03-23",
            1,
            ["Lindenfield applications reach record 31,000"],
            [
                "Lindenfield University received a record 31,000 applications for places starting this autumn, up 14 percent from last year, the university said on {wd}."
            ],
            [
                "Applications for engineering courses rose 22 percent.",
                "The university has about 5,200 first-year places.",
                "Applications from outside Aldmark rose 9 percent.",
                "Admission decisions will be sent out in late May.",
            ],
            [
                (
                    WHITCOMBE,
                    "Despite the fee increase, more young people want to study here than ever.",
                ),
                (
                    "Noor Haddad, a student union officer",
                    "Demand is high, which is exactly why the university should not need to raise fees again.",
                ),
            ],
            ["Offers will be sent to applicants by May 28."],
            "the university received a record 31,000 applications",
        ),
        ep(
            "2021-11-02",
            3,
            [
                "Lindenfield wins 85 million crown grant for river observatory",
                "Tallow River Observatory to be built at Lindenfield",
                "Lindenfield University lands biggest research grant in its history",
            ],
            [
                "Lindenfield University has won an 85 million crown grant from the National Research Council to build a laboratory that will monitor the Tallow River and its reservoirs, the university said on {wd}.",
                "The National Research Council on {wd} awarded Lindenfield University 85 million crowns to set up the Tallow River Observatory, the largest single grant in the university's history.",
                "A new research centre studying drought and river systems will open at Lindenfield University in 2023, backed by an 85 million crown grant announced on {wd}.",
            ],
            [
                "The observatory will install 140 sensors along the Tallow River and its tributaries.",
                "It will employ about 40 researchers and technicians.",
                "The grant runs for eight years.",
                "The observatory will share data with the Tallow Valley Water Board in real time.",
                "Construction of the laboratory building is due to begin next spring.",
            ],
            [
                (
                    "Dr. Leena Aro, who will direct the observatory",
                    "For the first time we will be able to see a drought developing day by day, not after the fact.",
                ),
                (
                    MOEN,
                    "This grant puts Lindenfield at the centre of the most important environmental question in this region.",
                ),
                (
                    "Anneke Vos, head of the Tallow Valley Water Board",
                    "Better data means earlier decisions. We are very glad to be a partner.",
                ),
            ],
            ["The observatory is expected to open in the summer of 2023."],
            "the university won an 85 million crown grant for the Tallow River Observatory",
        ),
        ep(
            "2022-01-18",
            3,
            [
                "Lindenfield staff to strike for three days over pensions",
                "Strike at Lindenfield University set for January 24",
                "Lecturers vote to walk out in Lindenfield pension dispute",
            ],
            [
                "Academic staff at Lindenfield University will strike for three days from January 24 in a dispute over changes to their pension scheme, their union said on {wd}.",
                "Lecturers and researchers at Lindenfield University voted by 78 percent to strike over pension cuts, the Academic Staff Union announced on {wd}.",
                "Classes at Lindenfield University face disruption next week after staff voted on {wd} to walk out over plans to change their pensions.",
            ],
            [
                "Turnout in the ballot was 64 percent, and 78 percent of those voting backed a strike.",
                "The university wants to move new staff from a final-salary scheme to one based on contributions.",
                "About 1,900 staff are members of the union.",
                "The university says the pension scheme has a deficit of 210 million crowns.",
                "Exams scheduled for the strike days will be moved, the university said.",
            ],
            [
                (
                    "Kristin Falk, the union's branch secretary",
                    "Nobody wants to strike in exam season. The university left us no choice.",
                ),
                (
                    WHITCOMBE,
                    "We remain open to talks at any time, but the deficit will not go away by itself.",
                ),
                (
                    "Noor Haddad, a student union officer",
                    "Students support the staff, but we also need to know our exams will happen.",
                ),
            ],
            ["Talks between the university and the union are scheduled for Thursday."],
            "staff voted to strike for three days over pension changes",
        ),
        ep(
            "2023-08-29",
            1,
            ["Tallow River Observatory opens at Lindenfield"],
            [
                "The Tallow River Observatory, a research centre monitoring drought and river health, opened at Lindenfield University on {wd}, a year after the region's worst drought in four decades."
            ],
            [
                "The observatory's 140 sensors along the river are now sending data every ten minutes.",
                "The centre employs 38 researchers and technicians.",
                "Its data are shared in real time with the Tallow Valley Water Board.",
                "The building cost 31 million crowns of the 85 million crown grant.",
            ],
            [
                (
                    "Dr. Leena Aro, the observatory's director",
                    "Last summer we saw how little warning we had. This gives us a lot more.",
                ),
                (MOEN, "This is the kind of research that changes decisions, not just journals."),
            ],
            [
                "The observatory will publish its first annual report on the state of the river in the spring."
            ],
            "the Tallow River Observatory opened",
        ),
        ep(
            "2024-01-16",
            3,
            [
                "Lindenfield University to cut 140 jobs",
                "Budget gap of 38 million crowns forces Lindenfield cuts",
                "Lindenfield job cuts spark anger among staff and students",
            ],
            [
                "Lindenfield University plans to cut about 140 jobs to close a budget gap of 38 million crowns, the university said on {wd}, blaming higher energy costs, a fall in international students and frozen state funding.",
                "About 140 jobs will go at Lindenfield University under a savings plan presented to staff on {wd}.",
                "Lindenfield University on {wd} set out plans to close two small departments and cut about 140 posts, prompting the staff union to threaten industrial action.",
            ],
            [
                "The cuts would affect about 90 academic and 50 administrative posts.",
                "The departments of classics and of film studies would be merged into larger schools.",
                "International student enrolment fell 18 percent this academic year.",
                "The university hopes most of the cuts can be made through voluntary departures.",
                "The plan must be approved by the university senate.",
            ],
            [
                (
                    WHITCOMBE,
                    "These are painful decisions, and we have looked at every alternative.",
                ),
                (
                    "Kristin Falk of the Academic Staff Union",
                    "Cutting teaching staff while student numbers hold up is a false economy.",
                ),
                (
                    "Noor Haddad, president of the student union",
                    "Students were promised a ten-year plan for growth. Now they are getting cuts.",
                ),
            ],
            ["The senate will vote on the plan on February 6."],
            "the university announced plans to cut about 140 jobs",
        ),
        ep(
            "2024-11-19",
            1,
            ["Lindenfield University names Ines Vallmark as president"],
            [
                "Lindenfield University on {wd} named Dr. Ines Vallmark, a marine biologist and currently vice-rector of Greyhaven University, as its next president, succeeding Harald Moen in January."
            ],
            [
                "Vallmark, 52, will take office on January 6.",
                "Moen, who has led the university since 2013, announced in the spring that he would step down.",
                "The appointment follows a year in which the university cut about 120 jobs, fewer than the 140 first proposed.",
                "Vallmark led Greyhaven's fundraising campaign, which raised 280 million crowns.",
            ],
            [
                (
                    "Dr. Ines Vallmark",
                    "Lindenfield has had a hard year. My first job is to listen.",
                ),
                (
                    "Board chair Gudrun Lie",
                    "We were looking for someone who can rebuild trust and raise money, and she has done both.",
                ),
            ],
            ["Vallmark has said she will present her priorities to staff and students in March."],
            "the university named Ines Vallmark as its next president",
        ),
    ),
)

VELL = "Hanna Vell, the festival director"
MOLLER = "Isak Moller, the Greyhaven Museum's curator"

ARTS = Arc(
    "arts",
    "Arts & Recreation",
    (
        "The Marrowgate Film Festival, founded in 1986, is held every September and is the largest film festival in Aldmark.",
        "Its top award, the Golden Gull, goes to a feature film chosen by an international jury.",
        "The Greyhaven Museum's maritime collection is among the largest in northern Europe, with more than 12,000 objects.",
        "Marrowgate, a city of about 90,000 people, fills its hotels during the festival.",
        "Greyhaven, a fishing town on the west coast, has been a port for more than 800 years.",
        "The Greyhaven Museum was founded in 1888 by a group of ship owners.",
    ),
    (
        ep(
            "2019-09-10",
            3,
            [
                "Lina Castell wins Golden Gull for 'Salt and Thread'",
                "Fishing drama takes top prize at Marrowgate",
                "Marrowgate festival closes with record audiences and a local winner",
            ],
            [
                "Lina Castell's drama about a fishing family, 'Salt and Thread', won the Golden Gull at the Marrowgate Film Festival on Sunday, the first time in nine years that the top prize has gone to an Aldmark director.",
                "The Marrowgate Film Festival ended on Sunday with the Golden Gull awarded to 'Salt and Thread', Lina Castell's second feature, and a record 64,000 tickets sold.",
                "An Aldmark film about a family of net-menders won the Marrowgate Film Festival's top award on Sunday, and on {wd} distributors were competing for the rights.",
            ],
            [
                "The jury, chaired by the actor Benedikt Sorensen, chose the film from 18 titles in the main competition.",
                "The festival sold 64,000 tickets, up 9 percent from last year.",
                "'Salt and Thread' was shot in Greyhaven with a cast that included several non-professional actors from the town.",
                "The audience award went to 'The Long Ferry', a documentary about an island community.",
                "Castell's first film, 'Low Tide', was shown in the festival's debut section in 2015.",
            ],
            [
                (
                    "Lina Castell",
                    "I made this film for my grandmother, who mended nets on the same quay.",
                ),
                (
                    VELL,
                    "People have come back to the cinema, and they want stories that feel close to home.",
                ),
                (
                    "Benedikt Sorensen, the jury chair",
                    "It was the film that none of us could stop talking about.",
                ),
            ],
            ["'Salt and Thread' opens in cinemas across Aldmark on October 18."],
            "Lina Castell's 'Salt and Thread' won the Golden Gull at Marrowgate",
        ),
        ep(
            "2020-12-08",
            3,
            [
                "Greyhaven Museum reopens maritime gallery after restoration",
                "Ship models back on show as Greyhaven gallery reopens",
                "Restored maritime hall opens at Greyhaven Museum",
            ],
            [
                "The Greyhaven Museum reopened its maritime gallery on {wd} after a two-year, 46 million crown restoration that repaired the 19th-century hall and reorganised its collection of ship models.",
                "After two years behind scaffolding, the Greyhaven Museum's maritime gallery opened to the public again on {wd}, with 420 ship models and a new display on the town's fishing families.",
                "Visitors queued around the block on {wd} as the Greyhaven Museum reopened the maritime gallery that has been closed since 2018.",
            ],
            [
                "The restoration cost 46 million crowns, 30 million of it from private donors.",
                "The gallery displays 420 ship models, some more than two centuries old.",
                "A new room tells the story of Greyhaven's fishing families through photographs and recorded interviews.",
                "The museum expects 150,000 visitors in the first year.",
                "Admission to the gallery will be free on Sundays.",
            ],
            [
                (
                    MOLLER,
                    "These models are the closest thing we have to a photograph of the old harbour.",
                ),
                ("Greyhaven's mayor, Olav Rud", "The museum is the heart of this town's memory."),
                (
                    "Lina Castell, the film director who grew up in Greyhaven",
                    "I spent my childhood in this hall. It is good to see it look after itself again.",
                ),
            ],
            [
                "The museum will launch a search for lost models from the collection in the new year."
            ],
            "the Greyhaven Museum reopened its maritime gallery after a 46 million crown restoration",
        ),
        ep(
            "2021-07-06",
            1,
            ["Marrowgate Film Festival moves to new Lantern Hall venue"],
            [
                "The Marrowgate Film Festival will move its main screenings to the newly built Lantern Hall from this September, organisers said on {wd}, almost doubling the capacity of its largest auditorium."
            ],
            [
                "Lantern Hall's main auditorium seats 1,600, compared with 850 at the old Palace Cinema.",
                "The building, on the Marrowgate waterfront, cost 410 million crowns.",
                "The Palace Cinema will continue to host the festival's documentary section.",
                "This year's festival runs from September 9 to 19.",
            ],
            [
                (VELL, "For the first time, we can give our gala screenings the room they need."),
                (
                    "Theo Lind, who has attended every festival since 1986",
                    "The Palace has a soul. I hope they bring some of it to the new hall.",
                ),
            ],
            ["The competition line-up will be announced on August 10."],
            "the festival moved its main screenings to the new Lantern Hall",
        ),
        ep(
            "2022-09-13",
            1,
            ["Marrowgate festival sells record 81,000 tickets"],
            [
                "The Marrowgate Film Festival sold a record 81,000 tickets this year, organisers said on {wd}, as the festival's second edition at the Lantern Hall drew audiences from across northern Europe."
            ],
            [
                "Ticket sales rose 14 percent from last year.",
                "The Golden Gull went to 'Winter Orchard', a drama by the Danish director Sofie Krag.",
                "About 18 percent of ticket buyers came from outside Aldmark.",
                "Hotels in Marrowgate reported occupancy of 94 percent during the festival.",
            ],
            [
                (VELL, "Moving to the Lantern Hall was a risk. The audience has answered it."),
                (
                    "Marrowgate mayor Kjell Ostby",
                    "The festival is now worth as much to this town as a large factory.",
                ),
            ],
            ["Next year's festival will run from September 8 to 17."],
            "the festival sold a record 81,000 tickets",
        ),
        ep(
            "2024-10-08",
            3,
            [
                "Debut director Tobias Rinne wins Golden Gull",
                "'The Lighthouse Keeper's Daughter' takes Marrowgate prize",
                "First-time director beats Castell to top Marrowgate award",
            ],
            [
                "Tobias Rinne's first feature, 'The Lighthouse Keeper's Daughter', won the Golden Gull at the Marrowgate Film Festival on Sunday, beating a competition field that included Lina Castell's new film.",
                "A 29-year-old first-time director, Tobias Rinne, took the Marrowgate Film Festival's top prize on Sunday, the youngest winner in the festival's 38-year history.",
                "The Golden Gull went to a debut on Sunday: 'The Lighthouse Keeper's Daughter', by Tobias Rinne, a film shot over two winters on an island off Kestrel Bay.",
            ],
            [
                "Rinne, 29, is the youngest director to win the Golden Gull.",
                "Lina Castell's 'The Quiet Harbour', her first film since 'Salt and Thread' won in 2019, received a special jury mention.",
                "The festival sold 86,000 tickets, another record.",
                "The film was made on a budget of 6 million crowns, about a third of the average for an Aldmark feature.",
                "Rinne previously made short films and music videos.",
            ],
            [
                ("Tobias Rinne", "We had one camera, a small crew and a lot of weather."),
                (
                    "Lina Castell",
                    "I saw his film on the first night and knew it would be hard to beat. He deserves it.",
                ),
                (
                    VELL,
                    "Every few years a debut arrives that makes everyone sit up. This was the year.",
                ),
            ],
            ["'The Lighthouse Keeper's Daughter' opens in Aldmark cinemas on November 15."],
            "Tobias Rinne's debut 'The Lighthouse Keeper's Daughter' won the Golden Gull",
        ),
        ep(
            "2025-02-25",
            3,
            [
                "Greyhaven Museum to raise 18th-century wreck of the Margarethe",
                "Museum plans to lift merchant ship from Kestrel Strait in May",
                "Wreck of the Margarethe to go on display in Greyhaven",
            ],
            [
                "The Greyhaven Museum said on {wd} that it will attempt to raise the wreck of the Margarethe, an 18th-century merchant ship lying in Kestrel Strait, in late May and display it in a new hall by 2028.",
                "Divers and engineers will try to lift a 250-year-old merchant ship from the floor of Kestrel Strait this spring, the Greyhaven Museum announced on {wd}.",
                "The Greyhaven Museum unveiled plans on {wd} to recover the Margarethe, a merchant ship that sank in a storm in 1771, in the most ambitious project in the museum's history.",
            ],
            [
                "The Margarethe sank in 1771 carrying timber and wine and was found by recreational divers in 2016.",
                "The hull lies in 22 metres of water and is about 60 percent intact.",
                "The lift is scheduled for the last week of May, weather permitting, and will take about three days.",
                "The project will cost 36 million crowns, including a conservation tank in which the hull will be kept wet for several years.",
                "A new hall to display the ship is planned to open in 2028.",
            ],
            [
                (
                    MOLLER,
                    "She is the best-preserved ship of her age in these waters. If we wait, the sea will take her.",
                ),
                (
                    "Kaja Nordli, the marine archaeologist leading the dive team",
                    "Raising a wooden hull is a delicate operation. We will only do it if the weather is right.",
                ),
                (
                    "Greyhaven's mayor, Olav Rud",
                    "A town of sailors should be able to see one of its ships.",
                ),
            ],
            [
                "The museum will set the final date for the lift by May 15, depending on the weather forecast."
            ],
            "the Greyhaven Museum announced plans to raise the wreck of the Margarethe",
        ),
    ),
)

HALVIK = "Rune Halvik, the defence minister"
SORVIK = "Rear Admiral Inga Sorvik"
ARONSSON = "Dr. Felix Aronsson, a security researcher at Lindenfield University"
HEDMAN = "Karl Hedman, chief executive of the Port Velden port authority"

SECURITY = Arc(
    "security",
    "Security & Defense",
    (
        "Port Velden handles about a third of Aldmark's container traffic.",
        "Kestrel Strait, between the mainland and the island of Skarra, carries power and data cables that link Aldmark to its neighbours.",
        "Aldmark's navy has eight major surface ships, four of which are more than 30 years old.",
        "The national cyber security centre was set up in 2017 and reports to the defence ministry.",
        "The island of Skarra has about 9,000 residents and depends on the mainland for most services.",
        "Kessler Yards in Redmoor has built ships for the navy and for commercial owners since the 1880s.",
        "Attacks on ports and shipping companies have become more frequent across Europe in recent years.",
    ),
    (
        ep(
            "2021-02-09",
            3,
            [
                "Cyberattack halts Port Velden container terminal",
                "Ransomware attack leaves trucks queuing at Port Velden",
                "Port Velden refuses ransom after computer systems hit",
            ],
            [
                "A ransomware attack shut down the computer systems of Port Velden's container terminal on {wd}, leaving hundreds of trucks queuing and ships waiting offshore.",
                "Port Velden's container terminal was brought to a standstill on {wd} by a cyberattack that encrypted its booking and crane-control systems, the port authority said.",
                "The port authority in Port Velden said on {wd} that it would not pay a ransom demanded by hackers who disabled its container terminal's computer systems.",
            ],
            [
                "About 500 trucks were turned away, and seven container ships were held at anchor.",
                "The attackers demanded a payment in cryptocurrency, which the port refused.",
                "The national cyber security centre has sent a team to help restore the systems.",
                "The port said there was no sign that customer data had been stolen, but the investigation was continuing.",
                "Ferries and the port's bulk terminals were not affected.",
            ],
            [
                (
                    HEDMAN,
                    "We refused to pay, and we are rebuilding the systems from clean backups.",
                ),
                (
                    ARONSSON,
                    "Ports run on old software that was never designed to face this kind of threat.",
                ),
                (
                    "Torill Haug, who runs a haulage firm in Port Velden",
                    "My drivers have been sitting in the queue since six this morning.",
                ),
            ],
            [
                "The port expects to resume partial operations within 48 hours and full operations by the end of next week."
            ],
            "a ransomware attack shut down the Port Velden container terminal",
        ),
        ep(
            "2021-03-23",
            1,
            ["Investigators link Port Velden hack to Grey Lantern group"],
            [
                "The national cyber security centre said on {wd} that the ransomware attack that shut down Port Velden's container terminal in February was carried out by a criminal group known as Grey Lantern."
            ],
            [
                "The group gained access through a stolen password for a contractor's account, investigators said.",
                "The terminal was fully back in operation after nine days.",
                "The attack cost the port authority about 38 million crowns, including lost revenue.",
                "Grey Lantern has been linked to at least 40 attacks in Europe since 2019.",
            ],
            [
                (
                    "Mona Eide, director of the national cyber security centre",
                    "This was not a sophisticated attack. It was a basic weakness, exploited by a professional group.",
                ),
                (HEDMAN, "We have changed how every contractor connects to our systems."),
            ],
            [
                "Parliament's defence committee will question the port authority at a hearing on April 14."
            ],
            "investigators linked the port hack to the Grey Lantern group",
        ),
        ep(
            "2022-05-03",
            3,
            [
                "Aldmark orders four frigates from Kessler Yards",
                "Navy to get four new frigates in 3.6 billion crown deal",
                "Kessler Yards wins contract to build Aldmark's next warships",
            ],
            [
                "The government on {wd} ordered four frigates from the shipbuilder Kessler Yards for 3.6 billion crowns, the largest naval contract in Aldmark's history.",
                "Aldmark's navy will replace its oldest warships with four new frigates built at Kessler Yards in Redmoor, the defence ministry said on {wd}.",
                "Kessler Yards has won a 3.6 billion crown contract to build four frigates for the navy, the defence minister announced on {wd}, securing about 1,100 jobs at the Redmoor shipyard.",
            ],
            [
                "The first frigate is due to be launched in late 2024 and to enter service in 2026.",
                "The ships will be equipped for anti-submarine warfare and for protecting undersea infrastructure.",
                "They will replace four ships that entered service between 1987 and 1991.",
                "Kessler Yards beat a foreign shipbuilder that offered a lower price but would have built the hulls abroad.",
                "Parliament approved the funding in March with broad support.",
            ],
            [
                (
                    HALVIK,
                    "Our coastline depends on cables and pipelines that are easy to reach and hard to guard.",
                ),
                (
                    "Jens Kessler, chief executive of Kessler Yards",
                    "We have built ships in Redmoor for 140 years. These will be the most advanced.",
                ),
                (
                    SORVIK,
                    "Some of our ships are older than the sailors who crew them. This changes that.",
                ),
            ],
            ["Steel cutting for the first frigate is scheduled to begin in early 2023."],
            "the government ordered four frigates from Kessler Yards for 3.6 billion crowns",
        ),
        ep(
            "2023-12-12",
            3,
            [
                "Undersea cable damaged in Kestrel Strait; cargo ship detained",
                "Navy investigates damage to Kestrel Strait data cable",
                "Cargo ship held after cable cut off Skarra",
            ],
            [
                "A data cable linking the island of Skarra to the mainland was damaged in Kestrel Strait at the weekend, and the coast guard has detained a cargo ship whose anchor may have been dragged across it, officials said on {wd}.",
                "Police and the navy are investigating damage to an undersea cable in Kestrel Strait, the defence ministry said on {wd}, after a cargo ship was seen moving slowly over the cable route with its anchor down.",
                "The coast guard on {wd} held the cargo ship Marisol Star in Port Velden while investigators examine whether it damaged an undersea data cable in Kestrel Strait.",
            ],
            [
                "The cable carries internet and phone traffic for about 9,000 people on Skarra; services have been switched to a backup link with reduced capacity.",
                "The cargo ship Marisol Star, registered abroad, was escorted to Port Velden on Sunday.",
                "Its crew told investigators the anchor had slipped during a storm.",
                "A second cable, which carries electricity, was not damaged.",
                "Repairs are expected to take several months because a specialist cable ship must be hired.",
            ],
            [
                (
                    HALVIK,
                    "We are not drawing conclusions yet, but we are treating this very seriously.",
                ),
                (
                    ARONSSON,
                    "Anchors do drag by accident. The question investigators will ask is why this anchor, on this night, on this cable.",
                ),
                (
                    "Skarra's mayor, Bodil Aas",
                    "For the island, this is not a security debate. It is whether the school and the doctor can get online.",
                ),
            ],
            [
                "Prosecutors will decide whether to bring charges once the technical investigation is complete, which they expect to take several months."
            ],
            "a data cable in Kestrel Strait was damaged and a cargo ship was detained",
        ),
        ep(
            "2024-06-11",
            1,
            ["Kestrel Strait cable repaired; prosecutors drop case against ship"],
            [
                "The data cable between Skarra and the mainland that was damaged in December has been repaired, and prosecutors said on {wd} that they would not bring charges against the crew of the cargo ship Marisol Star."
            ],
            [
                "Prosecutors said they found no evidence that the damage was deliberate.",
                "The ship's owner has agreed to pay 14 million crowns towards the cost of the repair.",
                "The navy has since increased patrols in the strait.",
                "Skarra residents had relied on a slower backup link for six months.",
            ],
            [
                (
                    "Chief prosecutor Eirik Vang",
                    "The evidence points to negligence in a storm, not sabotage.",
                ),
                (
                    ARONSSON,
                    "The lesson is that one anchor can cut off an island for six months. That is the vulnerability to fix.",
                ),
            ],
            ["The government will present a plan for a second cable to Skarra in the autumn."],
            "the Kestrel Strait cable was repaired and prosecutors found no evidence of sabotage",
        ),
        ep(
            "2024-12-10",
            1,
            ["Defence spending to reach 2.1 percent of GDP under budget deal"],
            [
                "Aldmark's defence spending will rise to 2.1 percent of economic output next year under a budget agreement announced on {wd} by the government and two opposition parties."
            ],
            [
                "The defence budget will increase by 4.2 billion crowns, or 14 percent.",
                "Much of the increase will go to the navy, air defence and the protection of undersea infrastructure.",
                "Money has also been set aside for a second data cable to the island of Skarra.",
                "The first of the navy's four new frigates is due to be launched at Kessler Yards in January.",
            ],
            [
                (
                    HALVIK,
                    "This is the largest increase in a generation, and it is aimed at the threats we actually face.",
                ),
                (
                    "Opposition defence spokesman Stig Hald",
                    "We supported it because the navy cannot wait for the next budget.",
                ),
            ],
            ["Parliament will vote on the budget on December 18."],
            "a budget deal raised defence spending to 2.1 percent of GDP",
        ),
        ep(
            "2025-01-14",
            3,
            [
                "First new frigate launched at Kessler Yards",
                "Navy's ARS Solveig takes to the water in Redmoor",
                "Frigate launch marks start of Aldmark naval renewal",
            ],
            [
                "The first of the Aldmark navy's four new frigates, the ARS Solveig, was launched at Kessler Yards in Redmoor on {wd}, about two months later than planned.",
                "Thousands of shipyard workers and their families watched on {wd} as the frigate ARS Solveig slid into the water at Redmoor, the first of four warships ordered in 2022.",
                "Aldmark's navy moved a step closer to replacing its ageing fleet on {wd}, when the frigate ARS Solveig was launched at the Kessler Yards shipyard.",
            ],
            [
                "The launch was delayed from November by late deliveries of propulsion equipment.",
                "The ship will now be fitted out in the water before sea trials, which are planned for the summer.",
                "Delivery to the navy is scheduled for early 2026.",
                "The second frigate, the ARS Ingrid, is due to be launched in the autumn.",
                "The four frigates are being built under a 3.6 billion crown contract signed in 2022.",
            ],
            [
                (
                    HALVIK,
                    "This ship will guard the cables and pipelines that keep our lights on and our phones working.",
                ),
                (
                    "Jens Kessler, chief executive of Kessler Yards",
                    "Two months late on a first ship of its kind is a good result. The second will be faster.",
                ),
                (SORVIK, "Our sailors have been waiting a long time for a ship like this."),
            ],
            ["Sea trials for the ARS Solveig are planned to begin in July."],
            "the first new frigate, the ARS Solveig, was launched at Kessler Yards",
        ),
    ),
)

HALVORSEN = "Dr. Maren Halvorsen, the institute's director"
TILLER = "Jonas Tiller, a labour economist at Lindenfield University"

SURVEYS = Arc(
    "surveys",
    "Social Sciences",
    (
        "The Halvorsen Institute is an independent social research body founded in 1962 and funded by a private foundation.",
        "Its annual Aldmark Life survey questions a representative sample of adults on work, housing, health and trust.",
        "The institute publishes its questionnaires and anonymised data so that other researchers can check its findings.",
        "The Aldmark Life survey is carried out each autumn, and results are published over the following year.",
        "Survey results are weighted by age, sex and region to match the adult population.",
        "The institute is based in Aldmark City and employs about 60 researchers.",
    ),
    (
        ep(
            "2019-04-09",
            1,
            ["A third of workers commute more than 45 minutes, survey finds"],
            [
                "One in three working adults in Aldmark spends more than 45 minutes getting to work each way, according to the Halvorsen Institute's annual Aldmark Life survey, published on {wd}."
            ],
            [
                "The share has risen from one in four in 2009.",
                "Commutes are longest in the Port Velden region, where the average one-way trip is 41 minutes.",
                "People with long commutes reported lower life satisfaction, even after accounting for income.",
                "The survey questioned 6,200 adults between October and December.",
            ],
            [
                (
                    HALVORSEN,
                    "Time spent travelling to work is time taken from family, rest and sleep, and it is growing.",
                ),
                (
                    TILLER,
                    "Housing costs are pushing people further out. The commute is the price they pay.",
                ),
            ],
            ["The institute will publish the survey's findings on housing in June."],
            "a survey found a third of workers commuted more than 45 minutes each way",
        ),
        ep(
            "2020-05-12",
            3,
            [
                "58 percent want to keep working from home, Halvorsen survey finds",
                "Office workers reluctant to return full time, study shows",
                "Most office staff want at least two days at home each week",
            ],
            [
                "A majority of office workers in Aldmark want to keep working from home at least two days a week, a Halvorsen Institute survey published on {wd} found, with 58 percent saying they would prefer such an arrangement.",
                "Fifty-eight percent of Aldmark's office workers would like to work from home for two or more days a week, according to a survey released by the Halvorsen Institute on {wd}.",
                "Employers hoping for a full return to the office face resistance, a Halvorsen Institute study published on {wd} suggests.",
            ],
            [
                "The survey questioned 3,100 adults who work mainly at a desk.",
                "Only 14 percent said they wanted to return to the office five days a week.",
                "Parents of young children were the most likely to favour working from home.",
                "Two in five said they would consider changing jobs for more flexibility.",
                "The margin of error is plus or minus two percentage points.",
            ],
            [
                (
                    HALVORSEN,
                    "The way people want to work has changed, and employers are still catching up.",
                ),
                (TILLER, "Flexible work is becoming a bargaining chip as important as pay."),
                (
                    "Ragnhild Dahl of the Aldmark Employers' Confederation",
                    "Flexibility is welcome, but teams also need time together. Most firms will look for a middle way.",
                ),
            ],
            [
                "The institute will repeat the survey in the autumn to see whether preferences have shifted."
            ],
            "a survey found 58 percent of office workers wanted to keep working from home",
        ),
        ep(
            "2021-05-18",
            1,
            ["Trust in local government slips to 44 percent"],
            [
                "Trust in local councils in Aldmark has fallen to 44 percent, the lowest level in the 20 years the Halvorsen Institute has asked the question, according to its annual survey published on {wd}."
            ],
            [
                "Trust was lowest among people under 30 and highest among those over 65.",
                "Residents of large cities were less trusting than those in small towns.",
                "Trust in the national parliament was unchanged at 51 percent.",
                "The survey questioned 6,400 adults late last year.",
            ],
            [
                (
                    HALVORSEN,
                    "Councils deliver the services people use every day, and yet they are trusted less than parliament.",
                ),
                (
                    "Olav Rud, the mayor of Greyhaven",
                    "We have to earn trust street by street. A survey reminds us we are not doing enough.",
                ),
            ],
            [
                "The institute will present the findings to the association of municipalities in June."
            ],
            "a survey found trust in local government had fallen to 44 percent",
        ),
        ep(
            "2022-03-08",
            1,
            ["First-time buyers now 34 on average, Halvorsen study finds"],
            [
                "The average age of first-time home buyers in Aldmark has risen to 34, up from 29 two decades ago, according to a Halvorsen Institute study published on {wd}."
            ],
            [
                "Almost half of first-time buyers received financial help from their families.",
                "In Port Velden and Aldmark City, the average age is 36.",
                "Rents have risen faster than wages for six consecutive years.",
                "The study used tax and property records covering all purchases since 2001.",
            ],
            [
                (
                    HALVORSEN,
                    "Whether you can buy a home now depends more on your parents than on your own income.",
                ),
                (
                    TILLER,
                    "When the first home comes later, so do marriage and children. Housing is a demographic question too.",
                ),
            ],
            ["The institute will present the study to parliament's housing committee in April."],
            "a study found the average first-time buyer was 34",
        ),
        ep(
            "2022-06-21",
            3,
            [
                "Loneliness among young adults has doubled, survey finds",
                "More than a quarter of under-30s say they are often lonely",
                "Halvorsen study finds young people lonelier than pensioners",
            ],
            [
                "Twenty-seven percent of adults under 30 in Aldmark say they feel lonely often or always, almost double the share in 2012, according to a Halvorsen Institute survey published on {wd}.",
                "Young adults in Aldmark are now lonelier than pensioners, a Halvorsen Institute study released on {wd} has found.",
                "Loneliness has become a young person's problem, the Halvorsen Institute said on {wd}, publishing survey data that show a sharp rise among people aged 18 to 29.",
            ],
            [
                "Among people over 70, the share who often feel lonely is 16 percent, largely unchanged in a decade.",
                "Young people who had moved city for work or study in the past two years were the loneliest group.",
                "Heavy use of social media was associated with loneliness, though the survey could not show cause and effect.",
                "The survey questioned 5,800 adults.",
                "The share of young adults who said they had no one to confide in rose to 11 percent.",
            ],
            [
                (
                    HALVORSEN,
                    "We tend to picture the lonely person as an old woman living alone. The data show a young man in a new city.",
                ),
                (
                    "Elsa Brink, who runs a youth centre in Ellisford",
                    "Young people tell us they have hundreds of contacts and nobody to call.",
                ),
                (
                    TILLER,
                    "Moving for work has economic benefits, but this is one of the costs we do not count.",
                ),
            ],
            [
                "The government has said it will publish a strategy on loneliness before the end of the year."
            ],
            "a survey found loneliness among under-30s had almost doubled since 2012",
        ),
        ep(
            "2023-04-18",
            1,
            ["Volunteering falls to lowest level in Halvorsen records"],
            [
                "The share of adults in Aldmark who volunteer at least once a month has fallen to 21 percent, the lowest since the Halvorsen Institute began asking in 1998, according to figures published on {wd}."
            ],
            [
                "The share was 34 percent in 2008.",
                "Sports clubs and church groups reported the largest drop in volunteers.",
                "People aged 35 to 50 cited lack of time as the main reason.",
                "The survey questioned 6,000 adults.",
            ],
            [
                (
                    HALVORSEN,
                    "Clubs and charities run on volunteers. When volunteering falls, they do not just get smaller, they close.",
                ),
                (
                    "Tove Sund, who coaches a youth football team in Redmoor",
                    "We used to have a waiting list of parents to help. Now I run three teams.",
                ),
            ],
            ["The institute will hold a conference on civil society in Lindenfield in September."],
            "a survey found volunteering had fallen to 21 percent",
        ),
        ep(
            "2024-01-16",
            1,
            ["Almost a third of households cut heating to save money"],
            [
                "Thirty-one percent of households in Aldmark turned down their heating last winter to save money, a Halvorsen Institute survey published on {wd} found."
            ],
            [
                "Among households with incomes below 300,000 crowns, the share was 52 percent.",
                "One in ten said they had skipped meals to pay bills.",
                "The share who said they were struggling financially was 24 percent, up from 15 percent in 2021.",
                "The survey questioned 6,100 adults in October and November.",
            ],
            [
                (
                    HALVORSEN,
                    "Inflation has eased, but many families are still living with the damage it did.",
                ),
                (
                    TILLER,
                    "Prices have stopped rising so fast, but they have not fallen. Wages are still catching up.",
                ),
            ],
            ["The institute will publish a follow-up study on household debt in the spring."],
            "a survey found 31 percent of households had cut heating to save money",
        ),
        ep(
            "2024-08-27",
            1,
            ["Four-day week trial: early results positive, Halvorsen says"],
            [
                "Most of the 41 companies taking part in a Halvorsen Institute trial of a four-day working week report no fall in output halfway through the experiment, the institute said on {wd}."
            ],
            [
                "The trial, which began in February, involves about 2,900 employees working four days a week for the same pay.",
                "Thirty-four of the 41 companies said output had held steady or risen.",
                "Sick leave fell by about a fifth compared with the same months last year.",
                "Three companies have dropped out, citing difficulties covering customer service.",
            ],
            [
                (
                    HALVORSEN,
                    "It is too early for final conclusions, but the first results are more positive than many expected.",
                ),
                (
                    "Stein Moller, managing director of a Marrowgate software firm in the trial",
                    "We get the same work done in four days because we stopped holding meetings that did not matter.",
                ),
            ],
            [
                "The trial ends in January, and the institute will publish its final results in February 2025."
            ],
            "early results from a four-day week trial were positive",
        ),
    ),
)

TVEIT = "Jorunn Tveit, leader of the Social Democrats"
OSTBERG = "Prime Minister Henrik Ostberg"
SKOG = "Professor Alma Skog, a political scientist at Lindenfield University"

POLITICS = Arc(
    "politics",
    "Politics & Governance",
    (
        "Aldmark's parliament has 151 seats, elected every four years by proportional representation.",
        "No party has won a majority on its own since 1961, so governments are formed by coalitions.",
        "The Social Democrats and the Civic Alliance have alternated in leading governments for most of the past half century.",
        "General elections are held on the second Sunday of September.",
        "Parties need at least 4 percent of the national vote to enter parliament.",
        "Parliament meets in the Assembly House in Aldmark City.",
    ),
    (
        ep(
            "2019-02-12",
            1,
            ["Ostberg government's budget passes with Centre Party support"],
            [
                "Aldmark's parliament approved Prime Minister Henrik Ostberg's revised budget on {wd} by 79 votes to 72, after his Civic Alliance-led government secured the support of the Centre Party."
            ],
            [
                "The deal includes 1.2 billion crowns for rural roads and broadband, a Centre Party demand.",
                "The budget cuts income tax for middle earners by about 0.5 percentage points.",
                "The opposition Social Democrats voted against, calling the tax cuts unaffordable.",
                "The next general election is due in September 2021.",
            ],
            [
                (
                    OSTBERG,
                    "This is a budget for families and for the whole country, not just the cities.",
                ),
                (TVEIT, "The tax cuts will be paid for by the next government, with interest."),
            ],
            ["The government will present its full budget for next year in October."],
            "Henrik Ostberg's budget passed with Centre Party support",
        ),
        ep(
            "2021-09-14",
            3,
            [
                "Social Democrats win most seats in Aldmark election",
                "Tveit's Social Democrats top poll, begin coalition talks",
                "Ostberg concedes as Aldmark swings to the left",
            ],
            [
                "The Social Democrats, led by Jorunn Tveit, won 61 of parliament's 151 seats in Sunday's general election, final results showed on {wd}, and will begin talks on forming a coalition with the Greens and the Centre Party.",
                "Prime Minister Henrik Ostberg conceded defeat on {wd} after his Civic Alliance fell to 48 seats in Sunday's election, its worst result since 1994.",
                "Aldmark is heading for a centre-left government after Sunday's election, in which Jorunn Tveit's Social Democrats became the largest party and the governing Civic Alliance lost 11 seats, according to final results published on {wd}.",
            ],
            [
                "The Social Democrats won 61 seats, up from 52; the Civic Alliance fell from 59 to 48.",
                "The Greens won 14 seats and the Centre Party 11, giving the three parties 86 seats together, a clear majority.",
                "Turnout was 78.4 percent, up two points from 2017.",
                "The Centre Party, which supported Ostberg's budgets, has said it is open to talks with both sides.",
                "Housing costs and the state of public hospitals dominated the campaign.",
            ],
            [
                (
                    TVEIT,
                    "Voters asked for change on housing and health. We will form a government that delivers it.",
                ),
                (OSTBERG, "The voters have spoken, and I congratulate Jorunn Tveit."),
                (
                    SKOG,
                    "The Centre Party now holds the key. Its price will be paid in rural spending.",
                ),
            ],
            ["Tveit said she hopes to present a coalition agreement by the end of October."],
            "the Social Democrats under Jorunn Tveit won the general election with 61 seats",
        ),
        ep(
            "2021-11-02",
            3,
            [
                "Tveit seals three-party coalition deal",
                "Social Democrats, Greens and Centre agree to govern together",
                "New Aldmark government to be sworn in on November 8",
            ],
            [
                "Jorunn Tveit on {wd} signed a coalition agreement between her Social Democrats, the Greens and the Centre Party, clearing the way for her to be sworn in as prime minister on November 8.",
                "Aldmark will have a new government next week after three parties with 86 of parliament's 151 seats agreed on a programme on {wd}, seven weeks after the general election.",
                "The Social Democrats, Greens and Centre Party have agreed to govern together, their leaders said on {wd}, presenting a 94-page programme that promises 40,000 new homes and more money for hospitals.",
            ],
            [
                "The agreement promises 40,000 new affordable homes by 2025 and 3 billion crowns a year more for hospitals.",
                "The Greens secured a commitment to end new oil and gas exploration licences.",
                "The Centre Party won a rural infrastructure fund of 2 billion crowns a year.",
                "The Social Democrats will hold 12 of the 20 cabinet posts, the Greens 4 and the Centre Party 4.",
                "The coalition has 86 seats, ten more than a majority.",
            ],
            [
                (TVEIT, "Three parties, one programme, and a majority to carry it out."),
                (
                    "Greens leader Frida Haug",
                    "For the first time, climate policy will be at the heart of the government.",
                ),
                (
                    SKOG,
                    "The programme is ambitious. Paying for it will test the coalition from the first budget.",
                ),
            ],
            [
                "Tveit will be sworn in as prime minister at the royal palace on November 8 and present her cabinet the same day."
            ],
            "Tveit's three-party coalition agreement was signed",
        ),
        ep(
            "2023-10-17",
            1,
            ["Tveit government survives no-confidence vote"],
            [
                "Prime Minister Jorunn Tveit's government survived a no-confidence vote in parliament on {wd} by 84 votes to 63, after a dispute over housing targets."
            ],
            [
                "The Civic Alliance called the vote after figures showed only 14,000 of the promised 40,000 affordable homes had been started.",
                "Two Centre Party members abstained.",
                "The government has promised to speed up planning rules for new housing.",
                "It was the first no-confidence vote against a sitting government since 2009.",
            ],
            [
                (
                    "Prime Minister Jorunn Tveit",
                    "We are behind on housing, and we will catch up. That is not a reason to bring down a government.",
                ),
                (
                    "Civic Alliance leader Petter Moss",
                    "The government promised homes and delivered excuses.",
                ),
            ],
            ["The government will present its housing acceleration bill in November."],
            "the government survived a no-confidence vote over housing",
        ),
        ep(
            "2024-02-20",
            1,
            ["Centre Party elects Oskar Lind as new leader"],
            [
                "The Centre Party, a junior partner in Aldmark's coalition government, elected Oskar Lind, a 39-year-old farmer and former mayor, as its leader on {wd}."
            ],
            [
                "Lind won 61 percent of delegates' votes at the party's congress in Millbrook.",
                "He replaces Gunvor Eide, who led the party for nine years and is stepping down from politics.",
                "Lind has been critical of the government's plans for wind farms on farmland.",
                "The Centre Party holds 11 of the coalition's 86 seats.",
            ],
            [
                (
                    "Oskar Lind",
                    "We will stay in government as long as the government remembers the countryside.",
                ),
                (
                    SKOG,
                    "Lind is more independent than his predecessor. The coalition has just become harder to manage.",
                ),
            ],
            [
                "Lind will join the cabinet as agriculture minister in a reshuffle expected next month."
            ],
            "the Centre Party elected Oskar Lind as its leader",
        ),
        ep(
            "2025-02-04",
            3,
            [
                "Tveit sets September 14 election date",
                "Aldmark to vote on September 14; Civic Alliance picks new leader",
                "Election campaign begins as polls show close race",
            ],
            [
                "Prime Minister Jorunn Tveit on {wd} set September 14 as the date of Aldmark's next general election, as a new poll showed her Social Democrats level with the opposition Civic Alliance.",
                "Aldmark will hold its general election on September 14, the government announced on {wd}, a day after the opposition Civic Alliance chose Marit Engvik as its new leader.",
                "The race for Aldmark's next government began in earnest on {wd}, with the election date fixed for September 14 and the Civic Alliance under a new leader.",
            ],
            [
                "A poll for the Meridian Wire put the Social Democrats and the Civic Alliance both at 29 percent.",
                "Marit Engvik, 47, a former finance spokeswoman, won the Civic Alliance leadership with 58 percent of members' votes.",
                "The Centre Party, which holds 11 seats in the coalition, has said it will not commit to either side before the election.",
                "Housing, the cost of living and defence spending are expected to dominate the campaign.",
                "Parties must register their candidate lists by June 30.",
            ],
            [
                (
                    "Prime Minister Jorunn Tveit",
                    "We will ask voters to judge us on what we have built, and on what we still plan to build.",
                ),
                (
                    "Marit Engvik, the new Civic Alliance leader",
                    "After four years of promises on housing, voters deserve a government that can count.",
                ),
                (
                    SKOG,
                    "With the two big parties level, the Centre Party's choice could decide the next government.",
                ),
            ],
            ["The first televised leaders' debate is scheduled for August 20."],
            "Tveit set September 14, 2025 as the election date",
        ),
    ),
)

AMUNDSEN = "Dr. Tove Amundsen, director of the Aldmark Space Agency"

SPACE = Arc(
    "space",
    "Science & Tech",
    (
        "Lyra-2 is an Earth observation satellite designed to measure soil moisture, sea ice and coastal erosion.",
        "The Aldmark Space Agency has a budget of about 900 million crowns a year and works mainly through international partnerships.",
        "Its first satellite, Lyra-1, was launched in 2011 and stopped working in 2019.",
        "The Aldmark Space Agency is based in Lindenfield, close to the university.",
        "Satellites in polar orbits see the whole Earth as the planet turns beneath them.",
        "Aldmark takes part in several European space programmes.",
    ),
    (
        ep(
            "2020-06-30",
            1,
            ["Lindenfield instrument chosen for Lyra-2 satellite"],
            [
                "The Aldmark Space Agency has chosen a soil-moisture radar designed at Lindenfield University as the main instrument for its next Earth observation satellite, Lyra-2, the agency said on {wd}."
            ],
            [
                "The radar can measure the water content of the top five centimetres of soil from orbit.",
                "It beat two foreign proposals in a competition that began in 2018.",
                "The agency has not yet secured government funding to build the satellite.",
                "Lyra-1, the country's first satellite, stopped working last year after eight years in orbit.",
            ],
            [
                (
                    AMUNDSEN,
                    "Farmers and water managers have been asking for this kind of data for years.",
                ),
                (
                    "Professor Arne Vik, who led the instrument team at Lindenfield",
                    "Our radar was designed with droughts like the one in the Tallow valley in mind.",
                ),
            ],
            [
                "The agency will ask the government for funding to build Lyra-2 in next year's budget."
            ],
            "a Lindenfield University radar was chosen as Lyra-2's main instrument",
        ),
        ep(
            "2021-12-14",
            3,
            [
                "Government funds 1.1 billion crown Lyra-2 satellite",
                "Aldmark approves new Earth observation satellite for 2024 launch",
                "Lyra-2 gets green light in budget deal",
            ],
            [
                "The government on {wd} approved 1.1 billion crowns to build and launch Lyra-2, an Earth observation satellite designed to monitor droughts and coastlines, with launch planned for 2024.",
                "Aldmark will build a new Earth observation satellite, Lyra-2, after the government included 1.1 billion crowns for it in the budget agreement announced on {wd}.",
                "The Aldmark Space Agency's plan for a successor to its first satellite won funding on {wd}, when Lyra-2 was included in the government's budget deal.",
            ],
            [
                "The satellite will be built by Orbis Systems in Lindenfield, using a radar designed at Lindenfield University.",
                "It will orbit at an altitude of about 690 kilometres and pass over Aldmark twice a day.",
                "Its data will be free for farmers, researchers and public agencies.",
                "The agency has not yet chosen a launch provider.",
                "Lyra-2 is designed to operate for at least seven years.",
            ],
            [
                (AMUNDSEN, "From 2024, we will be able to see a drought coming from space."),
                (
                    "Higher Education Minister Nils Aamot",
                    "This is an investment in our farmers as much as in our scientists.",
                ),
                (
                    "Dr. Leena Aro, a hydrologist at Lindenfield University",
                    "Satellite soil-moisture data would have given us weeks of extra warning in 2019.",
                ),
            ],
            ["The agency expects to choose a launch provider by the end of 2022."],
            "the government approved 1.1 billion crowns for the Lyra-2 satellite",
        ),
        ep(
            "2022-10-11",
            1,
            ["Skyrail to launch Lyra-2 satellite on Kite-3 rocket"],
            [
                "The Aldmark Space Agency has chosen Skyrail Launch Services to put its Lyra-2 satellite into orbit on a Kite-3 rocket in the second half of 2024, the agency said on {wd}."
            ],
            [
                "The launch contract is worth about 240 million crowns.",
                "The Kite-3 has flown 11 times, with one failure, in 2021.",
                "The launch will take place from Skyrail's site in northern Scandinavia.",
                "Construction of the satellite at Orbis Systems is on schedule.",
            ],
            [
                (AMUNDSEN, "Kite-3 offered the right orbit at the right price."),
                (
                    "Mikkel Haug, Skyrail's commercial director",
                    "We are proud to carry Aldmark's flagship satellite.",
                ),
            ],
            ["The launch window opens in August 2024."],
            "the agency chose Skyrail's Kite-3 rocket to launch Lyra-2",
        ),
        ep(
            "2024-08-27",
            3,
            [
                "Lyra-2 launch scrubbed over rocket valve fault",
                "Aldmark satellite launch delayed; new attempt no earlier than September 10",
                "Valve problem halts Kite-3 countdown with Lyra-2 on board",
            ],
            [
                "The launch of Aldmark's Lyra-2 Earth observation satellite was called off 90 seconds before lift-off on {wd} because of a faulty valve on the Kite-3 rocket, and the next attempt will be no earlier than September 10.",
                "Skyrail Launch Services scrubbed the launch of the Lyra-2 satellite late in the countdown on {wd}, citing a pressure reading from a valve in the rocket's upper stage.",
                "Aldmark's second satellite stayed on the ground on {wd} after a last-minute technical fault stopped the countdown, disappointing scientists and schoolchildren who had gathered to watch the launch on screens in Lindenfield.",
            ],
            [
                "The countdown was stopped automatically 90 seconds before lift-off when sensors detected abnormal pressure in a valve on the upper stage.",
                "The satellite and rocket are safe, Skyrail said.",
                "Replacing the valve and retesting the stage will take at least two weeks.",
                "Lyra-2 cost 1.1 billion crowns to build and launch, and is designed to operate for seven years.",
                "The launch window lasts until the end of October.",
            ],
            [
                (
                    AMUNDSEN,
                    "A scrub is frustrating, but it is exactly what the safety systems are for.",
                ),
                (
                    "Mikkel Haug, Skyrail's commercial director",
                    "We will launch when the rocket is ready, and not a day before.",
                ),
                (
                    "Professor Arne Vik, whose team designed the satellite's radar",
                    "We have waited four years. Two more weeks will not matter.",
                ),
            ],
            ["Skyrail said the next launch attempt will be no earlier than September 10."],
            "the Lyra-2 launch was scrubbed because of a rocket valve fault",
        ),
        ep(
            "2024-10-08",
            1,
            ["Lyra-2 sends first soil-moisture maps"],
            [
                "Aldmark's Lyra-2 satellite, launched on September 12, has sent its first soil-moisture maps, the Aldmark Space Agency said on {wd}, showing the dry southern part of the Tallow valley in detail."
            ],
            [
                "The images have a resolution of about one kilometre.",
                "Engineers are still calibrating the radar, a process that will take until the end of the year.",
                "The satellite is in its planned orbit, about 690 kilometres above the Earth.",
                "The launch took place two weeks after a first attempt was scrubbed because of a rocket valve fault.",
            ],
            [
                (
                    AMUNDSEN,
                    "The first pictures show that the instrument works exactly as designed.",
                ),
                (
                    "Professor Arne Vik, whose team designed the radar",
                    "We can see which fields are thirsty. That is what we built it for.",
                ),
            ],
            ["The agency expects to start publishing data to the public in March 2025."],
            "Lyra-2 sent its first soil-moisture maps after launching on September 12",
        ),
        ep(
            "2025-03-04",
            1,
            ["Lyra-2 data now free to the public"],
            [
                "The Aldmark Space Agency began publishing soil-moisture data from its Lyra-2 satellite on {wd}, making the maps free for farmers, researchers and water managers."
            ],
            [
                "The maps are updated twice a day and can be downloaded from the agency's website.",
                "The Tallow Valley Water Board said it would use the data to decide on water restrictions.",
                "The calibration of the radar was completed in January, a month later than planned.",
                "More than 2,000 users registered in the first hours.",
            ],
            [
                (AMUNDSEN, "Every farmer in the country can now see what we see from orbit."),
                (
                    "Anneke Vos, head of the Tallow Valley Water Board",
                    "In a winter drought, knowing how dry the soil is matters as much as how full the reservoirs are.",
                ),
            ],
            ["The agency will publish a first assessment of the data's accuracy in June."],
            "Lyra-2 data were made free to the public",
        ),
    ),
)

ARCS: tuple[Arc, ...] = (
    TRAM,
    CHIPS,
    LEAGUE,
    DROUGHT,
    WIND,
    VACCINE,
    RATES,
    UNIVERSITY,
    ARTS,
    SECURITY,
    SURVEYS,
    POLITICS,
    SPACE,
)

# ---------------------------------------------------------------------------------------
# Generic story kinds for singletons. Each kind has templates with {slots}; an entity
# (a fictional company, town, club ...) fills the named slots and a numbers function the
# rest. Every use takes the next entity of a shuffled cycle, so repeats are rare.
# ---------------------------------------------------------------------------------------

Slots = dict[str, str]


@dataclass(frozen=True)
class Kind:
    """A kind of everyday story, written as templates over entity and number slots."""

    key: str
    category: str
    entities: tuple[Slots, ...]
    headlines: tuple[str, ...]
    ledes: tuple[str, ...]
    facts: tuple[str, ...]
    quotes: tuple[Quote, ...]
    outlook: tuple[str, ...]
    context: tuple[str, ...]
    numbers: Callable[[random.Random, dt.date], Slots]


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


def quarter_reported(day: dt.date) -> str:
    """Which quarter a company reporting in ``day``'s month is most likely reporting on."""
    return ("fourth", "first", "second", "third")[(day.month - 1) // 3]


# Year-on-year consumer price inflation quoted by generic stories (the rates arc agrees).
INFLATION_BY_YEAR = {
    2019: "2.1",
    2020: "1.2",
    2021: "3.1",
    2022: "6.4",
    2023: "5.3",
    2024: "3.0",
    2025: "2.3",
}

ANALYSTS = (
    "Mira Holt, an analyst at Fenwick Partners",
    "Jon Aasen, an analyst at Nordvik Bank Markets",
    "Helle Dahl, an analyst at Brennan Hale Securities",
    "Victor Lang, a fund manager at Aldmark Capital",
)


def _earnings_numbers(rng: random.Random, day: dt.date) -> Slots:
    up = rng.random() < 0.55
    pct = rng.randint(3, 24)
    rev = rng.randint(8, 95) / 10
    op = rng.randint(40, 900)
    return {
        "pct": str(pct),
        "rev": f"{rev:.1f}",
        "cons": f"{rev * (0.97 if up else 1.04):.1f}",
        "op": str(op),
        "op_prev": str(int(op * (0.8 if up else 1.3))),
        "sh_pct": str(rng.randint(2, 11)),
        "div": f"{rng.randint(5, 60) / 10:.2f}",
        "cost_pct": str(rng.randint(3, 18)),
        "quarter": quarter_reported(day),
        "analyst": rng.choice(ANALYSTS),
        "verb": "rose" if up else "fell",
        "hverb": "rises" if up else "falls",
        "noun": "increase" if up else "decline",
        "shares": "rose" if up else "fell",
        "beat": "beat" if up else "fell short of",
        "cost_verb": "fell" if up else "rose",
        "reason": "helped by stronger demand and lower costs"
        if up
        else "hurt by weaker demand and higher costs",
        "half": "at least as strong as the first"
        if up
        else "difficult, though better than the first",
        "ceo_q": "Our customers came back in numbers we had not expected, and we kept a tight grip on costs."
        if up
        else "This was a difficult quarter, and we are not pretending otherwise. We have a plan to bring costs down.",
        "an_q": "The numbers were cleaner than the market feared. The question is whether the momentum lasts into next year."
        if up
        else "Management has been too optimistic for two quarters in a row. Investors want a credible plan.",
    }


def _plain_numbers(**ranges: tuple[int, int]) -> Callable[[random.Random, dt.date], Slots]:
    """A numbers function that draws each named slot uniformly from an integer range."""

    def draw(rng: random.Random, day: dt.date) -> Slots:
        return {k: f"{rng.randint(lo, hi):,}" for k, (lo, hi) in sorted(ranges.items())}

    return draw


KINDS: list[Kind] = []

KINDS.append(
    Kind(
        "earnings",
        "Economics & Business",
        (
            {
                "co": "Halvard Foods",
                "sector": "food producer",
                "what": "frozen meals and canned fish",
                "hq": "Ellisford",
                "ceo": "Anders Viik",
                "listed": "1987",
                "efact": "Halvard opened a new frozen-food plant in Ellisford two years ago and is still running it below capacity.",
            },
            {
                "co": "Norrvik Shipping",
                "sector": "shipping group",
                "what": "container and ferry services",
                "hq": "Port Velden",
                "ceo": "Gunnar Tessem",
                "listed": "1996",
                "efact": "Freight rates on Norrvik's main North Sea routes have been volatile all year.",
            },
            {
                "co": "Pellam Retail",
                "sector": "retailer",
                "what": "supermarkets and hardware stores",
                "hq": "Marrowgate",
                "ceo": "Sara Lindholm",
                "listed": "2004",
                "efact": "Pellam has been converting some of its smaller supermarkets into discount stores.",
            },
            {
                "co": "Kesterline Air",
                "sector": "airline",
                "what": "domestic and regional flights",
                "hq": "Kestrel Bay",
                "ceo": "Jonas Hovde",
                "listed": "2011",
                "efact": "Kesterline flies 42 aircraft and has eight more on order.",
            },
            {
                "co": "Osric Insurance",
                "sector": "insurer",
                "what": "home, car and business insurance",
                "hq": "Aldmark City",
                "ceo": "Beatrix Moll",
                "listed": "1999",
                "efact": "Storm claims have been a growing cost for Osric in recent years.",
            },
            {
                "co": "Brannock Steel",
                "sector": "steelmaker",
                "what": "steel plate and reinforcing bar",
                "hq": "Redmoor",
                "ceo": "Torvald Ness",
                "listed": "1979",
                "efact": "Brannock is building an electric arc furnace to replace its two coal-fired blast furnaces.",
            },
            {
                "co": "Tidewave Media",
                "sector": "media group",
                "what": "television channels and a streaming service",
                "hq": "Aldmark City",
                "ceo": "Clara Winther",
                "listed": "2008",
                "efact": "Tidewave's streaming service has about 1.3 million subscribers.",
            },
            {
                "co": "Lunde Pharma",
                "sector": "drug maker",
                "what": "generic medicines",
                "hq": "Greyhaven",
                "ceo": "Rasmus Lunde",
                "listed": "2002",
                "efact": "Lunde makes about a fifth of the generic medicines sold in Aldmark's pharmacies.",
            },
        ),
        (
            "{co} revenue {hverb} {pct} percent in {quarter} quarter",
            "{co} shares {shares} {sh_pct} percent after quarterly results",
        ),
        (
            "{co}, the {hq}-based {sector}, said on {wd} that revenue {verb} {pct} percent in the {quarter} quarter to {rev} billion crowns, {reason}.",
            "Shares in {co} {shares} {sh_pct} percent on {wd} after the {sector} reported a {pct} percent {noun} in quarterly revenue that {beat} analysts' expectations.",
        ),
        (
            "Revenue for the quarter was {rev} billion crowns; analysts had expected {cons} billion, according to a survey of brokers.",
            "Operating profit came in at {op} million crowns, compared with {op_prev} million a year earlier.",
            "The company, which makes most of its money from {what}, employs about 4,000 people in Aldmark and abroad.",
            "{co} kept its forecast for the full year unchanged, saying the second half would be {half}.",
            "Energy and transport costs {cost_verb} {cost_pct} percent over the period, the company said.",
            "The board proposed a dividend of {div} crowns a share.",
            "{efact}",
        ),
        (
            ("{ceo}, chief executive of {co}", "{ceo_q}"),
            ("{analyst}", "{an_q}"),
        ),
        (
            "{co} will publish its next quarterly report in {m3}.",
            "Shareholders will vote on the dividend at the annual meeting in {m2}.",
        ),
        (
            "{co} has been listed on the Aldmark stock exchange since {listed}.",
            "The {sector} is one of the largest private employers in {hq}.",
            "The Aldmark stock exchange's main index has moved sharply this year as investors weigh the outlook for interest rates.",
        ),
        _earnings_numbers,
    )
)

KINDS.append(
    Kind(
        "strike",
        "Economics & Business",
        (
            {
                "union": "the Aldmark Nurses' Federation",
                "workers": "nurses",
                "employer": "the regional health authorities",
                "place": "hospitals in the western region",
                "affected": "planned operations",
                "leader": "Silje Bakken, the federation's leader",
                "emp": "Dag Ronning, chief negotiator for the health authorities",
                "lq": "Nurses have carried the health service for years. We will not accept another real-terms pay cut.",
                "eq": "Our offer is the best the budget allows. A strike will only lengthen waiting lists.",
                "efact": "Emergency care and maternity services will be exempt from the strike.",
            },
            {
                "union": "the Port Workers' Union",
                "workers": "dock workers",
                "employer": "the Port Velden port authority",
                "place": "the Port Velden container terminal",
                "affected": "container handling",
                "leader": "Ivar Moen, the union's chairman",
                "emp": "Grete Aas, the port authority's head of personnel",
                "lq": "The port is making record profits. The people who load the ships should share in them.",
                "eq": "We have offered more than any other port in the region.",
                "efact": "Ferry services and the fuel terminal would not be affected.",
            },
            {
                "union": "the Transport Workers' Union",
                "workers": "bus drivers",
                "employer": "Coastline Buses",
                "place": "bus depots in Ellisford and Redmoor",
                "affected": "bus services in three municipalities",
                "leader": "Rolf Berntsen, the union's regional secretary",
                "emp": "Elisabeth Krogh, Coastline's managing director",
                "lq": "Drivers are working split shifts of thirteen hours for pay that has not kept up with rents.",
                "eq": "We want a deal, but it has to be one that keeps the buses running in the long term.",
                "efact": "School buses would keep running under an agreement with the municipalities.",
            },
            {
                "union": "the Teachers' Union of Aldmark",
                "workers": "secondary school teachers",
                "employer": "the municipal employers' association",
                "place": "schools in twelve municipalities",
                "affected": "lessons for about 60,000 pupils",
                "leader": "Hege Lunde, the union's president",
                "emp": "Arvid Tangen, who negotiates for the municipalities",
                "lq": "Every year more teachers leave for better-paid jobs. Pay is the heart of the problem.",
                "eq": "Municipalities cannot pay for a settlement of this size without cutting services.",
                "efact": "Final-year pupils would be exempt during the exam period.",
            },
            {
                "union": "the Aldmark Postal Workers' Union",
                "workers": "postal workers",
                "employer": "Aldpost",
                "place": "sorting centres in Aldmark City and Port Velden",
                "affected": "parcel deliveries",
                "leader": "Kari Vold, the union's leader",
                "emp": "Henrik Strand, Aldpost's director of operations",
                "lq": "Parcel volumes have doubled and the staff have not. Something has to give.",
                "eq": "Letter volumes keep falling. The business has to change, and pay has to reflect that.",
                "efact": "Letters from public authorities would still be delivered.",
            },
            {
                "union": "the Cabin Crew Association",
                "workers": "cabin crew",
                "employer": "Kesterline Air",
                "place": "Kesterline's bases at Kestrel Bay and Lindenfield",
                "affected": "about 140 flights a day",
                "leader": "Ane Solberg, the association's chair",
                "emp": "Jonas Hovde, Kesterline's chief executive",
                "lq": "Crew are flying more hours than before the pandemic for less money in real terms.",
                "eq": "A strike in the busiest season would hurt the people it is meant to protect.",
                "efact": "Kesterline said it would try to rebook passengers on other airlines.",
            },
        ),
        (
            "{workers} to strike from {d10} after pay talks collapse",
            "Pay talks break down as {workers} announce strike",
        ),
        (
            "About {members} {workers} will go on strike for {days} days from {d10} after talks with {employer} over pay broke down on {wd}, {union} said.",
            "Talks on a new pay deal for {workers} collapsed on {wd}, and {union} announced a {days}-day strike that it said would disrupt {affected}.",
        ),
        (
            "The union is demanding a pay rise of {demand} percent over two years; the employers have offered {offer} percent.",
            "Consumer prices rose {infl} percent over the past year, according to the statistics office.",
            "The strike would affect {place}.",
            "The last strike by {workers} in Aldmark was in {last_strike}.",
            "A state mediator can order a two-week delay if a strike is judged to threaten health or safety.",
            "{efact}",
        ),
        (("{leader}", "{lq}"), ("{emp}", "{eq}")),
        (
            "A state mediator will meet both sides on {d7} in a last attempt to avert the strike.",
            "The union said further walkouts would follow in {m1} if no agreement is reached.",
        ),
        (
            "{union} has about {size} members across the country.",
            "Pay in Aldmark is normally set in collective agreements between unions and employers, renewed every two years.",
        ),
        lambda rng, day: {
            "members": f"{rng.randint(8, 90) * 100:,}",
            "days": rng.choice(("two", "three", "four", "five")),
            "demand": str(rng.randint(6, 9)),
            "offer": f"{rng.randint(25, 45) / 10:.1f}",
            # Consistent with the central-bank arc's inflation figures for that year.
            "infl": INFLATION_BY_YEAR[day.year],
            "last_strike": str(day.year - rng.randint(4, 14)),
            "size": f"{rng.randint(9, 60) * 1000:,}",
        },
    )
)

KINDS.append(
    Kind(
        "plant",
        "Economics & Business",
        (
            {
                "head": "Norrland Batteries to build cell factory in Redmoor",
                "lede": "Norrland Batteries said on {wd} that it will build a battery cell factory in Redmoor, investing {money} million crowns and creating about {jobs} jobs.",
                "f1": "The plant will make cells for electric buses and for storing power from wind and solar farms.",
                "f2": "Production is due to start in {year_plus2}.",
                "f3": "Redmoor was chosen for its port, its skilled workforce from the shipyards and a large site that once held a coal depot.",
                "who": "Lisa Norrland, the company's founder",
                "q": "Redmoor has the people and the port. We have the technology.",
                "who2": "Redmoor's mayor, Stig Olsen",
                "q2": "This is the biggest private investment in the town since the shipyard was modernised.",
                "out": "The company will apply for planning permission by {m3}.",
            },
            {
                "head": "Pellam Retail to close 14 supermarkets",
                "lede": "Pellam Retail will close 14 of its supermarkets by the end of the year, putting about {jobs} jobs at risk, the retailer said on {wd}.",
                "f1": "Most of the stores are in small towns where sales have fallen as shoppers move to discount chains and online grocers.",
                "f2": "Pellam said it would offer staff jobs at other stores where possible.",
                "f3": "The retailer operates about 230 supermarkets across Aldmark.",
                "who": "Sara Lindholm, Pellam's chief executive",
                "q": "These decisions are hard, but keeping loss-making stores open puts the rest of the chain at risk.",
                "who2": "Gro Hansen, a shop steward at one of the stores",
                "q2": "Some of us have worked there for thirty years. We learned about it from the news.",
                "out": "The first stores will close in {m2}, the company said.",
            },
            {
                "head": "Skarra Salmon opens land-based fish farm",
                "lede": "Skarra Salmon opened a land-based fish farm on the island of Skarra on {wd}, a {money} million crown project that raises salmon in tanks instead of sea pens.",
                "f1": "The farm will produce about 4,000 tonnes of salmon a year when fully running.",
                "f2": "Raising fish on land avoids sea lice and escapes, two problems that have damaged the reputation of sea farming.",
                "f3": "The farm employs {jobs} people, making it the island's largest private employer.",
                "who": "Tor Eide, Skarra Salmon's managing director",
                "q": "This is what fish farming will look like in twenty years. We have just started early.",
                "who2": "Bodil Aas, the mayor of Skarra",
                "q2": "Young people can now find a job on the island instead of leaving for the mainland.",
                "out": "The first harvest is expected in {m6}.",
            },
            {
                "head": "Aldbrew to expand Millbrook brewery",
                "lede": "The brewer Aldbrew said on {wd} that it will spend {money} million crowns expanding its brewery in Millbrook and moving production from an older plant in Aldmark City.",
                "f1": "The expansion will double the Millbrook site's capacity.",
                "f2": "About {jobs} jobs will move from Aldmark City to Millbrook, and the company has promised relocation help.",
                "f3": "The Aldmark City brewery, built in 1902, will be sold for housing.",
                "who": "Henrik Aal, Aldbrew's chief executive",
                "q": "The old brewery is beautiful, but it was built for horses and carts.",
                "who2": "Millbrook councillor Ruth Sand",
                "q2": "We welcome the jobs, but the company needs to talk to us about lorry traffic.",
                "out": "Construction will begin in {m3} and take about two years.",
            },
            {
                "head": "Fjordline Timber to close Ostby sawmill",
                "lede": "Fjordline Timber will close its sawmill in Ostby, the town's largest employer, with the loss of about {jobs} jobs, the company said on {wd}.",
                "f1": "The company blamed weak demand for construction timber and higher energy costs.",
                "f2": "The mill has operated in Ostby since 1921.",
                "f3": "Fjordline will move some production to its larger mill in the south of the country.",
                "who": "Bjarne Fjeld, Fjordline's managing director",
                "q": "We have tried everything to keep Ostby running. The numbers no longer work.",
                "who2": "Ostby's mayor, Randi Holt",
                "q2": "This is a hard day for a small town. We will do everything we can to find new work for these families.",
                "out": "The mill will close in {m6}, and the company will hold talks with the unions over redundancy terms in {m1}.",
            },
            {
                "head": "Kesterline Air to open base at Lindenfield airport",
                "lede": "Kesterline Air will station four aircraft at Lindenfield airport from next spring, creating about {jobs} jobs and adding eight routes, the airline said on {wd}.",
                "f1": "The new routes will include direct flights to three European capitals.",
                "f2": "Kesterline will invest about {money} million crowns in a maintenance hangar at the airport.",
                "f3": "Lindenfield airport handled 1.9 million passengers last year.",
                "who": "Jonas Hovde, Kesterline's chief executive",
                "q": "Lindenfield has outgrown the flights it has. We intend to fill the gap.",
                "who2": "Maja Lien, head of the Lindenfield chamber of commerce",
                "q2": "Direct flights will make it easier for companies here to win customers abroad.",
                "out": "Tickets for the new routes go on sale in {m1}.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "{f3}",
            "The company said the decision followed a review that began last year.",
            "The announcement came on the same day the company presented its plans to local officials.",
        ),
        (("{who}", "{q}"), ("{who2}", "{q2}")),
        ("{out}",),
        (
            "Manufacturing and retail together employ about a fifth of Aldmark's workforce.",
            "Several companies have announced investments in the north of the country in the past two years, attracted by cheap renewable electricity.",
        ),
        lambda rng, day: {
            "money": f"{rng.randint(12, 180) * 10:,}",
            "jobs": str(rng.randint(8, 60) * 10),
            "year_plus2": str(day.year + 2),
        },
    )
)

KINDS.append(
    Kind(
        "startup",
        "Science & Tech",
        (
            {
                "co": "Qubrix",
                "city": "Lindenfield",
                "does": "builds software that predicts when factory machines will fail",
                "founder": "Emma Sjoberg",
                "detail": "Its customers include two of Aldmark's largest paper mills.",
            },
            {
                "co": "Tidepool Labs",
                "city": "Greyhaven",
                "does": "makes sensor buoys that measure water quality at fish farms and harbours",
                "founder": "Rafael Montes",
                "detail": "The buoys run on solar power and send readings every five minutes.",
            },
            {
                "co": "Farmlens",
                "city": "Millbrook",
                "does": "uses drones and cameras to spot disease and drought stress in crops",
                "founder": "Ingrid Fossum",
                "detail": "Farmlens has mapped about 40,000 hectares of farmland since it was founded.",
            },
            {
                "co": "Heatwell",
                "city": "Aldmark City",
                "does": "designs heat pumps for large apartment blocks",
                "founder": "Karim Nasser",
                "detail": "Its systems have been installed in about 300 buildings.",
            },
            {
                "co": "Ledgerly",
                "city": "Port Velden",
                "does": "makes an accounting app for small businesses",
                "founder": "Julie Berg",
                "detail": "The app has about 28,000 paying customers.",
            },
            {
                "co": "Nordvolt Grid",
                "city": "Redmoor",
                "does": "writes software that manages large batteries connected to the power grid",
                "founder": "Oscar Lindgren",
                "detail": "Its software runs on batteries with a combined capacity of 400 megawatt-hours.",
            },
        ),
        (
            "{co} raises {amount} million crowns to expand",
            "{city} start-up {co} lands {amount} million crown funding round",
        ),
        (
            "{co}, a {city} start-up that {does}, said on {wd} that it had raised {amount} million crowns from investors led by {investor}.",
            "Investors led by {investor} have put {amount} million crowns into {co}, a company in {city} that {does}, the start-up said on {wd}.",
        ),
        (
            "{co} was founded in {founded} by {founder}.",
            "The company has {staff} employees and plans to double that number within two years.",
            "{detail}",
            "It will use the money to expand into neighbouring countries and to develop new products.",
            "The round values the company at about {value} million crowns, according to people familiar with the deal.",
            "Venture investment in Aldmark start-ups totalled about {vc} billion crowns last year, according to the national venture capital association.",
        ),
        (
            (
                "{founder}, {co}'s founder and chief executive",
                "We have proved the product works here. Now we want to prove it works everywhere.",
            ),
            (
                "{investor_person}",
                "{co} has real customers paying real money, which is rarer than people think.",
            ),
        ),
        ("{co} expects to open its first office abroad by {m6}.",),
        (
            "{city} has become one of the country's main start-up hubs, helped by graduates from the local university.",
            "Start-ups in Aldmark have found it harder to raise money since interest rates began to rise, investors say.",
        ),
        lambda rng, day: {
            "amount": str(rng.randint(12, 180)),
            "founded": str(day.year - rng.randint(2, 7)),
            "staff": str(rng.randint(12, 140)),
            "value": f"{rng.randint(15, 120) * 10:,}",
            "vc": f"{rng.randint(18, 64) / 10:.1f}",
            "investor": rng.choice(
                ["Northlight Ventures", "Aldmark Growth Fund", "Skagen Capital", "Harbour Angels"]
            ),
            "investor_person": rng.choice(
                [
                    "Tuva Brekke, a partner at Northlight Ventures",
                    "Leon Ask, who manages the Aldmark Growth Fund",
                    "Marte Heggen of Skagen Capital",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "study",
        "Science & Tech",
        (
            {
                "inst": "Greyhaven University",
                "lead": "Dr. Hedda Rye, a marine biologist",
                "topic": "cod in Kestrel Strait",
                "finding": "cod in Kestrel Strait have become about 11 percent smaller on average over 30 years",
                "f1": "The researchers measured more than 40,000 fish caught in annual surveys since 1993.",
                "f2": "Warmer water and heavy fishing of the largest fish are the most likely causes, the authors said.",
                "journal": "the journal Marine Ecology Reports",
                "q": "Smaller fish produce fewer eggs, so this matters for the future of the stock, not just for fishermen.",
                "out": "The team will present the findings to the national fisheries council in {m2}.",
            },
            {
                "inst": "Lindenfield University",
                "lead": "Professor Erik Solum, a materials scientist",
                "topic": "sodium batteries",
                "finding": "a new electrode material lets sodium-ion batteries keep 90 percent of their capacity after 5,000 charges",
                "f1": "Sodium is far cheaper and more plentiful than lithium, but sodium batteries have worn out quickly.",
                "f2": "The material is made from a common clay mineral treated with heat.",
                "journal": "the journal Energy Materials Letters",
                "q": "We are not claiming to replace lithium tomorrow. We are showing that cheaper batteries for the grid are realistic.",
                "out": "A pilot production line with the battery maker Norrland Batteries is planned for {year_plus1}.",
            },
            {
                "inst": "the Aldmark Institute of Public Health",
                "lead": "Dr. Signe Bull, an epidemiologist",
                "topic": "sleep and screens",
                "finding": "teenagers who use phones in bed sleep on average 47 minutes less on school nights",
                "f1": "The study followed 3,900 pupils aged 13 to 17 for two years.",
                "f2": "The effect was strongest among those who used their phones after midnight.",
                "journal": "the journal Adolescent Health",
                "q": "Forty-seven minutes a night adds up to more than five hours a week. That is a lot of lost sleep for a growing brain.",
                "out": "The institute will publish advice for parents and schools in {m2}.",
            },
            {
                "inst": "the Redmoor Agricultural College",
                "lead": "Dr. Olav Kvam, a soil scientist",
                "topic": "cover crops",
                "finding": "planting clover between grain harvests raised wheat yields by 8 percent over five years",
                "f1": "The trial ran on 24 farms in the Tallow valley.",
                "f2": "Fields with cover crops also held more water during dry summers.",
                "journal": "the journal Field Crop Science",
                "q": "Farmers can do this with the machines they already own. It costs little and it pays back.",
                "out": "The college will run a larger trial on 100 farms starting in {m6}.",
            },
            {
                "inst": "Lindenfield University Hospital",
                "lead": "Professor Nina Haug, a cardiologist",
                "topic": "heart attack care",
                "finding": "patients treated within 90 minutes of a heart attack in Aldmark were 31 percent more likely to survive five years",
                "f1": "The study analysed 18,200 patients treated between 2012 and 2021.",
                "f2": "Patients in rural areas were much less likely to be treated within 90 minutes.",
                "journal": "the journal Cardiology Today",
                "q": "Where you live still decides how quickly your heart gets help. That should not be the case.",
                "out": "The findings will be presented to the health ministry's working group on rural care in {m1}.",
            },
            {
                "inst": "the Aldmark Meteorological Office",
                "lead": "Dr. Petra Lund, a climate scientist",
                "topic": "winter rainfall",
                "finding": "autumn rainfall in the south-east of Aldmark has fallen by about 12 percent since the 1980s, while winter storms have become wetter",
                "f1": "The analysis used records from 214 weather stations going back to 1901.",
                "f2": "The shift means reservoirs fill later in the year and depend more on a few heavy storms.",
                "journal": "the Journal of Nordic Climate",
                "q": "The total amount of rain has barely changed. When it falls has changed, and that matters for water supply.",
                "out": "The office will include the findings in its national climate assessment due in {m6}.",
            },
            {
                "inst": "Greyhaven University",
                "lead": "Dr. Amir Haddad, a computer scientist",
                "topic": "speech recognition for dialects",
                "finding": "speech recognition software makes three times as many errors with rural dialects as with the standard language",
                "f1": "The team tested five commercial systems on recordings of 600 speakers from 30 towns.",
                "f2": "The researchers have released a free collection of dialect recordings to help developers improve their systems.",
                "journal": "the proceedings of the Nordic Language Technology conference",
                "q": "If your voice assistant does not understand your grandmother, it is not finished.",
                "out": "The team will present the work at a conference in Lindenfield in {m3}.",
            },
            {
                "inst": "the Coastal Nature Trust",
                "lead": "Dr. Maja Berge, an ornithologist",
                "topic": "seabirds and wind farms",
                "finding": "gannets avoided the area around offshore wind turbines in 94 percent of tracked flights",
                "f1": "Researchers fitted GPS tags to 48 gannets nesting on cliffs near Greyhaven.",
                "f2": "Avoiding turbines lengthened some birds' foraging trips by up to 12 kilometres.",
                "journal": "the journal Seabird Ecology",
                "q": "Gannets are clever about turbines. The cost is extra flying, and we do not yet know what that does to breeding.",
                "out": "The tagging study will continue for two more breeding seasons, with results due in {year_plus2}.",
            },
        ),
        (
            "Study finds {finding}",
            "{inst} researchers report new findings on {topic}",
        ),
        (
            "Researchers at {inst} have found that {finding}, according to a study published on {wd} in {journal}.",
            "A new study from {inst}, published on {wd}, suggests that {finding}.",
        ),
        (
            "{f1}",
            "{f2}",
            "The research was funded by the National Research Council.",
            "The authors said further work was needed to confirm the results in other settings.",
            "Independent experts said the study was carefully done, though some cautioned against drawing broad conclusions from a single study.",
        ),
        (
            ("{lead}, who led the study", "{q}"),
            (
                "{expert}",
                "It is a solid piece of work that raises good questions. I would like to see it repeated elsewhere.",
            ),
        ),
        ("{out}",),
        (
            "Research spending in Aldmark is about 2.1 percent of economic output, slightly above the European average.",
            "Most public research money is distributed by the National Research Council through open competitions.",
        ),
        lambda rng, day: {
            "year_plus1": str(day.year + 1),
            "year_plus2": str(day.year + 2),
            "expert": rng.choice(
                [
                    "Professor Liv Aune, who was not involved in the research",
                    "Dr. Thomas Egge, an independent researcher who reviewed the study",
                    "Dr. Kari Moen, who was not involved in the work",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "breach",
        "Security & Defense",
        (
            {
                "org": "Osric Insurance",
                "orgtype": "insurer",
                "data": "names, addresses and policy numbers",
                "who": "Beatrix Moll, Osric's chief executive",
                "q": "We are deeply sorry. Our customers trusted us with their information and we let them down.",
            },
            {
                "org": "the municipality of Greyhaven",
                "orgtype": "municipality",
                "data": "names, national identity numbers and case notes from the social services department",
                "who": "Olav Rud, the mayor of Greyhaven",
                "q": "Some of this information concerns the most vulnerable people in our town. We are contacting each of them.",
            },
            {
                "org": "SmileCare",
                "orgtype": "dental chain",
                "data": "names, phone numbers and treatment records",
                "who": "Ellen Brun, SmileCare's managing director",
                "q": "We have closed the weakness that was used and brought in outside experts.",
            },
            {
                "org": "Aldpost",
                "orgtype": "postal service",
                "data": "names, delivery addresses and phone numbers",
                "who": "Henrik Strand, Aldpost's director of operations",
                "q": "No payment information was taken, but we understand that customers are worried.",
            },
            {
                "org": "the Lindenfield Housing Cooperative",
                "orgtype": "housing cooperative",
                "data": "names, bank account numbers and rent payment histories",
                "who": "Mette Dahl, the cooperative's chair",
                "q": "We are a small organisation, and we were not prepared for this. We are now.",
            },
        ),
        (
            "Hackers steal data on {records} customers of {org}",
            "{org} says personal data of {records} people exposed in breach",
        ),
        (
            "Hackers stole {data} belonging to about {records} people from {org}, the {orgtype} said on {wd}.",
            "{org} disclosed on {wd} that an intruder had accessed its systems for several weeks and copied {data} of about {records} people.",
        ),
        (
            "The breach was discovered on {found_day} during a routine security check, {days_in} days after the attackers first gained access.",
            "The {orgtype} has reported the breach to the data protection authority and to the police.",
            "Those affected will be contacted by letter and offered a year of free identity-theft monitoring.",
            "There is no evidence so far that the data have been published online, the {orgtype} said.",
            "Organisations in Aldmark reported {reported} data breaches to the data protection authority last year.",
        ),
        (
            ("{who}", "{q}"),
            (
                "Dr. Felix Aronsson, a security researcher at Lindenfield University",
                "Attackers go where the valuable data are and the defences are thin. That describes a lot of organisations.",
            ),
        ),
        (
            "The data protection authority said it would decide by {m3} whether to open a formal investigation.",
        ),
        (
            "Under data protection law, organisations can be fined up to 4 percent of their annual turnover for serious failures to protect personal data.",
            "The national cyber security centre has warned that criminal groups increasingly target organisations that hold sensitive personal records.",
        ),
        lambda rng, day: {
            "records": f"{rng.randint(4, 420) * 100:,}",
            "found_day": day_name(day, -rng.randint(4, 12)),
            "days_in": str(rng.randint(9, 40)),
            "reported": f"{rng.randint(1400, 3200):,}",
        },
    )
)

KINDS.append(
    Kind(
        "hospital",
        "Healthcare & Biology",
        (
            {
                "issue": "waiting times for hip and knee replacements",
                "head": "Waiting times for joint replacements reach {weeks} weeks in Ellisford",
                "lede": "Patients needing a hip or knee replacement at Ellisford General Hospital now wait an average of {weeks} weeks, up from {weeks_prev} weeks a year ago, figures published on {wd} showed.",
                "f1": "The hospital has lost three orthopaedic surgeons in the past year and has not been able to replace them.",
                "f2": "Some patients are being offered surgery at private clinics, paid for by the health authority.",
                "who": "Dr. Trine Aasen, the hospital's medical director",
                "q": "We are doing everything we can to bring waiting times down, but we need more surgeons.",
                "out": "The health authority will present a plan to cut the waiting list by {m3}.",
            },
            {
                "issue": "a new emergency department",
                "head": "Greyhaven hospital opens new emergency department",
                "lede": "Greyhaven University Hospital opened a new emergency department on {wd}, doubling the number of treatment rooms and adding a separate area for children.",
                "f1": "The department cost {money} million crowns and has 48 treatment rooms.",
                "f2": "The old emergency department, built in 1974, was designed for about half the current number of patients.",
                "who": "Dr. Helge Strand, head of emergency medicine",
                "q": "For the first time in years, patients will not have to wait on trolleys in the corridor.",
                "out": "The hospital will publish waiting times for the new department after its first three months, in {m3}.",
            },
            {
                "issue": "ambulance response times",
                "head": "Rural ambulance response times lengthen in Tallow valley",
                "lede": "Ambulances in rural parts of the Tallow valley took an average of {mins} minutes to reach the most urgent cases last year, well above the 25-minute target, according to a report published on {wd}.",
                "f1": "In towns, the average response time was 11 minutes.",
                "f2": "The report blamed staff shortages and the closure of two small ambulance stations in 2021.",
                "who": "Marit Lund, who heads the ambulance service",
                "q": "Distance is our enemy. We need more crews based closer to where people live.",
                "out": "The regional health board will decide on reopening one of the stations in {m2}.",
            },
            {
                "issue": "the closure of its maternity ward",
                "head": "Redmoor maternity ward to close, mothers face longer journeys",
                "lede": "The maternity ward at Redmoor Hospital will close in {m3}, the regional health authority decided on {wd}, meaning expectant mothers in the area will have to travel up to 70 kilometres to give birth.",
                "f1": "The ward delivered {births} babies last year, below the minimum the authority considers safe.",
                "f2": "About {protesters} people protested outside the hospital before the decision.",
                "who": "Hanne Lie, a midwife who has worked at the ward for 22 years",
                "q": "Babies do not wait for the motorway to clear.",
                "out": "Opponents said they would ask the health minister to review the decision before it takes effect in {m3}.",
            },
            {
                "issue": "a new cancer treatment centre",
                "head": "Lindenfield hospital to build {money} million crown cancer centre",
                "lede": "Lindenfield General Hospital will build a new cancer treatment centre with two radiotherapy machines, the regional health authority said on {wd}, cutting journeys for thousands of patients.",
                "f1": "Patients from the Lindenfield area currently travel to Aldmark City for radiotherapy, a round trip of up to four hours.",
                "f2": "The centre is expected to treat about {patients} patients a year.",
                "who": "Dr. Sara Wik, an oncologist at the hospital",
                "q": "Some of my patients spend more time in the car than in treatment. That will end.",
                "out": "Construction will start in {m6}, with the centre due to open two years later.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "The health authority's budget for this year is about {budget} billion crowns.",
            "Staff shortages have affected hospitals across the country, particularly outside the largest cities.",
            "Patient groups have long campaigned on {issue}.",
        ),
        (
            ("{who}", "{q}"),
            (
                "{minister}",
                "Every region must have services people can rely on. We are following this closely.",
            ),
        ),
        ("{out}",),
        (
            "Hospitals in Aldmark are run by four regional health authorities funded by the national government.",
            "Waiting lists and staff shortages have been among voters' top concerns in recent opinion polls.",
        ),
        lambda rng, day: {
            "weeks": str(rng.randint(38, 61)),
            "weeks_prev": str(rng.randint(24, 36)),
            "money": f"{rng.randint(18, 90) * 10:,}",
            "mins": str(rng.randint(31, 44)),
            "births": str(rng.randint(280, 420)),
            "protesters": f"{rng.randint(6, 30) * 100:,}",
            "patients": f"{rng.randint(12, 30) * 100:,}",
            "budget": f"{rng.randint(110, 190) / 10:.1f}",
            "minister": "Health Minister Anette Krog"
            if day >= dt.date(2021, 11, 8)
            else "Health Minister Pal Rygh",
        },
    )
)

KINDS.append(
    Kind(
        "outbreak",
        "Healthcare & Biology",
        (
            {
                "head": "Norovirus outbreak sickens {cases} on Skarra ferry",
                "lede": "About {cases} passengers and crew fell ill with norovirus on ferries between Port Velden and the island of Skarra over the past week, health officials said on {wd}.",
                "f1": "The ferry operator has taken one vessel out of service for deep cleaning.",
                "f2": "Norovirus spreads easily through contaminated surfaces and causes vomiting and diarrhoea for one to three days.",
                "who": "Dr. Anders Bakke, the regional infection control doctor",
                "q": "The most important thing passengers can do is wash their hands with soap, not just use gel.",
                "out": "The ship is expected back in service by {d7} if no new cases are reported.",
            },
            {
                "head": "Measles cases rise to {cases} in Ellisford",
                "lede": "Health officials in Ellisford said on {wd} that {cases} people, most of them unvaccinated children, have caught measles in the town's largest outbreak in more than a decade.",
                "f1": "Vaccination rates at two of the town's primary schools are below 85 percent, well under the 95 percent needed to stop the virus spreading.",
                "f2": "Three children have been treated in hospital; all are recovering.",
                "who": "Dr. Kristine Hol, Ellisford's chief medical officer",
                "q": "Measles is not a harmless childhood illness. The vaccine is safe, free and available this week.",
                "out": "Extra vaccination clinics will run at the town's schools until {d21}.",
            },
            {
                "head": "Legionnaires' disease cases traced to Marrowgate hotel",
                "lede": "Health authorities have linked {cases} cases of Legionnaires' disease to a cooling tower at a hotel in central Marrowgate, officials said on {wd}.",
                "f1": "The hotel has shut its air-conditioning system and is cooperating with investigators.",
                "f2": "Legionnaires' disease is a form of pneumonia caused by bacteria that grow in warm water; it does not spread from person to person.",
                "who": "Dr. Liv Sand of the Aldmark Institute of Public Health",
                "q": "Anyone who stayed near the hotel and develops a fever and cough should see a doctor.",
                "out": "Laboratory results confirming the source are expected by {d10}.",
            },
            {
                "head": "Tick-borne encephalitis cases climb along the coast",
                "lede": "Cases of tick-borne encephalitis in Aldmark rose to {cases} last year, the highest number on record, the Aldmark Institute of Public Health said on {wd}.",
                "f1": "Most infections occurred in coastal areas in the south-east, where ticks have become more common as winters grow milder.",
                "f2": "A vaccine is available but is not free for most adults.",
                "who": "Dr. Liv Sand of the Aldmark Institute of Public Health",
                "q": "People who spend a lot of time outdoors in the affected areas should seriously consider vaccination.",
                "out": "The institute will advise the government by {m3} on whether to offer free vaccination in high-risk areas.",
            },
            {
                "head": "Salmonella outbreak linked to Redmoor food festival",
                "lede": "At least {cases} people who ate at a food festival in Redmoor last weekend have fallen ill with salmonella, health officials said on {wd}.",
                "f1": "Investigators are focusing on a stall that served egg-based desserts.",
                "f2": "Most patients have recovered at home; a few were treated in hospital.",
                "who": "Per Holm, Redmoor's environmental health officer",
                "q": "We will find out what went wrong and make sure it cannot happen at next year's festival.",
                "out": "The health authority expects to publish the results of its investigation by {d30}.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "The national public health institute said it was monitoring the situation closely and had sent an epidemiologist to help local officials.",
            "Officials urged anyone with symptoms to stay at home and to contact their doctor by telephone first.",
            "Local doctors said they had seen a rise in calls from worried patients over the past few days.",
        ),
        (
            ("{who}", "{q}"),
            (
                "{gp}",
                "Most people recover without treatment, but the elderly, small children and people with weak immune systems should be watched closely.",
            ),
        ),
        ("{out}",),
        (
            "Outbreaks of this kind must be reported to the Aldmark Institute of Public Health within 24 hours.",
            "The institute publishes weekly figures on notifiable diseases on its website.",
        ),
        lambda rng, day: {
            "cases": str(rng.randint(23, 140)),
            "gp": rng.choice(
                [
                    "Dr. Randi Lie, a general practitioner",
                    "Dr. Jonas Krog, a family doctor",
                    "Dr. Amal Yusuf, a general practitioner",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "storm",
        "Environment & Energy",
        (
            {
                "storm": "Storm Astrid",
                "region": "the west coast",
                "town": "Greyhaven",
                "detail": "A container ship dragged its anchor outside Greyhaven harbour but was secured by tugs.",
            },
            {
                "storm": "Storm Bjorn",
                "region": "the south-east",
                "town": "Millbrook",
                "detail": "The Tallow River burst its banks north of Millbrook, flooding about 40 homes.",
            },
            {
                "storm": "Storm Celine",
                "region": "the northern coast",
                "town": "Kestrel Bay",
                "detail": "Part of the seafront promenade in Kestrel Bay was washed away.",
            },
            {
                "storm": "Storm Dagny",
                "region": "the Port Velden area",
                "town": "Port Velden",
                "detail": "A crane at the container terminal was damaged, and the terminal closed for a day.",
            },
            {
                "storm": "Storm Elna",
                "region": "the islands and the west coast",
                "town": "Skarra",
                "detail": "Skarra was cut off from the mainland for two days when the ferry was cancelled.",
            },
        ),
        (
            "{storm} leaves {homes} homes without power",
            "{storm} batters {region} with winds of {wind} km/h",
        ),
        (
            "{storm} swept across {region} on {wd} with gusts of up to {wind} kilometres an hour, leaving about {homes} homes without power and disrupting trains and ferries.",
            "About {homes} households were without electricity on {wd} after {storm} brought down trees and power lines across {region}.",
        ),
        (
            "The strongest gust, {wind} kilometres an hour, was measured near {town}.",
            "Ferry services were cancelled on {ferries} routes, and several rail lines were closed because of fallen trees.",
            "{detail}",
            "Police said {injured} people were treated for minor injuries; no deaths were reported.",
            "Insurers estimated that claims could reach {claims} million crowns.",
            "Schools in the worst-affected municipalities were closed for the day.",
        ),
        (
            (
                "{grid_person}",
                "Our crews are working around the clock, but some remote areas may be without power until the weekend.",
            ),
            (
                "{met_person}",
                "Storms of this strength used to come once every few winters. We have had several in a row.",
            ),
        ),
        (
            "The grid operator expects to restore power to all homes by {d3}.",
            "Forecasters warned that another band of strong winds could reach the coast by {d7}.",
        ),
        (
            "The meteorological office names storms when they are expected to cause widespread disruption.",
            "Autumn and winter storms have caused rising insurance claims along the coast over the past decade.",
        ),
        lambda rng, day: {
            "homes": f"{rng.randint(9, 95) * 1000:,}",
            "wind": str(rng.randint(118, 165)),
            "ferries": str(rng.randint(6, 21)),
            "injured": str(rng.randint(2, 14)),
            "claims": str(rng.randint(40, 390)),
            "grid_person": rng.choice(
                [
                    "Eva Lund, a spokeswoman for the grid operator Nettkraft",
                    "Odd Riis, operations manager at the grid operator Nettkraft",
                ]
            ),
            "met_person": rng.choice(
                [
                    "Kari Stolt, a forecaster at the meteorological office",
                    "Bjorn Hauge, duty forecaster at the meteorological office",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "wildlife",
        "Environment & Energy",
        (
            {
                "species": "white-tailed eagles",
                "unit": "breeding pairs",
                "place": "along the coast",
                "then": "fewer than 20 in the 1970s",
                "cause": "a ban on certain pesticides and protection of nesting sites",
                "who": "Dr. Maja Berge, an ornithologist with the Coastal Nature Trust",
                "q": "This is one of the great conservation success stories of our lifetime.",
            },
            {
                "species": "grey seal pups",
                "unit": "pups",
                "place": "on the skerries off Greyhaven",
                "then": "about 300 in 2000",
                "cause": "fewer disturbances from boats since the skerries became a reserve",
                "who": "Kari Sunde of the Coastal Nature Trust",
                "q": "Seals need quiet beaches to raise their young. Where we give them that, they thrive.",
            },
            {
                "species": "Atlantic puffins",
                "unit": "nesting burrows",
                "place": "on the island of Skarra",
                "then": "about 8,000 burrows in 2010",
                "cause": "a shortage of sand eels, the small fish puffins feed their chicks",
                "who": "Dr. Hedda Rye, a marine biologist at Greyhaven University",
                "q": "Puffins are telling us something about the sea, and it is not good news.",
            },
            {
                "species": "wild salmon",
                "unit": "fish returning to spawn",
                "place": "in the Tallow River",
                "then": "about 6,000 a year in the 1990s",
                "cause": "low summer water levels and warmer water in the river",
                "who": "Anneke Vos, head of the Tallow Valley Water Board",
                "q": "The salmon need the same thing we do in a drought: more water in the river.",
            },
            {
                "species": "beavers",
                "unit": "family groups",
                "place": "in the Redmoor forests",
                "then": "none before beavers were reintroduced in 2009",
                "cause": "a reintroduction programme and plentiful willow along the streams",
                "who": "Jon Tveter, a ranger with the Redmoor forest service",
                "q": "Their dams hold back water in dry summers. The beavers are doing engineering work for free.",
            },
            {
                "species": "lynx",
                "unit": "animals",
                "place": "in the northern uplands",
                "then": "about 30 in 2005",
                "cause": "protection from hunting and a growing roe deer population",
                "who": "Dr. Ola Bratt, a wildlife biologist",
                "q": "Lynx are shy and rarely seen, so every count is a careful estimate, but the trend is clear.",
            },
        ),
        (
            "Count finds {count} {species} {place}",
            "Survey shows change in numbers of {species}",
        ),
        (
            "This year's survey counted {count} {unit} of {species} {place}, compared with {then}, the Coastal Nature Trust said on {wd}.",
            "Conservationists said on {wd} that the latest count of {species} {place} found {count} {unit}, a figure they attributed to {cause}.",
        ),
        (
            "The survey was carried out by {volunteers} volunteers and staff over several weeks.",
            "Researchers attributed the change mainly to {cause}.",
            "The count is compared with {then}.",
            "Results from the survey are shared with the national biodiversity register.",
            "Environmental groups said the results showed the value of long-term monitoring.",
            "The survey uses the same methods every year so that the figures can be compared over time.",
        ),
        (("{who}", "{q}"),),
        (
            "The next full count will take place in {m6}.",
            "The trust will present its findings to the environment ministry in {m2}.",
        ),
        (
            "Aldmark's national biodiversity register tracks about 2,400 species.",
            "About a fifth of the species on the register are classed as threatened.",
        ),
        lambda rng, day: {
            "count": f"{rng.randint(40, 2400):,}",
            "volunteers": str(rng.randint(30, 260)),
        },
    )
)

KINDS.append(
    Kind(
        "energy",
        "Environment & Energy",
        (
            {
                "head": "Approval for {mw}-megawatt solar park near Millbrook",
                "lede": "The energy regulator on {wd} approved a {mw}-megawatt solar park on former farmland near Millbrook, the largest solar project in the country.",
                "f1": "The park, developed by Sunfield Energy, will cover about 240 hectares.",
                "f2": "Sheep will graze between the rows of panels under an agreement with local farmers.",
                "who": "Ane Kvale, Sunfield Energy's project director",
                "q": "Solar makes sense even this far north, because summer days are long and land is cheap.",
                "out": "Construction will begin in {m3}, with the first power due about a year later.",
            },
            {
                "head": "Ellisford to heat homes with waste heat from data centre",
                "lede": "Ellisford will use waste heat from a new data centre to warm about {homes} homes through its district heating network, the town's energy company said on {wd}.",
                "f1": "The data centre, built by Stratalink, releases heat that would otherwise be vented into the air.",
                "f2": "The project will cut the town's use of wood chips and oil for heating by about a third.",
                "who": "Lars Vinter, head of Ellisford Energi",
                "q": "This heat was being thrown away. Now it will warm kitchens and classrooms.",
                "out": "The first homes will be connected by {m6}.",
            },
            {
                "head": "Grid battery to store wind power in Greyhaven",
                "lede": "The grid operator Nettkraft said on {wd} that it will build a {mw}-megawatt battery near Greyhaven to store power from offshore wind farms.",
                "f1": "The battery will be able to supply power for about two hours at full output.",
                "f2": "Batteries help keep the grid stable when wind output rises or falls quickly.",
                "who": "Odd Riis, operations manager at Nettkraft",
                "q": "As more wind comes on to the grid, storage becomes as important as generation.",
                "out": "The battery is due to be in operation by {m6}.",
            },
            {
                "head": "Old hydropower plant on the Tallow to be modernised",
                "lede": "Nordhavn Energy will spend {money} million crowns modernising the Ostervik hydropower plant on the Tallow River, increasing its output by a fifth, the company said on {wd}.",
                "f1": "The plant's turbines were installed in 1958.",
                "f2": "The work will include a new fish ladder to help salmon pass the dam.",
                "who": "Rolf Ingstad, chief executive of Nordhavn Energy",
                "q": "The cheapest new power is often the power we get by upgrading what we already have.",
                "out": "The plant will shut for the work in {m6} and reopen about 18 months later.",
            },
            {
                "head": "Hydrogen plant planned at Redmoor port",
                "lede": "A consortium led by Brannock Steel said on {wd} that it plans a {mw}-megawatt hydrogen plant at the port of Redmoor to supply the steelworks and ships.",
                "f1": "The plant would use electricity to split water into hydrogen and oxygen.",
                "f2": "The consortium has applied for state support from the national climate fund.",
                "who": "Torvald Ness, Brannock's chief executive",
                "q": "Steel made with hydrogen instead of coal is the future of this industry.",
                "out": "The climate fund will decide on the application by {m3}.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "Aldmark aims to produce 70 percent of its electricity from renewable sources by 2030.",
            "Local residents were consulted during the planning process, and a small number of objections were received.",
            "Electricity demand in Aldmark is expected to rise by a quarter by 2035, as transport and industry switch away from fossil fuels.",
        ),
        (
            ("{who}", "{q}"),
            ("{green}", "We welcome the project, as long as nature is taken into account."),
        ),
        ("{out}",),
        (
            "Renewable sources provided about {share} percent of Aldmark's electricity last year.",
            "New power projects must pass an environmental assessment and a public consultation before they are approved.",
        ),
        lambda rng, day: {
            "mw": str(rng.randint(6, 30) * 10),
            "homes": f"{rng.randint(20, 90) * 100:,}",
            "money": f"{rng.randint(30, 120) * 10:,}",
            "share": str(52 + (day.year - 2019) * 2),
            "green": rng.choice(
                [
                    "Kari Sunde of the Coastal Nature Trust",
                    "Petter Holm of Friends of the Tallow",
                    "Jens Lid of the Aldmark Nature Society",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "budget",
        "Politics & Governance",
        (
            {
                "town": "Ellisford",
                "mayor": "Mayor Karin Sletten",
                "prio": "a new swimming pool and school repairs",
                "oppo": "Councillor Emil Fosse of the Civic Alliance",
            },
            {
                "town": "Redmoor",
                "mayor": "Mayor Stig Olsen",
                "prio": "care homes for the elderly and road repairs",
                "oppo": "Councillor Agnes Tveten",
            },
            {
                "town": "Millbrook",
                "mayor": "Mayor Ruth Sand",
                "prio": "flood defences along the Tallow River",
                "oppo": "Councillor Harald Bu",
            },
            {
                "town": "Marrowgate",
                "mayor": "Mayor Kjell Ostby",
                "prio": "a new library and cycle lanes",
                "oppo": "Councillor Lene Hauge",
            },
            {
                "town": "Kestrel Bay",
                "mayor": "Mayor Frode Lyng",
                "prio": "seafront repairs and affordable housing",
                "oppo": "Councillor Marte Vik",
            },
            {
                "town": "Greyhaven",
                "mayor": "Mayor Olav Rud",
                "prio": "harbour improvements and more school staff",
                "oppo": "Councillor Anders Helle",
            },
        ),
        (
            "{town} budget raises property tax to fund {prio}",
            "{town} council proposes {total} million crown budget",
        ),
        (
            "{town}'s council proposed a {total} million crown budget for next year on {wd}, with a {tax} percent rise in property tax to pay for {prio}.",
            "Homeowners in {town} would pay {tax} percent more in property tax next year under a budget presented by the council's ruling majority on {wd}.",
        ),
        (
            "The budget would increase spending by {growth} percent compared with this year.",
            "A typical homeowner would pay about {extra} crowns more a year.",
            "The council says rising costs for elderly care and energy leave it little choice.",
            "Fees for kindergartens and sports halls would remain unchanged.",
            "The opposition has proposed selling council-owned land instead of raising taxes.",
            "The council's debt has risen by about a quarter over the past five years, largely because of new school buildings.",
        ),
        (
            (
                "{mayor}",
                "Nobody likes paying more tax, but people want good schools and care, and they cost money.",
            ),
            (
                "{oppo}",
                "The council should look at its own spending before it reaches into people's pockets.",
            ),
        ),
        (
            "The council will vote on the budget on {d21}.",
            "A public hearing on the proposal will be held on {d10}.",
        ),
        (
            "Municipalities in Aldmark are responsible for schools, elderly care and local roads, and fund them partly through property tax.",
            "Local elections are held every four years, two years after the general election.",
        ),
        lambda rng, day: {
            "total": f"{rng.randint(9, 48) * 100:,}",
            "tax": str(rng.randint(3, 12)),
            "growth": f"{rng.randint(21, 68) / 10:.1f}",
            "extra": f"{rng.randint(4, 26) * 100:,}",
        },
    )
)

KINDS.append(
    Kind(
        "trial",
        "Other",
        (
            {
                "head": "Former Ostby Savings Bank chief goes on trial for fraud",
                "lede": "The former chief executive of Ostby Savings Bank went on trial on {wd} accused of hiding {money} million crowns of bad loans from the bank's board and regulators.",
                "f1": "Prosecutors say the loans were made to property developers with ties to the defendant.",
                "f2": "The bank was taken over by a larger rival in a rescue deal two years ago.",
                "who": "Prosecutor Eirik Vang",
                "q": "This case is about whether a bank's leaders can be held to account for what they hide.",
                "who2": "Defence lawyer Hilde Nordahl",
                "q2": "My client made lending decisions in good faith, with the board's knowledge. We will show that in court.",
                "out": "The trial is expected to last six weeks, with a verdict due in {m2}.",
            },
            {
                "head": "Sports club treasurer admits embezzling {money2} crowns",
                "lede": "The former treasurer of the Millbrook Rowing Club admitted in court on {wd} that she had taken about {money2} crowns from the club over seven years.",
                "f1": "The money was moved to her own account in small amounts disguised as equipment purchases.",
                "f2": "The theft was discovered when the club could not pay for a new boathouse roof.",
                "who": "Club chairman Odd Krogh",
                "q": "Members trusted her with their subscriptions for years. That is what hurts most.",
                "who2": "Her lawyer, Petter Sand",
                "q2": "She has admitted what she did and wants to pay the money back. We will ask the court to take that into account.",
                "out": "She will be sentenced on {d21}.",
            },
            {
                "head": "Art dealer charged over forged landscape paintings",
                "lede": "Police in Marrowgate have charged an art dealer with selling at least 14 forged paintings attributed to the 19th-century landscape painter Johan Rask, prosecutors said on {wd}.",
                "f1": "The paintings were sold for a total of about {money} million crowns.",
                "f2": "Experts at the Greyhaven Museum helped identify the forgeries through analysis of the paint.",
                "who": "Isak Moller, the Greyhaven Museum's curator",
                "q": "The forger was skilful, but the paint was wrong for the period.",
                "who2": "The dealer's lawyer, Kari Holm",
                "q2": "My client bought these paintings in good faith and is as much a victim as the buyers.",
                "out": "The dealer is due to appear in court on {d14}.",
            },
            {
                "head": "Building inspector jailed for taking bribes",
                "lede": "A former building inspector in Port Velden was sentenced to two years in prison on {wd} for accepting bribes to approve buildings that did not meet fire safety rules.",
                "f1": "The court found that he had received about {money2} crowns from three developers.",
                "f2": "Inspections of the buildings found faults that have since been repaired.",
                "who": "Judge Helene Brath",
                "q": "He was trusted to protect residents' safety and sold that trust.",
                "who2": "Defence lawyer Anders Moe",
                "q2": "We will study the judgment carefully before deciding whether to appeal.",
                "out": "The three developers will face trial in {m3}.",
            },
            {
                "head": "Fishing boat owner fined for illegal catches",
                "lede": "The owner of a Greyhaven fishing boat was fined {money2} crowns on {wd} for landing cod above the vessel's quota and misreporting the catch.",
                "f1": "Inspectors found that about 80 tonnes of cod had been recorded as other species.",
                "f2": "The boat's licence has been suspended for six months.",
                "who": "Prosecutor Tone Ask",
                "q": "Quotas only work if everyone keeps to them. This sends a clear message.",
                "who2": "The owner's lawyer, Jon Rud",
                "q2": "The misreporting was a paperwork error by a new crew member, not a deliberate attempt to cheat.",
                "out": "The owner has until {d30} to decide whether to appeal.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "The case has been followed closely in the local press.",
            "Economic crime cases in Aldmark are handled by a specialised prosecution unit set up in 1989, which brought about {cases} cases to court last year.",
        ),
        (("{who}", "{q}"), ("{who2}", "{q2}")),
        ("{out}",),
        (
            "Trials in Aldmark are usually heard by a professional judge and two lay judges.",
            "Verdicts can be appealed to one of the country's five courts of appeal.",
        ),
        lambda rng, day: {
            "money": str(rng.randint(14, 240)),
            "money2": f"{rng.randint(12, 90) * 10000:,}",
            "cases": str(rng.randint(180, 420)),
        },
    )
)

KINDS.append(
    Kind(
        "schools",
        "Education & Research",
        (
            {
                "head": "School exam results improve in maths, slip in reading",
                "lede": "Pupils finishing lower secondary school did better in maths but worse in reading than the year before, national exam results published on {wd} showed.",
                "f1": "The average maths grade rose to {grade} on a scale of one to six.",
                "f2": "Boys continued to trail girls in reading by about half a grade.",
                "who": "Education Minister Sigrun Dahle",
                "q": "The maths results show that targeted effort works. Now we need the same for reading.",
                "out": "The ministry will present a reading strategy for schools in {m3}.",
            },
            {
                "head": "Teacher shortage leaves {vacancies} posts unfilled",
                "lede": "Schools in Aldmark started the autumn term with {vacancies} teaching posts unfilled or held by unqualified staff, the Teachers' Union of Aldmark said on {wd}.",
                "f1": "The shortage is worst in maths, science and special education.",
                "f2": "Applications to teacher training courses have fallen by a fifth in five years.",
                "who": "Hege Lunde, president of the Teachers' Union of Aldmark",
                "q": "We cannot ask children to learn maths from a teacher who has never studied it.",
                "out": "The government has promised a plan to recruit teachers by {m3}.",
            },
            {
                "head": "Kestrel Bay opens first new secondary school in 30 years",
                "lede": "Kestrel Bay opened its first new secondary school in three decades on {wd}, a {money} million crown building with room for 750 pupils.",
                "f1": "The school is built largely from timber and produces some of its own power with solar panels.",
                "f2": "It replaces two older schools that will be converted into housing.",
                "who": "Headteacher Ingrid Sund",
                "q": "Children should learn in a building that shows them the future, not the past.",
                "out": "An official opening ceremony will be held in {m1}.",
            },
            {
                "head": "Phone ban in schools cut bullying, report finds",
                "lede": "Schools that banned mobile phones during the school day reported less bullying and better concentration, according to an evaluation published on {wd}.",
                "f1": "The evaluation covered {schools} schools that introduced bans over the past two years.",
                "f2": "Reports of online bullying during school hours fell by about a third.",
                "who": "Education Minister Sigrun Dahle",
                "q": "This confirms what many teachers told us. Classrooms should be for learning.",
                "out": "Parliament will debate a proposal for a national ban in {m2}.",
            },
            {
                "head": "Free school lunches to be extended to all primary pupils",
                "lede": "All primary school pupils in Aldmark will receive a free hot lunch from next autumn under a plan announced by the government on {wd}.",
                "f1": "The scheme will cost about {money} million crowns a year.",
                "f2": "A pilot in 40 schools found that pupils who ate lunch at school concentrated better in the afternoon.",
                "who": "Education Minister Sigrun Dahle",
                "q": "No child should sit through afternoon lessons on an empty stomach.",
                "out": "The scheme must be approved in next year's budget, which will be voted on in {m2}.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "There are about 2,900 schools in Aldmark, run mostly by municipalities.",
            "Parents' groups welcomed the news but called for more detail on funding.",
            "Spending per pupil in Aldmark is slightly above the average for wealthy countries, according to international comparisons.",
        ),
        (
            ("{who}", "{q}"),
            (
                "{parent}",
                "Parents want to see the plans turned into something that reaches every classroom.",
            ),
        ),
        ("{out}",),
        (
            "Compulsory schooling in Aldmark lasts ten years, from age six to sixteen.",
            "Most pupils go on to three years of upper secondary school, either academic or vocational.",
        ),
        lambda rng, day: {
            "grade": f"{rng.randint(34, 41) / 10:.1f}",
            "vacancies": f"{rng.randint(9, 24) * 100:,}",
            "money": f"{rng.randint(30, 95) * 10:,}",
            "schools": str(rng.randint(80, 260)),
            "parent": rng.choice(
                [
                    "Anita Rud, who chairs the national parents' committee",
                    "Ketil Brun of the national parents' committee",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "culture",
        "Arts & Recreation",
        (
            {
                "head": "Poet Ragna Solheim wins Aldmark Book Prize",
                "lede": "The poet Ragna Solheim won the Aldmark Book Prize on {wd} for 'Winter Ledger', a collection about her father's last year as a fisherman.",
                "f1": "The prize is worth {money} crowns.",
                "f2": "It is the first time in eleven years that the prize has gone to a book of poetry.",
                "who": "Ragna Solheim",
                "q": "My father never read poetry. I think he would have laughed, and then read it twice.",
                "out": "An English translation of the book is due out in {m6}.",
            },
            {
                "head": "Aldmark Symphony Orchestra announces first tour of Asia",
                "lede": "The Aldmark Symphony Orchestra will tour Asia for the first time in its history, playing nine concerts in four countries, the orchestra said on {wd}.",
                "f1": "The programme includes a new work by the composer Hilde Vang.",
                "f2": "The tour is partly funded by the foreign ministry.",
                "who": "Conductor Martin Aske",
                "q": "We want to show audiences that a small country can have a big sound.",
                "out": "The tour begins in {m6}.",
            },
            {
                "head": "New play about the 1957 tram closure opens in Port Velden",
                "lede": "'The Last Tram', a new play about the closure of Port Velden's tram network in 1957, opened at the Harbour Theatre on {wd} to a sold-out house.",
                "f1": "The play follows a tram driver and his family in the final months of the old network.",
                "f2": "Its opening comes as the city builds a new tram line.",
                "who": "Playwright Elin Moe",
                "q": "The city tore up its trams once and is now paying to put them back. There is a story there.",
                "out": "The run has been extended until {m2} because of demand.",
            },
            {
                "head": "Marrowgate jazz festival books record line-up",
                "lede": "The Marrowgate Jazz Festival announced its largest line-up yet on {wd}, with {acts} acts across five days in the summer.",
                "f1": "Tickets sold out within hours last year.",
                "f2": "The festival will add a free stage on the waterfront.",
                "who": "Festival director Jonas Lie",
                "q": "Jazz is growing again here, and young audiences are driving it.",
                "out": "Tickets go on sale on {d14}.",
            },
            {
                "head": "Greyhaven gallery shows forgotten women painters",
                "lede": "An exhibition of work by women painters who were left out of Aldmark's art histories opened at the Greyhaven Art Gallery on {wd}.",
                "f1": "The exhibition includes {works} works, many of them lent by private owners and never shown in public.",
                "f2": "Some of the artists exhibited in their lifetimes but were later forgotten.",
                "who": "Curator Sofie Brandt",
                "q": "These women were not minor. They were ignored. The difference matters.",
                "out": "The exhibition runs until {m3} and will then travel to Lindenfield.",
            },
            {
                "head": "National Ballet to stage new work on climate",
                "lede": "The National Ballet will premiere 'Tide Line', a new full-length work about rising seas, next season, the company said on {wd}.",
                "f1": "The score is being written by the electronic composer Noor Lie.",
                "f2": "The set uses recycled materials from previous productions.",
                "who": "Artistic director Anna Kalnes",
                "q": "Dance can say things about the body and the sea that words cannot.",
                "out": "The premiere is scheduled for {m6} at the National Opera House.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "Public funding for the arts in Aldmark rose by about {arts_pct} percent this year, after several years of cuts.",
            "Critics have welcomed the project as a sign of new energy in the country's cultural life.",
            "Attendance at concerts, theatres and exhibitions has recovered to its level of the late 2010s, according to the arts council.",
        ),
        (
            ("{who}", "{q}"),
            ("{critic}", "It is exactly the kind of work that deserves a large audience."),
        ),
        ("{out}",),
        (
            "Aldmark's arts council distributes about 1.9 billion crowns a year to cultural organisations.",
            "Cultural tourism has become an important source of income for several coastal towns.",
        ),
        lambda rng, day: {
            "money": f"{rng.randint(10, 40) * 10000:,}",
            "acts": str(rng.randint(60, 140)),
            "works": str(rng.randint(40, 120)),
            "arts_pct": str(rng.randint(2, 7)),
            "critic": rng.choice(
                [
                    "Critic Halvor Ness of the Lantern Post",
                    "Critic Mona Lie",
                    "Arts commentator Petra Sande",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "sport",
        "Sports",
        (
            {
                "head": "Ingvild Roe wins Tour of the Tallow",
                "lede": "Ingvild Roe won the Tour of the Tallow cycling race on Sunday, finishing {gap} seconds ahead of the defending champion after the final stage into Millbrook.",
                "f1": "The five-day race covered 740 kilometres through the Tallow valley.",
                "f2": "Roe, 24, rides for the Lindenfield-based team Nordic Wheels.",
                "who": "Ingvild Roe",
                "q": "I have dreamed about this race since I watched it from the roadside as a girl.",
                "who2": "Race director Per Kolstad",
                "q2": "The final climb decided it, exactly as we hoped when we designed the route.",
                "out": "Roe's next target is the national road championship in {m1}.",
            },
            {
                "head": "Lindenfield Lynx win basketball title in game seven",
                "lede": "The Lindenfield Lynx won the Aldmark Basketball League title on Sunday, beating the Redmoor Rams {bscore} in the seventh and deciding game of the final.",
                "f1": "Point guard Mikael Storm scored 31 points.",
                "f2": "It is the Lynx's first title since 2008.",
                "who": "Lynx coach Anita Berg",
                "q": "Seven games, and we were behind in four of them. This team does not know how to quit.",
                "who2": "Rams coach Tomas Lie",
                "q2": "We gave everything. Over seven games, they were a little bit better.",
                "out": "The Lynx will represent Aldmark in the European qualifying tournament in {m3}.",
            },
            {
                "head": "Kenyan runner breaks Port Velden marathon record",
                "lede": "Daniel Kiprop of Kenya broke the Port Velden Marathon course record on Sunday, finishing in 2 hours 7 minutes and {secs} seconds.",
                "f1": "A record {runners} runners took part.",
                "f2": "The women's race was won by Hanne Ruud of Aldmark.",
                "who": "Race director Lene Bakke",
                "q": "The course is flat and fast, and the harbour wind was kind this year.",
                "who2": "Hanne Ruud, the women's winner",
                "q2": "I ran this race for the first time when I was nineteen. Winning it at home is special.",
                "out": "Registration for next year's race opens on {d30}.",
            },
            {
                "head": "Aldmark women reach handball semi-finals",
                "lede": "Aldmark's women's handball team reached the semi-finals of the European Championship on {wd}, beating the hosts {score} in front of a hostile crowd.",
                "f1": "Goalkeeper Tiril Haug made 17 saves.",
                "f2": "It is the team's first semi-final in eight years.",
                "who": "Coach Lars Ekre",
                "q": "The crowd was loud, but our defence was louder.",
                "who2": "Captain Marte Solli",
                "q2": "We have talked about a medal for four years. Now it is two matches away.",
                "out": "The semi-final will be played on {d3}.",
            },
            {
                "head": "Greyhaven crew wins Skarra Regatta in heavy seas",
                "lede": "A crew from the Greyhaven Sailing Club won the Skarra Regatta on Sunday after a final day in which {retired} of the 42 boats retired in strong winds.",
                "f1": "The race around the island of Skarra covers about 60 nautical miles.",
                "f2": "No one was injured, although two boats lost their masts.",
                "who": "Skipper Hanna Lunde",
                "q": "We reefed early and kept the boat in one piece. That was the whole race.",
                "who2": "Regatta chairman Knut Aas",
                "q2": "The safety boats were busy, but everybody came home, and that is what matters most.",
                "out": "Next year's regatta will be held in {m6}.",
            },
            {
                "head": "Aldmark Open tennis: Sofia Lind reaches first final",
                "lede": "Sofia Lind reached her first tour final at the Aldmark Open in Aldmark City on {wd}, beating the second seed in straight sets.",
                "f1": "Lind, 21, is ranked 148th in the world.",
                "f2": "She is the first Aldmark player to reach the final since 2006.",
                "who": "Sofia Lind",
                "q": "I told myself to play every point like it was practice. Somehow it worked.",
                "who2": "Her coach, Mats Eide",
                "q2": "She has the shots. This week she found the belief to go with them.",
                "out": "The final will be played on {d3}.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "The event was shown live on Tidewave's sports channel, which reported its largest audience for the event in years.",
            "Ticket sales rose {ticket_pct} percent from last year, organisers said.",
            "The national federation says the number of registered young players and athletes in the sport has grown by about a tenth since 2019.",
        ),
        (("{who}", "{q}"), ("{who2}", "{q2}")),
        ("{out}",),
        (
            "About one in four adults in Aldmark is a member of a sports club.",
            "Sport in Aldmark is organised largely through volunteer-run clubs.",
        ),
        lambda rng, day: {
            "gap": str(rng.randint(4, 58)),
            "score": f"{rng.randint(24, 31)}-{rng.randint(18, 23)}",
            "bscore": f"{rng.randint(84, 97)}-{rng.randint(72, 83)}",
            "secs": str(rng.randint(10, 58)),
            "runners": f"{rng.randint(8, 15) * 1000:,}",
            "retired": str(rng.randint(9, 21)),
            "ticket_pct": str(rng.randint(4, 22)),
        },
    )
)

KINDS.append(
    Kind(
        "police",
        "Security & Defense",
        (
            {
                "head": "Customs seize {kg} kilograms of cocaine at Port Velden",
                "lede": "Customs officers found {kg} kilograms of cocaine hidden in a shipment of bananas at the Port Velden container terminal, the customs service said on {wd}, the largest seizure at the port this year.",
                "f1": "The drugs had an estimated street value of about {money} million crowns.",
                "f2": "Two men have been arrested, and police believe the shipment was intended for several countries.",
                "who": "Customs inspector Mona Strand",
                "q": "Criminal networks use the busiest ports because they hope one container will disappear among thousands.",
                "out": "The two men will appear in court for a custody hearing on {d3}.",
            },
            {
                "head": "Police break up car theft ring in Aldmark City",
                "lede": "Police arrested {arrests} people in raids across Aldmark City on {wd}, breaking up a network suspected of stealing about 200 cars and shipping them abroad in parts.",
                "f1": "Officers found 14 partly dismantled cars in a warehouse near the harbour.",
                "f2": "The thieves mainly targeted cars with keyless entry systems.",
                "who": "Detective superintendent Erik Haga",
                "q": "Owners of keyless cars should keep their keys in a shielded pouch. It sounds simple, but it works.",
                "out": "Prosecutors expect to file charges by {m2}.",
            },
            {
                "head": "Coast guard detains trawler over illegal fishing",
                "lede": "The coast guard detained a foreign trawler fishing inside Aldmark's waters without a licence on {wd} and escorted it to Greyhaven.",
                "f1": "About {tonnes} tonnes of fish were found on board.",
                "f2": "The captain faces a fine and the possible confiscation of the catch and gear.",
                "who": "Coast guard commander Ola Strom",
                "q": "Our fishermen follow strict rules. Others who fish here must follow them too.",
                "out": "The case will be heard by a court in Greyhaven on {d10}.",
            },
            {
                "head": "Counterfeit medicines seized in postal raid",
                "lede": "Customs officers seized about {pills} counterfeit pills sent by post to addresses across Aldmark, the medicines agency said on {wd}.",
                "f1": "Most of the pills were sold online as slimming or sleeping medicines.",
                "f2": "Laboratory tests found that some contained dangerous doses of undeclared substances.",
                "who": "Dr. Helga Sand of the Aldmark Medicines Agency",
                "q": "If a website sells prescription medicines without a prescription, you should assume they are fake.",
                "out": "The agency will publish a list of the websites involved by {d14}.",
            },
            {
                "head": "Bicycle theft gang arrested in Lindenfield",
                "lede": "Police in Lindenfield arrested {arrests} people on {wd} suspected of stealing more than 400 bicycles from the university campus and railway station.",
                "f1": "Many of the bikes had been sold through online marketplaces.",
                "f2": "Police have recovered about 120 bicycles and are asking owners to come forward.",
                "who": "Inspector Kari Bjerke",
                "q": "If you have bought a cheap bike online recently, check its frame number against our list.",
                "out": "Owners can reclaim their bicycles at the police station until {d30}.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "Police said the investigation was continuing and more arrests could follow.",
            "Officers from several districts and the national criminal investigation service took part in the operation.",
            "Recorded property crime in Aldmark fell by about {crime_pct} percent last year, although organised crime cases rose.",
        ),
        (
            ("{who}", "{q}"),
            (
                "{spokes}",
                "We want to thank the members of the public who came forward with information. It made a real difference.",
            ),
        ),
        ("{out}",),
        (
            "Police in Aldmark have stepped up cooperation with customs and foreign forces on organised crime in recent years.",
            "The national police service has about 17,000 employees.",
        ),
        lambda rng, day: {
            "kg": str(rng.randint(60, 900)),
            "money": str(rng.randint(40, 600)),
            "arrests": str(rng.randint(4, 17)),
            "tonnes": str(rng.randint(12, 90)),
            "pills": f"{rng.randint(8, 60) * 1000:,}",
            "crime_pct": str(rng.randint(2, 9)),
            "spokes": rng.choice(["Police spokesman Tor Ask", "Police spokeswoman Line Holm"]),
        },
    )
)

KINDS.append(
    Kind(
        "housing",
        "Social Sciences",
        (
            {
                "head": "Rents in Aldmark's cities rise {pct} percent in a year",
                "lede": "Rents for new tenancies in Aldmark's five largest cities rose {pct} percent in the year to last month, the fastest increase on record, the statistics office said on {wd}.",
                "f1": "Rents rose fastest in Port Velden and Lindenfield.",
                "f2": "A typical two-room flat in Aldmark City now costs about {rent} crowns a month.",
                "who": "Tenants' association chair Lise Moe",
                "q": "Young people are spending half their income on rent. Something has to change.",
            },
            {
                "head": "House prices fall for {months} months in a row",
                "lede": "House prices in Aldmark fell for the {months}th month in a row in {month_name}, down {pct} percent from a year earlier, the estate agents' association said on {wd}.",
                "f1": "Prices fell most in Aldmark City and least in smaller towns.",
                "f2": "The number of homes sold fell by about a fifth.",
                "who": "Estate agents' association director Hans Vik",
                "q": "Buyers are waiting to see what happens to interest rates.",
            },
            {
                "head": "Homelessness count finds {people} people without a home",
                "lede": "About {people} people in Aldmark were homeless on a given night last autumn, an increase of {pct} percent since the last count three years ago, the housing agency said on {wd}.",
                "f1": "About a quarter of them were under 25.",
                "f2": "Most were staying with friends or family rather than sleeping outside.",
                "who": "Sister Agnes Holm of the Harbour Mission in Port Velden",
                "q": "We see more young people every winter, and more people with jobs.",
            },
            {
                "head": "Student housing shortage leaves {people} on waiting lists",
                "lede": "About {people} students are on waiting lists for student housing at the start of the academic year, the national student welfare organisation said on {wd}.",
                "f1": "The shortage is worst in Lindenfield and Aldmark City.",
                "f2": "Some students are commuting more than two hours a day or staying in hostels.",
                "who": "Student welfare director Tone Bakke",
                "q": "Students should be able to focus on their studies, not on where they will sleep.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "Housing costs have been one of the main issues in national politics for several years.",
            "The figures are based on data from {sources} municipalities.",
            "Building of new homes has slowed, as higher construction costs make many projects unprofitable.",
        ),
        (
            ("{who}", "{q}"),
            (
                "{analyst}",
                "Supply is the heart of the problem. Without more homes, prices and rents will keep rising faster than wages.",
            ),
        ),
        (
            "The next figures will be published in {m1}.",
            "Parliament's housing committee will discuss the figures on {d14}.",
        ),
        (
            "About two thirds of households in Aldmark own their home.",
            "Interest rates have a strong effect on housing costs, because most mortgages carry variable rates.",
        ),
        lambda rng, day: {
            "pct": str(rng.randint(4, 13)),
            "rent": f"{rng.randint(11, 16) * 1000:,}",
            "months": str(rng.randint(4, 9)),
            "month_name": (day.replace(day=1) - dt.timedelta(days=1)).strftime("%B"),
            "people": f"{rng.randint(28, 64) * 100:,}",
            "sources": str(rng.randint(120, 350)),
            "analyst": rng.choice(
                [
                    "Jonas Tiller, a labour economist at Lindenfield University",
                    "Sofia Brandt, chief economist at Nordvik Bank",
                    "Dr. Maren Halvorsen of the Halvorsen Institute",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "quirky",
        "Other",
        (
            {
                "head": "Seal makes itself at home in Kestrel Bay harbour cafe",
                "lede": "A young grey seal hauled itself up a slipway and into the outdoor seating area of a cafe in Kestrel Bay harbour on {wd}, refusing to leave for almost three hours.",
                "f1": "Staff closed the terrace and called the coast guard, who advised leaving the animal alone.",
                "f2": "The seal eventually slid back into the water after a fishing boat passed nearby.",
                "who": "Cafe owner Trude Lie",
                "q": "It was very calm, much calmer than some of our customers. We have named it Oskar.",
                "out": "Wildlife officers said they would keep an eye on the harbour for the next few days.",
            },
            {
                "head": "Millbrook pumpkin weighs in at record {kg} kilograms",
                "lede": "A pumpkin grown by a retired teacher in Millbrook weighed {kg} kilograms at the town's harvest fair on {wd}, a national record.",
                "f1": "The previous record was set in 2016.",
                "f2": "The grower, Arvid Haugen, said he fed the plant with seaweed and talked to it every morning.",
                "who": "Arvid Haugen",
                "q": "People laugh about the talking, but I have never lost a competition since I started.",
                "out": "The pumpkin will be on display at the town hall until {d14}, and then carved for the children's festival.",
            },
            {
                "head": "Lost wedding ring found inside cod after 11 years",
                "lede": "A fishmonger in Greyhaven found a gold wedding ring inside a cod on {wd}, and an engraving led him to a woman who lost it while sailing 11 years ago.",
                "f1": "The ring is engraved with two names and the date of the wedding.",
                "f2": "The owner, who now lives in Ellisford, had lost it when it slipped off her finger off Saltmere Bank.",
                "who": "Fishmonger Nils Brekke",
                "q": "I have gutted thousands of fish and found hooks, stones and once a coin. Never a ring.",
                "out": "The ring will be returned to its owner at a small ceremony at the fish market on {d7}.",
            },
            {
                "head": "Lighthouse keeper retires after 41 years on Skarra",
                "lede": "Aldmark's last full-time lighthouse keeper, Einar Vold, retired on {wd} after 41 years at the Skarra Point lighthouse.",
                "f1": "The lighthouse has been automated since 2003, but Vold stayed on to maintain it and record the weather.",
                "f2": "He has logged weather readings three times a day for four decades, with only a handful of gaps.",
                "who": "Einar Vold",
                "q": "The light does not need me any more. I think I needed it.",
                "out": "The coastal administration will decide by {m3} whether the keeper's house will be let to holidaymakers or turned into a small museum.",
            },
            {
                "head": "Bus driver, 70, completes last route after half a century",
                "lede": "Gerd Hansen, who has driven buses in Redmoor since 1974, completed her last route on {wd}, greeted by passengers with flowers and a brass band at the terminus.",
                "f1": "She has driven an estimated three million kilometres.",
                "f2": "Hansen was one of the first women to drive buses in the region.",
                "who": "Gerd Hansen",
                "q": "I have driven three generations of the same families to school. That is the part I will miss.",
                "out": "The bus company said it would name one of the new electric buses it takes delivery of in {m2} after her.",
            },
            {
                "head": "Escaped parrot returns home after two weeks in Lindenfield park",
                "lede": "A talking parrot that escaped from a flat in Lindenfield two weeks ago was reunited with its owner on {wd} after park staff heard it calling its own name.",
                "f1": "The African grey parrot, called Pip, had been living in the trees of the city park.",
                "f2": "Hundreds of people had shared posters about the missing bird online.",
                "who": "Owner Lena Sande",
                "q": "He flew down, sat on my shoulder and said 'good morning' as if nothing had happened.",
                "out": "Sande said Pip would get a new, escape-proof window screen by {d7}.",
            },
            {
                "head": "Ellisford's 600-year-old oak gets its own protection order",
                "lede": "The town council in Ellisford voted on {wd} to give legal protection to an oak tree believed to be about 600 years old, after a petition signed by {sig} residents.",
                "f1": "The tree stands on land that a developer had planned to use for a car park.",
                "f2": "Experts estimate the tree's age from its girth of more than nine metres.",
                "who": "Councillor Helga Norum",
                "q": "This tree was here before the town. It should be here long after the car park would have been forgotten.",
                "out": "The developer has until {d30} to appeal against the decision.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "The story was widely shared on social media, where it drew thousands of comments.",
            "Local residents said it was the talk of the town, and several came to see for themselves.",
            "A local radio station interviewed the people involved live on its morning programme.",
        ),
        (
            ("{who}", "{q}"),
            ("{local}", "It is the kind of story that makes you proud of where you live."),
        ),
        ("{out}",),
        (
            "Small stories like this one are a staple of local news across Aldmark.",
            "Local newspapers in several towns have reported rising readership for community news.",
        ),
        lambda rng, day: {
            "kg": str(rng.randint(612, 840)),
            "sig": f"{rng.randint(12, 48) * 100:,}",
            "local": rng.choice(
                ["A neighbour, Britt Aas", "Local historian Knut Berg", "A passer-by, Ola Dahl"]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "transport",
        "Economics & Business",
        (
            {
                "head": "Night train between Aldmark City and Lindenfield to return",
                "lede": "A night train between Aldmark City and Lindenfield will return from next December, 14 years after the service was scrapped, the state railway said on {wd}.",
                "f1": "The train will have sleeping cars and seats, with tickets from {fare} crowns.",
                "f2": "The service will run six nights a week.",
                "who": "Railway spokeswoman Kari Tangen",
                "q": "Demand for night trains has come back, especially from people who want to avoid flying.",
                "out": "Tickets will go on sale in {m6}.",
            },
            {
                "head": "Skarra ferry timetable cut as operator loses money",
                "lede": "The ferry between Port Velden and the island of Skarra will run four times a day instead of six from next month, the operator said on {wd}, blaming rising fuel costs.",
                "f1": "The island's 9,000 residents depend on the ferry for work, school and hospital visits.",
                "f2": "The operator says the route lost {money} million crowns last year.",
                "who": "Bodil Aas, the mayor of Skarra",
                "q": "For the island, the ferry is not a business. It is the road.",
                "out": "The new timetable takes effect on {d30}, and the island council will ask the transport ministry for extra money before then.",
            },
            {
                "head": "Old Tallow bridge closed after inspectors find cracks",
                "lede": "The old road bridge over the Tallow River at Ostervik was closed to all traffic on {wd} after inspectors found cracks in two of its supporting piers.",
                "f1": "About {cars} vehicles a day normally cross the bridge.",
                "f2": "Drivers face a detour of about 25 kilometres.",
                "who": "Road agency engineer Petter Nilsen",
                "q": "We cannot take any risk with a bridge this old. It stays closed until we know it is safe.",
                "out": "Engineers expect to decide by {m2} whether the bridge can be repaired or must be replaced.",
            },
            {
                "head": "Aldmark City to limit e-scooters after injuries rise",
                "lede": "Aldmark City will cap the number of rental e-scooters at {scooters} and ban them from the city centre at night, the city council decided on {wd}.",
                "f1": "Emergency rooms treated about 900 e-scooter injuries in the city last year.",
                "f2": "Operators will have to remove scooters that are parked on pavements within two hours.",
                "who": "Deputy mayor Leif Dahl",
                "q": "Scooters can be a good way to travel short distances, but not at any price.",
                "out": "The new rules take effect on {d30}.",
            },
            {
                "head": "Kestrel Bay airport to get new terminal",
                "lede": "Kestrel Bay airport will build a new terminal to handle growing passenger numbers, the airport operator said on {wd}, at a cost of {money2} million crowns.",
                "f1": "The airport handled 2.4 million passengers last year, well above the 1.5 million the current terminal was built for.",
                "f2": "The new terminal will have twice as many security lanes.",
                "who": "Airport director Siri Holm",
                "q": "Our passengers deserve better than queues out of the door.",
                "out": "Construction is due to begin in {m6} and take about three years.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "Transport accounts for about a third of Aldmark's greenhouse gas emissions.",
            "The transport ministry said it was aware of the situation and was in contact with the operators involved.",
            "Passenger numbers on most public transport routes have now returned to their pre-2020 levels.",
        ),
        (
            ("{who}", "{q}"),
            (
                "{commuter}",
                "People plan their lives around these connections. Changes like this matter.",
            ),
        ),
        ("{out}",),
        (
            "Aldmark's long-term national transport plan sets out hundreds of billions of crowns of spending on roads, railways and ports.",
            "The transport ministry revises its priorities every four years.",
        ),
        lambda rng, day: {
            "fare": str(rng.randint(39, 89) * 10),
            "money": str(rng.randint(12, 48)),
            "money2": f"{rng.randint(60, 190) * 10:,}",
            "cars": f"{rng.randint(40, 120) * 100:,}",
            "scooters": f"{rng.randint(30, 80) * 100:,}",
            "commuter": rng.choice(
                [
                    "A regular commuter, Tove Ask",
                    "Passenger group spokesman Rune Hval",
                    "Business owner Hilde Lund",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "archaeology",
        "Arts & Recreation",
        (
            {
                "head": "Iron Age village found under planned Redmoor road",
                "lede": "Archaeologists have found the remains of an Iron Age village on the route of a planned bypass near Redmoor, the regional heritage office said on {wd}.",
                "f1": "The remains include the outlines of at least seven longhouses and a smithy.",
                "f2": "Finds include glass beads, iron tools and a bronze brooch.",
                "who": "Archaeologist Sigrid Nes",
                "q": "This was a prosperous community with contacts far beyond the region.",
            },
            {
                "head": "Hoard of medieval silver coins found in Millbrook field",
                "lede": "A metal detectorist found a hoard of about {coins} medieval silver coins in a field near Millbrook, the national museum said on {wd}.",
                "f1": "The coins were minted in several countries, suggesting trade links across the North Sea.",
                "f2": "The find was reported correctly to the authorities, and the finder will receive a reward.",
                "who": "Coin specialist Dr. Erik Lange",
                "q": "Someone buried their savings here and never came back for them. We will never know why.",
            },
            {
                "head": "Bronze Age burial mound excavated near Kestrel Bay",
                "lede": "Archaeologists have begun excavating a Bronze Age burial mound near Kestrel Bay that is threatened by coastal erosion, the heritage office said on {wd}.",
                "f1": "The mound is about 3,000 years old and partly collapsed into the sea during a storm last winter.",
                "f2": "The team has found fragments of pottery and a bronze knife.",
                "who": "Excavation leader Dr. Anne Holt",
                "q": "The sea is taking our history faster than we can record it.",
            },
            {
                "head": "Old harbour wall uncovered during Port Velden works",
                "lede": "Construction workers in Port Velden uncovered a section of the city's 17th-century harbour wall on {wd}, and archaeologists have been called in to record it.",
                "f1": "The wall, made of large granite blocks, lies about two metres below the current street.",
                "f2": "Historical maps show that the harbour once reached several hundred metres further inland.",
                "who": "City archaeologist Lars Holmen",
                "q": "Port Velden was built on the water, and now we can see exactly where the water was.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "Finds of this kind must be reported to the regional heritage office under the cultural heritage law.",
            "The excavation is being funded by the national heritage agency, which has set aside money for a small team for several months.",
            "Volunteers from the local history society are helping to sieve soil and record the finds.",
        ),
        (
            ("{who}", "{q}"),
            ("{museum}", "We hope to put the most important finds on display for the public."),
        ),
        (
            "The excavation is expected to continue until {m2}.",
            "The finds will be analysed over the winter, with a report due in {m6}.",
        ),
        (
            "Aldmark has about 190,000 registered archaeological sites.",
            "Large construction projects must pay for archaeological surveys before work begins.",
        ),
        lambda rng, day: {
            "coins": str(rng.randint(120, 640)),
            "museum": rng.choice(
                [
                    "Isak Moller, the Greyhaven Museum's curator",
                    "Museum director Ragnhild Vik",
                    "Dr. Hilde Aas of the national museum",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "tech_launch",
        "Science & Tech",
        (
            {
                "head": "Driverless bus trial begins in Lindenfield",
                "lede": "A driverless electric bus began carrying passengers on a 3-kilometre route between Lindenfield's railway station and the university on {wd}, in the country's first trial on public roads.",
                "f1": "A safety operator will be on board during the trial.",
                "f2": "The bus travels at up to 25 kilometres an hour.",
                "who": "Project manager Erik Moen",
                "q": "We want to learn how a driverless bus copes with real traffic, snow and cyclists.",
                "out": "The trial will run until {m6}, when the city will decide whether to extend it.",
            },
            {
                "head": "Tax office launches chatbot to answer questions",
                "lede": "The national tax office launched a chatbot on {wd} that answers questions about tax returns, hoping to reduce waiting times on its telephone lines.",
                "f1": "The chatbot was trained on the tax office's own guidance and does not see personal tax data.",
                "f2": "Callers currently wait an average of {mins} minutes during the busiest weeks.",
                "who": "Tax office director Ruth Aakre",
                "q": "The chatbot will answer the simple questions, so our staff have more time for the difficult ones.",
                "out": "The tax office will publish an evaluation of the chatbot in {m6}.",
            },
            {
                "head": "Parcel robots to deliver in Marrowgate suburb",
                "lede": "Small delivery robots will carry parcels from a pick-up point to homes in a Marrowgate suburb from next month, Aldpost said on {wd}.",
                "f1": "The six-wheeled robots travel on pavements at walking pace and can carry up to 10 kilograms.",
                "f2": "Recipients unlock the robot's compartment with a code sent to their phone.",
                "who": "Henrik Strand, Aldpost's director of operations",
                "q": "The last few hundred metres are the most expensive part of any delivery.",
                "out": "The trial will last six months, until {m6}.",
            },
            {
                "head": "Fast mobile network reaches remote islands",
                "lede": "Residents of Aldmark's remote islands now have access to fast mobile internet after the operator Nordtel switched on new masts on {wd}.",
                "f1": "The project covered {islands} islands, some with fewer than 50 residents.",
                "f2": "The state paid about half of the cost.",
                "who": "Nordtel's network director Silje Hauge",
                "q": "If you can run a business from the city, you should be able to run it from an island.",
                "out": "Nordtel plans to cover the last twelve inhabited islands by {m6}.",
            },
            {
                "head": "Ellisford hospital tests AI to read X-rays",
                "lede": "Ellisford General Hospital began testing software that uses artificial intelligence to check chest X-rays on {wd}, in a trial that will compare its findings with those of radiologists.",
                "f1": "The software flags scans that may show signs of pneumonia or lung cancer.",
                "f2": "Radiologists will continue to check every scan during the trial.",
                "who": "Dr. Trine Aasen, the hospital's medical director",
                "q": "We are short of radiologists. If software can help them work faster and safer, we want to know.",
                "out": "The results of the trial will be published in {m6}.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "The project is partly funded by the national digitalisation programme.",
            "Privacy groups said they would follow the project closely and asked for the results to be published in full.",
            "Similar trials have been run in several European countries with mixed results.",
        ),
        (
            ("{who}", "{q}"),
            (
                "{skeptic}",
                "New technology should be tested in the open, with the results published whatever they show.",
            ),
        ),
        ("{out}",),
        (
            "Aldmark regularly ranks among the most digitised countries in Europe.",
            "Most contact between citizens and public agencies already takes place online.",
        ),
        lambda rng, day: {
            "mins": str(rng.randint(18, 45)),
            "islands": str(rng.randint(14, 40)),
            "skeptic": rng.choice(
                [
                    "Dr. Felix Aronsson, a security researcher at Lindenfield University",
                    "Ida Falk of the Digital Rights Association",
                    "Professor Arne Vik of Lindenfield University",
                ]
            ),
        },
    )
)

KINDS.append(
    Kind(
        "defence",
        "Security & Defense",
        (
            {
                "head": "{troops} troops take part in coastal defence exercise",
                "lede": "About {troops} soldiers, sailors and air force personnel began a {days}-day exercise along the west coast on {wd}, practising the defence of ports and power stations.",
                "f1": "Allied forces from three neighbouring countries are taking part.",
                "f2": "Residents were warned to expect military vehicles on roads and low-flying aircraft.",
                "who": "Brigadier Hanne Skarstad, who commands the exercise",
                "q": "We practise here so that, if we ever have to do this for real, nothing is new.",
            },
            {
                "head": "Air force to buy {n} new transport aircraft",
                "lede": "The air force will buy {n} new transport aircraft to replace planes that have flown since the 1980s, the defence ministry said on {wd}.",
                "f1": "The contract is worth about {money} million crowns.",
                "f2": "The aircraft will also be used for disaster relief and medical evacuations.",
                "who": "Air force chief General Per Aune",
                "q": "Our old aircraft have served well, but they spend more time in the hangar than in the air.",
            },
            {
                "head": "Reservists called up for first large drill in a decade",
                "lede": "About {troops} reservists have been called up for a two-week training exercise, the armed forces said on {wd}, the largest call-up of reserves in ten years.",
                "f1": "Employers are required by law to release reservists for training.",
                "f2": "The exercise will focus on guarding bridges, power stations and communications centres.",
                "who": "Colonel Rune Dahl",
                "q": "The reserves are the backbone of home defence. They need to train like it.",
            },
        ),
        ("{head}",),
        ("{lede}",),
        (
            "{f1}",
            "{f2}",
            "Aldmark's armed forces have about 18,000 active personnel and about 40,000 reservists.",
            "The defence ministry said the plans were part of a long-term programme to modernise the armed forces.",
            "Neighbouring countries have increased their own military spending and exercises in recent years.",
        ),
        (
            ("{who}", "{q}"),
            ("{analyst}", "This is part of a broader effort to take home defence seriously again."),
        ),
        (
            "The armed forces will publish a report on the exercise in {m2}.",
            "Parliament's defence committee will review the plans on {d14}.",
        ),
        (
            "Defence spending in Aldmark has risen each year since 2018.",
            "Aldmark cooperates closely on defence with its neighbours around the North Sea.",
        ),
        lambda rng, day: {
            "troops": f"{rng.randint(20, 80) * 100:,}",
            "days": str(rng.randint(5, 12)),
            "n": str(rng.randint(3, 6)),
            "money": f"{rng.randint(12, 40) * 100:,}",
            "analyst": rng.choice(
                [
                    "Dr. Felix Aronsson, a security researcher at Lindenfield University",
                    "Defence analyst Mette Krog",
                    "Retired admiral Jon Hegge",
                ]
            ),
        },
    )
)

# ---------------------------------------------------------------------------------------
# The calendar. Busy days are the days on which arc episodes are covered by several
# outlets; generic singletons top them up. Quiet days carry a few singletons so that
# retrieval has material between busy days.
# ---------------------------------------------------------------------------------------

RICH_DAYS = frozenset(
    dt.date.fromisoformat(d)
    for d in ("2024-11-19", "2024-12-10", "2025-01-14", "2025-02-04", "2025-02-25", "2025-03-18")
)
# Quiet day -> number of generic singletons (arc singletons that fall on it come on top).
QUIET_DAYS: dict[str, int] = {
    "2019-01-22": 1, "2019-03-05": 1, "2019-06-11": 2, "2019-08-20": 1, "2019-11-19": 1,
    "2020-02-18": 1, "2020-04-14": 1, "2020-07-28": 2, "2020-11-17": 1, "2021-01-12": 1,
    "2021-04-20": 1, "2021-06-15": 1, "2021-08-24": 1, "2021-10-05": 1, "2022-02-15": 1, "2022-04-12": 1,
    "2022-07-19": 2, "2022-12-20": 1, "2023-01-10": 1, "2023-03-14": 1, "2023-05-16": 1,
    "2023-07-11": 1, "2023-09-19": 2, "2023-11-14": 1, "2024-03-12": 1, "2024-05-14": 1,
    "2024-09-17": 1, "2024-10-29": 1, "2024-11-05": 1, "2025-01-28": 1, "2025-02-11": 1, "2025-04-08": 1,
    "2025-05-13": 1, "2025-06-10": 1,
}  # fmt: skip
BUSY_TARGETS = (5, 5, 6, 6, 7)  # articles on an ordinary busy day, drawn per day
RICH_TARGET = 9  # at least this many on the six richest days

# ---------------------------------------------------------------------------------------
# Writing an article.
# ---------------------------------------------------------------------------------------

HISTORY_FRAMES = (
    "In {month}, {recap}.",
    "The latest development follows {month}, when {recap}.",
    "Back in {month}, {recap}.",
    "It was in {month} that {recap}.",
)
EARLIER_FRAMES = ("Before that, in {month}, {recap}.", "Earlier, in {month}, {recap}.")
# Speaker descriptions that start with a common noun are lower-cased mid-sentence.
_LOWER_LEADS = (
    "A ",
    "An ",
    "The ",
    "Her ",
    "His ",
    "Opposition ",
    "Defence analyst",
    "Race director",
    "Regatta chairman",
    "Festival director",
    "Club chairman",
    "Critic ",
    "Arts commentator",
    "Passenger group",
    "Business owner",
    "Local historian",
    "Tenants'",
    "Estate agents'",
    "Student welfare",
    "Customs inspector",
    "Coast guard",
    "Police spokes",
    "Railway spokes",
    "Museum director",
    "Airport director",
    "Tax office",
    "Project manager",
    "City archaeologist",
    "Coin specialist",
    "Excavation leader",
    "Curator ",
    "Headteacher ",
    "Playwright ",
    "Conductor ",
    "Owner ",
    "Cafe owner",
    "Fishmonger ",
    "Skipper ",
    "Coach ",
    "Captain ",
    "Detective ",
    "Inspector ",
    "Defence lawyer",
    "Road agency",
    "Deputy mayor",
    "Board chair",
    "Assistant coach",
)


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
        raise ValueError(f"unfilled slot in {template!r}")
    return cap(text)


def speaker(who: str, sentence_start: bool) -> str:
    """The speaker as written mid-sentence ("said a neighbour, ...") or at its start."""
    if not sentence_start and who.startswith(_LOWER_LEADS):
        return who[0].lower() + who[1:]
    return who


def quote_paragraph(who: str, text: str, form: int, outlet: Outlet) -> str:
    """One quote in one of five attribution styles; appositives get their closing comma."""
    lead = speaker(who, True) + ("," if ", " in who else "")
    mid = speaker(who, False)
    mid_subject = mid + ("," if ", " in who else "")
    with_comma = text[:-1] + "," if text.endswith(".") else text
    forms = (
        f'"{with_comma}" said {mid}.',
        f'{lead} said: "{text}"',
        f'"{with_comma}" {mid_subject} told the {outlet.name}.',
        f'In an interview, {mid_subject} said: "{text}"',
        f'{lead} put it this way: "{text}"',
    )
    return forms[form % len(forms)]


def background_paragraph(
    rng: random.Random, today: dt.date, history: list[tuple[dt.date, str]], pool: tuple[str, ...]
) -> str:
    """Recall earlier episodes of the arc (most recent first), plus one timeless fact."""
    sentences: list[str] = []
    if history:
        day, recap = history[-1]
        if (day.year, day.month) == (today.year, today.month):
            sentences.append(f"Earlier this month, {recap}.")
        else:
            sentences.append(
                rng.choice(HISTORY_FRAMES).format(month=day.strftime("%B %Y"), recap=recap)
            )
        if len(history) > 1 and rng.random() < 0.75:
            day, recap = rng.choice(history[:-1])
            sentences.append(
                rng.choice(EARLIER_FRAMES).format(month=day.strftime("%B %Y"), recap=recap)
            )
    picks = rng.sample(pool, k=min(len(pool), 3))
    return " ".join(cap(s) for s in sentences + picks)


def write_article(
    rng: random.Random,
    episode: Episode,
    variant: int,
    outlet: Outlet,
    background: str,
) -> tuple[str, str]:
    """One outlet's article about an episode: (title, text).

    Each variant of a cluster opens with its own lede and headline, orders and trims the
    shared facts differently and quotes a rotated subset of the speakers, so the cluster
    is clearly about one event without any two articles being copies.
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
    form0 = rng.randrange(5)
    said = [
        quote_paragraph(who, text, form0 + i * 2, outlet) for i, (who, text) in enumerate(quotes)
    ]
    outlook = outlet.outlook_prefix + " ".join(o.replace("{wd}", wd) for o in episode.outlook)

    body: list[str] = [" ".join(facts[:2])]
    if rng.random() < 0.5:
        body.append(said[0])
        body.append(" ".join(facts[2:4]))
        body.append(background)
    else:
        body.append(" ".join(facts[2:4]))
        body.append(said[0])
        body.append(background)
    body.extend(said[1:2])
    body.append(" ".join(facts[4:]))
    body.extend(said[2:])
    body.append(outlook)
    if rng.random() < 0.35:
        body.append(f"Additional reporting by {rng.choice(outlet.reporters)}.")
    paragraphs = [lede] + [p for p in body if p.strip()]
    return cap(title), "\n\n".join(paragraphs)


def generic_episode(rng: random.Random, kind: Kind, entity: Slots, day: dt.date) -> Episode:
    """Fill a kind's templates for one entity and day into a single-outlet episode."""
    slots = dict(base_slots(day))
    slots.update(kind.numbers(rng, day))
    slots.update(entity)
    facts = [fill(f, slots) for f in kind.facts]
    keep = rng.sample(range(len(facts)), k=min(len(facts), rng.randint(5, 7)))
    return Episode(
        day=day,
        outlets=1,
        headlines=(fill(rng.choice(kind.headlines), slots),),
        ledes=(fill(rng.choice(kind.ledes), slots),),
        facts=tuple(facts[i] for i in sorted(keep)),
        quotes=tuple((fill(w, slots), fill(q, slots)) for w, q in kind.quotes),
        outlook=(fill(rng.choice(kind.outlook), slots),),
        recap="",
    )


def slug(title: str) -> str:
    """URL slug of a title: lower-case words joined by hyphens, at most about 70 chars."""
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return s[:70].rsplit("-", 1)[0] if len(s) > 70 else s


@dataclass
class Article:
    """One row of the corpus, plus what the summary and checks need to know about it."""

    day: dt.date
    title: str
    text: str
    outlet: Outlet
    story: str  # "<arc>:<date>" or "<kind>:<n>": articles of one cluster share it
    category: str

    def url(self) -> str:
        return f"https://{self.outlet.domain}/{self.day:%Y/%m/%d}/{slug(self.title)}"


# ---------------------------------------------------------------------------------------
# Building the corpus.
# ---------------------------------------------------------------------------------------


def _pick_kind(rng: random.Random, used: Counter[str], banned: set[str]) -> Kind:
    """The least-used kind (relative to its number of entities) not already used today."""
    free = [k for k in KINDS if k.key not in banned]
    best = min(used[k.key] / len(k.entities) for k in free)
    return rng.choice([k for k in free if used[k.key] / len(k.entities) == best])


def build_articles(seed: int = SEED) -> list[Article]:
    """All clean articles, in file order (by date; within a day, shuffled)."""
    rng = random.Random(seed)
    arc_by_day: dict[dt.date, list[tuple[Arc, Episode, list[tuple[dt.date, str]]]]] = defaultdict(
        list
    )
    for arc in ARCS:
        history: list[tuple[dt.date, str]] = []
        for episode in arc.episodes:
            arc_by_day[episode.day].append((arc, episode, list(history)))
            history.append((episode.day, episode.recap))

    generic_count: dict[dt.date, int] = {}
    for day, items in arc_by_day.items():
        n_arc = sum(e.outlets for _, e, _ in items)
        if day in RICH_DAYS:
            generic_count[day] = max(0, RICH_TARGET - n_arc)
        elif any(e.outlets > 1 for _, e, _ in items):
            generic_count[day] = max(1, rng.choice(BUSY_TARGETS) - n_arc)
    for iso, n in QUIET_DAYS.items():
        day = dt.date.fromisoformat(iso)
        generic_count[day] = generic_count.get(day, 0) + n

    cycles: dict[str, list[Slots]] = {}
    used: Counter[str] = Counter()
    articles: list[Article] = []
    for day in sorted(set(arc_by_day) | set(generic_count)):
        today: list[Article] = []
        for arc, episode, history in arc_by_day.get(day, []):
            outlets = rng.sample(OUTLETS, episode.outlets)
            for variant, outlet in enumerate(outlets):
                background = background_paragraph(rng, day, history, arc.background)
                title, text = write_article(rng, episode, variant, outlet, background)
                today.append(Article(day, title, text, outlet, f"{arc.key}:{day}", arc.category))
        banned: set[str] = set()
        for _ in range(generic_count.get(day, 0)):
            kind = _pick_kind(rng, used, banned)
            banned.add(kind.key)
            if not cycles.get(kind.key):
                cycles[kind.key] = rng.sample(kind.entities, len(kind.entities))
            entity = cycles[kind.key].pop()
            used[kind.key] += 1
            episode = generic_episode(rng, kind, entity, day)
            context = " ".join(
                fill(c, {**base_slots(day), **kind.numbers(rng, day), **entity})
                for c in kind.context
            )
            outlet = rng.choice(OUTLETS)
            title, text = write_article(rng, episode, 0, outlet, context)
            story = f"{kind.key}:{used[kind.key]}"
            today.append(Article(day, title, text, outlet, story, kind.category))
        rng.shuffle(today)
        articles.extend(today)
    return articles


# ---------------------------------------------------------------------------------------
# Rows, the deliberately flawed ones, and the file.
# ---------------------------------------------------------------------------------------

OPINION_TEXT = "\n\n".join(
    (
        "Six weeks into the life of Port Velden's tram, the city is already arguing about whether it was worth it. That argument is premature, and both sides should admit it.",
        "The first month's ridership, about 29,500 a day, is below the 38,000 that the 2019 study promised. But that study also said it could take three years to reach its forecast, and it did not expect the line to open in the middle of a cold, wet February.",
        "Supporters of the tram should stop treating every criticism as an attack on the project. The cost did rise from 610 million to 751 million crowns, and councillors were not told about the overruns in time. Those are real failures of management, and they deserve a real answer.",
        "Critics, for their part, should stop treating a single month as a verdict. A tram line is built for fifty years. Nobody judges a new school by its first term.",
        "The real test will come this spring. The council has promised to look again at the bus routes it cut when the tram opened, and on May 13 it will vote on whether to bring back part of the number 4 route. That vote is a chance to show that the city listens to the people who lost something, not only to those who gained.",
        "A good first year for the tram would be one in which the numbers rise, the buses that people depend on are restored where they are needed, and the council publishes the full accounts without being asked. None of that requires anyone to win the argument. It only requires the city to do what it said it would do.",
    )
)
SHORT_BRIEF = (
    "Quay Street in Port Velden will be closed between midnight and 5 a.m. on Thursday "
    "while crews repair a water main near Market Lane. Trams will run as normal, but "
    "night buses will be diverted via Harbour Road. The city apologised for the noise."
)


def clean_rows(articles: list[Article]) -> list[dict[str, str]]:
    """Articles as output rows; a rare slug collision on one outlet gets a numeric suffix."""
    seen: set[str] = set()
    rows: list[dict[str, str]] = []
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


def _first(rows: list[dict[str, str]], date: str) -> int:
    return next(i for i, r in enumerate(rows) if r["date"] == date)


def add_flawed_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Insert the documented flawed rows (module docstring) at plausible places.

    Rows are kept in date order; the two undated rows go at the end, where a crawler's
    leftovers usually end up.
    """
    out = list(rows)

    # 1. duplicate_text: a syndicated copy on the same day, right after the original.
    i = _first(out, "2022-07-19")
    orig = out[i]
    other = next(o for o in OUTLETS if o.domain != orig["source_domain"])
    out.insert(
        i + 1,
        dict(
            orig,
            url=f"https://{other.domain}/{orig['date'].replace('-', '/')}/syndicated-{slug(orig['title'])}",
            source_domain=other.domain,
        ),
    )

    # 2. duplicate_url: the same article re-posted two days later with tracking parameters.
    i = _first(out, "2023-06-06")
    orig = out[i]
    later = (dt.date.fromisoformat(orig["date"]) + dt.timedelta(days=2)).isoformat()
    repost = dict(
        orig,
        date=later,
        url=orig["url"] + "/?utm_source=newsletter&utm_medium=email",
        text=orig["text"] + "\n\nThis article was updated to add reactions.",
    )
    out.insert(next(j for j, r in enumerate(out) if r["date"] > later), repost)

    # 3. title_prefix: an opinion column.
    i = _first(out, "2025-03-18")
    out.insert(
        i,
        {
            "date": "2025-03-18",
            "title": "Opinion: Port Velden's tram deserves a fair first year",
            "text": OPINION_TEXT,
            "url": "https://civic-record.example/2025/03/18/opinion-port-velden-tram-fair-first-year",
            "source_domain": "civic-record.example",
        },
    )

    # 4. text_too_short: a news brief.
    i = _first(out, "2025-02-11")
    out.insert(
        i,
        {
            "date": "2025-02-11",
            "title": "Quay Street closed overnight for water main repair",
            "text": SHORT_BRIEF,
            "url": "https://valley-ledger.example/2025/02/11/quay-street-closed-overnight",
            "source_domain": "valley-ledger.example",
        },
    )

    # 5. text_too_long: a live blog that strings together the day's stories.
    day = "2025-02-04"
    entries = [r for r in rows if r["date"] == day]
    blog: list[str] = []
    for n, r in enumerate(entries):
        blog.append(f"{8 + n}:{(n * 17) % 60:02d} - {r['title']}\n\n{r['text']}")
        if sum(len(b) for b in blog) > 10_500:
            break
    i = _first(out, day)
    out.insert(
        i,
        {
            "date": day,
            "title": "Live: the day's news from around Aldmark, as it happened",
            "text": "\n\n".join(blog),
            "url": "https://meridian-wire.example/2025/02/04/live-the-days-news",
            "source_domain": "meridian-wire.example",
        },
    )

    # 6. empty_text: a photo gallery with no body text.
    i = _first(out, "2020-12-08")
    out.insert(
        i,
        {
            "date": "2020-12-08",
            "title": "In pictures: the restored maritime gallery in Greyhaven",
            "text": "",
            "url": "https://coastal-dispatch.example/2020/12/08/in-pictures-greyhaven-maritime-gallery",
            "source_domain": "coastal-dispatch.example",
        },
    )

    # 7. unparseable_date and 8. missing_date: undated leftovers.
    src = rows[_first(rows, "2024-11-19")]
    out.append(
        dict(
            src,
            date="next Tuesday",
            title="Preview: " + src["title"],
            url="https://summit-herald.example/previews/" + slug(src["title"]),
            source_domain="summit-herald.example",
            text=src["text"] + "\n\nThis preview will be updated when the story is published.",
        )
    )
    src = rows[_first(rows, "2023-02-07")]
    out.append(
        dict(
            src,
            date="",
            url="https://lantern-post.example/archive/" + slug(src["title"]),
            source_domain="lantern-post.example",
            text=src["text"] + "\n\nFrom the archive.",
        )
    )
    return out


def build(seed: int = SEED) -> list[dict[str, str]]:
    """Every row of the corpus, in file order."""
    return add_flawed_rows(clean_rows(build_articles(seed)))


def encode(rows: list[dict[str, str]]) -> bytes:
    """gzip'd JSON Lines with mtime 0 and no file name, so equal rows give equal bytes."""
    payload = "".join(
        json.dumps({k: r[k] for k in FIELDS}, ensure_ascii=False) + "\n" for r in rows
    ).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(payload)
    return buf.getvalue()


def write(rows: list[dict[str, str]], out: Path) -> None:
    """Write atomically (temp file + rename), so a killed run never leaves half a file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(encode(rows))
    tmp.replace(out)


def summary(articles: list[Article], rows: list[dict[str, str]], out: Path) -> str:
    """A human-readable account of what was written."""
    per_day = Counter(a.day for a in articles)
    months = sorted({f"{a.day:%Y-%m}" for a in articles})
    busy = sorted(d for d, n in per_day.items() if n >= 5)
    clusters = Counter(a.story for a in articles)
    story_day = {a.story: a.day for a in articles}
    stories_per_day = Counter(story_day[s] for s, n in clusters.items() if n >= 3)
    lengths = sorted(len(a.text) for a in articles)
    lines = [
        f"rows written          {len(rows)} ({len(articles)} clean + {len(rows) - len(articles)} deliberately flawed)",
        f"date range            {articles[0].day} .. {articles[-1].day}",
        f"months covered        {len(months)} ({months[0]} .. {months[-1]})",
        f"days with articles    {len(per_day)}",
        f"busy days (>= 5)      {len(busy)}",
        f"articles per day      {dict(sorted(Counter(per_day.values()).items()))} (articles: days)",
        f"multi-outlet stories  {sum(1 for s, n in clusters.items() if n >= 3)} (3-4 outlets each)",
        f"text length (chars)   min {lengths[0]}, median {lengths[len(lengths) // 2]}, max {lengths[-1]}",
        f"per year              {dict(sorted(Counter(a.day.year for a in articles).items()))}",
        f"per category          {dict(sorted(Counter(a.category for a in articles).items()))}",
        "last six busy days    "
        + ", ".join(f"{d}: {per_day[d]} ({stories_per_day[d]} stories)" for d in busy[-6:]),
        f"file                  {out} ({out.stat().st_size / 1024:.0f} KB)",
    ]
    return "\n".join(lines)


def check(articles: list[Article]) -> None:
    """Fail loudly if a clean article breaks the length bounds the pipeline relies on."""
    for a in articles:
        if not MIN_CHARS < len(a.text) < MAX_CHARS:
            raise ValueError(f"{a.day} {a.title!r}: {len(a.text)} chars")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write the embedded demo news corpus.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output .jsonl.gz")
    args = parser.parse_args(argv)
    articles = build_articles()
    check(articles)
    rows = add_flawed_rows(clean_rows(articles))
    write(rows, args.out)
    print(summary(articles, rows, args.out))


if __name__ == "__main__":
    main()
