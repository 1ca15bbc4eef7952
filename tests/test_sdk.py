"""The bot SDK, the registry of bot names and the random bot.

The SDK is driven here by a small in-test referee over the real engine,
so what a bot's `decide` sees can be compared with the true game.
"""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import tracedata
from bots import registry
from bots.random_bot import random_policy
from bots.sdk import DayCounter, Session, option_parser, serve
from protocol.cards import NAME_TO_ID
from protocol.engine import ATTACKING, BUY, DEFENDING, PASS, Game, move_from_wire
from protocol.exactjson import dumps as encode
from protocol.exactjson import int_to_digits
from protocol.exactjson import loads as exact_loads

WORKER = NAME_TO_ID["Worker"]
ROOT = Path(__file__).resolve().parent.parent


def _line(state: dict) -> bytes:
    return orjson.dumps(state) + b"\n"


def referee(game: Game, sessions: list[Session]) -> Game:
    """Play `game` to its end, asking each seat's SDK session over the wire
    format, and send every seat the final state, as the driver does."""
    while not game.is_over:
        pending = game.pending()
        if game.phase in (ATTACKING, DEFENDING):
            pending = pending[:1]
        answers = []
        for seat in pending:
            reply = sessions[seat].answer(_line(game.to_wire(seat)))
            assert reply is not None and reply.endswith(b"\n")
            (value,) = orjson.loads(reply)
            answers.append((seat, move_from_wire(game, value)))
        for seat, move in answers:
            game.play(seat, move)
    for seat, session in enumerate(sessions):
        assert session.answer(_line(game.to_wire(seat))) is None
    return game


class Recorder:
    """A random policy that records what the SDK handed it."""

    def __init__(self, seed: int, truth: list[Game]) -> None:
        self.choose = random_policy(random.Random(seed))
        self.truth = truth
        self.seen_days: list[tuple[int, int]] = []
        self.ends: list[tuple[dict, int]] = []
        self.starts = 0

    def decide(self, game: Game, me: int) -> int:
        self.seen_days.append((game.days_played, self.truth[0].days_played))
        assert game.max_days == self.truth[0].max_days
        assert game.to_wire(me) == self.truth[0].to_wire(me)
        return self.choose(game, me)

    def start(self, game: Game, me: int) -> None:
        self.starts += 1

    def end(self, game: Game, me: int) -> None:
        self.ends.append((game.to_wire(), me))


def _recorders(n: int, truth: list[Game]) -> tuple[list[Recorder], list[Session]]:
    recorders = [Recorder(seed, truth) for seed in range(n)]
    sessions = [
        Session(r.decide, on_game_start=r.start, on_game_end=r.end, max_days=truth[0].max_days) for r in recorders
    ]
    return recorders, sessions


@pytest.mark.parametrize("n_players,base", [(2, False), (3, True), (4, False)])
def test_decide_sees_the_true_state_and_day_count(n_players: int, base: bool) -> None:
    truth = [Game(n_players, base=base, max_days=30)]
    recorders, sessions = _recorders(n_players, truth)
    final = referee(truth[0], sessions)
    assert final.is_over
    for seat, recorder in enumerate(recorders):
        assert recorder.seen_days, "every seat is asked at least once"
        assert all(seen == true for seen, true in recorder.seen_days)
        assert recorder.starts == 1
        assert recorder.ends == [(final.to_wire(), seat)]


def test_day_count_reaches_max_days_draws() -> None:
    """Over a whole game that runs to max_days the count ends at max_days."""
    truth = [Game(2, max_days=9)]
    recorders, sessions = _recorders(2, truth)
    # Investing 0 and passing never attacks or scores: the game runs out of days.
    for recorder in recorders:
        recorder.choose = lambda game, me: PASS if game.phase == BUY else 0
    final = referee(truth[0], sessions)
    assert final.days_played == 9 and final.winner is None
    for recorder in recorders:
        assert [seen for seen, _ in recorder.seen_days][::2] == list(range(9))
        assert all(seen == true for seen, true in recorder.seen_days)


