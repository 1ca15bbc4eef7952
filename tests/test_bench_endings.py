"""bench/endings.py: how the measured bot's stored games ended, each kind
read from the game's final state."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from driver.game import game_days
from protocol.cards import NAMES
from protocol.engine import BUY, INVESTING, PASS, Game, move_from_wire, move_to_wire

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "endings.py"
INCANTATION, BOARD = NAMES.index("Incantation"), NAMES.index("Board of Monopoly")

# Day 1: seat 0 buys a Ghost, seat 1 passes; day 2: seat 0 outbids seat 1
# and attacks with the Ghost (index 1); seat 1 has no card that defends.
ELIMINATION: list[int | str] = [0, 0, "Ghost", "Pass", 1, 0, 1]


def _scripted(buyer: Callable[[Game, int], int],
              bidder: Callable[[Game, int], int] = lambda game, seat: 0) -> tuple[list[int | str], int]:
    """The wire moves of a whole game in which each seat bids what `bidder`
    says (nobody by default) and buys what `buyer` names, and the day it
    ended on."""
    game, moves = Game(2), []
    while not game.is_over:
        seat = game.pending()[0]
        move = (bidder(game, seat) if game.phase == INVESTING else buyer(game, seat) if game.phase == BUY
                else game.legal_moves(seat)[0])
        moves.append(move_to_wire(game, move))
        game.play(seat, move)
    return moves, game_days(game)


def _points(game: Game, seat: int) -> int:
    """The dearest points card the seat can pay for and the shop still holds, else a pass."""
    for card in (INCANTATION, BOARD):
        if game.shop().get(card, 0) and game.coins(seat) >= (4 if card == INCANTATION else 2):
            return card
    return PASS


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, stdin=subprocess.DEVNULL)


def _row(path: Path, games: list[tuple[int, list[int | str]]], torn: bool = False) -> Path:
    lines = [json.dumps({"opening": i, "seat": seat, "moves": moves}) for i, (seat, moves) in enumerate(games)]
    path.write_text("\n".join(lines) + "\n" + ('{"opening": 9, "se' if torn else ""))  # a torn line, as a kill leaves it
    return path


def test_each_ending_is_told_apart_from_the_final_state(tmp_path: Path) -> None:
    race, day = _scripted(lambda game, seat: _points(game, seat) if seat == 0 else PASS)
    shared, _ = _scripted(_points)  # both buy the same points each day: 11-11, the shop's points sold out
    idle, _ = _scripted(lambda game, seat: PASS)  # nobody buys: a draw with every point still in the shop
    assert 2 < day < 100
    row = _row(tmp_path / "row.jsonl", [(0, ELIMINATION), (1, ELIMINATION), (0, race), (1, race),
                                        (0, shared), (1, shared), (1, idle)], torn=True)
    run = _run(str(row))
    assert run.returncode == 0, run.stderr
    header, rule, line = run.stdout.splitlines()
    assert header.split(" | ")[2:4] == ["won by elimination", "won on points"]
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells == ["row.jsonl", "7", "1 (day 2.0)", f"1 (day {day}.0)", "2 (day 100.0)", "1 (day 100.0)",
                     "1 (day 2.0)", f"1 (day {day}.0)"]


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    run = _run(str(tmp_path / "nothing.jsonl"))
    assert run.returncode == 2
    assert "no such file" in run.stderr and "nothing.jsonl" in run.stderr


def test_games_of_another_set_or_cut_short_are_refused_with_the_file_named(tmp_path: Path) -> None:
    golem = _row(tmp_path / "golem.jsonl", [(0, [0, 0, "Golem"])])  # a base-set card, read as simple
    short = _row(tmp_path / "short.jsonl", [(0, ELIMINATION[:-1])])
    for path, why in ((golem, "simple set"), (short, "stop before its end")):
        run = _run(str(path))
        assert run.returncode == 2
        assert f"{path.name}: not a file of finished 2-player games" in run.stderr and why in run.stderr
        assert "Traceback" not in run.stderr and run.stdout == ""  # no table begun


def test_bids_are_counted_while_the_shop_sells_points(tmp_path: Path) -> None:
    # Both buy the same points each day and bid 1 coin each whenever both
    # hold one (a tie: nobody attacks, both pay), so the game stays level
    # to a lock on day 100; the bids after the points are sold are left out.
    counted, after = [0, 0], [0, 0]

    def bidder(game: Game, seat: int) -> int:
        if min(game.coins(0), game.coins(1)) < 1:
            return 0
        points_sold = game.shop().get(INCANTATION, 0) or game.shop().get(BOARD, 0)
        (counted if points_sold else after)[seat] += 1
        return 1

    locked, day = _scripted(_points, bidder)
    assert day == 100 and counted[0] == counted[1] > 0 and after[0] > 0
    row = _row(tmp_path / "row.jsonl", [(0, ELIMINATION), (1, ELIMINATION), (0, locked), (1, locked)])
    run = _run("--bids", str(row))
    assert run.returncode == 0, run.stderr
    table = run.stdout.split("\n\n")[1].splitlines()
    assert table[0].startswith("| file | ending | games | coins bid a game while points were sold")
    cells = {line.split(" | ")[1]: [cell.strip(" |") for cell in line.split(" | ")[2:]] for line in table[2:]}
    assert cells == {
        "won by elimination": ["1", "1.0", "0.0"],  # seat 0 bid 1 coin on day 2
        "lost by elimination": ["1", "0.0", "1.0"],
        "drawn, locked": ["2", f"{counted[0]:.1f}", f"{counted[0]:.1f}"],
    }


def test_every_game_is_listed_with_its_points_and_the_day_the_points_sold_out(tmp_path: Path) -> None:
    shared, _ = _scripted(_points)  # both buy the same points each day: 11-11
    race, day = _scripted(lambda game, seat: _points(game, seat) if seat == 0 else PASS)
    replay = Game(2)
    sold_on = None
    for move in shared:
        seat = replay.pending()[0]
        before = replay.days_played + 1
        replay.play(seat, move_from_wire(replay, move))
        if sold_on is None and not (replay.shop().get(INCANTATION, 0) or replay.shop().get(BOARD, 0)):
            sold_on = before
    assert sold_on is not None and sold_on < 100
    row = _row(tmp_path / "row.jsonl", [(1, shared), (1, race), (0, ELIMINATION)])
    run = _run("--games", str(row))
    assert run.returncode == 0, run.stderr
    listed = [[cell.strip() for cell in line.strip("|").split("|")] for line in run.stdout.split("\n\n")[1].splitlines()]
    assert listed[0][3:] == ["ending", "day", "its points", "the best opponent's", "last points card sold on day"]
    assert listed[2] == ["row.jsonl", "0", "1", "drawn, locked", "100", "11", "11", str(sold_on)]
    assert listed[3][:5] == ["row.jsonl", "1", "1", "lost on points", str(day)]
    assert int(listed[3][5]) < 7 <= int(listed[3][6]) and listed[3][7] == "-"
    assert listed[4] == ["row.jsonl", "2", "0", "won by elimination", "2", "0", "0", "-"]
