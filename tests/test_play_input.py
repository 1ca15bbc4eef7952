"""What a person types at `driver play`'s prompt (driver/person.py), and the
screen's words for what happened (driver/screen.py)."""

from __future__ import annotations

import io

import pytest

from driver.person import Command, Move, Refusal, card_help, match_card, phase_question, read_input
from driver.screen import CARDS_TABLE, describe, make_console, render_board
from protocol.cards import NAME_TO_ID, PASS
from protocol.engine import ATTACKING, BUY, DEFENDING, INVESTING, Game


def _buy_phase(coins_moves: int = 0) -> Game:
    game = Game(2)
    game.play(0, 0)
    game.play(1, 0)
    assert game.phase == BUY
    return game


def _attack() -> Game:
    """Seat 0 holds Stipend, Worker, Ghost and attacks; seat 1 holds a Worker."""
    game = Game(2)
    game.play(0, 0), game.play(1, 0)
    game.play(0, NAME_TO_ID["Ghost"]), game.play(1, NAME_TO_ID["Worker"])
    while game.day != 3 or game.phase != BUY:  # day 3: buys again, Worker for seat 0
        for seat in game.pending():
            game.play(seat, 0 if game.phase == INVESTING else PASS if game.phase == BUY else game.legal_moves(seat)[0])
    game.play(0, NAME_TO_ID["Worker"]), game.play(1, PASS)
    game.play(0, 1), game.play(1, 0)  # seat 0 outbids
    assert game.phase == ATTACKING and game.attacker == 0
    return game


@pytest.mark.parametrize("typed, value", [("0", 0), ("3", 3), ("  2 ", 2), ("invest 1", 1), ("pass", 0)])
def test_investing(typed: str, value: int) -> None:
    said = read_input(typed, Game(2), 0)
    assert isinstance(said, Move) and said.value == value


@pytest.mark.parametrize("typed, why", [
    ("4", "you have 3 coins: invest 0 to 3"),
    ("-1", "you are investing: type a number of coins from 0 to 3"),
    ("ghost", "you are investing: type a number of coins from 0 to 3"),
    ("", "type a move, or ? for help"),
    ("9" * 300, "that is 300 characters long; a move is a number, a card or pass"),
])
def test_investing_refused(typed: str, why: str) -> None:
    assert read_input(typed, Game(2), 0) == Refusal(why)


@pytest.mark.parametrize("typed, value", [
    ("worker", "Worker"), ("WORKER", "Worker"), ("gold", "Gold Fish"), ("bean", "Magic Bean Stock"),
    ("monopoly", "Board of Monopoly"), ("buy senior", "Senior Worker"), ("1", "Worker"), ("0", "Pass"),
    ("pass", "Pass"), ("7", "Gold Fish"), ("w", "Worker"),
])
def test_buying(typed: str, value: str) -> None:
    said = read_input(typed, _buy_phase(), 0)
    assert isinstance(said, Move) and said.value == value, said


@pytest.mark.parametrize("typed, why", [
    ("incantation", "Incantation costs 4 and you have 3: not allowed"),
    ("golem", "Golem is not sold in this game"),
    ("b", "'b' could be Board of Monopoly or Bubble: type more of the name"),
    ("wrker", "did you mean Worker?"),
    ("9", "the shop's numbers are 1 to 8 (0: pass)"),
])
def test_buying_refused(typed: str, why: str) -> None:
    said = read_input(typed, _buy_phase(), 0)
    assert isinstance(said, Refusal) and why in said.why


def test_attacking_and_defending() -> None:
    game = _attack()
    assert read_input("pass", game, 0) == Move(0, "stop attacking")
    assert read_input("0", game, 0) == Move(0, "stop attacking")
    said = read_input("ghost", game, 0)
    assert said == Move(1, "attack with Ghost (#1)")
    assert read_input("#2", game, 0) == Move(2, "attack with Worker (#2)")
    assert read_input("bubble", game, 0) == Refusal("you have no Bubble")
    assert read_input("5", game, 0) == Refusal("you have cards #0 to #2")
    game.play(0, 1)
    assert game.phase == DEFENDING
    assert phase_question(game, 1) == "Ghost (attack 3, defense 2) attacks you: which card defends?"
    assert read_input("pass", game, 1) == Refusal("a defender cannot pass: choose one of your cards that can defend")
    refused = read_input("0", game, 1)
    assert isinstance(refused, Refusal) and "Sorcerer's Stipend (#0) cannot defend" in refused.why
    assert read_input("defend with worker", game, 1) == Move(1, "defend with Worker (#1)")


def test_commands() -> None:
    game = Game(2)
    assert read_input("?", game, 0) == Command("help")
    assert read_input("? gold fish", game, 0) == Command("help", "gold fish")
    assert read_input("?ghost", game, 0) == Command("help", "ghost")
    assert read_input("LOG", game, 0) == Command("log")
    assert read_input("quit", game, 0) == Command("quit")


