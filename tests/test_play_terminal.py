"""`driver play` in a real pseudo-terminal (pexpect): a person types a whole
game move by move, is asked again after an illegal move, reads the help,
and leaves with Ctrl+C without leaving a process behind; from a pipe, or
with NO_COLOR, the screen has no colour."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from proctable import MARK_VARIABLE, default_signals, new_mark, wait_for_marked, wait_until_gone

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow

DRIVER = str(Path(sys.executable).with_name("driver"))
QUESTIONS = [
    r"How much do you invest\? \(0 to (\d+)",
    r"You attack: with which card\?",
    r"[A-Za-z' ]+ \(attack \d, defense \d\) attacks you: which card defends\?",
    r"What do you buy\?",
    r"You win!|You lose\.|A draw\.|You forfeit\.|The game ends in a forfeit\.",
    r"Not allowed|not allowed|You have no|cannot|no card|is left: you would pay",
]
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def _spawn(args: list[str], tmp_path: Path, mark: str, **env: str) -> "pexpect.spawn":
    environment = {**os.environ, MARK_VARIABLE: mark, "TERM": "xterm", "COLUMNS": "80", "LINES": "24", **env}
    environment.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
    # A terminal's signals reach a program at their default dispositions,
    # whatever this test was started from (a background job, nohup).
    child = pexpect.spawn(DRIVER, ["play", *args], cwd=str(tmp_path), env=environment, dimensions=(24, 80),
                          timeout=120, echo=False, preexec_fn=default_signals)
    child.logfile_read = open(tmp_path / "screen.log", "wb")
    return child


def _play_to_the_end(child: "pexpect.spawn") -> str:
    """A person who invests 1 when they can, attacks and defends with
    whatever the game allows (trying their cards in turn), and buys Workers:
    answers every question until the game ends; returns the last verdict."""
    refused_at: list[int] = []
    while True:
        which = child.expect(QUESTIONS)
        if which == 0:
            child.sendline("1" if int(child.match.group(1)) >= 1 else "0")
        elif which == 1:
            child.sendline("pass")
        elif which == 2:
            refused_at.clear()
            child.sendline("1")
        elif which == 3:
            child.sendline("worker")
        elif which == 4:
            return child.match.group(0).decode()
        else:  # refused: an unaffordable Worker, a card that cannot defend; warned: no Worker left
            refused_at.append(1)
            child.sendline("pass" if len(refused_at) == 1 else str(len(refused_at)))


def test_a_whole_game_typed_move_by_move(tmp_path: Path) -> None:
    mark = new_mark()
    child = _spawn(["random", "--seed", "5", "--max-days", "12", "--name", "alice", "--trace", "game.jsonl"],
                   tmp_path, mark)
    verdict = _play_to_the_end(child)
    child.expect(pexpect.EOF)
    child.close()
    assert verdict in ("You win!", "You lose.", "A draw.")
    assert child.exitstatus == (3 if verdict == "A draw." else 0)
    lines = (tmp_path / "game.jsonl").read_bytes().splitlines()
    final = orjson.loads(lines[-1])
    assert final["phase"]["name"] == "end" and "player" not in final
    answers = [orjson.loads(x) for x in lines if x.startswith(b"[")]
    assert ["Worker"] in answers  # the person's typed moves are the trace's answers
    assert wait_until_gone(mark) == []


def test_the_name_is_in_the_trace(tmp_path: Path) -> None:
    result = subprocess.run([DRIVER, "play", "random", "--name", "alice", "--max-days", "2", "--trace", "t.jsonl"],
                            input=b"0\n0\n0\n0\n0\n0\n0\n0\n", cwd=tmp_path, capture_output=True, timeout=120)
    assert result.returncode in (0, 3), result.stderr
    header = orjson.loads((tmp_path / "t.jsonl").read_bytes().splitlines()[0])
    assert header["meta"] == "header" and header["seats"][0] == "alice", header


def test_an_illegal_move_is_explained_and_asked_again(tmp_path: Path) -> None:
    child = _spawn(["random", "--seed", "1", "--isolation", "none"], tmp_path, new_mark())
    child.expect(r"How much do you invest\? \(0 to 3")
    child.sendline("7")
    child.expect("You have 3 coins: invest 0 to 3.")
    child.sendline("golem")
    child.expect("You are investing: type a number of coins from 0 to 3.")
    child.sendline("0")
    child.expect(r"What do you buy\?")
    child.sendline("incantation")  # costs 4, 3 coins
    child.expect(r"Incantation costs 4 and you have 3: not allowed")
    child.sendline("golem")  # not in the simple set
    child.expect("Golem is not sold in this game")
    child.sendline("wrker")
    child.expect("did you mean Worker")
    child.sendline("wall")
    child.expect("Wall of Wealth is not sold in this game")
    child.sendline("gold")
    child.expect(r"You buy Gold Fish")
    child.expect(r"How much do you invest\?")
    child.expect(">")  # the prompt is up (typed before it, Ctrl+D is the line discipline's, not a key)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 5


def test_help_and_card_texts(tmp_path: Path) -> None:
    child = _spawn(["random", "--seed", "1", "--isolation", "none"], tmp_path, new_mark())
    child.expect(r"How much do you invest\?")
    child.sendline("?")
    child.expect(r"\? CARD\s+what a card does")
    child.expect(r"quit\s+leave the game")
    child.sendline("? bean")
    child.expect(r"Magic Bean Stock: costs 1, attack 1, defense 1; attacks once and defends once\s+per")
    child.expect(r"Every day: \+1 coin per 3 coins held\.")  # viewer.model.CARD_TEXT, as on every page
    assert b"CPR" not in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 5


def test_ctrl_c_leaves_no_process_behind(tmp_path: Path) -> None:
    mark = new_mark()
    child = _spawn(["random", "random", "--seed", "2", "--trace", "t.jsonl"], tmp_path, mark)
    child.expect(r"How much do you invest\?")
    child.expect(">")  # the prompt is up: Ctrl+C is a key now, not the terminal's SIGINT
    assert len(wait_for_marked(mark, 3)) >= 3  # the driver and two bots (with their inits)
    child.sendintr()
    child.expect("game abandoned, its bots ended")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert wait_until_gone(mark) == []
    last = orjson.loads((tmp_path / "t.jsonl").read_bytes().splitlines()[-1])
    assert last == {"meta": "aborted", "reason": "the person left the game (Ctrl+C)"}
    assert b"Traceback" not in (tmp_path / "screen.log").read_bytes()


def test_ctrl_c_while_the_bots_think(tmp_path: Path) -> None:
    """Ctrl+C away from the prompt is the terminal's SIGINT: the referee
    stops as `driver run` does, the bot thinking is ended."""
    mark = new_mark()
    bot = tmp_path / "slow.py"
    bot.write_text(f"#!{sys.executable}\nimport sys, time\nfor line in sys.stdin:\n    time.sleep(600)\n")
    bot.chmod(0o755)
    child = _spawn([f"slow={bot}", "--timeout", "900", "--trace", "t.jsonl"], tmp_path, mark)
    child.expect(r"How much do you invest\?")
    child.sendline("0")
    child.expect(r"sealed until everyone has answered")
    assert len(wait_for_marked(mark, 2)) >= 2
    child.sendintr()
    child.expect(r"the referee was interrupted \(SIGINT\); game abandoned, its bots ended")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert wait_until_gone(mark) == []
    last = orjson.loads((tmp_path / "t.jsonl").read_bytes().splitlines()[-1])
    assert last == {"meta": "aborted", "reason": "the referee was interrupted (SIGINT)"}
    assert b"Traceback" not in (tmp_path / "screen.log").read_bytes()


@pytest.mark.parametrize("how", ["pipe", "NO_COLOR"])
def test_no_colour_when_not_wanted(tmp_path: Path, how: str) -> None:
    if how == "pipe":
        result = subprocess.run([DRIVER, "play", "random", "--seed", "1", "--isolation", "none"],
                                input=b"0\nworker\nquit\n", cwd=tmp_path, capture_output=True, timeout=120,
                                env={**os.environ, "TERM": "xterm"})
        screen = result.stdout
        assert result.returncode == 5, result.stderr
    else:
        child = _spawn(["random", "--seed", "1", "--isolation", "none"], tmp_path, new_mark(), NO_COLOR="1")
        child.expect(r"How much do you invest\?")
        child.sendline("quit")
        child.expect(pexpect.EOF)
        child.close()
        screen = (tmp_path / "screen.log").read_bytes()
    assert b"How much do you invest?" in screen
    if how == "pipe":  # nothing but text
        assert b"\x1b" not in screen
    # NO_COLOR: bold and dim may stay (the convention is about colour), no colour may
    parameters = [p for seq in re.findall(rb"\x1b\[([0-9;]*)m", screen) for p in seq.split(b";")]
    assert [p for p in parameters if re.fullmatch(rb"3[0-9]|4[0-9]|9[0-7]|10[0-7]", p)] == []


def test_colour_in_a_terminal(tmp_path: Path) -> None:
    """The counterpart of the test above: in a terminal, without NO_COLOR,
    there is colour (so that test can fail)."""
    child = _spawn(["random", "--seed", "1", "--isolation", "none"], tmp_path, new_mark())
    child.expect(r"How much do you invest\?")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    parameters = [p for seq in re.findall(rb"\x1b\[([0-9;]*)m", (tmp_path / "screen.log").read_bytes())
                  for p in seq.split(b";")]
    assert [p for p in parameters if re.fullmatch(rb"3[0-9]|4[0-9]|9[0-7]|10[0-7]", p)] != []


def test_evolve_play_meets_the_runs_strongest(tmp_path: Path) -> None:
    """`evolve play KEY`: the person against the stored run's leader and
    next strongest genomes, on the run's card set."""
    import random

    from bots.evolved.ga import Settings
    from bots.evolved.genome import random_genome
    from bots.evolved.store import Store

    rng = random.Random(4)
    store = Store("mine", root=tmp_path / "economancy-arena" / "evolved")
    settings = Settings(population=8, generations=1, players=3, base=True)
    store.create(settings.to_json(), overwrite=False)
    population = [random_genome(rng) for _ in range(8)]
    store.append_generation({"generation": 1, "best": 1.0, "leader": population[0].to_json()}, population)
    assert store.strongest(2) == population[:2]
    result = subprocess.run([str(Path(sys.executable).with_name("evolve")), "play", "mine", "--max-days", "3",
                             "--name", "bob", "--isolation", "none"],
                            input=b"0\n" * 60, cwd=tmp_path, capture_output=True, timeout=120,
                            env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert result.returncode in (0, 3), result.stderr
    screen = result.stdout.decode()
    assert "You are seat 0, bob, against mine-1, mine-2." in screen
    assert "Golem" in screen  # the run's base set
    assert "Game over" in screen


def test_the_clock_forfeits_a_person_who_does_not_answer(tmp_path: Path) -> None:
    """--clock: the prompt counts down, and past it the referee forfeits the
    person as it would a bot; the prompt is withdrawn and the end shown."""
    mark = new_mark()
    child = _spawn(["random", "--seed", "1", "--clock", "3", "--name", "alice", "--trace", "t.jsonl"], tmp_path, mark)
    child.expect(r"How much do you invest\?")
    child.expect(r"\[\d s\] ")
    child.expect(r"alice forfeits: timeout: no answer within 3 s")
    child.expect(r"You forfeit\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 4
    final = orjson.loads((tmp_path / "t.jsonl").read_bytes().splitlines()[-1])
    assert final["phase"] == {"name": "fault", "forfiet": 0, "reason": "timeout: no answer within 3 s"}
    assert wait_until_gone(mark) == []


def test_a_terminal_that_goes_away_ends_the_game_and_restores_the_terminal(tmp_path: Path) -> None:
    """SIGHUP (an SSH connection dropped) while the prompt is up: the game is
    abandoned as `driver run`'s is, the bots ended, and the terminal left
    in its usual mode (prompt_toolkit's raw mode undone)."""
    mark = new_mark()
    command = f"{DRIVER} play random random --seed 2 --trace t.jsonl; echo status=$?; stty -a"
    child = pexpect.spawn("bash", ["-c", command], cwd=str(tmp_path), dimensions=(24, 80), timeout=120,
                          env={**os.environ, MARK_VARIABLE: mark, "TERM": "xterm"}, preexec_fn=default_signals)
    child.logfile_read = open(tmp_path / "screen.log", "wb")
    child.expect(r"How much do you invest\?")
    child.expect(">")
    driver = int(Path(f"/proc/{child.pid}/task/{child.pid}/children").read_text().split()[0])
    os.kill(driver, 1)  # SIGHUP
    child.expect(r"the referee was stopped \(SIGHUP\); game abandoned, its bots ended")
    child.expect(r"status=129")
    child.expect(pexpect.EOF)
    settings = child.before.decode()
    assert re.search(r"(?<!-)icanon", settings) and re.search(r"(?<![-\w])echo\b", settings), settings
    assert wait_until_gone(mark) == []
    last = orjson.loads((tmp_path / "t.jsonl").read_bytes().splitlines()[-1])
    assert last == {"meta": "aborted", "reason": "the referee was stopped (SIGHUP)"}


def test_moves_read_from_a_file(tmp_path: Path) -> None:
    """`driver play BOT < moves.txt`: a regular file cannot be polled; its
    lines are read all the same."""
    (tmp_path / "moves.txt").write_text("0\nworker\n0\npass\nquit\n")
    with open(tmp_path / "moves.txt", "rb") as moves:
        result = subprocess.run([DRIVER, "play", "random", "--seed", "1", "--isolation", "none"], stdin=moves,
                                cwd=tmp_path, capture_output=True, timeout=120)
    assert result.returncode == 5, result.stderr
    assert b"You buy Worker" in result.stdout and b"> quit" in result.stdout


def test_a_screen_that_fails_abandons_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error on the person's side ends the game with its reason, instead
    of leaving the referee waiting for an answer that cannot come (the
    person has no clock)."""
    import io

    import driver.play as play
    from driver.botspec import parse_bot
    from driver.game import GameOptions
    from driver.screen import make_console
    from driver.signals import Left

    def broken(*args: object) -> None:
        raise RuntimeError("no keyboard")

    monkeypatch.setattr(play, "read_input", broken)
    read, write = os.pipe()
    os.write(write, b"0\n")
    monkeypatch.setattr(sys, "stdin", os.fdopen(read, "r"))
    trace = io.BytesIO()
    with pytest.raises(Left) as left:
        play.play_person([parse_bot("random")], 0, "ada", GameOptions(isolation="none"), trace,
                         interactive=False, console=make_console(io.StringIO()))
    assert left.value.reason == "the screen failed: RuntimeError: no keyboard" and left.value.status == 1
    assert orjson.loads(trace.getvalue().splitlines()[-1]) == {"meta": "aborted", "reason": left.value.reason}
    os.close(write)


def test_a_remote_bot_is_an_opponent_like_any(tmp_path: Path) -> None:
    """`driver play remote:NAME`: a bot connected to a game server (`driver
    connect`) plays the person through its relay, as under `driver run`."""
    from serverlib import Server

    server = Server(tmp_path / "server.sqlite").start()
    # Reserving a connected bot takes its owner's token (docs/server.md).
    env = {**os.environ, "ECONOMANCY_SERVER": server.url, "ECONOMANCY_TOKEN": "y" * 20}
    bridge = subprocess.Popen([DRIVER, "connect", server.url, "random", "--name", "faraway", "--token", "y" * 20],
                              stderr=open(tmp_path / "bridge.log", "wb"), env=env)
    try:
        result = subprocess.run([DRIVER, "play", "remote:faraway", "--max-days", "3", "--trace", "t.jsonl"],
                                input=b"0\n" * 40, cwd=tmp_path, capture_output=True, timeout=120, env=env)
        assert result.returncode in (0, 3), result.stderr
        assert b"against remote:faraway." in result.stdout and b"Game over" in result.stdout
        final = orjson.loads((tmp_path / "t.jsonl").read_bytes().splitlines()[-1])
        assert final["phase"]["name"] == "end"
    finally:
        bridge.terminate()
        bridge.wait(30)
        server.stop()
