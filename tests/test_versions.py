"""`--version` everywhere, as the docs promise: every console script, every
subcommand of our command groups, and every bot (ours, and one of your
own on `bots.sdk`)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import driver, evolve, ladder_main, tournament_main

ROOT = Path(__file__).resolve().parent.parent
VERSION = version("economancy-arena")
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def _subcommands() -> list[tuple[str, click.Group, str]]:
    groups = {"driver": driver, "tournament": tournament_main, "ladder": ladder_main, "evolve": evolve}
    return [(name, group, sub) for name, group in groups.items() for sub in sorted(group.commands)]


@pytest.mark.parametrize(("name", "group", "sub"), _subcommands(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_subcommand_takes_version(name: str, group: click.Group, sub: str) -> None:
    done = CliRunner().invoke(group, [sub, "--version"])
    assert done.exit_code == 0, done.output
    assert VERSION in done.output and "economancy-arena" in done.output


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_console_script_takes_version(script: str) -> None:
    module, _, function = SCRIPTS[script].partition(":")
    code = f"import sys; sys.argv[0] = {script!r}; from {module} import {function}; {function}()"
    done = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"(economancy-arena) {VERSION}" in done.stdout


def test_a_bot_of_your_own_on_the_sdk_takes_version() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "sdk_bot.py"), "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and f"(economancy-arena) {VERSION}" in done.stdout, done.stderr