def test_card_help_uses_the_replay_texts() -> None:
    assert card_help("wall", CARDS_TABLE) == (
        "Wall of Wealth: costs 1, attack 1, defense 2; attacks once and defends twice per attack phase."
        " Day 1: +1 coin. May defend twice per attack phase.")
    assert card_help("stipend", CARDS_TABLE).startswith("Sorcerer's Stipend: not sold, attack -, defense -;"
                                                         " never attacks or defends.")
    assert card_help("incant", CARDS_TABLE).startswith("Incantation: costs 4, attack 1, defense 1, 3 points;")
    assert card_help("zzz", CARDS_TABLE) == "No card here is called 'zzz'."


def test_match_card() -> None:
    names = ["Worker", "Senior Worker", "Wall of Wealth"]
    assert match_card("senior", names) == ("Senior Worker", "")
    assert match_card("wo", names)[0] == "Worker"  # a prefix of the name beats a prefix of a word
    assert match_card("wealth", names) == ("Wall of Wealth", "")


def test_hostile_names_are_shown_harmlessly() -> None:
    view = {"names": ["alice", "evil\x1b[2J\u202ebot"], "states": [], "steps": []}
    step = {"k": "reveal", "ev": {"type": "invest", "amounts": [[0, 1], [1, 2]], "attacker": 1, "attacks": True}}
    text = describe(view, step)
    assert "\x1b" not in text and "\u202e" not in text
    assert text == "Investments revealed: alice 1, evil\\x1b[2J\\u202ebot 2. evil\\x1b[2J\\u202ebot attacks."


def test_board_fits_80_columns_without_colour_on_a_pipe() -> None:
    from viewer.live import build_view

    game = Game(4, base=True)
    line = b'%s' % __import__("protocol.exactjson", fromlist=["dumps"]).dumps({**game.to_wire(), "player": 0})
    view = build_view([], ["a" * 40, "champion", "mcts", "alphabeta"], line)
    out = io.StringIO()
    render_board(make_console(out), view, 0, 0)
    text = out.getvalue()
    assert "\x1b" not in text
    assert max(len(x) for x in text.splitlines()) <= 80
    assert " 13 Golem" in text and "(you)" in text


def test_a_draw_has_no_winner_on_the_board() -> None:
    """The wire's `"winner": false` is not seat 0 (False == 0 in Python)."""
    from protocol.exactjson import dumps
    from viewer.live import build_view

    game = Game(2, max_days=1)
    while not game.is_over:
        for seat in game.pending():
            game.play(seat, 0 if game.phase == INVESTING else PASS)
    assert game.to_wire()["phase"] == {"name": "end", "winner": False}
    view = build_view([dumps(game.to_wire())], ["alice", "bot"], None)
    out = io.StringIO()
    render_board(make_console(out), view, 0, 0)
    assert "winner" not in out.getvalue()
    assert describe(view, view["steps"][-1]) == "Draw: the day limit was reached with no winner."


def test_seats_sharing_a_name_are_told_apart_on_screen() -> None:
    from driver.play import display_names

    assert display_names(["ada", "random", "expert", "random"]) == ["ada", "random (1)", "expert", "random (3)"]
    assert display_names(["ada", "champion"]) == ["ada", "champion"]


