"""The `driver` command end to end: real processes, real bots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from driver.botspec import BotSpec
from click.testing import CliRunner

from arena.cli import driver as cli
from driver.cli import EXIT_CHECK_FAILED, EXIT_DRAW, EXIT_FORFEIT, EXIT_USAGE, EXIT_WINNER
from driver.game import GameOptions, game_lines, play_game
from protocol.wire import decode_move, decode_state
from users import shared_directory

BOTS = Path(__file__).parent / "bots"
DRIVER = [sys.executable, "-m", "arena.cli"]
PY = f"{sys.executable} -S"


def driver(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Run the real command in a subprocess."""
    return subprocess.run([*DRIVER, *args], capture_output=True, timeout=timeout, cwd=Path(__file__).parents[1])


def driver_in_process(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run the command's code in this process (for cases that start no game)."""
    result = CliRunner().invoke(cli, list(args), prog_name="driver")
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout_bytes, result.stderr_bytes)


def script_bot(script: str, *args: str) -> BotSpec:
    return BotSpec((sys.executable, "-S", str(BOTS / script), *args), script)


def assert_valid_trace(trace: bytes, players: int) -> list[object]:
    """Every line is a state (validated) or an answer; it ends with the final state."""
    values = []
    lines = trace.splitlines()
    assert orjson.loads(lines[0])["meta"] == "header" and len(orjson.loads(lines[0])["seats"]) == players
    for line in game_lines(lines):
        value = orjson.loads(line)
        if isinstance(value, dict):
            state = decode_state(line)
            assert len(state.players) == players
        else:
            decode_move(line)
        values.append(value)
    assert isinstance(values[-1], dict) and "player" not in values[-1]
    assert values[-1]["phase"]["name"] in ("end", "fault")
    return values


def test_run_two_random_bots_writes_a_trace_to_stdout() -> None:
    done = driver("run", "random", "random")
    assert done.returncode in (EXIT_WINNER, EXIT_DRAW), done.stderr.decode()
    values = assert_valid_trace(done.stdout, 2)
    assert values[0]["phase"] == {"name": "investing"} and values[0]["player"] == 0
    summary = done.stderr.decode()
    assert "seats  0: random, 1: random" in summary
    assert ("winner" in summary) == (done.returncode == EXIT_WINNER)


def test_run_four_random_bots_base_set_to_a_file(tmp_path: Path) -> None:
    trace = tmp_path / "game.jsonl"
    done = driver("run", "--base", "--max_days", "30", "--trace", str(trace), "random", "random", "random", "random")
    assert done.returncode in (EXIT_WINNER, EXIT_DRAW), done.stderr.decode()
    assert done.stdout == b""
    values = assert_valid_trace(trace.read_bytes(), 4)
    assert "Golem" in values[0]["shop"]


def test_forfeit_exit_status_and_stderr_tail(tmp_path: Path) -> None:
    done = driver("run", "--timeout", "2", f"good={PY} {BOTS / 'simple.py'}", f"{PY} {BOTS / 'crash_mid.py'}")
    assert done.returncode == EXIT_FORFEIT
    summary = done.stderr.decode()
    assert "forfeit  seat 1" in summary and "exited with status 1" in summary
    assert "RuntimeError: crash_mid" in summary  # the last lines of the bot's stderr
    assert_valid_trace(done.stdout, 2)


def test_draw_exit_status() -> None:
    # Two bots that never invest and buy one Worker cannot win in 3 days.
    simple = f"{PY} {BOTS / 'simple.py'}"
    done = driver("run", "--max-days", "3", simple, simple)
    assert done.returncode == EXIT_DRAW, done.stderr.decode()
    assert "draw" in done.stderr.decode()
    assert orjson.loads(done.stdout.splitlines()[-1])["phase"] == {"name": "end", "winner": False}


def test_hidden_choices_are_asked_at_the_same_time() -> None:
    # Each bot answers an investing or buy state only once both bots have
    # been asked it (marks left in a shared directory): a referee that
    # asked one at a time would leave the first waiting until it gives up.
    # Not under /tmp: each bot has its own there (driver.isolation).
    marks = shared_directory("economancy-rendezvous-")
    try:
        bot = script_bot("rendezvous.py", str(marks), "2")
        result = play_game([bot, bot], GameOptions(max_days=1, timeout=120))
        assert result.fault is None, result.stderr
        assert result.moves == 4
        assert sorted(os.listdir(marks)) == ["1.0", "1.1", "2.0", "2.1"]
    finally:
        shutil.rmtree(marks, ignore_errors=True)


def defending_states(trace: list[bytes]) -> list[dict]:
    states = [orjson.loads(line) for line in game_lines(trace)]
    return [
        s
        for s in states
        if isinstance(s, dict) and s["phase"]["name"] == "attacking" and s["phase"]["attacker_card"] is not False
    ]


