"""The one prompt template format: loading, checking against a caller's spec, rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from prescient.prompts import (
    PromptSpec,
    PromptTemplate,
    TemplateError,
    load_template,
    load_templates,
)

PLAIN = PromptSpec("role 'plain'", frozenset({"question", "date"}))
QA = PromptSpec(
    "the test setting",
    frozenset({"question", "articles"}),
    required=frozenset({"question"}),
    variants=("tf", "mc"),
    parts={"article": frozenset({"number", "title"})},
    data=frozenset({"rubric"}),
    system=True,
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_template_renders_system_examples_and_user_in_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "plain",
        "name: plain\nversion: 3\nsystem: 'As of {date}:'\n"
        "examples:\n  - {user: 'Q1', assistant: 'A1'}\n"
        "user: '{question} {{literal}}'\n",
    )
    t = load_template(path, PLAIN)
    assert (t.label, t.source) == ("plain@3", str(path))
    values = {"question": "Will {x} rise?", "date": "2024-05-01"}
    assert t.render(values) == [
        {"role": "system", "content": "As of 2024-05-01:"},
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
        # a brace inside a value is inert; a doubled brace in the template is one brace
        {"role": "user", "content": "Will {x} rise? {literal}"},
    ]
    assert t.text(values) == "Will {x} rise? {literal}"
    with pytest.raises(TemplateError, match=r"plain@3: no value for \['date'\]"):
        t.render({"question": "q"})


def test_a_blank_system_message_sends_user_turns_only() -> None:
    t = PromptTemplate(name="n", version="1", system="  ", user="{question}")
    assert t.render({"question": "q"}) == [{"role": "user", "content": "q"}]


def test_variants_and_parts(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "qa",
        "name: qa\nversion: '2'\nsystem: S\nrubric: [one, two]\n"
        "parts:\n  article: '[{number}] {title}'\n"
        "user:\n  tf: 'TF {question}\n\n    {articles}'\n  mc: 'MC {question}'\n",
    )
    t = load_template(path, QA)
    assert t.variants == ("tf", "mc") and t.extras == {"rubric": ["one", "two"]}
    line = t.render_part("article", {"number": 1, "title": "Port {reopens}"})
    assert line == "[1] Port {reopens}"
    assert t.render({"question": "Will it?", "articles": line}, "tf")[1] == {
        "role": "user",
        "content": "TF Will it?\n[1] Port {reopens}",
    }
    assert t.render({"question": "Will it?"}, "mc")[1]["content"] == "MC Will it?"
    with pytest.raises(
        TemplateError, match=r"`user` has no variant 'xx' \(variants: \['mc', 'tf'\]\)"
    ):
        t.render({"question": "q"}, "xx")
    with pytest.raises(TemplateError, match="no part 'header'"):
        t.render_part("header", {})


BASE = "name: x\nversion: '1'\nsystem: S\nparts: {article: '{number}'}\n"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            "user: {tf: '{question} {text}', mc: '{question}'}\n",
            "placeholders ['text'] are not available to the test setting "
            "(available: ['articles', 'question']); double literal braces",
        ),
        ("user: '{question}'\n", "`user` must be a mapping of ['tf', 'mc'] to their messages"),
        (
            "user: {tf: '{question}', mc: 'Pick {articles}'}\n",
            "`user.mc` must use ['{question}'] for the test setting",
        ),
        (
            "user: {tf: '{question}', mc: '{question}'}\nrubrik: 1\n",
            "unknown keys ['rubrik'] for the test setting; a template holds ['data_from', "
            "'examples', 'name', 'parts', 'system', 'user', 'version'] and its data keys "
            "['rubric']",
        ),
        (
            "user: {tf: '{question} {0}', mc: '{question}'}\n",
            "placeholder {0} is not a plain name; write a literal brace double ({{ or }})",
        ),
        (
            "user: {tf: '{question} }', mc: '{question}'}\n",
            "Single '}' encountered in format string; write a literal brace double",
        ),
    ],
)
def test_a_template_that_does_not_fit_its_caller_is_refused(
    tmp_path: Path, body: str, problem: str
) -> None:
    path = write(tmp_path, "bad", BASE + body)
    with pytest.raises(TemplateError) as err:
        load_template(path, QA)
    assert str(err.value).startswith(f"{path}: ")
    assert problem in str(err.value)


def test_parts_and_system_are_checked(tmp_path: Path) -> None:
    user = "user: {tf: '{question}', mc: '{question}'}\n"
    no_system = write(tmp_path, "a", "name: x\nversion: 1\nparts: {article: '{number}'}\n" + user)
    with pytest.raises(TemplateError, match="the test setting needs a `system` message"):
        load_template(no_system, QA)
    no_part = write(tmp_path, "b", "name: x\nversion: 1\nsystem: S\n" + user)
    with pytest.raises(TemplateError, match=r"`parts` must hold exactly \['article'\]"):
        load_template(no_part, QA)
    stray = write(
        tmp_path, "c", "name: x\nversion: 1\nsystem: S\nparts: {article: '{date}'}\n" + user
    )
    with pytest.raises(TemplateError, match=r"part 'article' uses placeholders \['date'\]"):
        load_template(stray, QA)


def test_the_file_itself_must_be_well_formed(tmp_path: Path) -> None:
    missing = write(tmp_path, "m", "name: x\nuser: '{question}'\n")
    with pytest.raises(TemplateError, match=r"`version`: Field required"):
        load_template(missing, PLAIN)
    turns = write(tmp_path, "t", "name: x\nversion: 1\nuser: q\nexamples:\n  - user: only\n")
    with pytest.raises(TemplateError, match=r"`examples.0.assistant`: Field required"):
        load_template(turns, PLAIN)
    blank = write(tmp_path, "b", "name: x\nversion: 1\nuser: '  '\n")
    with pytest.raises(TemplateError, match="must not be blank"):
        load_template(blank, PLAIN)
    with pytest.raises(TemplateError, match="cannot read template"):
        load_template(tmp_path / "absent.yaml", PLAIN)
    with pytest.raises(TemplateError, match="expected a mapping"):
        load_template(write(tmp_path, "l", "- a\n- b\n"), PLAIN)


def test_data_from_shares_the_data_keys_of_another_template(tmp_path: Path) -> None:
    spec = PromptSpec("role 'judge'", frozenset({"question"}), data=frozenset({"rubric", "scale"}))
    write(tmp_path, "full", "name: full\nversion: 1\nuser: '{question}'\nrubric: R\nscale: S\n")
    short = write(
        tmp_path,
        "short",
        "name: short\nversion: 1\nuser: '{question}?'\ndata_from: full\nscale: T\n",
    )
    t = load_template(short, spec)
    assert (t.name, t.user, t.extras) == ("short", "{question}?", {"rubric": "R", "scale": "T"})
    itself = write(tmp_path, "loop", "name: l\nversion: 1\nuser: q\ndata_from: loop\n")
    with pytest.raises(TemplateError, match="`data_from` names the file itself"):
        load_template(itself, spec)


def test_a_callers_own_check_names_the_file(tmp_path: Path) -> None:
    def needs_rubric(t: PromptTemplate) -> None:
        if "rubric" not in t.extras:
            raise ValueError("add a `rubric`")

    spec = PromptSpec("role 'judge'", frozenset(), data=frozenset({"rubric"}), check=needs_rubric)
    path = write(tmp_path, "j", "name: j\nversion: 1\nuser: plain text\n")
    with pytest.raises(TemplateError, match=f"^{path}: add a `rubric`$"):
        load_template(path, spec)


def test_load_templates_needs_every_role_and_no_other(tmp_path: Path) -> None:
    write(tmp_path, "one", "name: one\nversion: 1\nuser: '{question}'\n")
    specs = {"ask": PLAIN}
    assert load_templates(tmp_path, {"ask": "one"}, specs)["ask"].name == "one"
    with pytest.raises(TemplateError, match=r"no template named for \['ask'\]"):
        load_templates(tmp_path, {}, specs)
    with pytest.raises(TemplateError, match=r"unknown roles \['judge'\]"):
        load_templates(tmp_path, {"ask": "one", "judge": "one"}, specs)
