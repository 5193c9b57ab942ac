"""The records of question construction and the rules that need no model.

An article and each question generated from it are records that the steps of
:mod:`.construct` fill in; whatever a step decides (a status, a reason, the raw reply it
could not read) stays on the record, so the candidates table can say where and why
every item stopped. The rules here are deterministic: question ids, the seeded order of
MC choices, the checks a generated pair must pass, the answer-pool fallback for missing
wrong options, and the articles a run covers (date window and monthly budget).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient import dates
from prescient.benchmarks.daily_oracle.construct_settings import (
    ANSWER_POOL,
    MC_SLOTS,
    N_DISTRACTORS,
    TF_SLOTS,
    ConstructSettings,
)
from prescient.replies import normalize, yes_no
from prescient.seeds import derive_seed
from prescient.vocab import INVALID, MC, MISSING_ARTICLE, TF, TF_CHOICES, mc_type

# --- ids and seeded choices -----------------------------------------------------------


def question_id(article_id: str, slot: int, question: str) -> str:
    """A stable id: the article, the question's slot and its text."""
    return hashlib.sha256(f"{article_id}\x1f{slot}\x1f{question}".encode()).hexdigest()[:16]


def shuffle_choices(
    answer: str, distractors: Sequence[str], base_seed: int, qid: str
) -> tuple[list[str], int]:
    """The MC choices in a seeded order, and the index of the correct answer.

    The order sorts the choices by ``derive_seed(base seed, "choices", question id,
    original index)``: a uniformly random permutation per question that depends on
    nothing else, and that no library version can change.
    """
    items = [answer, *distractors]
    order = sorted(range(len(items)), key=lambda i: derive_seed(base_seed, "choices", qid, i))
    return [items[i] for i in order], order.index(0)


# --- records --------------------------------------------------------------------------


@dataclass
class Article:
    """One selected article and how far construction took it."""

    article_id: str
    date: dt.date
    selection: str
    title: str = ""
    text: str = ""
    status: str = ""
    step: str = "summary"
    reason: str | None = None
    summary: str | None = None
    keypoint: str | None = None
    raw_response: str | None = None


@dataclass
class Question:
    """One generated question and how far construction took it."""

    article: Article
    slot: int
    question: str
    answer: str | None
    qtype: str | None
    question_id: str
    status: str = ""
    step: str = "generate"
    reason: str | None = None
    choices: list[str] | None = None
    answer_index: int | None = None
    scores: dict[str, int] = field(default_factory=dict)
    filter_total: int | None = None
    category: str | None = None
    raw_response: str | None = None
    audit: dict[str, Any] = field(default_factory=dict)
    distractor_source: str | None = None

    @property
    def pending(self) -> bool:
        """Whether no step has decided the question's fate yet."""
        return not self.status


# --- rules without a model -------------------------------------------------------------


def validate_question(
    a: Article,
    slot: int,
    question: str,
    answer: str | None,
    seen: set[str],
    require_question_mark: bool,
) -> Question:
    """A generated pair as a question record, marked invalid when it breaks a rule of the
    generate step (a slot beyond the four, a repeat, no answer, a TF answer that is not
    Yes or No, an open answer that is); ``seen`` collects the article's questions."""
    qtype = TF if slot in TF_SLOTS else MC if slot in MC_SLOTS else None
    q = Question(a, slot, question, answer, qtype, question_id(a.article_id, slot, question))
    key = normalize(question)

    def invalid(reason: str) -> Question:
        q.status, q.step, q.reason = INVALID, "validate", reason
        return q

    if qtype is None:
        return invalid(f"extra_question: slot {slot} beyond the four asked for")
    if key in seen:
        return invalid("duplicate_question: repeats an earlier question of the article")
    seen.add(key)
    if not answer:
        return invalid("missing_answer")
    if require_question_mark and "?" not in question:
        return invalid("no_question_mark")
    if qtype == TF:
        yn = yes_no(answer)
        if yn is None:
            return invalid(f"tf_answer_not_yes_no: {answer[:80]}")
        q.answer, q.choices, q.answer_index = yn, list(TF_CHOICES), TF_CHOICES.index(yn)
    else:
        if yes_no(answer) is not None and len(answer.split()) <= 2:
            return invalid(f"mc_answer_is_yes_no: {answer[:80]}")
        q.answer = answer.rstrip(".").strip() or answer
    return q