@pytest.mark.parametrize("fair", [False, True])
def test_fair_hides_earlier_defenders_choices(fair: bool) -> None:
    # Day 1: everyone buys a Worker. Day 2: seat 0 invests 1 and attacks with
    # its Worker; seats 1 and 2 both defend with theirs, in that order.
    bots = [script_bot("simple.py", "attacker"), script_bot("simple.py"), script_bot("simple.py")]
    result = play_game(bots, GameOptions(max_days=2, timeout=5, fair=fair))
    assert result.fault is None
    asked = defending_states(result.trace)
    assert [s["player"] for s in asked] == [1, 2]
    seen_by_second = asked[1]["players"][1]["cards"][1]
    assert seen_by_second == {"name": "Worker", "uses": 0 if fair else 1}


def test_bad_arguments_are_usage_errors(tmp_path: Path) -> None:
    not_executable = tmp_path / "bot.py"
    not_executable.write_text("print('[0]')\n")
    cases = {
        ("run", "random"): "needs 2 to 4 bots, got 1",
        ("run", "random", "random", "random", "random", "random"): "needs 2 to 4 bots, got 5",
        ("run", "random", "no-such-bot"): "unknown bot 'no-such-bot'",
        ("run", "random", str(not_executable)): "is not executable",
        ("run", "random", "./missing/bot"): "does not exist",
        ("run", "--timeout", "0", "random", "random"): "--timeout",
        ("run", "--max-days", "many", "random", "random"): "--max-days",
        ("run", "--colour", "random", "random"): "No such option",
        ("run", "random", "mcts 'unclosed"): "cannot parse bot",
    }
    for args, message in cases.items():
        done = driver_in_process(*args)
        assert done.returncode == EXIT_USAGE, (args, done.stderr)
        assert message in done.stderr.decode(), (args, done.stderr)
        assert done.stdout == b""


def test_help_documents_exit_status() -> None:
    done = driver_in_process("run", "--help")
    text = done.stdout.decode()
    assert done.returncode == 0
    for line in ("0  a player won", "3  the game was a draw", "4  a bot forfeited", "2  usage error"):
        assert line in text


def test_schema_prints_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for which in ("all", "state", "move"):
        done = driver_in_process("schema", which)
        assert done.returncode == 0
        schema = orjson.loads(done.stdout)
        jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(orjson.loads(driver_in_process("schema").stdout))
    assert validator.is_valid(["Pass"]) and not validator.is_valid(["Pass", 1])


def test_check_passes_a_good_bot() -> None:
    done = driver("check", "random")
    out = done.stdout.decode()
    assert done.returncode == 0, out
    assert "PASS" in out
    for name in ("answered", "in time", "well-formed", "legal", "after end    silent"):
        assert f"{name}" in out
    assert "reusable across games: yes: one process played" in out
    assert out.startswith("isolation  ")


@pytest.mark.parametrize(
    "args, says",
    [
        # The original driver starts one process per game: exiting after the
        # end message is what its own bots do.
        ((), "reusable across games: no: it exits after each game"),
        # It ignores what a bot writes after the end: a warning here.
        (("chatty",), "reusable across games: no: it writes after the end"),
    ],
    ids=["exits", "chatty"],
)
def test_check_passes_a_bot_that_plays_one_game_per_process(args: tuple[str, ...], says: str) -> None:
    done = driver("check", " ".join([PY, str(BOTS / "one_game.py"), *args]))
    out = done.stdout.decode()
    assert done.returncode == 0, out
    assert "PASS" in out and "processes)" in out and says in out
    assert ("WARNING: answered the end message (ignored" in out) == bool(args)


def test_check_fails_a_bot_that_answers_wrongly(tmp_path: Path) -> None:
    done = driver("check", f"{PY} {BOTS / 'wrong_type.py'}")
    out = done.stdout.decode()
    assert done.returncode == EXIT_CHECK_FAILED, out
    assert "FAILED well-formed: bad move: \"Ghost\"" in out
    assert "FAIL:" in out


def test_check_reports_a_bot_that_dies(tmp_path: Path) -> None:
    done = driver("check", "--timeout", "1", f"{PY} {BOTS / 'crash_mid.py'}")
    out = done.stdout.decode()
    assert done.returncode == EXIT_CHECK_FAILED, out
    assert "FAILED answered: bot exited with status 1" in out
    assert "RuntimeError: crash_mid" in out
    assert "stopped:" in out


def test_check_warns_about_an_answer_to_the_end_message_of_a_long_lived_bot(tmp_path: Path) -> None:
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        "import sys, json\n"
        f"sys.path.insert(0, {str(BOTS)!r})\n"
        "import botlib\n"
        "for line in sys.stdin:\n"
        "    state = json.loads(line)\n"
        "    if botlib.asks_for_move(state):\n"
        "        botlib.send([botlib.simple_move(state)])\n"
        "    else:\n"
        "        botlib.send(['goodbye'])\n"
    )
    done = driver("check", f"{PY} {chatty}")
    out = done.stdout.decode()
    assert done.returncode == 0, out
    assert "WARNING: answered the end message" in out
    assert "reusable across games: no: it writes after the end" in out


def test_check_reports_a_program_that_cannot_start(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print([0])\n")
    script.chmod(0o755)
    done = driver_in_process("check", str(script))
    assert done.returncode == EXIT_CHECK_FAILED
    assert "FAIL: cannot start bot" in done.stdout.decode() and "#! line" in done.stdout.decode()
