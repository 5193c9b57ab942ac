"""The stage harness: each row of its exit-code table, its command line and its logging."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from prescient.crawl.run import CrawlError
from prescient.evaluation.prepare import VisibilityError
from prescient.llm.failures import FAILED_CALLS_EXIT
from prescient.llm.ledger import LedgerNotWritableError
from prescient.llm.registry import ModelConfigError
from prescient.plumbing import stage
from prescient.settings import ParamsError


def _params(tmp_path: Path) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text("base:\n  seed: 7\n", encoding="utf-8")
    return path


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--out", required=True)


def _run(tmp_path: Path, work: Callable[[stage.StageRun], int]) -> int:
    main = stage.entry("demo", "a stage for the tests", _options, work)
    return main(["--params", str(_params(tmp_path)), "--out", "x"])


def _raising(exc: BaseException) -> Callable[[stage.StageRun], int]:
    def work(run: stage.StageRun) -> int:
        raise exc

    return work


def test_the_table_has_one_row_per_code_and_the_codes_are_the_constants() -> None:
    assert [row.code for row in stage.EXIT_CODES] == [0, 1, 2, 3, 4]
    assert (stage.DONE, stage.PARTIAL, stage.BAD_INPUT) == (0, 1, 2)
    assert (stage.FAILED_CALLS, stage.REFUSED) == (3, 4)
    # the code the model-calling stages' failure summary announces
    assert stage.FAILED_CALLS == FAILED_CALLS_EXIT == 3


def test_done_gets_the_params_the_options_and_the_stage_logger(tmp_path: Path) -> None:
    seen: list[stage.StageRun] = []

    def work(run: stage.StageRun) -> int:
        seen.append(run)
        return stage.DONE

    assert _run(tmp_path, work) == 0
    (run,) = seen
    assert run.params == {"base": {"seed": 7}}
    assert run.args.out == "x"
    assert run.args.params == str(tmp_path / "params.yaml")
    assert run.logger.name == "stages.demo"


def test_partial_work_exits_1(tmp_path: Path) -> None:
    assert _run(tmp_path, lambda run: stage.PARTIAL) == 1


def test_failed_calls_exit_3(tmp_path: Path) -> None:
    assert _run(tmp_path, lambda run: stage.FAILED_CALLS) == 3


@pytest.mark.parametrize(
    "exc",
    [
        ParamsError("llm.max_tries: must be at least 1"),
        ModelConfigError("model 'x' needs an API key: set the environment variable X_KEY"),
        ValueError("a plain ValueError"),
        FileNotFoundError("no context table ['a.parquet']"),
        LedgerNotWritableError("ledger.jsonl is read-only"),
        CrawlError("the listing cannot be fetched"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_bad_input_exits_2_logging_the_message_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, exc: Exception
) -> None:
    with caplog.at_level(logging.ERROR):
        assert _run(tmp_path, _raising(exc)) == 2
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in errors] == [str(exc)]
    assert errors[0].name == "stages.demo"
    assert errors[0].exc_info is None  # no traceback


def test_a_missing_params_file_exits_2(tmp_path: Path) -> None:
    main = stage.entry("demo", None, _options, lambda run: stage.DONE)
    assert main(["--params", str(tmp_path / "absent.yaml"), "--out", "x"]) == 2


def test_refused_visibility_exits_4(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    exc = VisibilityError("3 retrieved articles lie after their window's end")
    with caplog.at_level(logging.ERROR):
        assert _run(tmp_path, _raising(exc)) == 4
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [str(exc)]


@pytest.mark.parametrize("exc", [KeyError("column"), RuntimeError("a bug"), ZeroDivisionError()])
def test_an_unexpected_error_propagates(tmp_path: Path, exc: Exception) -> None:
    with pytest.raises(type(exc)):
        _run(tmp_path, _raising(exc))


def test_a_code_outside_the_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="stage demo returned 5"):
        _run(tmp_path, lambda run: 5)


def test_bad_input_logs_each_of_its_lines(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    exc = stage.BadInput("2 invalid rows", "  a.jsonl:1: score 9", "  a.jsonl:4: no id")
    with caplog.at_level(logging.ERROR):
        assert _run(tmp_path, _raising(exc)) == 2
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [
        "2 invalid rows",
        "  a.jsonl:1: score 9",
        "  a.jsonl:4: no id",
    ]


def test_reworded_puts_the_message_in_the_template(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def work(run: stage.StageRun) -> int:
        with stage.reworded("ingest: {}"):
            raise ParamsError("corpus.path: missing")
        return stage.DONE

    with caplog.at_level(logging.ERROR):
        assert _run(tmp_path, work) == 2
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [
        "ingest: corpus.path: missing"
    ]


def test_reworded_takes_the_extra_classes_it_names_and_leaves_others() -> None:
    also = stage.reworded("cannot write: {}", also=(KeyError,))
    with pytest.raises(stage.BadInput, match=r"^cannot write: 'title'$"), also:
        raise KeyError("title")
    with pytest.raises(KeyError), stage.reworded("cannot write: {}"):
        raise KeyError("title")
    # another row's error keeps its code
    with pytest.raises(VisibilityError), stage.reworded("cannot write: {}"):
        raise VisibilityError("after the window")


def test_a_stage_without_params_takes_no_params_option(tmp_path: Path) -> None:
    seen: list[dict[str, object]] = []

    def work(run: stage.StageRun) -> int:
        seen.append(run.params)
        return stage.DONE

    main = stage.entry("demo", None, _options, work, with_params=False)
    assert main(["--out", "x"]) == 0
    assert seen == [{}]
    with pytest.raises(SystemExit) as exit_info:  # argparse: an unknown option
        main(["--params", str(_params(tmp_path)), "--out", "x"])
    assert exit_info.value.code == 2
