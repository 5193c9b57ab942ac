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
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import pandas as pd
from pydantic import AfterValidator, Field

from prescient import dates
from prescient.benchmarks.daily_oracle import leakage
from prescient.benchmarks.daily_oracle.parse import (
    QAPair,
    mc_type,
    parse_category,
    parse_distractors,
    parse_filter,
    parse_generation,
    total_score,
)
from prescient.benchmarks.daily_oracle.schema import QUESTION_FIELDS
from prescient.llm.fit import FITTED, Fitting, fit_request
from prescient.llm.generation import Generation
from prescient.llm.types import Complete, LLMRequest, LLMResult
from prescient.prompts import PromptTemplate
from prescient.replies import normalize, parse_summary, yes_no
from prescient.rubric import filter_sections
from prescient.seeds import derive_seed
from prescient.settings import Day, Settings, WindowEnd
from prescient.step_templates import STEPS, slots
from prescient.steps import StepBatches, article_values
from prescient.vocab import (
    ACCEPTED,
    CATEGORIES,
    FILTERED_OUT,
    GENERATED,
    INVALID,
    LEAKAGE_DROPPED,
    LLM_ERROR,
    MAX_TOTAL,
    MC,
    MISSING_ARTICLE,
    N_MC_CHOICES,
    NO_NEW_EVENT,
    PAPER_ACCEPT_THRESHOLD,
    PARSE_ERROR,
    PRINCIPLES,
    SCORE_VALUES,
    TF,
    TF_CHOICES,
    accepted,
)

logger = logging.getLogger(__name__)

TF_SLOTS = (1, 2)
MC_SLOTS = (3, 4)
TF_EXPECTED = {1: TF_CHOICES[0], 2: TF_CHOICES[1]}
"""The paper's design: the first TF question is answered Yes, the second No."""
N_DISTRACTORS = N_MC_CHOICES - 1
ANSWER_POOL = "answer_pool"
"""The distractor fallback that fills missing options from other questions' answers."""

PROVENANCE_COLUMNS: tuple[str, ...] = tuple(
    f"{step}_{what}" for step in STEPS for what in ("model", "template")
)

QUESTION_COLUMNS: tuple[str, ...] = (
    *QUESTION_FIELDS,
    "selection",
    "slot",
    "mc_type",
    "distractor_source",
    *PRINCIPLES,
    "filter_total",
    "leakage_flags",
    "leakage_flagged",
    *PROVENANCE_COLUMNS,
)
"""Columns of questions.parquet, one row per accepted question: the columns every
question table shares, then construction's own."""

CANDIDATE_COLUMNS: tuple[str, ...] = (
    "kind",
    "article_id",
    "resolution_date",
    "selection",
    "question_id",
    "slot",
    "qtype",
    "question",
    "answer",
    "choices",
    "answer_index",
    "status",
    "step",
    "reason",
    "summary",
    "keypoint",
    *PRINCIPLES,
    "filter_total",
    "category",
    "mc_type",
    "distractor_source",
    *leakage.AUDIT_COLUMNS,
    "raw_response",
    *PROVENANCE_COLUMNS,
)
"""Columns of qa_candidates.parquet: every article and every generated question."""


def _every_step(value: dict[str, Any]) -> dict[str, Any]:
    """A per-step mapping names each construction step exactly once, and nothing else."""
    absent = [s for s in STEPS if value.get(s) in (None, "")]
    unknown = sorted(set(value) - set(STEPS))
    if absent or unknown:
        parts = [f"no value for steps {absent}"] if absent else []
        parts += [f"unknown steps {unknown}"] if unknown else []
        raise ValueError(f"{' and '.join(parts)}; the steps are {', '.join(STEPS)}")
    return {s: value[s] for s in STEPS}


