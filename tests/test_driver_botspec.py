"""Every accepted BOT form, and a clear error for every bad one."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from bots import registry
from driver.botspec import BotSpec, BotSpecError, parse_bot


def test_our_bot_by_name_runs_with_this_interpreter() -> None:
    spec = parse_bot("random")
    assert spec == BotSpec(tuple(registry.resolve("random") or ()), "random")
    assert spec.argv[0] == sys.executable and spec.argv[-1] == "bots.random_bot"


def test_our_bot_with_options_keeps_them_in_order() -> None:
    spec = parse_bot("random --seed 3")
    assert spec.argv == (*(registry.resolve("random") or ()), "--seed", "3")
    assert spec.name == "random --seed 3"


def test_display_name_given_with_equals() -> None:
    spec = parse_bot("lucky=random --seed 7")
    assert spec.name == "lucky"
    assert spec.argv[-2:] == ("--seed", "7")
    # An '=' inside the options is not a display name.
    assert parse_bot("random --seed=7").argv[-1] == "--seed=7"


def test_program_path_with_quoted_arguments(tmp_path: Path) -> None:
    program = tmp_path / "my bot"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    spec = parse_bot(f"'{program}' --style 'very careful'")
    assert spec.argv == (str(program), "--style", "very careful")


def test_command_on_path() -> None:
    spec = parse_bot("sh -c 'echo [0]'")
    assert spec.argv == (shutil.which("sh"), "-c", "echo [0]")
    assert spec.name == "sh -c 'echo [0]'"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty bot command"),
        ("name=", "empty bot command for 'name'"),
        ("no-such-bot-anywhere", "unknown bot 'no-such-bot-anywhere'"),
        ("./no/such/program", "does not exist"),
        ("random 'unbalanced", "cannot parse bot"),
    ],
)
def test_bad_bots_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        parse_bot(text)


def test_non_executable_and_directory_paths(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print([0])\n")
    with pytest.raises(BotSpecError, match="is not executable"):
        parse_bot(str(script))
    with pytest.raises(BotSpecError, match="is a directory"):
        parse_bot(str(tmp_path) + "/")


def test_unknown_bot_lists_ours() -> None:
    with pytest.raises(BotSpecError) as error:
        parse_bot("randon")
    assert "random" in str(error.value) and "./randon" in str(error.value)


def test_our_bots_are_told_a_non_default_max_days() -> None:
    # The wire does not carry max_days; our bots plan for the end, so the
    # referee passes it on their command line, and only theirs.
    ours = parse_bot("random --seed 3")
    assert ours.ours and ours.command(100) == ours.argv
    assert ours.command(30) == (*ours.argv, "--max-days", "30")
    explicit = parse_bot("random --max-days 12")
    assert explicit.command(30) == explicit.argv
    theirs = parse_bot(f"{sys.executable} -c pass")
    assert not theirs.ours and theirs.command(30) == theirs.argv
