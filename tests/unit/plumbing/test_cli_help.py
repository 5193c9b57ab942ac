"""``python -m prescient --help`` speaks to a user: what the tool is, what each command
does, and no developer notes."""

from __future__ import annotations

import pytest

from prescient.plumbing.cli import COMMAND_MODULES, build_parser


def test_help_says_what_the_tool_is_and_lists_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "continuous evaluation of LLMs as forecasters" in out
    assert "register(" not in out and "module" not in out
    for command in (
        "params",
        "dag",
        "ledger",
        "annotate",
        "update",
        "lock",
        "trace",
        "pull",
        "plan",
    ):
        assert f"    {command} " in out
    assert len(COMMAND_MODULES) == 9