def test_one_session_plays_several_games() -> None:
    """Long-lived bots: the day count restarts after each end or fault."""
    truth = [Game(2, max_days=12)]
    recorders, sessions = _recorders(2, truth)
    for round_ in range(3):
        truth[0] = Game(2, max_days=12)
        referee(truth[0], sessions)
        assert all(s.games_finished == round_ + 1 for s in sessions)
    faulted = Game(2)
    truth[0] = faulted
    faulted.forfeit(1, "test fault")
    for seat, session in enumerate(sessions):
        assert session.answer(_line(faulted.to_wire(seat))) is None
    assert recorders[0].ends[-1][0]["phase"]["name"] == "fault"
    truth[0] = Game(2, max_days=12)
    referee(truth[0], sessions)
    for recorder in recorders:
        assert recorder.starts == 4
        assert len(recorder.ends) == 5
        assert all(seen == true for seen, true in recorder.seen_days)


def test_day_counter_counts_changes_of_day() -> None:
    counter = DayCounter()
    assert [counter.see(day) for day in (1, 1, 2, 2, 3, 1, 1, 3, 1)] == [0, 0, 1, 1, 2, 3, 3, 5, 6]
    counter.reset()
    assert counter.see(1) == 0


def _serve(lines: list[bytes], decide=lambda game, me: game.legal_moves(me)[0]) -> tuple[bytes, str]:
    out, err = io.BytesIO(), io.BytesIO()
    serve(Session(decide), lines, out, err)
    return out.getvalue(), err.getvalue().decode()


def test_answers_one_element_arrays_and_nothing_at_the_end() -> None:
    game = Game(2)
    out, err = _serve([_line(game.to_wire(0)), b"\n", _line(game.to_wire(1))])
    assert out == b"[0]\n[0]\n" and err == ""
    game.play(0, 0)
    game.play(1, 0)
    buy, _ = _serve([_line(game.to_wire(0))], lambda g, me: max(g.legal_moves(me)))
    name = orjson.loads(buy)[0]
    assert isinstance(name, str) and name in game.to_wire()["shop"]
    game.forfeit(0, "gone")
    assert _serve([_line(game.to_wire(0))]) == (b"", "")


@pytest.mark.parametrize(
    "message,problem",
    [
        (b"{not json", "not valid JSON"),
        (b"[1]", "expected a JSON object"),
        (b'{"day": 1, "players": []}', '"phase"'),
        (b'{"day": 1, "phase": {"name": "investing"}, "player": 0}', '"players"'),
        (b'{"day": 1, "phase": {"name": "investing"}, "players": [{}], "player": "0"}', '"player" must be'),
        (b'{"day": 1, "phase": {"name": "investing"}, "players": [{}]}', 'no integer "player"'),
        (b'{"day": 1, "phase": {"name": "investing"}, "players": [{}], "player": 3}', "not an index"),
        (b'{"day": 7, "phase": {"name": "investing"}, "players": [{}], "player": 0}', '"day" must be'),
        (b'{"day": 1, "phase": {"name": "investing"}, "players": [{"coins": 1}], "player": 0, "shop": {}}',
         "not a valid game state"),
    ],
)
def test_a_bad_message_is_reported_and_skipped(message: bytes, problem: str) -> None:
    good = _line(Game(2).to_wire(1))
    out, err = _serve([message + b"\n", good])
    assert out == b"[0]\n", "the bot keeps playing after a bad message"
    assert "bad message 1 from the driver" in err and problem in err


def test_a_final_state_without_player_still_ends_the_game() -> None:
    game = Game(2)
    session = Session(lambda g, me: 0)
    session.answer(_line(game.to_wire(0)))
    game.forfeit(1, "gone")
    assert session.answer(_line(game.to_wire())) is None
    assert session.games_finished == 1 and not session.in_game


def test_an_illegal_decision_stops_the_bot_with_a_clear_error() -> None:
    session = Session(lambda game, me: 9)  # 3 coins: 9 is no investment
    with pytest.raises(ValueError, match=r"decide\(\) returned 9, not one of the legal moves 0\.\.3"):
        session.answer(_line(Game(2).to_wire(0)))


