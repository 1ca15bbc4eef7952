"""bench/decisions.py: a stored game replayed to one of the champion's
decisions, the decision searched again, and the game played on with each
move forced."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "decisions.py"
CHEAP = "champion --time 0.05 --wall-limit 30"

# Day 1: seat 0 (the champion) buys a Ghost, seat 1 passes; day 2: seat 0
# bids 1 against 0 and attacks with the Ghost (index 1); seat 1 has no
# card that defends and is out.
ELIMINATION: list[int | str] = [0, 0, "Ghost", "Pass", 1, 0, 1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def _row(tmp_path: Path) -> Path:
    path = tmp_path / "row.jsonl"
    path.write_text(json.dumps({"opening": 0, "seat": 0, "winner": 0, "moves": ELIMINATION}) + "\n")
    return path


def test_a_forced_bid_that_wins_the_day_wins_every_game_played_on(tmp_path: Path) -> None:
    # points-repro never bids, so the bid of 1 wins the attack and the Ghost
    # meets no defender: every game played on from it ends on day 2. The bid
    # of 0 ties, nobody attacks, and no game can end that day.
    run = _run(str(_row(tmp_path)), "--opening", "0", "--seat", "0", "--day", "2", "--phase", "invest",
               "--opponent", "points-repro", "--games", "2", "--seeds", "1", "--moves", "1", "0",
               "--champion", CHEAP)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "opening 0, champion in seat 0, day 2, invest; played 1; the game was won"
    assert lines[1].startswith("  seat 0: 2 coins, 0 points: Sorcerer's Stipend, Ghost")
    assert lines[2] == "  seat 1: 4 coins, 0 points: Sorcerer's Stipend"
    assert lines[3].startswith("search, seed 0: ")
    assert lines[4] == "1: 2/2 (won by elimination on day 2; won by elimination on day 2)"
    assert lines[5].startswith("0: ") and len(lines) == 6
    ends = lines[5].split("(")[1].rstrip(")").split("; ")
    assert len(ends) == 2 and all(not end.endswith(" on day 2") for end in ends), ends


def test_by_default_the_move_played_is_tried_first(tmp_path: Path) -> None:
    # --warm: the champion searches its day-1 bid before the buy asked about.
    run = _run(str(_row(tmp_path)), "--opening", "0", "--seat", "0", "--day", "1", "--phase", "buy",
               "--opponent", "points-repro", "--games", "1", "--seeds", "1", "--champion", CHEAP, "--warm")
    assert run.returncode == 0, run.stderr
    tried = [line.split(":")[0] for line in run.stdout.splitlines()[4:]]
    assert tried[0] == "Ghost" and 1 < len(tried) <= 4 and len(set(tried)) == len(tried)


def test_bad_input_is_refused_with_the_reason(tmp_path: Path) -> None:
    row = str(_row(tmp_path))
    common = ["--opening", "0", "--seat", "0", "--opponent", "points-repro", "--champion", CHEAP]
    cases = [
        ([row, *common, "--day", "5", "--phase", "buy"], "no decision in that phase on day 5"),
        ([row, *common, "--day", "1", "--phase", "buy", "--moves", "Golem"], "Golem"),
        ([row, *common, "--day", "1", "--phase", "buy", "--moves", "Incantation"], "not a legal move"),
        ([row, "--opening", "3", "--seat", "0", "--day", "1", "--phase", "buy", "--opponent", "points-repro"],
         "no game of opening 3"),
        ([row, "--opening", "0", "--seat", "0", "--day", "1", "--phase", "buy", "--opponent", "nobody"], "--opponent"),
        ([row, *common[:4], "--opponent", "points-repro", "--champion", "expert", "--day", "1", "--phase", "buy"],
         "not the champion's command"),
        ([str(tmp_path / "none.jsonl"), *common, "--day", "1", "--phase", "buy"], "no such file"),
    ]
    for args, message in cases:
        run = _run(*args)
        assert run.returncode == 2 and message in run.stderr, (args, run.stderr)
        assert "Traceback" not in run.stderr and run.stdout == ""
