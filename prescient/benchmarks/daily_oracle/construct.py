"""Question construction (Daily Oracle, ICML 2025, section 3.1): four LLM steps, then categories.

Per selected article: (1) a summary and the key point of the day's new event; articles
without one stop there. (2) Four questions: two "Will ...?" TF questions (the first
answered Yes, the second No) and two open questions with short answers. (3) Three wrong
options for each open question, shuffled with the correct answer into four MC choices.
(4) A seven-principle filter, each principle scored 0/1/2; pairs whose total reaches the
threshold are accepted. (5) A category for each accepted question, and the MC type from
its leading words. A leakage audit then flags (and optionally drops) questions that give
each other's answers away.

Each step is one batch of requests through a completion function (the gateway's
``complete_many``), so hosted models get concurrency and the local model keeps the
article prefix cached between an article's consecutive requests. Nothing is dropped
silently: every selected article gets one ``kind="article"`` row and every generated
question one ``kind="question"`` row in the candidates table, with a status, the step
where its fate was decided, a reason and, for replies that could not be parsed, the raw
text. Accepted questions form the questions table.

Determinism: question ids hash the article id, the slot and the question text; MC
choices are ordered by seeds derived from the base seed, the question id and the choice
index (:func:`prescient.seeds.derive_seed`); every model reply comes from the ledger on
a rerun. An article's rows therefore depend only on the article and its day; its leakage
columns also on the other questions (duplicates are looked for across the whole set).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from prescient import dates
from prescient.benchmarks.daily_oracle import leakage
from prescient.benchmarks.daily_oracle.construct_metrics import construct_metrics
from prescient.benchmarks.daily_oracle.construct_settings import (
    ANSWER_POOL,
    CANDIDATE_COLUMNS,
    MC_SLOTS,
    N_DISTRACTORS,
    QUESTION_COLUMNS,
    TF_SLOTS,
    ConstructSettings,
)
from prescient.benchmarks.daily_oracle.parse import (
    QAPair,
    parse_category,
    parse_distractors,
    parse_filter,
    parse_generation,
    total_score,
)
from prescient.llm.fit import FITTED, Fitting, fit_request
from prescient.llm.steps import StepBatches, article_values
from prescient.llm.types import Complete, LLMRequest, LLMResult
from prescient.prompts import PromptTemplate
from prescient.replies import normalize, parse_summary, yes_no
from prescient.rubric import filter_sections
from prescient.seeds import derive_seed
from prescient.step_templates import STEPS, slots
from prescient.vocab import (
    ACCEPTED,
    CATEGORIES,
    FILTERED_OUT,
    GENERATED,
    INVALID,
    LEAKAGE_DROPPED,
    LLM_ERROR,
    MC,
    MISSING_ARTICLE,
    NO_NEW_EVENT,
    PARSE_ERROR,
    PRINCIPLES,
    TF,
    TF_CHOICES,
    accepted,
    mc_type,
)

logger = logging.getLogger(__name__)


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
class _Article:
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
class _Question:
    article: _Article
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
        return not self.status


@dataclass
class ConstructResult:
    """The stage's three outputs."""

    questions: pd.DataFrame
    candidates: pd.DataFrame
    metrics: dict[str, Any]