def test_the_sentences_are_the_replay_pages(tmp_path) -> None:
    """driver.screen.describe says what the replay page's describe
    (viewer/static/table.js) says, step for step, over whole games with
    attacks, faints, eliminations, contested buys and a forfeit: the page's
    sentences run under node and are compared with ours."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from viewer.model import build_replay

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's JavaScript cannot run here")
    driver = str(Path(sys.executable).with_name("driver"))
    traces = []
    for seed, bots in ((6, ["expert", "random"]), (1, ["expert", "random", "random"]), (2, ["expert", "expert"]),
                       (3, ["random", "tests/bots/illegal.py"])):
        bots = [f"{sys.executable} {Path(__file__).parent / 'bots' / 'illegal.py'}" if b.endswith("illegal.py") else b
                for b in bots]
        run = subprocess.run([driver, "run", *bots, "--seed", str(seed), "--max-days", "40", "--isolation", "none"],
                             capture_output=True, timeout=120)
        traces.append(run.stdout)
    cases = []
    for trace in traces:
        replay = build_replay(trace, ["alice", "bob", "carol"]).to_json()
        game = replay["games"][0]
        for step in game["steps"]:
            view = {"cards": replay["cards"], "names": game["names"], "shop": game["shop"],
                    "state": game["states"][step["s"]], "step": step}
            cases.append((view, describe(game, step)))
    assert {v["step"]["k"] for v, _ in cases} >= {"ask", "reveal", "fight", "end", "fault"}
    assert any(v["step"].get("ev", {}).get("out") for v, _ in cases)  # someone eliminated
    assert any(v["step"].get("ev", {}).get("contested") for v, _ in cases)  # a contested buy
    (tmp_path / "views.json").write_text(json.dumps([v for v, _ in cases]))
    table = Path(__file__).parent.parent / "viewer" / "static" / "table.js"
    script = (
        "const vm = require('vm'), fs = require('fs'); const box = {};"
        f"vm.runInNewContext(fs.readFileSync({json.dumps(str(table))}, 'utf8'), box);"
        f"const views = JSON.parse(fs.readFileSync({json.dumps(str(tmp_path / 'views.json'))}, 'utf8'));"
        "process.stdout.write(JSON.stringify(views.map(v => box.EconomancyTable.describe(v))));"
    )
    page = json.loads(subprocess.run([node, "-e", script], capture_output=True, check=True, timeout=120).stdout)
    assert [ours for _, ours in cases] == page


def test_a_game_in_progress_is_not_over() -> None:
    """The live view of a game in progress reads as a trace cut short
    (result "cut"): the news of the others' play must still be told."""
    from driver.play import _over
    from protocol.exactjson import dumps
    from viewer.live import build_view

    game = Game(2, max_days=1)
    lines = []
    while not game.is_over:
        for seat in game.pending():
            lines.append(dumps({**game.to_wire(), "player": seat}))
            move = 0 if game.phase == INVESTING else PASS
            lines.append(dumps([move if move != PASS else "Pass"]))
            game.play(seat, move)
    assert not _over(build_view(lines[:4], ["a", "b"], None))
    assert _over(build_view(lines + [dumps(game.to_wire())], ["a", "b"], None))


@pytest.mark.parametrize("args, message", [
    (["random", "--seat", "2"], "Invalid value for --seat: a 2-player game has seats 0 to 1"),
    (["random"] * 4, "a game is you and 1 to 3 bots, got 4 bots"),
    (["random", "--name", "a\x1b[2Jb"], "Invalid value for --name: a name must be printable text, not a\\x1b[2Jb"),
    (["random", "--name", "x" * 41], "Invalid value for --name: a name is 1 to 40 characters, not 41"),
    (["random", "--trace", "-"], "the screen is on standard output: give the trace a file"),
    (["random", "--bot-option", "rnd", "timeout=1"], "--bot-option names 'rnd', which is none of the bots"),
])
def test_usage_errors_before_any_bot_starts(args: list[str], message: str) -> None:
    from click.testing import CliRunner

    from arena.cli import driver

    result = CliRunner().invoke(driver, ["play", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_a_sold_out_card_is_a_warning_not_a_refusal() -> None:
    """Buying a card none is left of is legal (the player pays, gets
    nothing): the screen warns once before sending it."""
    game = Game(2)
    game.play(0, 0), game.play(1, 0)
    game.play(0, NAME_TO_ID["Magic Bean Stock"]), game.play(1, NAME_TO_ID["Magic Bean Stock"])  # 2 of 2
    while game.phase != BUY:
        for seat in game.pending():
            game.play(seat, 0)
    assert game.shop()[NAME_TO_ID["Magic Bean Stock"]] == 0
    said = read_input("bean", game, 0)
    assert isinstance(said, Move) and said.value == "Magic Bean Stock"
    assert said.warning == ("no Magic Bean Stock is left: you would pay 1 coin and get nothing"
                            " (type it again to do so anyway)")
    assert read_input("worker", game, 0).warning == ""  # type: ignore[union-attr]


def test_a_used_card_shows_its_uses_out_of_its_limit() -> None:
    """Uses left, on the board: the attacker's Ghost after its attack reads
    `used 1/1` (the wire's uses count attacks and defences together)."""
    from protocol.exactjson import dumps
    from viewer.live import build_view

    game = _attack()
    game.play(0, 1)  # the Ghost attacks
    view = build_view([], ["alice", "bob"], dumps({**game.to_wire(), "player": 1}))
    out = io.StringIO()
    render_board(make_console(out), view, 0, 1)
    assert "#1 Ghost 3/2 used 1/1 attacking" in out.getvalue()


def test_a_narrow_terminal_gets_one_shop_column() -> None:
    from protocol.exactjson import dumps
    from rich.console import Console
    from viewer.live import build_view

    game = Game(2)
    view = build_view([], ["alice", "bob"], dumps({**game.to_wire(), "player": 0}))
    out = io.StringIO()
    render_board(Console(file=out, width=60, markup=False, highlight=False), view, 0, 0)
    lines = out.getvalue().splitlines()
    assert max(len(x) for x in lines) <= 60
    assert sum(1 for x in lines if "c " in x and "/" in x and " x" in x) == 8  # one pile a line
