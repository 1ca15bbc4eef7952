"""bench/predictions.py: stored games replayed, the champion searching at
each of its decisions, and its tree's statistics for the opponent read
against the opponent's real moves."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "predictions.py"
CHEAP = "champion --time 0.05 --wall-limit 30"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def _row(tmp_path: Path, winner: int | None = 1) -> Path:
    # Day 1: nobody bids; the champion (seat 0) buys a Ghost and the
    # opponent, with 3 coins, a Board of Monopoly (worth a point).
    path = tmp_path / "row.jsonl"
    path.write_text(json.dumps({"opening": 0, "seat": 0, "winner": winner,
                                "moves": [0, 0, "Ghost", "Board of Monopoly"]}) + "\n")
    return path


def test_the_opponents_points_buy_is_read_against_the_tree(tmp_path: Path) -> None:
    run = _run(str(_row(tmp_path)), "--champion", CHEAP)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"1 games (any), {CHEAP}:"
    assert lines[1].startswith("bids: ")
    buys = lines[2]
    assert buys.startswith("buys: 1 decisions; the opponent's move had "), buys
    assert "it could buy points at 1 and did at 1 (100%): the tree's share on points buys " in buys
    share = float(buys.split("the opponent's move had ")[1].split(" ")[0])
    assert 0 <= share <= 1
    ours = re.fullmatch(r"the champion: (\d+) decisions searched, [\d.]+ s of CPU on average of its 0.05 s "
                        r"\(quartiles [\d.]+ [\d.]+ [\d.]+\); moves proven to lose at (\d+), its search's most "
                        r"visited among them at (\d+)", lines[3])
    assert ours is not None, lines[3]
    searched, proven, vetoed = map(int, ours.groups())
    assert searched >= 1 and vetoed <= proven <= searched  # the day-1 buy, at least, was searched
    lost = _run(str(_row(tmp_path)), "--result", "lost", "--champion", CHEAP)
    assert lost.returncode == 0 and lost.stdout.startswith("1 games (lost)")


def test_bad_input_is_refused_with_a_message(tmp_path: Path) -> None:
    row = _row(tmp_path)
    none = _run(str(row), "--result", "won")
    assert none.returncode == 2 and "no stored game with that result (won)" in none.stderr
    missing = _run(str(tmp_path / "nothing.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    alphabeta = _run(str(row), "--champion", "champion --search alphabeta")
    assert alphabeta.returncode == 2 and "only the MCTS champion has a tree" in alphabeta.stderr
    other = _run(str(row), "--champion", "expert")
    assert other.returncode == 2 and "not the champion's command" in other.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps({"opening": 0, "seat": 0, "winner": 1, "moves": [0, 0, "No Such Card", "Pass"]})
                      + "\n")
    bad = _run(str(broken), "--champion", CHEAP)
    assert bad.returncode == 2 and "does not replay" in bad.stderr and "Traceback" not in bad.stderr
    torn = tmp_path / "torn.jsonl"  # the opponent's buy of day 1 missing
    torn.write_text(json.dumps({"opening": 0, "seat": 0, "winner": 1, "moves": [0, 0, "Ghost"]}) + "\n")
    cut = _run(str(torn), "--champion", CHEAP)
    assert cut.returncode == 2 and "does not replay" in cut.stderr and "Traceback" not in cut.stderr