def test_a_state_that_asks_nothing_of_the_receiver_is_reported() -> None:
    game = Game(2)
    for seat, move in ((0, 0), (1, 0), (0, WORKER), (1, WORKER), (0, 1), (1, 0)):
        game.play(seat, move)
    assert game.phase == ATTACKING and game.attacker == 0
    out, err = _serve([_line(game.to_wire(1))])
    assert out == b"" and "has none to make" in err


def test_option_parser_seed() -> None:
    parser = option_parser("a bot")
    assert parser.parse_args([]).seed is None
    assert parser.parse_args(["--seed", "7"]).seed == 7
    assert parser.parse_args([]).max_days == 100
    assert parser.parse_args(["--max-days", "12"]).max_days == 12


def test_random_policy_is_uniform_over_legal_moves() -> None:
    game = Game(2)  # day 1: 3 coins, so investments 0..3
    decide = random_policy(random.Random(1))
    counts = {m: 0 for m in game.legal_moves(0)}
    for _ in range(4000):
        counts[decide(game, 0)] += 1
    assert sorted(counts) == [0, 1, 2, 3]
    assert all(900 < c < 1100 for c in counts.values()), counts


# --- the registry -----------------------------------------------------------


def test_registry_resolves_every_bot_name_to_a_module_run() -> None:
    expected = {
        "random": "bots.random_bot",
        "expert": "bots.expert",
        "evolved": "bots.evolved",
        "mcts": "bots.mcts",
        "alphabeta": "bots.alphabeta",
        "decent-repro": "bots.decent_repro",
        "simple-repro": "bots.simple_repro",
        "points-repro": "bots.points_repro",
        "attack-repro": "bots.attack_repro",
        "champion": "bots.champion",
        "mcts-v1": "bots.mcts_v1",
        "alphabeta-v1": "bots.alphabeta_v1",
        "champion-v1": "bots.champion_v1",
        "exploiter": "exploit.bot",
    }
    assert [name for name, _ in registry.names()] == list(expected)
    for name, module in expected.items():
        assert registry.resolve(name) == [sys.executable, "-P", "-m", module]
    assert all(description for _, description in registry.names())
    assert registry.resolve("nobody") is None
    assert registry.resolve("bots.random_bot") is None
    assert registry.is_installed("random") and not registry.is_installed("nobody")


def test_a_resolved_bot_is_the_installed_one_whatever_the_directory(tmp_path: Path) -> None:
    """A checkout or a user's folder holding a `bots` package must not
    replace the bot the registry names."""
    fake = tmp_path / "bots"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "random_bot.py").write_text("import sys; sys.exit('the shadowing module ran')")
    game = Game(2)
    bot = subprocess.run(
        registry.resolve("random"), input=_line(game.to_wire(0)), capture_output=True, cwd=tmp_path, timeout=30
    )
    assert bot.returncode == 0, bot.stderr
    assert orjson.loads(bot.stdout)[0] in game.legal_moves(0)


def test_registry_main_lists_and_rejects_unknown_names() -> None:
    listing = subprocess.run([sys.executable, "-m", "bots.registry"], capture_output=True, text=True, cwd=ROOT)
    assert listing.returncode == 0 and "decent-repro" in listing.stdout
    unknown = subprocess.run([sys.executable, "-m", "bots.registry", "nobody"], capture_output=True, text=True, cwd=ROOT)
    assert unknown.returncode == 1 and "unknown bot 'nobody'" in unknown.stderr


# --- the random bot as a process ---------------------------------------------


def _bot(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bots.random_bot", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        **kwargs,
    )


