"""The replay's view model on hand-built states, and on every golden trace."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import pytest

import tracedata

from protocol.cards import NAME_TO_ID
from viewer.model import TraceError, build_replay
from viewer.page import json_for_script, replay_page

TRACES = tracedata.unpacked()
STIPEND = "Sorcerer's Stipend"
SIMPLE_SHOP = {"Board of Monopoly": 4, "Bubble": 2, "Ghost": 4, "Gold Fish": 2, "Incantation": 6,
               "Magic Bean Stock": 2, "Senior Worker": 4, "Worker": 4}


def state(phase: dict[str, Any], players: list[tuple[int, int, list[Any]]], *, day: int = 1,
          shop: dict[str, int] | None = None, player: int | None = None) -> str:
    """One trace line. A hand entry is a card name (uses 0) or (name, uses)."""
    d: dict[str, Any] = {
        "day": day, "phase": phase,
        "players": [{"coins": c, "buys": b, "cards": [{"name": x, "uses": 0} if isinstance(x, str)
                                                      else {"name": x[0], "uses": x[1]} for x in hand]}
                    for c, b, hand in players],
        "shop": shop if shop is not None else SIMPLE_SHOP,
    }
    if player is not None:
        d["player"] = player
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def attacking(attacker: int, card: Any = False) -> dict[str, Any]:
    return {"name": "attacking", "attacker": attacker, "attacker_card": card}


def kinds(game: Any) -> list[str]:
    return [s["k"] for s in game.steps]


def hand_of(game: Any, step: dict[str, Any], seat: int) -> list[str]:
    flat = game.states[step["s"]]["players"][seat][2]
    return [CARD_NAMES[c] for c in flat[0::2]]


CARD_NAMES = {i: n for n, i in NAME_TO_ID.items()}


def test_attack_with_two_defenders_where_one_faints() -> None:
    # Ghost (3/2) attacks; Worker (1/2) faints to it, Thug (4/4) holds and,
    # its attack 4 being above Ghost's defense 2, makes Ghost faint.
    before = [(0, 1, [STIPEND, "Ghost"]), (0, 1, [STIPEND, "Worker"]), (0, 1, [STIPEND, "Thug"])]
    used = [(0, 1, [STIPEND, ("Ghost", 1)]), (0, 1, [STIPEND, "Worker"]), (0, 1, [STIPEND, "Thug"])]
    used2 = [(0, 1, [STIPEND, ("Ghost", 1)]), (0, 1, [STIPEND, ("Worker", 1)]), (0, 1, [STIPEND, "Thug"])]
    after = [(0, 1, [STIPEND]), (0, 1, [STIPEND]), (0, 1, [STIPEND, ("Thug", 1)])]
    lines = [
        state(attacking(0), before, player=0), "[1]",
        state(attacking(0, 1), used, player=1), "[1]",
        state(attacking(0, 1), used2, player=2), "[1]",
        state({"name": "buy"}, after, player=0),
    ]
    game = build_replay("\n".join(lines)).games[0]
    assert kinds(game)[:4] == ["ask", "ask", "ask", "fight"]
    ask = game.steps[0]
    assert ask["p"] == 0 and ask["m"] == {"card": 1, "c": NAME_TO_ID["Ghost"]}
    assert game.steps[1]["m"] == {"card": 1, "c": NAME_TO_ID["Worker"]}
    fight = game.steps[3]["ev"]
    assert fight["attacker"] == 0 and fight["c"] == NAME_TO_ID["Ghost"] and fight["faint"] is True
    assert [(d["p"], d["faint"]) for d in fight["defs"]] == [(1, True), (2, False)]
    assert fight["out"] == [] and fight["nodef"] == []
    # The fight is drawn on the table as it left it.
    assert hand_of(game, game.steps[3], 1) == [STIPEND] and hand_of(game, game.steps[3], 0) == [STIPEND]
    # All four steps are one round; the trace stops without an end: "cut".
    assert {s["r"] for s in game.steps[:4]} == {0} and game.steps[-1]["k"] == "cut"


def test_four_players_one_eliminated() -> None:
    # Seat 3 holds only its Stipend, which cannot defend: not asked, eliminated.
    p = [(0, 1, [STIPEND, "Golem"]), (0, 1, [STIPEND, "Worker"]), (0, 1, [STIPEND, "Wall of Wealth"]),
         (0, 1, [STIPEND])]
    p_used = [(0, 1, [STIPEND, ("Golem", 1)])] + p[1:]
    p_used2 = [p_used[0], (0, 1, [STIPEND, ("Worker", 1)])] + p[2:]
    after = [(0, 1, [STIPEND, ("Golem", 1)]), (0, 1, [STIPEND]), (0, 1, [STIPEND]), (0, 0, [])]
    lines = [
        state(attacking(0), p, player=0, shop={"Golem": 0}), "[1]",
        state(attacking(0, 1), p_used, player=1, shop={"Golem": 0}), "[1]",
        state(attacking(0, 1), p_used2, player=2, shop={"Golem": 0}), "[1]",
        state(attacking(0), after, player=0, shop={"Golem": 0}), "[0]",
        state({"name": "buy"}, after, player=0, shop={"Golem": 0}),
    ]
    game = build_replay("\n".join(lines), ["a", "b", "c", "d"]).games[0]
    fight = next(s for s in game.steps if s["k"] == "fight")["ev"]
    assert fight["nodef"] == [3] and fight["out"] == [3]
    assert [(d["p"], d["faint"]) for d in fight["defs"]] == [(1, True), (2, True)]
    assert fight["faint"] is False
    stop = game.steps[kinds(game).index("fight") + 1]
    assert stop["k"] == "ask" and stop["m"] == {"stop": True}
    assert game.names == ["a", "b", "c", "d"]


def test_contested_buy_reveal() -> None:
    # Both want the one Golem left: both pay, nobody gets it; seat 2 passes.
    shop = {"Golem": 1, "Worker": 3}
    players = [(6, 1, [STIPEND]), (5, 1, [STIPEND]), (2, 1, [STIPEND])]
    nextday = [(2, 1, [STIPEND]), (1, 1, [STIPEND]), (3, 1, [STIPEND])]  # after day 2's income
    lines = [
        state({"name": "buy"}, players, shop=shop, player=0), '["Golem"]',
        state({"name": "buy"}, players, shop=shop, player=1), '["Golem"]',
        state({"name": "buy"}, players, shop=shop, player=2), '["Pass"]',
        state({"name": "investing"}, nextday, day=2, shop={"Golem": 0, "Worker": 3}, player=0),
    ]
    game = build_replay("\n".join(lines)).games[0]
    assert kinds(game)[:4] == ["ask", "ask", "ask", "reveal"]
    assert [s["sealed"] for s in game.steps[:3]] == [[], [0], [0, 1]]
    ev = game.steps[3]["ev"]
    golem = NAME_TO_ID["Golem"]
    assert ev["type"] == "buy"
    assert ev["choices"] == [[0, golem, False], [1, golem, False], [2, None, False]]
    assert ev["contested"] == [[golem, [0, 1], 1]]
    # The reveal shows day 1 as the buys left it (paid, no Golem), not day 2's income.
    shown = game.states[game.steps[3]["s"]]
    assert shown["D"] == 1 and [p[0] for p in shown["players"]] == [1, 0, 2]
    assert shown["shop"][game.shop.index(golem)] == 0
    assert game.steps[4]["D"] == 2


def test_investments_revealed_with_the_attacker_or_a_tie() -> None:
    players = [(3, 1, [STIPEND, "Ghost"]), (3, 1, [STIPEND, "Worker"])]
    paid = [(1, 1, [STIPEND, "Ghost"]), (2, 1, [STIPEND, "Worker"])]
    lines = [
        state({"name": "investing"}, players, player=0), "[2]",
        state({"name": "investing"}, players, player=1), "[1]",
        state(attacking(0), paid, player=0), "[0]",
        state({"name": "buy"}, paid, player=0),
    ]
    game = build_replay("\n".join(lines)).games[0]
    ev = game.steps[2]["ev"]
    assert game.steps[2]["k"] == "reveal"
    assert ev == {"type": "invest", "amounts": [[0, 2], [1, 1]], "attacker": 0, "attacks": True}
    tie = "\n".join([state({"name": "investing"}, players, player=0), "[1]",
                     state({"name": "investing"}, players, player=1), "[1]",
                     state({"name": "buy"}, paid, player=0)])
    assert build_replay(tie).games[0].steps[2]["ev"]["attacker"] is None


def test_fault_with_reason_and_standard_error() -> None:
    players = [(3, 1, [STIPEND]), (3, 1, [STIPEND])]
    hostile = "bad move: <script>alert(1)</script>\x1b[31m"
    lines = [
        state({"name": "investing"}, players, player=0), "[-3]",
        state({"name": "fault", "forfiet": 0, "reason": hostile}, players),
    ]
    replay = build_replay("\n".join(lines), ["wrong", "random"], stderr=["Traceback: boom\n", ""])
    game = replay.games[0]
    assert kinds(game) == ["ask", "fault"]
    assert game.steps[0]["m"] == {"invest": -3, "bad": True} and game.steps[0]["a"] == "[-3]"
    ev = game.steps[1]["ev"]
    assert ev == {"type": "fault", "seat": 0, "reason": hostile, "stderr": "Traceback: boom\n"}
    assert game.result == {"kind": "fault", "seat": 0, "reason": hostile}
    # In the page the bot's text never appears as markup.
    page = replay_page(replay)
    assert "<script>alert" not in page and "\\u003cscript\\u003ealert" in page


def test_draw_at_the_day_limit() -> None:
    players = [(4, 1, [STIPEND, "Incantation"]), (4, 1, [STIPEND, "Incantation"])]
    end = [(4, 0, [STIPEND, "Incantation"]), (4, 0, [STIPEND, "Incantation"])]
    lines = [
        state({"name": "buy"}, players, day=3, player=0), '["Pass"]',
        state({"name": "buy"}, players, day=3, player=1), '["Pass"]',
        # After the last day the day number moves on and the game ends before income.
        state({"name": "end", "winner": False}, end, day=1),
    ]
    game = build_replay("\n".join(lines)).games[0]
    assert kinds(game) == ["ask", "ask", "reveal", "end"]
    ev = game.steps[-1]["ev"]
    assert ev["winner"] is None and ev["how"] == "draw" and ev["points"] == [3, 3]
    assert game.steps[-1]["D"] == 1 and game.result == {"kind": "draw", "winner": None}
    # Charts: each day's start, then the end (drawn after the last day).
    assert game.chart == {"days": [1, 2], "coins": [[4.0, 4.0], [4.0, 4.0]], "points": [[3, 3], [3, 3]]}


def test_winner_by_points_and_by_elimination() -> None:
    won = [(0, 0, [STIPEND, "Incantation", "Incantation", "Incantation"]), (0, 0, [STIPEND])]
    game = build_replay(state({"name": "end", "winner": 0}, won)).games[0]
    assert game.steps[-1]["ev"]["how"] == "points"
    alone = [(0, 0, [STIPEND]), (0, 0, [])]
    assert build_replay(state({"name": "end", "winner": 0}, alone)).games[0].result["kind"] == "elimination"


def test_stream_of_several_games_with_names_and_an_aborted_game() -> None:
    one = (TRACES / "simple_2p_attack_points_1.jsonl").read_text().strip()
    cut = "\n".join(one.splitlines()[:7])
    text = "\n".join([
        '{"meta":"players","names":["attack","points"]}', one, one,
        '{"meta":"record","players":[["attack",2,0,0],["points",0,0,0]]}',
        '{"meta":"players","names":["x","y"]}', cut, '{"meta":"aborted","reason":"referee stopped (SIGTERM)"}',
    ])
    replay = build_replay(text)
    assert [g.names for g in replay.games] == [["attack", "points"]] * 2 + [["x", "y"]]
    assert replay.games[0].result == replay.games[1].result != {}
    last = replay.games[2]
    assert last.steps[-1]["k"] == "aborted" and last.steps[-1]["ev"]["reason"] == "referee stopped (SIGTERM)"
    assert last.result == {"kind": "aborted"}


def test_answer_shaped_like_a_state_is_read_as_the_answer() -> None:
    players = [(3, 1, [STIPEND]), (3, 1, [STIPEND])]
    sent = state({"name": "investing"}, players, player=0)
    fake = state({"name": "end", "winner": 0}, players)
    lines = [sent, fake, state({"name": "fault", "forfiet": 0, "reason": "move is not in a one-element array"},
                                players)]
    game = build_replay("\n".join(lines)).games[0]
    assert kinds(game) == ["ask", "fault"] and game.steps[0]["m"] == {"bad": True}


def test_integers_beyond_javascript_numbers_stay_exact() -> None:
    big = 2**70 + 1
    players = [(big, 1, [STIPEND]), (3, 1, [STIPEND])]
    game = build_replay("\n".join([state({"name": "investing"}, players, player=0), f"[{big}]"])).games[0]
    assert game.states[0]["players"][0][0] == str(big)
    assert game.steps[0]["m"] == {"invest": str(big)} and game.steps[0]["a"] == f"[{big}]"


@pytest.mark.parametrize("text, message", [
    ("{not json", "line 1: not JSON"),
    ('[1]\n{"day":1}', "line 1: expected a game state"),
    ('{"day":"x","phase":{"name":"buy"},"players":[],"shop":{}}', "line 1: day is not an integer"),
    ("", "no game in the trace"),
])
def test_unreadable_traces_say_which_line(text: str, message: str) -> None:
    with pytest.raises(TraceError, match=message):
        build_replay(text)


def test_script_json_cannot_close_its_block() -> None:
    out = json_for_script({"a": "</script><!-- & \u2028"})
    assert "<" not in out and ">" not in out and "&" not in out and "\u2028" not in out
    assert json.loads(out) == {"a": "</script><!-- & \u2028"}


def _counts(state: dict[str, Any], seat: int) -> collections.Counter[int]:
    return collections.Counter(state["players"][seat][2][0::2])


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_golden_trace_reads_and_its_fights_agree_with_the_next_state(path: Path) -> None:
    game = build_replay(path.read_bytes()).games[0]
    assert game.steps[-1]["k"] in ("end", "fault") and game.result
    for k, step in enumerate(game.steps):
        assert step["s"] < len(game.states)
        if step["k"] != "fight":
            continue
        ev = step["ev"]
        before, after = game.states[game.steps[k - 1]["s"]], game.states[step["s"]]
        lost = _counts(before, ev["attacker"]) - _counts(after, ev["attacker"])
        assert lost == collections.Counter([ev["c"]] if ev["faint"] else [])
        for d in ev["defs"]:
            lost = _counts(before, d["p"]) - _counts(after, d["p"])
            assert lost == collections.Counter([d["c"]] if d["faint"] else [])
        for p in ev["out"]:
            assert after["players"][p][2] == []


def _played() -> Any:
    from driver.botspec import parse_bot
    from driver.game import GameOptions, play_game

    return play_game([parse_bot("random"), parse_bot("random")], GameOptions(max_days=4, seed=1, opening=(1, 0)))


def test_the_trace_header_names_the_seats_and_a_cut_last_line_is_shown_up_to_it() -> None:
    result = _played()
    data = b"".join(line + b"\n" for line in result.trace)
    assert build_replay(data).games[0].names == ["random", "random"]
    assert build_replay(data, ["a", "b"]).games[0].names == ["a", "b"]  # given names win
    cut = data[: data.rfind(b"\n", 0, len(data) // 2) + 25]
    game = build_replay(cut).games[0]
    assert game.steps[-1]["k"] == "cut" and "cut mid-line" in game.steps[-1]["ev"]["reason"]
    with pytest.raises(TraceError, match="not JSON"):  # a whole line that is not JSON is still an error
        build_replay(cut + b"\n")


def test_think_times_and_the_openings_moves_are_on_their_decisions() -> None:
    result = _played()
    asks = [s for s in build_replay(result.trace, times=result.answer_times).games[0].steps if s["k"] == "ask"]
    assert [s.get("o") for s in asks[:3]] == [1, 1, None]  # the opening's two moves, then the bots'
    assert all(isinstance(s["t"], float) for s in asks[2:] if s["a"] is not None)
    assert all("t" not in s and "o" not in s for s in build_replay(result.trace).games[0].steps)


def test_a_timeout_is_marked_as_such_not_as_an_illegal_move() -> None:
    hands = [(3, 1, ["Sorcerer's Stipend"])] * 2
    one = state({"name": "investing"}, hands, player=0)
    fault = state({"name": "fault", "forfiet": 0, "reason": "timeout: no answer within 1 s"}, hands)
    game = build_replay("\n".join([one, '"timeout"', fault])).games[0]
    assert game.steps[0]["m"] == {"bad": True, "timeout": True}
    game = build_replay("\n".join([one, '"timeout"', fault.replace("timeout: no answer", "answer is not JSON")])).games[0]
    assert "timeout" not in game.steps[0]["m"]