def pool_distractors(
    q: Question, have: Sequence[str], pool: Sequence[Question], seed: int
) -> list[str]:
    """Wrong options for ``q`` from other open questions' answers.

    Only answers of the same or earlier days are used, so adding later days never changes
    an earlier question; answers of the same MC type come first (numbers for "How many",
    people for "Who"), each group in an order seeded by the base seed and the question id.
    Answers equal to the correct one, to an option already held, or from the question's
    own article are skipped.
    """
    kind = mc_type(q.question)
    seen = {normalize(q.answer or ""), *(normalize(o) for o in have)}
    ranked = sorted(
        (
            (
                mc_type(o.question) != kind,
                derive_seed(seed, ANSWER_POOL, q.question_id, o.question_id),
                o.answer or "",
            )
            for o in pool
            if o.article.date <= q.article.date and o.article.article_id != q.article.article_id
        ),
    )
    out: list[str] = []
    for _, _, answer in ranked:
        key = normalize(answer)
        if key and key not in seen:
            seen.add(key)
            out.append(answer)
        if len(have) + len(out) >= N_DISTRACTORS:
            break
    return out


def fail(item: Article | Question, status: str, reason: str, raw: str | None = None) -> None:
    """Record why an article or question stops here (and the reply, when unparseable)."""
    item.status, item.reason = status, reason
    if raw is not None:
        item.raw_response = raw


# --- the articles of a run -------------------------------------------------------------


def monthly_budget(selected: pd.DataFrame, per_month: int, base_seed: int) -> pd.DataFrame:
    """At most ``per_month`` selected articles of each calendar month: the month's first
    days first, hot topics before random picks within a day, then a seeded order. Days
    appended later never change an earlier choice, so a month's questions stay put."""
    month = [dates.month_index(dates.as_date(d)) for d in selected["date"]]
    ranked = selected.assign(
        _month=month,
        _hot=(selected["selection"] != "hot_topic").astype(int),
        _rank=[derive_seed(base_seed, "construct_budget", a) for a in selected["article_id"]],
    ).sort_values(["_month", "date", "_hot", "_rank"], kind="stable")
    kept = ranked.groupby("_month", sort=False).head(per_month)
    return kept.drop(columns=["_month", "_hot", "_rank"])


def load_articles(
    selected: pd.DataFrame, articles: pd.DataFrame, s: ConstructSettings, base_seed: int
) -> tuple[list[Article], int]:
    """The selected articles inside the date window and the monthly budget, with their
    text, in a stable order; and how many selected articles were left out."""
    sel = selected.copy()
    in_window = pd.Series(True, index=sel.index)
    if s.date_start:
        in_window &= sel["date"] >= s.date_start
    if s.date_end:
        in_window &= sel["date"] <= s.date_end
    sel = sel[in_window]
    if s.articles_per_month is not None:
        sel = monthly_budget(sel, s.articles_per_month, base_seed)
    outside = len(selected) - len(sel)
    sel = sel.sort_values(["date", "article_id"], kind="stable")
    by_id = articles.drop_duplicates("article_id").set_index("article_id")
    out = []
    for row in sel.itertuples(index=False):
        aid = str(row.article_id)
        a = Article(aid, dates.as_date(row.date), str(row.selection))
        if aid in by_id.index:
            a.title = str(by_id.at[aid, "title"])
            a.text = str(by_id.at[aid, "text"])
        else:
            a.status, a.step = MISSING_ARTICLE, "load"
            a.reason = "the selected article id is not in the articles table"
        out.append(a)
    return out, outside
