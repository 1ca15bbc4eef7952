"""bench/race_buys.py: the playouts' heuristic against the buys real players made in the race for points."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from protocol.cards import CARDS
from protocol.engine import BUY, PASS, Game, move_to_wire

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "race_buys.py"
sys.path.insert(0, str(ROOT / "bench"))
from race_buys import heuristic_buy  # noqa: E402

POINTS = tuple(card.id for card in CARDS if card.points)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def _game() -> tuple[list[int | str], int, int]:
    """Seat 0 buys what the heuristic names (9 seeds), seat 1 passes; both
    bid nothing. The moves, and the race buys with a choice of each seat."""
    game, moves, counted = Game(2), [], [0, 0]
    while not game.is_over:
        seat = game.pending()[0]
        move = 0 if game.phase != BUY else PASS
        if game.phase == BUY:
            racing = any(game.shop().get(card, 0) for card in POINTS)
            if racing and len(game.legal_moves(seat)) > 1:
                counted[seat] += 1
            if seat == 0:
                move = heuristic_buy(game, seat, 9)
        elif game.phase != 0:
            move = game.legal_moves(seat)[0]
        moves.append(move_to_wire(game, move))
        game.play(seat, move)
    return moves, counted[0], counted[1]


def test_a_side_that_buys_as_the_heuristic_is_named_every_time(tmp_path: Path) -> None:
    moves, mine, theirs = _game()
    assert mine > 2 and theirs > 2
    row = tmp_path / "row.jsonl"
    row.write_text(json.dumps({"opening": 0, "seat": 0, "moves": moves}) + "\n"
                   + json.dumps({"opening": 0, "seat": 1, "moves": moves}) + "\n")
    run = _run(str(row))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    # Seat 0 (the bot in the first game, the opponent in the second) always buys the heuristic's card;
    # seat 1 always passes, where the heuristic, with coins, buys.
    bot, opponent = ([cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:4])
    assert bot[:2] == ["the bot", str(mine + theirs)] and opponent[:2] == ["its opponent", str(mine + theirs)]
    assert int(bot[2]) >= mine and int(opponent[2]) >= mine and int(bot[2]) < mine + theirs
    assert "| Pass |" in run.stdout


def test_bad_input_is_refused_with_a_reason(tmp_path: Path) -> None:
    assert "no such file" in _run(str(tmp_path / "nothing.jsonl")).stderr
    golem = tmp_path / "golem.jsonl"
    golem.write_text(json.dumps({"opening": 0, "seat": 0, "moves": [0, 0, "Golem"]}) + "\n")
    run = _run(str(golem))
    assert run.returncode == 2 and "simple set" in run.stderr and "Traceback" not in run.stderr
    assert _run("--seeds", "0", str(golem)).returncode == 2
