"""bench/bid_prices.py: what an opponent paid to stop the measured bot's
sure attacks, counted by the champion's own bid model over stored games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "bid_prices.py"

# Day 1: nobody bids; seat 0 buys a Ghost (1 coin left), seat 1 a Worker.
# Day 2: seat 0 (2 coins) holds a sure attack, a Ghost against a Worker;
# seat 1 (4 coins) could match its purse and bids 1, half of it, and then
# does not attack with its Worker; both pass.
MOVES = [0, 0, "Ghost", "Worker", 0, 1, 0, "Pass", "Pass"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def _row(tmp_path: Path, seat: int, torn: bool = False) -> Path:
    path = tmp_path / f"seat{seat}.jsonl"
    text = json.dumps({"opening": 0, "seat": seat, "moves": MOVES, "winner": None, "days": 2}) + "\n"
    path.write_text(text + ('{"opening": 1, "se' if torn else ""))  # a torn last line, as a kill leaves it
    return path


def test_the_share_of_our_purse_the_opponent_paid_is_counted(tmp_path: Path) -> None:
    run = _run(str(_row(tmp_path, 0, torn=True)), str(_row(tmp_path, 1)))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "| seat0.jsonl | 1 | 1 | 100% | 50% |" in lines
    # From seat 1's side no step counts: it never held a sure attack.
    assert "| seat1.jsonl | 1 | 0 | - | - |" in lines


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    run = _run(str(tmp_path / "nothing.jsonl"))
    assert run.returncode == 2
    assert "no such file" in run.stderr and "nothing.jsonl" in run.stderr


def test_a_file_that_is_not_stored_games_is_refused_with_its_name(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(json.dumps({"seat": 0, "moves": [0, 0, "Golem"]}) + "\n")  # a base-set card, read as simple
    run = _run(str(wrong))
    assert run.returncode == 2
    assert "wrong.jsonl: not a file of stored games of the simple set" in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""  # no table begun
