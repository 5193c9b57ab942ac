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
columns also on the other questions of its day and earlier days (duplicates are looked
for among those, :mod:`prescient.duplicates`), never on later days.
The records, ids and rules that need no model are in :mod:`.construct_records`, the
tables built from them in :mod:`.construct_frames`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from prescient.benchmarks.daily_oracle import leakage
from prescient.benchmarks.daily_oracle.construct_frames import candidates_frame, questions_frame
from prescient.benchmarks.daily_oracle.construct_metrics import construct_metrics
from prescient.benchmarks.daily_oracle.construct_records import (
    Article,
    Question,
    fail,
    load_articles,
    pool_distractors,
    shuffle_choices,
    validate_question,
)
from prescient.benchmarks.daily_oracle.construct_settings import (
    MC_SLOTS,
    N_DISTRACTORS,
    TF_SLOTS,
    ConstructSettings,
)
from prescient.benchmarks.daily_oracle.parse import (
    QAPair,
    parse_category,
    parse_distractors,
    parse_generation,
)
from prescient.benchmarks.daily_oracle.parse_scores import parse_filter, total_score
from prescient.kept import KeptStore
from prescient.llm.fit import FITTED, Fitting, fit_request
from prescient.llm.steps import StepBatches, article_values
from prescient.llm.types import Complete, LLMRequest, LLMResult
from prescient.prompts import PromptTemplate
from prescient.replies import parse_summary
from prescient.rubric import filter_sections
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
    NO_NEW_EVENT,
    PARSE_ERROR,
    accepted,
)

logger = logging.getLogger(__name__)


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
        kept: KeptStore | None = None,
    ) -> None:
        super().__init__(templates, s.models, s.generation, complete, "construct", STEPS)
        self.s = s
        self.seed = base_seed
        self.filter_values = filter_sections(templates["filter"])
        self.windows = dict(windows or {})
        self.kept = kept
        for step in self.windows:
            self.calls[step][FITTED] += 0

    def request(
        self,
        step: str,
        values: Mapping[str, Any],
        tags: Mapping[str, Any],
        slot: int | None = None,
    ) -> LLMRequest:
        """The step's request, its article text fitted to the model's context window; an
        article sent whole is named as quoted (the response store keeps it once, however
        many steps and questions quote it)."""
        request, fitted = fit_request(
            lambda v: StepBatches.request(self, step, v, tags, slot),
            values,
            self.windows.get(step),
            f"construct step {step} ({self.models[step]}, {dict(tags)})",
        )
        self.calls[step][FITTED] += fitted
        if not fitted and isinstance(values.get("text"), str):
            request = dataclasses.replace(request, quoted=(values["text"],))
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

    def _values(self, a: Article) -> dict[str, str]:
        return article_values(a.title, a.text, a.date, self.s.article_max_chars)

    # step 1
    def summary(self, articles: list[Article]) -> None:
        reqs = [
            self.request("summary", self._values(a), {"article_id": a.article_id}) for a in articles
        ]
        for a, res in zip(articles, self.run("summary", reqs), strict=True):
            if not res.ok:
                fail(a, LLM_ERROR, f"summary: {res.error}")
                continue
            parsed = parse_summary(
                res.text, bool(self.t["summary"].extras.get("reply_is_keypoint"))
            )
            a.summary, a.keypoint = parsed.summary, parsed.keypoint
            if not parsed.ok:
                fail(a, PARSE_ERROR, f"summary: {parsed.error}", res.text)
            elif parsed.no_new_event:
                a.status, a.reason = NO_NEW_EVENT, "the key point reports no new event"

    # step 2
    def generate(self, articles: list[Article]) -> list[Question]:
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
        questions: list[Question] = []
        for a in todo:
            a.step = "generate"
            replies = [(k, next(results)) for k in numbers]
            failed = [res for _, res in replies if not res.ok]
            if failed:
                fail(a, LLM_ERROR, f"generate: {failed[0].error}")
                continue
            pairs, raw, error = self._pairs(replies)
            if error:
                fail(a, PARSE_ERROR, f"generate: {error}", raw)
                continue
            a.status = GENERATED
            found = {p.slot for p in pairs}
            missing = [k for k in (*TF_SLOTS, *MC_SLOTS) if k not in found]
            a.reason = f"no question in slot(s) {missing}" if missing else None
            seen: set[str] = set()
            for pair in pairs:
                q = validate_question(
                    a, pair.slot, pair.question, pair.answer, seen, self.s.require_question_mark
                )
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

    # step 3
    def distract(self, questions: list[Question]) -> None:
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
                fail(q, LLM_ERROR, f"distract: {res.error}")
                continue
            parsed = parse_distractors(res.text, q.answer or "", N_DISTRACTORS)
            options, source = list(parsed.options), "llm"
            if not parsed.ok and pool is not None:
                extra = pool_distractors(q, options, pool, self.seed)
                if len(options) + len(extra) >= N_DISTRACTORS:
                    source = "llm+answer_pool" if options else "answer_pool"
                    options = [*options, *extra][:N_DISTRACTORS]
            if len(options) < N_DISTRACTORS:
                short = "; the answer pool has too few answers" if pool is not None else ""
                fail(q, PARSE_ERROR, f"distract: {parsed.error}{short}", res.text)
                continue
            q.distractor_source = source
            if source != "llm":
                q.raw_response = res.text  # what the model wrote, for the audit
            q.choices, q.answer_index = shuffle_choices(
                q.answer or "", options, self.seed, q.question_id
            )

    @staticmethod
    def _answer_pool(questions: list[Question]) -> list[Question]:
        """Open questions with an answer that passed validation: the fallback's source."""
        return [q for q in questions if q.qtype == MC and q.answer and q.pending]

    # step 4
    def filter(self, questions: list[Question]) -> None:
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
                fail(q, LLM_ERROR, f"filter: {res.error}")
                continue
            parsed = parse_filter(res.text)
            q.scores = dict(parsed.scores)
            if not parsed.ok:
                fail(q, PARSE_ERROR, f"filter: {parsed.error}", res.text)
                continue
            q.filter_total = total_score(parsed.scores)
            if accepted(q.filter_total, self.s.accept_threshold):
                q.status = ACCEPTED
            else:
                q.status = FILTERED_OUT
                q.reason = f"below_threshold: total {q.filter_total} < {self.s.accept_threshold}"

    # leakage audit
    def audit(self, questions: list[Question]) -> dict[str, Any]:
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
        flags = leakage.audit(frame, self.s.leakage, self.kept)
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
    def categorize(self, questions: list[Question]) -> None:
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


# --- the whole construction -----------------------------------------------------------


def build_questions(
    selected: pd.DataFrame,
    articles: pd.DataFrame,
    templates: Mapping[str, PromptTemplate],
    s: ConstructSettings,
    base_seed: int,
    complete: Complete,
    windows: Mapping[str, Fitting] | None = None,
    kept: KeptStore | None = None,
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
        kept: where the leakage audit keeps each day's near-duplicate flags
            (:func:`prescient.duplicates.near_duplicates`), or None.

    Returns:
        The questions table, the candidates table and the metrics.
    """
    arts, outside = load_articles(selected, articles, s, base_seed)
    steps = _Steps(templates, s, base_seed, complete, windows, kept)
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
    candidates = candidates_frame(arts, questions, provenance)
    accepted_rows = candidates[candidates["status"] == ACCEPTED]
    questions_df = questions_frame(accepted_rows)
    metrics = construct_metrics(candidates, s, steps.calls, leak, outside, templates)
    return ConstructResult(questions_df, candidates, metrics)