class ConstructSettings(Settings):
    """Parameters of stage ``construct`` (params section ``construct``; conf/construct/default.yaml).

    Attributes:
        templates: step -> template file stem in the prompt directory.
        models: step -> model registry name (``params["models"]`` key).
        generation: step -> generation parameters for that step's requests (max_tokens, ...),
            overriding the model's defaults; part of the ledger key.
        accept_threshold: minimum filter total (paper: 13 of 14).
        require_question_mark: reject questions without "?" before filtering (as the
            paper's code does).
        article_max_chars: cut article texts to this many characters in prompts (None:
            whole articles, as in the paper).
        date_start, date_end: inclusive range of selected days to construct from.
        articles_per_month: at most this many selected articles of each month (None:
            all); see :func:`_monthly_budget`.
        leakage: the leakage audit's settings.
        distractor_fallback: None (the paper: a reply with fewer than three usable wrong
            options is a parse error) or ``answer_pool``: fill the missing options with
            answers of other open questions of the same or earlier days (same MC type
            first, seeded order), recorded per question in ``distractor_source``.
    """

    templates: Annotated[dict[str, str], AfterValidator(_every_step)]
    models: Annotated[dict[str, str], AfterValidator(_every_step)]
    generation: Annotated[dict[str, Generation], AfterValidator(_every_step)]
    accept_threshold: Annotated[int, Field(ge=0, le=MAX_TOTAL)]
    require_question_mark: bool
    article_max_chars: Annotated[int, Field(ge=1)] | None
    date_start: Day | None
    date_end: WindowEnd
    articles_per_month: Annotated[int, Field(ge=1)] | None
    leakage: leakage.LeakageSettings
    distractor_fallback: Literal["answer_pool"] | None


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


def _counts(values: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in values.value_counts(dropna=False).sort_index().items()}


def _reason_kind(reason: Any) -> str:
    text = str(reason or "")
    return text.split(":", 1)[0] if ":" in text else text


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _step_errors(step: str, rows: pd.DataFrame) -> dict[str, int]:
    """Parse errors and failed calls of the rows whose fate ``step`` decided."""
    here = rows[rows["step"] == step]
    return {
        PARSE_ERROR: int((here["status"] == PARSE_ERROR).sum()),
        LLM_ERROR: int((here["status"] == LLM_ERROR).sum()),
    }


def _passed_filter(scored: pd.DataFrame) -> int:
    """Scored questions at or above the threshold (later dropped for leakage included)."""
    return int(scored["status"].isin([ACCEPTED, LEAKAGE_DROPPED]).sum())


def step_metrics(
    candidates: pd.DataFrame, s: ConstructSettings, calls: Mapping[str, Counter[str]]
) -> dict[str, Any]:
    """What each step did: its calls, and what it passed on, stopped or left empty."""
    arts = candidates[candidates["kind"] == "article"]
    qs = candidates[candidates["kind"] == "question"]
    acc = qs[qs["status"] == ACCEPTED]
    scored = qs[qs["filter_total"].notna()]
    in_slots = qs[qs["slot"].isin([*TF_SLOTS, *MC_SLOTS])]
    invalid = qs[qs["status"] == INVALID]
    generated = int((arts["status"] == GENERATED).sum())
    return {
        "summary": {
            **dict(calls["summary"]),
            NO_NEW_EVENT: int((arts["status"] == NO_NEW_EVENT).sum()),
            **_step_errors("summary", arts),
        },
        "generate": {
            **dict(calls["generate"]),
            "articles_with_questions": generated,
            "questions_parsed": len(qs),
            "questions_in_slots_1_4": len(in_slots),
            "slots_left_empty": len((*TF_SLOTS, *MC_SLOTS)) * generated - len(in_slots),
            **_step_errors("generate", arts),
        },
        "validate": {
            "invalid": len(invalid),
            "by_reason": _counts(invalid["reason"].map(_reason_kind)),
        },
        "distract": {
            **dict(calls["distract"]),
            **_step_errors("distract", qs),
            "fallback": s.distractor_fallback,
            "by_source": _counts(qs["distractor_source"].dropna()),
            "accepted_by_source": _counts(acc["distractor_source"].dropna()),
        },
        "filter": {
            **dict(calls["filter"]),
            "scored": len(scored),
            ACCEPTED: _passed_filter(scored),
            FILTERED_OUT: int((qs["status"] == FILTERED_OUT).sum()),
            **_step_errors("filter", qs),
        },
        "categorize": {
            **dict(calls["categorize"]),
            "categorized": int(acc["category"].notna().sum()),
            "uncategorized": int(acc["category"].isna().sum()),
        },
    }