class _Steps(StepBatches):
    """Runs the steps over all articles, keeping per-step request accounting.

    A step whose model has a known context window (``windows``) has each prompt that
    carries article text fitted to it (:func:`prescient.llm.fit.fit_prompt`: the text cut
    to the most words that fit); a fitted request is counted under ``fitted_to_context``
    in the step's calls and carries ``context_words_kept`` in its tags (its ledger entry).
    """

    def __init__(
        self,
        templates: Mapping[str, PromptTemplate],
        s: ConstructSettings,
        base_seed: int,
        complete: Complete,
        windows: Mapping[str, Fitting] | None = None,
    ) -> None:
        super().__init__(templates, s.models, s.generation, complete, "construct", STEPS)
        self.s = s
        self.seed = base_seed
        self.filter_values = filter_sections(templates["filter"])
        self.windows = dict(windows or {})
        for step in self.windows:
            self.calls[step][FITTED] += 0

    def request(
        self,
        step: str,
        values: Mapping[str, Any],
        tags: Mapping[str, Any],
        slot: int | None = None,
    ) -> LLMRequest:
        """The step's request, its article text fitted to the model's context window."""
        request, fitted = fit_request(
            lambda v: StepBatches.request(self, step, v, tags, slot),
            values,
            self.windows.get(step),
            f"construct step {step} ({self.models[step]}, {dict(tags)})",
        )
        self.calls[step][FITTED] += fitted
        return request

    def run(self, step: str, requests: Sequence[LLMRequest]) -> list[LLMResult]:
        """The step's batch; its fitted prompts are logged."""
        n = sum("context_words_kept" in r.tags for r in requests)
        if n:
            logger.warning(
                "construct step %s: %d prompts %s: their article text cut to fit %s's "
                "context window (%s)",
                step,
                n,
                FITTED,
                self.models[step],
                self.windows[step][0].describe(),
            )
        return super().run(step, requests)

    def _values(self, a: _Article) -> dict[str, str]:
        return article_values(a.title, a.text, a.date, self.s.article_max_chars)

    # step 1
    def summary(self, articles: list[_Article]) -> None:
        reqs = [
            self.request("summary", self._values(a), {"article_id": a.article_id}) for a in articles
        ]
        for a, res in zip(articles, self.run("summary", reqs), strict=True):
            if not res.ok:
                _fail(a, LLM_ERROR, f"summary: {res.error}")
                continue
            parsed = parse_summary(
                res.text, bool(self.t["summary"].extras.get("reply_is_keypoint"))
            )
            a.summary, a.keypoint = parsed.summary, parsed.keypoint
            if not parsed.ok:
                _fail(a, PARSE_ERROR, f"summary: {parsed.error}", res.text)
            elif parsed.no_new_event:
                a.status, a.reason = NO_NEW_EVENT, "the key point reports no new event"

    # step 2
    def generate(self, articles: list[_Article]) -> list[_Question]:
        todo = [a for a in articles if not a.status]
        template = self.t["generate"]
        numbers: list[int | None] = [*sorted(slots(template))] or [None]
        reqs = [
            self.request(
                "generate",
                {**self._values(a), "keypoint": a.keypoint or ""},
                {"article_id": a.article_id, **({"slot": k} if k else {})},
                slot=k,
            )
            for a in todo
            for k in numbers
        ]
        results = iter(self.run("generate", reqs))
        questions: list[_Question] = []
        for a in todo:
            a.step = "generate"
            replies = [(k, next(results)) for k in numbers]
            failed = [res for _, res in replies if not res.ok]
            if failed:
                _fail(a, LLM_ERROR, f"generate: {failed[0].error}")
                continue
            pairs, raw, error = self._pairs(replies)
            if error:
                _fail(a, PARSE_ERROR, f"generate: {error}", raw)
                continue
            a.status = GENERATED
            found = {p.slot for p in pairs}
            missing = [k for k in (*TF_SLOTS, *MC_SLOTS) if k not in found]
            a.reason = f"no question in slot(s) {missing}" if missing else None
            seen: set[str] = set()
            for pair in pairs:
                q = self._validate(a, pair.slot, pair.question, pair.answer, seen)
                if q.status == INVALID:
                    q.raw_response = raw
                questions.append(q)
        return questions

    @staticmethod
    def _pairs(
        replies: Sequence[tuple[int | None, LLMResult]],
    ) -> tuple[list[QAPair], str, str | None]:
        """The question-answer pairs of an article's generate replies: one reply with
        all four, or one reply per slot (the first pair of each, given its slot)."""
        if replies[0][0] is None:
            text = replies[0][1].text or ""
            parsed = parse_generation(text)
            return list(parsed.pairs), text, parsed.error
        pairs = []
        for slot, res in replies:
            parsed = parse_generation(res.text)
            if parsed.ok:
                first = parsed.pairs[0]
                pairs.append(QAPair(int(slot or 0), first.question, first.answer))
        raw = "\n\n".join(f"[slot {slot}]\n{res.text}" for slot, res in replies)
        return pairs, raw, None if pairs else "no question in any slot's reply"

    def _validate(
        self, a: _Article, slot: int, question: str, answer: str | None, seen: set[str]
    ) -> _Question:
        qtype = TF if slot in TF_SLOTS else MC if slot in MC_SLOTS else None
        q = _Question(a, slot, question, answer, qtype, question_id(a.article_id, slot, question))
        key = normalize(question)

        def invalid(reason: str) -> _Question:
            q.status, q.step, q.reason = INVALID, "validate", reason
            return q

        if qtype is None:
            return invalid(f"extra_question: slot {slot} beyond the four asked for")
        if key in seen:
            return invalid("duplicate_question: repeats an earlier question of the article")
        seen.add(key)
        if not answer:
            return invalid("missing_answer")
        if self.s.require_question_mark and "?" not in question:
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

    # step 3
    def distract(self, questions: list[_Question]) -> None:
        todo = [q for q in questions if q.pending and q.qtype == MC]
        reqs = [
            self.request(
                "distract",
                {**self._values(q.article), "question": q.question, "answer": q.answer or ""},
                {"article_id": q.article.article_id, "question_id": q.question_id, "slot": q.slot},
            )
            for q in todo
        ]
        pool = self._answer_pool(questions) if self.s.distractor_fallback else None
        for q, res in zip(todo, self.run("distract", reqs), strict=True):
            q.step = "distract"
            if not res.ok:
                _fail(q, LLM_ERROR, f"distract: {res.error}")
                continue
            parsed = parse_distractors(res.text, q.answer or "", N_DISTRACTORS)
            options, source = list(parsed.options), "llm"
            if not parsed.ok and pool is not None:
                extra = _from_pool(q, options, pool, self.seed)
                if len(options) + len(extra) >= N_DISTRACTORS:
                    source = "llm+answer_pool" if options else "answer_pool"
                    options = [*options, *extra][:N_DISTRACTORS]
            if len(options) < N_DISTRACTORS:
                short = "; the answer pool has too few answers" if pool is not None else ""
                _fail(q, PARSE_ERROR, f"distract: {parsed.error}{short}", res.text)
                continue
            q.distractor_source = source
            if source != "llm":
                q.raw_response = res.text  # what the model wrote, for the audit
            q.choices, q.answer_index = shuffle_choices(
                q.answer or "", options, self.seed, q.question_id
            )

    @staticmethod
    def _answer_pool(questions: list[_Question]) -> list[_Question]:
        """Open questions with an answer that passed validation: the fallback's source."""
        return [q for q in questions if q.qtype == MC and q.answer and q.pending]

    # step 4
    def filter(self, questions: list[_Question]) -> None:
        todo = [q for q in questions if q.pending]
        reqs = [
            self.request(
                "filter",
                {
                    **self._values(q.article),
                    **self.filter_values,
                    "question": q.question,
                    "answer": q.answer or "",
                },
                {"article_id": q.article.article_id, "question_id": q.question_id, "slot": q.slot},
            )
            for q in todo
        ]
        for q, res in zip(todo, self.run("filter", reqs), strict=True):
            q.step = "filter"
            if not res.ok:
                _fail(q, LLM_ERROR, f"filter: {res.error}")
                continue
            parsed = parse_filter(res.text)
            q.scores = dict(parsed.scores)
            if not parsed.ok:
                _fail(q, PARSE_ERROR, f"filter: {parsed.error}", res.text)
                continue
            q.filter_total = total_score(parsed.scores)
            if accepted(q.filter_total, self.s.accept_threshold):
                q.status = ACCEPTED
            else:
                q.status = FILTERED_OUT
                q.reason = f"below_threshold: total {q.filter_total} < {self.s.accept_threshold}"

    # leakage audit
    def audit(self, questions: list[_Question]) -> dict[str, Any]:
        pool = [q for q in questions if q.status == ACCEPTED]
        frame = pd.DataFrame(
            {
                "question_id": [q.question_id for q in pool],
                "article_id": [q.article.article_id for q in pool],
                "resolution_date": [q.article.date for q in pool],
                "qtype": [q.qtype for q in pool],
                "question": [q.question for q in pool],
                "answer": [q.answer for q in pool],
            }
        )
        flags = leakage.audit(frame, self.s.leakage)
        for q, (_, row) in zip(pool, flags.iterrows(), strict=True):
            q.audit = {str(k): v for k, v in row.items()}
            if self.s.leakage.drop_flagged and row["leakage_flagged"]:
                q.status, q.step = LEAKAGE_DROPPED, "leakage"
                q.reason = f"leakage: {row['leakage_flags']}"
        summary = leakage.summarize(flags, frame["qtype"])
        summary["dropped"] = sum(q.status == LEAKAGE_DROPPED for q in pool)
        summary["drop_flagged"] = self.s.leakage.drop_flagged
        return summary

    # step 5
    def categorize(self, questions: list[_Question]) -> None:
        todo = [q for q in questions if q.status == ACCEPTED]
        categories = "\n".join(f"- {c}" for c in CATEGORIES)
        reqs = [
            self.request(
                "categorize",
                {"question": q.question, "categories": categories},
                {"article_id": q.article.article_id, "question_id": q.question_id, "slot": q.slot},
            )
            for q in todo
        ]
        for q, res in zip(todo, self.run("categorize", reqs), strict=True):
            if not res.ok:
                q.reason = f"categorize: {res.error}"
                continue
            category, error = parse_category(res.text)
            q.category = category
            if error:
                q.reason, q.raw_response = f"categorize: {error}", res.text


