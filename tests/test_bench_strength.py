"""bench/strength.py: the champion's in-process pairings, with another
champion command when one is given (`--champion`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "strength.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def _listed(run: subprocess.CompletedProcess[str], name: str) -> str:
    (line,) = [line for line in run.stdout.splitlines() if line.split()[0] == name]
    return line


def test_another_champion_command_replaces_the_champion_in_its_pairings(tmp_path: Path) -> None:
    variant = "champion --time 0.1 --wall-limit 120"
    default, changed = _run("--list"), _run("--list", "--champion", variant)
    assert default.returncode == changed.returncode == 0, default.stderr + changed.stderr
    assert "champion --time 0.5 --wall-limit 120 vs evolved" in _listed(default, "champion-evolved-simple-openings")
    assert f"{variant} vs evolved" in _listed(changed, "champion-evolved-simple-openings")
    # Where the champion is the opponent (the time pairings) it is replaced too; other bots are kept.
    assert f"champion --time 2 --wall-limit 120 vs {variant} " in _listed(changed, "champion-2s-vs-0.5s")
    assert _listed(changed, "mcts-expert-simple") == _listed(default, "mcts-expert-simple")
    # And the games are played with it: random in the champion's seat of the pairing against random.
    run = _run("--champion", "random", "--only", "champion-random-simple-openings", "--games", "2", "-j", "1",
               "--db-dir", str(tmp_path))
    assert run.returncode == 0, run.stderr
    games = [json.loads(line) for line in (tmp_path / "champion-random-simple-openings.jsonl").read_text().splitlines()]
    assert sorted((g["opening"], g["seat"]) for g in games) == [(0, 0), (0, 1)]


def test_a_champion_that_is_not_ours_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    run = _run("--champion", f"{sys.executable} my_bot.py", "--db-dir", str(tmp_path / "out"))
    assert run.returncode == 2
    assert "not one of our bots" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out").exists()


def test_distinct_plays_on_past_games_until_a_row_holds_that_many_distinct_games(tmp_path: Path) -> None:
    run = _run("--champion", "random", "--only", "champion-random-simple-openings", "--games", "2", "--distinct", "6",
               "-j", "1", "--db-dir", str(tmp_path))
    assert run.returncode == 0, run.stderr
    games = [json.loads(line) for line in (tmp_path / "champion-random-simple-openings.jsonl").read_text().splitlines()]
    assert len({tuple(map(str, g["moves"])) for g in games}) >= 6
    assert sorted({g["opening"] for g in games}) == [0, 1, 2]
    bad = _run("--distinct", "-1", "--db-dir", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "--distinct" in bad.stderr and not (tmp_path / "bad").exists()