def test_random_bot_process_answers_until_eof() -> None:
    game = Game(2)
    end = Game(2)
    end.forfeit(1, "test")
    messages = [_line(game.to_wire(0)), _line(end.to_wire(0))] + [_line(Game(3).to_wire(2))] * 20
    outputs = []
    for _ in range(2):
        proc = _bot("--seed", "5")
        out, err = proc.communicate(b"".join(messages), timeout=30)
        assert proc.returncode == 0 and err == b""
        outputs.append(out)
    answers = [orjson.loads(line) for line in outputs[0].splitlines()]
    assert len(answers) == 21 and all(len(a) == 1 and a[0] in range(4) for a in answers)
    assert outputs[0] == outputs[1], "--seed makes the bot repeatable"
    assert len({a[0] for a in answers}) > 1


def test_random_bot_exits_quietly_on_a_broken_pipe() -> None:
    proc = _bot()
    proc.stdout.close()
    _, err = proc.communicate(_line(Game(2).to_wire(0)) * 50, timeout=30)
    assert proc.returncode == 0 and err == b""


def test_bots_start_without_pydantic() -> None:
    """Start-up is paid on every game; pydantic alone costs a large share of it."""
    probe = "import sys, bots.random_bot; print(sorted(m for m in ('pydantic', 'numpy') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == "[]"


# --- exact numbers ------------------------------------------------------------

LONG_TRACE = "base_2p_points_decent_long.jsonl"


def _rich_state(coins: tuple[int, int], seat: int = 0) -> bytes:
    wire = Game(2, base=True).to_wire(seat)
    for player, purse in zip(wire["players"], coins):
        player["coins"] = purse
    return encode(wire) + b"\n"


def test_states_beyond_64_bits_are_read_and_moves_written_exactly() -> None:
    # The original's long games reach purses like these; the SDK refused them
    # ("player 0 coins must be 0..4611686018427387904") and the bot timed out.
    for coins in (7379702689081609350, 16 * 10**24, 3**10000):
        seen = []
        session = Session(lambda game, me: seen.append(game.coins(me)) or game.coins(me) - 1)
        reply = session.answer(_rich_state((coins, 5)))
        assert seen == [coins]
        assert reply == b"[" + int_to_digits(coins - 1).encode() + b"]\n"


def test_the_long_traces_states_are_answered() -> None:
    lines = [line for line in tracedata.read_bytes(LONG_TRACE).splitlines() if b'"player"' in line]
    asked = 0
    for line in lines:
        session = Session(random_policy(random.Random(len(line))))
        reply = session.answer(line)
        if reply is not None:
            asked += 1
            state = exact_loads(line)
            game = Game.from_wire(state)
            assert move_from_wire(game, exact_loads(reply)[0]) in game.legal_moves(state["player"])
    assert asked == len(lines) == 538  # every state sent asks for a move (final copies are not traced)


def test_a_decision_that_is_not_an_int_is_refused_at_once_even_against_a_huge_range() -> None:
    line = _rich_state((10**50, 5))
    for wrong in (1.0, True, "3"):
        with pytest.raises(ValueError, match="not one of the legal moves 0..an integer of about 51 digits"):
            Session(lambda game, me, wrong=wrong: wrong).answer(line)


# --- run(decide) reads the options every SDK bot takes ---------------------------

_OWN_BOT = """
import random, sys
from bots.sdk import run

def decide(game, me):
    sys.stderr.write(f"max_days={game.max_days} draw={random.random()}\\n")
    return game.legal_moves(me)[0]

run(decide)
"""


def _own_bot(*args: str) -> str:
    first = encode(Game(2).to_wire(0)) + b"\n"
    done = subprocess.run([sys.executable, "-c", _OWN_BOT, *args], input=first, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout) == [0]
    return done.stderr.decode()


def test_a_bot_of_your_own_takes_max_days_and_seed() -> None:
    # run(decide) never read its command line: max_days stayed 100, --seed did nothing.
    told = _own_bot("--max-days", "30", "--seed", "7")
    assert "max_days=30 " in told
    assert told == _own_bot("--max-days", "30", "--seed", "7")  # the same seed, the same draws
    assert told != _own_bot("--max-days", "30", "--seed", "8")
    assert "max_days=100 " in _own_bot()
    assert "max_days=12 " in _own_bot("--max-days", "12", "--its-own-option")  # the bot's own arguments are left to it