def _from_pool(
    q: _Question, have: Sequence[str], pool: Sequence[_Question], seed: int
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


def _fail(item: _Article | _Question, status: str, reason: str, raw: str | None = None) -> None:
    """Record why an article or question stops here (and the reply, when unparseable)."""
    item.status, item.reason = status, reason
    if raw is not None:
        item.raw_response = raw


# --- the whole construction -----------------------------------------------------------


def _monthly_budget(selected: pd.DataFrame, per_month: int, base_seed: int) -> pd.DataFrame:
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


def _articles(
    selected: pd.DataFrame, articles: pd.DataFrame, s: ConstructSettings, base_seed: int
) -> tuple[list[_Article], int]:
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
        sel = _monthly_budget(sel, s.articles_per_month, base_seed)
    outside = len(selected) - len(sel)
    sel = sel.sort_values(["date", "article_id"], kind="stable")
    by_id = articles.drop_duplicates("article_id").set_index("article_id")
    out = []
    for row in sel.itertuples(index=False):
        aid = str(row.article_id)
        a = _Article(aid, dates.as_date(row.date), str(row.selection))
        if aid in by_id.index:
            a.title = str(by_id.at[aid, "title"])
            a.text = str(by_id.at[aid, "text"])
        else:
            a.status, a.step = MISSING_ARTICLE, "load"
            a.reason = "the selected article id is not in the articles table"
        out.append(a)
    return out, outside


def build_questions(
    selected: pd.DataFrame,
    articles: pd.DataFrame,
    templates: Mapping[str, PromptTemplate],
    s: ConstructSettings,
    base_seed: int,
    complete: Complete,
    windows: Mapping[str, Fitting] | None = None,
) -> ConstructResult:
    """Run the construction steps for every selected article in the window.

    Args:
        selected: stage ``select``'s table (article_id, date, selection, ...).
        articles: the articles table (article_id, title, text, ...).
        templates: step -> prompt template (see :mod:`prescient.prompts`).
        s: settings.
        base_seed: ``base.seed``; MC choice order derives from it and the question id.
        complete: the batch completion function (``Gateway.complete_many``).
        windows: step -> its model's context window and the step's reply budget, for
            the steps whose model has one (:func:`prescient.llm.tokens.step_windows`);
            prompts carrying article text are fitted to it.

    Returns:
        The questions table, the candidates table and the metrics.
    """
    arts, outside = _articles(selected, articles, s, base_seed)
    steps = _Steps(templates, s, base_seed, complete, windows)
    steps.summary([a for a in arts if not a.status])
    questions = steps.generate(arts)
    steps.distract(questions)
    steps.filter(questions)
    leak = steps.audit(questions)
    steps.categorize(questions)
    provenance = {
        **{f"{st}_model": s.models[st] for st in STEPS},
        **{f"{st}_template": templates[st].label for st in STEPS},
    }
    candidates = _candidates_frame(arts, questions, provenance)
    accepted_rows = candidates[candidates["status"] == ACCEPTED]
    questions_df = _questions_frame(accepted_rows)
    metrics = construct_metrics(candidates, s, steps.calls, leak, outside, templates)
    return ConstructResult(questions_df, candidates, metrics)


def _candidates_frame(
    arts: list[_Article], questions: list[_Question], provenance: Mapping[str, str]
) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for a in arts:
        rows.append(
            {
                "kind": "article",
                "article_id": a.article_id,
                "resolution_date": a.date,
                "selection": a.selection,
                "status": a.status,
                "step": a.step,
                "reason": a.reason,
                "summary": a.summary,
                "keypoint": a.keypoint,
                "raw_response": a.raw_response,
                **provenance,
            }
        )
    for q in questions:
        row: dict[str, Any] = {
            "kind": "question",
            "article_id": q.article.article_id,
            "resolution_date": q.article.date,
            "selection": q.article.selection,
            "question_id": q.question_id,
            "slot": q.slot,
            "qtype": q.qtype,
            "question": q.question,
            "answer": q.answer,
            "choices": q.choices,
            "answer_index": q.answer_index,
            "status": q.status,
            "step": q.step,
            "reason": q.reason,
            **{k: q.scores.get(k) for k in PRINCIPLES},
            "filter_total": q.filter_total,
            "category": q.category,
            "mc_type": mc_type(q.question) if q.qtype == MC else None,
            "distractor_source": q.distractor_source,
            **q.audit,
            "raw_response": q.raw_response,
            **provenance,
        }
        if q.qtype != MC:
            row["distract_model"] = row["distract_template"] = None
        rows.append(row)
    df = pd.DataFrame.from_records(rows, columns=list(CANDIDATE_COLUMNS))
    df["_kind"] = (df["kind"] == "question").astype(int)
    df = df.sort_values(
        ["resolution_date", "article_id", "_kind", "slot"], kind="stable", na_position="first"
    ).drop(columns="_kind")
    for c in ("slot", "answer_index", "filter_total", *PRINCIPLES):
        df[c] = df[c].astype("Int64")
    for c in (
        "leak_answer_in_article_sibling",
        "leak_answer_in_day_sibling",
        "leak_near_duplicate",
        "leak_exact_duplicate",
        "leak_contradictory_duplicate",
        "leak_phrase",
        "leakage_flagged",
    ):
        df[c] = df[c].astype("boolean")
    df["leak_near_duplicate_similarity"] = df["leak_near_duplicate_similarity"].astype("Float64")
    return df.reset_index(drop=True)


def _questions_frame(rows: pd.DataFrame) -> pd.DataFrame:
    out = rows.loc[:, list(QUESTION_COLUMNS)].copy()
    for c in ("slot", "answer_index", "filter_total", *PRINCIPLES):
        out[c] = out[c].astype("int64")
    out["leakage_flagged"] = out["leakage_flagged"].astype(bool)
    return out.reset_index(drop=True)


# --- metrics --------------------------------------------------------------------------
