"""bench/fixed_play.py: the champion's games with fixed work, the same
digest for the same play and another for other play."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "fixed_play.py"
fixed_play = load_script(SCRIPT)

SMALL = ("--openings", "1", "--iterations", "200")


def _lines(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert fixed_play.main([*SMALL, *args]) == 0
    return capsys.readouterr().out.splitlines()


def _digest(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    *games, total = _lines(capsys, *args)
    assert total.startswith(f"{len(games)} games, digest ")
    return total.rsplit(" ", 1)[1]


def test_the_same_command_plays_the_same_games_and_a_search_option_changes_them(
        capsys: pytest.CaptureFixture[str]) -> None:
    first = _lines(capsys, "--players", "4")
    assert [line.split(":")[0] for line in first[:-1]] == [f"opening 0 seat {seat}" for seat in range(4)]
    assert _lines(capsys, "--players", "4") == first
    assert _digest(capsys, "--players", "4", "--champion", "champion --exploration 0.7") != first[-1].split()[-1]


def test_the_bid_model_changes_two_player_games_only(capsys: pytest.CaptureFixture[str]) -> None:
    # The champion uses its bid model at 2 players only (docs/bots.md, "The
    # bid model at 4 players"): turning it off must not move a 4-player game.
    four = _digest(capsys, "--players", "4")
    assert _digest(capsys, "--players", "4", "--champion", "champion --no-bid-model") == four
    two = [_digest(capsys, "--openings", "3", *extra) for extra in ((), ("--champion", "champion --no-bid-model"))]
    assert two[0] != two[1]


def test_bad_arguments_are_refused_with_the_reason() -> None:
    cases = {("--champion", "mcts --time 1"): "not the champion's command",
             ("--champion", "champion --exploration 0"): "--exploration must be positive",
             ("--opponent", "./no-such-bot"): "does not exist",
             ("--iterations", "0"): "at least 1"}
    for args, reason in cases.items():
        run = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and reason in run.stderr, (args, run.stderr)