def question_metrics(candidates: pd.DataFrame) -> dict[str, Any]:
    """Questions by status and reason, acceptance rates, and accepted questions per day
    (days without any included) and per month."""
    arts = candidates[candidates["kind"] == "article"]
    qs = candidates[candidates["kind"] == "question"]
    acc = qs[qs["status"] == ACCEPTED]
    scored = qs[qs["filter_total"].notna()]
    per_day = acc.groupby("resolution_date").size()
    days = sorted(set(arts["resolution_date"]))
    per_day_all = per_day.reindex(days, fill_value=0) if days else per_day
    by_month = (
        acc.assign(month=[dates.month_label(dates.month_index(d)) for d in acc["resolution_date"]])
        .groupby("month")
        .size()
    )
    return {
        "candidates": len(qs),
        "by_status": _counts(qs["status"]),
        "by_reason": _counts(qs.loc[qs["reason"].notna(), "reason"].map(_reason_kind)),
        ACCEPTED: len(acc),
        "accepted_by_qtype": _counts(acc["qtype"]),
        "acceptance_rate": _rate(len(acc), len(qs)),
        "acceptance_rate_of_scored": _rate(_passed_filter(scored), len(scored)),
        "per_day": {
            "days": len(days),
            "mean": round(float(per_day_all.mean()), 3) if len(per_day_all) else 0.0,
            "min": int(per_day_all.min()) if len(per_day_all) else 0,
            "max": int(per_day_all.max()) if len(per_day_all) else 0,
            "days_without_questions": int((per_day_all == 0).sum()),
        },
        "by_month": {str(k): int(v) for k, v in by_month.items()},
    }


def score_metrics(candidates: pd.DataFrame, s: ConstructSettings) -> dict[str, Any]:
    """The threshold against the paper's, and the distribution of every principle's score
    and of the total over the scored questions."""
    qs = candidates[candidates["kind"] == "question"]
    scored = qs[qs["filter_total"].notna()]
    return {
        "threshold": {
            "accept_threshold": s.accept_threshold,
            "paper_threshold": PAPER_ACCEPT_THRESHOLD,
            "relaxed": s.accept_threshold < PAPER_ACCEPT_THRESHOLD,
            "scored_at_or_above_paper_threshold": int(
                (scored["filter_total"] >= PAPER_ACCEPT_THRESHOLD).sum()
            ),
        },
        "scores": {
            **{
                k: {
                    "counts": {str(v): int((scored[k] == v).sum()) for v in SCORE_VALUES},
                    "mean": round(float(scored[k].mean()), 3) if len(scored) else None,
                }
                for k in PRINCIPLES
            },
            "filter_total": _counts(scored["filter_total"].astype(int)) if len(scored) else {},
        },
    }


def answer_metrics(candidates: pd.DataFrame) -> dict[str, Any]:
    """Categories and MC types of the accepted questions, where the right MC option
    landed after shuffling, and the TF answers against the slot design."""
    qs = candidates[candidates["kind"] == "question"]
    acc = qs[qs["status"] == ACCEPTED]
    mc_ok = qs[(qs["qtype"] == MC) & qs["choices"].notna()]
    mc_acc = acc[acc["qtype"] == MC]
    tf = qs[(qs["qtype"] == TF) & qs["answer_index"].notna()]
    return {
        "categories": _counts(acc["category"].fillna("(uncategorized)")),
        "mc_types": _counts(mc_acc["mc_type"]),
        "answer_position": {
            "mc": {str(i): int((mc_ok["answer_index"] == i).sum()) for i in range(N_MC_CHOICES)},
            "mc_accepted": {
                str(i): int((mc_acc["answer_index"] == i).sum()) for i in range(N_MC_CHOICES)
            },
        },
        "tf_answers": {
            **{choice: int((tf["answer"] == choice).sum()) for choice in TF_CHOICES},
            "differs_from_slot_design": int(
                sum(
                    TF_EXPECTED.get(int(slot)) != ans
                    for slot, ans in zip(tf["slot"], tf["answer"], strict=True)
                )
            ),
        },
    }


def construct_metrics(
    candidates: pd.DataFrame,
    s: ConstructSettings,
    calls: Mapping[str, Counter[str]],
    leak: Mapping[str, Any],
    outside_window: int,
    templates: Mapping[str, PromptTemplate],
) -> dict[str, Any]:
    """Counts per step and reason, score distributions, acceptance, categories, MC types."""
    arts = candidates[candidates["kind"] == "article"]
    return {
        "window": {
            "date_start": s.date_start.isoformat() if s.date_start else None,
            "date_end": s.date_end.isoformat() if s.date_end else None,
            "selected_outside_window_or_budget": outside_window,
        },
        "articles": {
            "total": len(arts),
            "days": len(set(arts["resolution_date"])),
            "by_status": _counts(arts["status"]),
        },
        "steps": step_metrics(candidates, s, calls),
        "questions": question_metrics(candidates),
        **score_metrics(candidates, s),
        **answer_metrics(candidates),
        "leakage": dict(leak),
        "models": dict(s.models),
        "templates": {st: templates[st].label for st in STEPS},
        "llm_calls": {st: dict(calls[st]) for st in STEPS},
    }
