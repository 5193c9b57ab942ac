"""The six tasks: split invariants, seeded and chain-independent draws, model-written parts,
and closed forms the evaluation's question importer accepts."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from prescient import io
from prescient.benchmarks.openforecast.chains import EventDate, chain_frame, event_id
from prescient.benchmarks.openforecast.demo import read_timelines
from prescient.benchmarks.openforecast.generation import _options, parse_argument, parse_options
from prescient.benchmarks.openforecast.prompts import load_role_templates
from prescient.benchmarks.openforecast.samples import build_samples
from prescient.benchmarks.openforecast.settings import SamplesSettings, SplitSettings
from prescient.benchmarks.openforecast.tasks import (
    AQA,
    LTF,
    MCAC,
    MCNC,
    STF,
    VQA,
    Chain,
    Event,
    chains_from_frame,
    draw_samples,
    split_of,
)
from prescient.evaluation.question_sources import load_source_settings
from prescient.evaluation.questions import load_source
from prescient.llm.types import LLMRequest, LLMResult
from prescient.plumbing import params
from prescient.settings import load_settings
from tests.conftest import ROOT

FIX = ROOT / "tests" / "fixtures" / "openforecast"
PROMPTS = ROOT / "conf" / "prompts" / "openforecast" / "samples"
ALL_SPLITS = "openforecast.samples.splits=[train,dev,test,later]"
NO_CAPS = [f"openforecast.samples.max_samples.{t}=null" for t in (STF, LTF, AQA, MCNC, MCAC, VQA)]


@functools.cache
def load(*overrides: str) -> tuple[SamplesSettings, SplitSettings, int]:
    p = params.compose(ROOT, list(overrides))
    return (
        load_settings(SamplesSettings, p, "openforecast.samples"),
        load_settings(SplitSettings, p, "openforecast.split"),
        int(p["base"]["seed"]),
    )


def chain(cid: str, dated: Sequence[tuple[str, str]]) -> Chain:
    events = []
    for i, (day, precision) in enumerate(dated):
        d = EventDate(dt.date.fromisoformat(day), precision)
        text = f"{cid} event {i} on {day}"
        events.append(Event(event_id(cid, d, text), i, d, text, (f"a{cid}{i}",)))
    return Chain(cid, f"Chain {cid}", "Sports", tuple(events))


LONG = chain(
    "long",
    [
        ("2019-01-01", "year"),
        ("2019-06-03", "day"),
        ("2020-02-01", "month"),
        ("2020-02-11", "day"),
        ("2020-02-11", "day"),
        ("2021-05-05", "day"),
        ("2021-05-01", "month"),
        ("2022-07-19", "day"),
        ("2023-03-02", "day"),
        ("2023-03-02", "day"),
        ("2023-10-10", "day"),
    ],
)


def check_invariants(samples: Sequence[Any], s: SamplesSettings) -> None:
    for x in samples:
        t_k = x.split_date
        assert all(e.date.end < t_k for e in x.background), x.sample_id
        assert all(e.date.start >= t_k for e in x.targets), x.sample_id
        assert not set(x.background) & set(x.targets)
        if x.task == STF:
            assert x.targets == x.chain.on(t_k) and x.targets
            assert len(x.chain.background(t_k)) >= s.stf_min_background
        elif x.task == LTF:
            assert x.targets == x.chain.targets(t_k)
            assert len(x.chain.events) >= s.ltf_min_events
            assert len(x.targets) >= s.ltf_min_targets
        else:
            assert len(x.targets) == 1 and x.target in x.chain.on(t_k)
            assert x.target.date.precision == "day"
        # Events straddling T_k (a month or year containing it) are on neither side.
        straddling = [e for e in x.chain.events if e.date.start < t_k <= e.date.end]
        assert len(x.chain.background(t_k)) + len(x.chain.targets(t_k)) + len(straddling) == len(
            x.chain.events
        )


def test_split_dates_follow_the_paper_by_default() -> None:
    _, split, _ = load()
    assert split_of(dt.date(2023, 6, 30), split) == "train"
    assert split_of(dt.date(2023, 7, 1), split) == "dev"
    assert split_of(dt.date(2023, 8, 31), split) == "dev"
    assert split_of(dt.date(2023, 9, 1), split) == "test"
    assert split_of(dt.date(2024, 3, 31), split) == "test"
    assert split_of(dt.date(2024, 4, 1), split) == "later"


def test_hand_checked_splits_of_a_chain_with_coarse_dates() -> None:
    s, split, seed = load(ALL_SPLITS, *NO_CAPS, "openforecast.samples.per_chain.stf=10")
    samples = draw_samples([LONG], s, split, seed)
    check_invariants(samples, s)
    stf = {x.split_date.isoformat(): x for x in samples if x.task == STF}
    # Day-precise dates with >= 2 events ended before them: not 2019-06-03 (the year 2019
    # has not ended); 2020-02-11 has the year 2019 and 2019-06-03 (February 2020 contains
    # T_k, so it is on neither side).
    assert sorted(stf) == ["2020-02-11", "2021-05-05", "2022-07-19", "2023-03-02", "2023-10-10"]
    feb = stf["2020-02-11"]
    assert [e.seq for e in feb.background] == [0, 1]  # the month event straddles T_k
    assert [e.seq for e in feb.targets] == [3, 4]
    may = stf["2021-05-05"]
    assert [e.seq for e in may.background] == [0, 1, 2, 3, 4]  # "May 2021" straddles
    (ltf,) = [x for x in samples if x.task == LTF]
    # 11 events; background share in [0.5, 0.8]: 2022-07-19 (7/11) or 2023-03-02 (8/11).
    assert ltf.split_date in (dt.date(2022, 7, 19), dt.date(2023, 3, 2))


chain_strategy = st.lists(
    st.tuples(
        st.dates(dt.date(2019, 1, 1), dt.date(2025, 12, 31)),
        st.sampled_from(["day", "day", "day", "month", "year"]),
    ),
    min_size=1,
    max_size=25,
).map(
    lambda evs: chain(
        "h",
        [
            (
                d.isoformat()
                if p == "day"
                else (d.replace(day=1) if p == "month" else d.replace(month=1, day=1)).isoformat(),
                p,
            )
            for d, p in sorted(evs)
        ],
    )
)


@settings(max_examples=150, deadline=None)
@given(c=chain_strategy)
def test_every_sample_keeps_background_before_and_targets_from_t_k(c: Chain) -> None:
    s, split, seed = load(ALL_SPLITS, *NO_CAPS)
    samples = draw_samples([c], s, split, seed)
    check_invariants(samples, s)
    assert len([x for x in samples if x.task == STF]) <= s.per_chain.stf


def test_draws_are_seeded_and_independent_of_other_chains() -> None:
    s, split, seed = load(ALL_SPLITS, *NO_CAPS)
    other = chain("other", [(f"202{i}-0{i + 1}-1{i}", "day") for i in range(6)])
    alone = draw_samples([LONG], s, split, seed)
    both = draw_samples([other, LONG], s, split, seed)
    again = draw_samples([LONG, other], s, split, seed)
    mine = [(x.sample_id, x.split_date, x.targets, x.argument_type) for x in alone]
    assert mine == [
        (x.sample_id, x.split_date, x.targets, x.argument_type) for x in both if x.chain is LONG
    ]
    assert [x.sample_id for x in both] == [x.sample_id for x in again]
    _, _, other_seed = load(ALL_SPLITS, *NO_CAPS, "base.seed=7")
    moved = draw_samples([LONG], s, split, other_seed)
    assert [x.sample_id for x in moved] != [x.sample_id for x in alone]


def test_caps_keep_a_seeded_subset_and_splits_filter_before_drawing() -> None:
    s, split, seed = load(ALL_SPLITS, *NO_CAPS)
    chains = [
        chain(f"c{k}", [(f"20{19 + i}-0{k + 1}-0{k + 1}", "day") for i in range(6)])
        for k in range(6)
    ]
    full = draw_samples(chains, s, split, seed)
    capped_s, _, _ = load(ALL_SPLITS, *NO_CAPS, "openforecast.samples.max_samples.stf=3")
    capped = draw_samples(chains, capped_s, split, seed)
    stf_full = {x.sample_id for x in full if x.task == STF}
    stf_capped = {x.sample_id for x in capped if x.task == STF}
    assert len(stf_capped) == 3 and stf_capped < stf_full
    assert [x.sample_id for x in capped if x.task != STF] == [
        x.sample_id for x in full if x.task != STF
    ]
    test_only, _, _ = load(*NO_CAPS)
    assert {x.split for x in draw_samples(chains, test_only, split, seed)} <= {"test"}


# --- model-written parts --------------------------------------------------------------


def test_argument_and_option_parsers() -> None:
    assert parse_argument("Question: Who will open the terminal?\nAnswer: Mayor Varga.") == (
        "Who will open the terminal?",
        "Mayor Varga",
        None,
    )
    assert parse_argument("**Question:** Where will it be? Maybe.\n**Answer:** Brisk Island")[
        :2
    ] == (
        "Where will it be?",
        "Brisk Island",
    )
    assert parse_argument("Who will open it?")[2] == "no 'Question:' and 'Answer:' lines"
    echo = "Question: Who will open it?\nAnswer: <the answer, a few words from the event>"
    assert parse_argument(echo)[2] == "the reply repeats the template's <placeholder>"
    assert parse_argument("Question: Who opens it\nAnswer: Varga")[2] == (
        "the question has no question mark"
    )
    text = "Here are three:\n- The ministry refused aid.\n(b) A strike began.\n3. A strike began.\nOption D: The port closed."
    assert parse_options(text) == [
        "Here are three:",
        "The ministry refused aid.",
        "A strike began.",
        "The port closed.",
    ]


def scripted(replies: Mapping[str, str]) -> Any:
    """A completion function that answers by template name and records the requests."""
    seen: list[LLMRequest] = []

    def complete(requests: Sequence[LLMRequest], desc: str) -> list[LLMResult]:
        seen.extend(requests)
        out = []
        for r in requests:
            text = replies[r.template]
            if text == "FAIL":
                out.append(LLMResult(r, f"k{len(seen)}", ok=False, text=None, error="boom"))
            else:
                out.append(LLMResult(r, f"k-{r.template}", ok=True, text=text))
        return out

    complete.seen = seen  # type: ignore[attr-defined]
    return complete


def demo_chains() -> list[Chain]:
    events, _ = read_timelines(FIX / "demo_timelines.jsonl", set())
    frame, _ = chain_frame(events, "demo")
    return chains_from_frame(frame)


def test_closed_forms_become_questions_the_evaluation_imports(tmp_path: Path) -> None:
    s, split, seed = load(ALL_SPLITS, *NO_CAPS, "openforecast.samples.per_chain.vqa=3")
    templates = load_role_templates(str(PROMPTS), s.templates)
    complete = scripted(
        {
            "of_argument": "Question: Who will act next in this story?\nAnswer: The island council",
            # one restates the real event (dropped), one repeats another; fallback fills.
            "of_distract_event": "- The island's mayor named the new ferry Osprey.\n- A storm sank the ferry.\n- A storm sank the ferry!",
            "of_distract_argument": "- The Kestrel yard\n- The island council\n- The harbour board",
        }
    )
    chains = demo_chains()
    samples, questions, metrics = build_samples(chains, templates, s, split, seed, complete)
    assert set(samples["status"]) == {"ok"}
    ok = samples.set_index("sample_id")
    mcnc = ok[ok["task"] == MCNC]
    osprey = "The island's mayor named the new ferry Osprey."
    for _, row in mcnc.iterrows():
        assert row["distractor_source"] == "llm+chain"
        assert row["choices"][row["answer_index"]] == row["targets"][0]
        assert len(set(row["choices"])) == 4
        assert "A storm sank the ferry." in row["choices"]  # its repeat "...!" was dropped
        if row["chain_id"] == "ferry" and row["split_date"] <= dt.date(2022, 5, 10):
            # a real event of the chain from T_k on: dropped (unless it is the answer)
            assert osprey not in row["choices"] or row["answer"] == osprey
        else:  # another chain's story, or already in the background: a wrong "next"
            assert osprey in row["choices"]
    mcac = ok[ok["task"] == MCAC]
    for _, row in mcac.iterrows():
        # "The island council" is the answer itself: never also a wrong option.
        assert row["choices"].count("The island council") == 1
        assert row["choices"][row["answer_index"]] == "The island council"
        assert {"The Kestrel yard", "The harbour board"} < set(row["choices"])
        assert row["distractor_source"] == "llm+chain"
    vqa = ok[ok["task"] == VQA]
    assert set(vqa["answer"]) <= {"Yes", "No"}
    assert metrics["tasks"][VQA]["answer_yes"] == int((vqa["answer"] == "Yes").sum())
    # Every background line is dated and before T_k.
    for _, row in ok.iterrows():
        for line in row["background"]:
            assert dt.date.fromisoformat(line[:10]) < row["split_date"]
    # The closed forms as the evaluation imports them.
    path = tmp_path / "of_questions.parquet"
    io.write_parquet(path, questions)
    # The shipped source of OpenForecast's closed forms (conf/question_source/openforecast)
    source = load_source_settings(params.compose(ROOT), "openforecast")
    imported = load_source("openforecast", source, path)
    assert len(imported) == len(questions) == len(mcnc) + len(mcac) + len(vqa)
    assert sorted(imported["question_id"]) == sorted(questions["question_id"])
    assert set(imported["qtype"]) == {"mc", "tf"}
    first = questions.iloc[0]
    assert re.search(r"^1\. \d{4}-\d{2}-\d{2}: ", first["question"], re.M)
    assert (
        questions["resolution_date"]
        == samples.set_index("sample_id").loc[questions["question_id"], "split_date"].to_numpy()
    ).all()


def test_failed_and_unusable_replies_drop_samples_with_a_reason() -> None:
    s, split, seed = load(ALL_SPLITS, *NO_CAPS, "openforecast.samples.distractor_fallback=null")
    templates = load_role_templates(str(PROMPTS), s.templates)
    complete = scripted(
        {
            "of_argument": "I cannot write questions.",
            "of_distract_event": "FAIL",
            "of_distract_argument": "- x",
        }
    )
    samples, questions, metrics = build_samples(demo_chains(), templates, s, split, seed, complete)
    by_task = samples.groupby("task")["status"].agg(lambda v: sorted(set(v))).to_dict()
    assert by_task[AQA] == ["parse_error"] and by_task[MCAC] == ["parse_error"]
    assert by_task[MCNC] == ["llm_error"] and by_task[VQA] == ["llm_error"]
    assert by_task[STF] == ["ok"] and by_task[LTF] == ["ok"]
    assert questions.empty
    assert metrics["tasks"][MCNC]["dropped"] == {"llm_error": metrics["tasks"][MCNC]["drawn"]}
    bad = samples[samples["task"] == AQA].iloc[0]
    assert bad["raw_response"] == "I cannot write questions."
    # A fixed-up reply without fallback: fewer than three wrong options drops the MCAC.
    complete = scripted(
        {
            "of_argument": "Question: Who will act?\nAnswer: The council",
            "of_distract_event": "- A\n- B",
            "of_distract_argument": "- The council\n- The board",
        }
    )
    samples, _, _ = build_samples(demo_chains(), templates, s, split, seed, complete)
    assert set(samples[samples["task"] == MCAC]["status"]) == {"too_few_distractors"}
    assert set(samples[samples["task"] == VQA]["status"]) == {"ok"}  # one option suffices


def test_the_last_option_of_a_cut_reply_is_dropped() -> None:
    req = LLMRequest("m", [{"role": "user", "content": "x"}])
    text = "- A storm closed the port.\n- The ministry cut aid.\n- The government on"
    cut = LLMResult(req, "k", ok=True, text=text, finish_reason="length")
    whole = LLMResult(req, "k", ok=True, text=text, finish_reason="stop")
    assert _options(cut) == ["A storm closed the port.", "The ministry cut aid."]
    assert len(_options(whole)) == 3
