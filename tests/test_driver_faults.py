"""Every way a bot can misbehave ends the game with a fault naming it,
a complete trace, and no process of any bot left behind."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from proctable import MARK_VARIABLE, marked_processes, new_mark, zombie_children

from driver.botspec import BotOptions, BotSpec
from driver.game import GameOptions, GameResult, game_lines, play_game
from driver.process import END_MARK, STDERR_LIMIT, BotGroup

BOTS = Path(__file__).parent / "bots"


def bot(script: str, *args: str) -> BotSpec:
    return BotSpec((sys.executable, "-S", str(BOTS / script), *args), script.removesuffix(".py"))


GOOD = bot("simple.py")


@pytest.fixture
def pid_file(monkeypatch: pytest.MonkeyPatch) -> str:
    """The marker every bot process of the test carries in its environment."""
    mark = new_mark()
    monkeypatch.setenv(MARK_VARIABLE, mark)
    _zombies_before[mark] = set(zombie_children())
    return mark


# Zombies other tests may have left to this process.
_zombies_before: dict[str, set[int]] = {}


def assert_all_gone(mark: str) -> None:
    """No process of any bot is left, not even a zombie of ours."""
    assert marked_processes(mark) == [], "bot processes still present"
    assert set(zombie_children()) <= _zombies_before.pop(mark)


@pytest.fixture(autouse=True, params=["auto", "none"])
def isolation(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every case with the strongest isolation here and without any: the
    clean-up must not depend on namespaces."""
    global _isolation
    _isolation = request.param
    yield request.param
    _isolation = "auto"


_isolation = "auto"


def play(bots: list[BotSpec], **options: object) -> GameResult:
    settings = {"timeout": 2.0, "max_days": 6, "isolation": _isolation, **options}
    return play_game(bots, GameOptions(**settings))  # type: ignore[arg-type]


def assert_fault(result: GameResult, seat: int, *words: str) -> str:
    """The game ended in `seat`'s fault, the reason mentions `words`, and the
    trace is complete: every line parses and the last is the fault state."""
    assert result.fault is not None, f"no fault; winner {result.winner}"
    assert result.fault[0] == seat
    reason = result.fault[1]
    for word in words:
        assert word in reason, reason
    values = [orjson.loads(line) for line in game_lines(result.trace)]
    last = values[-1]
    assert "player" not in last
    assert last["phase"] == {"name": "fault", "forfiet": seat, "reason": reason}
    assert result.winner is None
    return reason


def last_state_to(result: GameResult, seat: int) -> int:
    """Index in the trace of the last state sent to `seat`."""
    values = [orjson.loads(line) for line in game_lines(result.trace)]
    return max(i for i, v in enumerate(values) if isinstance(v, dict) and v.get("player") == seat)


def test_crash_before_first_move(pid_file: str) -> None:
    result = play([GOOD, bot("crash_start.py")])
    assert_fault(result, 1, "exited with status 1")
    assert b"cannot initialise" in result.stderr[1]
    # The state was sent, nothing came back: the fault state follows it.
    assert last_state_to(result, 1) == len(game_lines(result.trace)) - 2
    assert_all_gone(pid_file)


def test_crash_mid_game(pid_file: str) -> None:
    result = play([bot("crash_mid.py"), GOOD])
    assert_fault(result, 0, "exited with status 1")
    assert b"RuntimeError: crash_mid" in result.stderr[0]
    assert result.moves >= 3
    assert_all_gone(pid_file)


# The timeouts below leave room for the bots' start-up on a loaded machine:
# the first state's timeout includes it.
def test_never_answers(pid_file: str) -> None:
    started = time.monotonic()
    # No start-up allowance for the silent bot: its first answer is due in 3 s.
    result = play([GOOD, bot("silent.py")], timeout=3, seats=(BotOptions(), BotOptions(startup=0)))
    assert_fault(result, 1, "timeout", "3 s", "did the bot flush its output?")
    assert orjson.loads(game_lines(result.trace)[-2]) == "timeout"
    assert time.monotonic() - started < 10
    assert_all_gone(pid_file)


def test_answer_after_timeout_is_a_timeout(pid_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LATE_SECONDS", "5")
    result = play([bot("late.py"), GOOD], timeout=3)
    assert_fault(result, 0, "timeout")
    assert orjson.loads(game_lines(result.trace)[-2]) == "timeout"
    assert result.moves == 2  # both first investments; the late answer was the second of seat 0
    assert_all_gone(pid_file)


def test_garbage_answer(pid_file: str) -> None:
    result = play([GOOD, bot("garbage.py")])
    assert_fault(result, 1, "not JSON", "I choose the Ghost")
    assert orjson.loads(game_lines(result.trace)[-2]) == "I choose the Ghost, obviously!"
    assert_all_gone(pid_file)


def test_answer_not_an_array(pid_file: str) -> None:
    result = play([bot("not_array.py"), GOOD])
    assert_fault(result, 0, "one-element array")
    assert orjson.loads(game_lines(result.trace)[-2]) == {"move": 0}
    assert_all_gone(pid_file)


def test_answer_of_the_wrong_type(pid_file: str) -> None:
    result = play([GOOD, bot("wrong_type.py")])
    assert_fault(result, 1, "bad move", "Ghost")
    assert orjson.loads(game_lines(result.trace)[-2]) == ["Ghost"]
    assert_all_gone(pid_file)


def test_illegal_move(pid_file: str) -> None:
    result = play([bot("illegal.py"), GOOD])
    assert_fault(result, 0, "invest more coins than they have")
    assert orjson.loads(game_lines(result.trace)[-2]) == [4]
    assert_all_gone(pid_file)


def test_fifty_megabyte_line(pid_file: str) -> None:
    started = time.monotonic()
    result = play([GOOD, bot("huge_line.py")])
    assert_fault(result, 1, "longer than")
    assert orjson.loads(game_lines(result.trace)[-2]).startswith("[999")
    assert max(len(line) for line in game_lines(result.trace)) < 10_000
    assert time.monotonic() - started < 10
    assert_all_gone(pid_file)


def test_an_answer_without_newline_is_read_as_the_original_reads_it(pid_file: str) -> None:
    # It writes [0] without a newline for every state: the investment is
    # read (one JSON value from the stream, as the original reads it), and
    # the buy phase's 0 is then a wrong move. tests/test_answer_forms.py
    # has every form.
    result = play([bot("no_newline.py"), GOOD], timeout=10)
    assert_fault(result, 0, "bad move")
    assert b"[0]" in result.trace
    assert_all_gone(pid_file)


def test_stderr_flood_does_not_block_the_game(pid_file: str) -> None:
    result = play([bot("stderr_flood.py"), GOOD], max_days=3, stderr_limit=64 << 10)
    assert result.fault is None
    assert result.moves >= 9  # 3 days of investing and buying, about 600 KiB of stderr each
    kept = result.stderr[0]
    assert len(kept) < (64 << 10) + 200
    assert kept.startswith(b"[... ") and b"bytes of standard error dropped" in kept
    assert kept.rstrip().endswith(b"done")
    assert orjson.loads(game_lines(result.trace)[-1])["phase"]["name"] == "end"
    assert_all_gone(pid_file)


def test_endless_stderr_cannot_starve_the_game(pid_file: str) -> None:
    # The bot's stderr never pauses: reading it must not hold the referee's
    # loop, or the answers on stdout would never be seen.
    result = play([bot("stderr_endless.py"), GOOD], max_days=3, timeout=5.0)
    assert result.fault is None
    assert result.days == 3 and orjson.loads(game_lines(result.trace)[-1])["phase"]["name"] == "end"
    assert len(result.stderr[0]) <= STDERR_LIMIT + 200
    assert_all_gone(pid_file)


def test_bot_that_closes_its_stdin(pid_file: str) -> None:
    result = play([GOOD, bot("close_stdin.py")])
    assert_fault(result, 1, "closed its standard input")
    assert_all_gone(pid_file)


def test_bot_ignoring_sigterm_is_killed(pid_file: str) -> None:
    started = time.monotonic()
    result = play([bot("ignore_term.py"), GOOD], max_days=1, timeout=10)
    assert result.fault is None
    assert time.monotonic() - started < 10  # grace periods of 0.5 s and 0.5 s, then SIGKILL
    assert_all_gone(pid_file)


def test_children_and_setsid_grandchild_are_reaped(pid_file: str) -> None:
    started = time.monotonic()
    result = play([bot("spawner.py"), GOOD], timeout=30)
    assert_fault(result, 0, "exited with status 0")
    assert b"spawner: started 3 processes" in result.stderr[0]
    # Its exit is seen at once, not at the 30 s timeout, although the
    # processes it left hold its standard output open.
    assert time.monotonic() - started < 15
    assert_all_gone(pid_file)


def test_unstartable_bot_forfeits_before_the_game(tmp_path: Path) -> None:
    zombies_before = set(zombie_children())
    script = tmp_path / "no_shebang"
    script.write_text("print('hello')\n")
    script.chmod(0o755)
    result = play([GOOD, BotSpec((str(script),), "no_shebang")])
    assert_fault(result, 1, "cannot start")
    assert len(game_lines(result.trace)) == 1 and result.moves == 0 and orjson.loads(result.trace[0])["meta"] == "header"
    assert set(zombie_children()) <= zombies_before


def test_a_later_seat_fault_waits_for_earlier_seats_answers(pid_file: str) -> None:
    # Seat 1 answers garbage at once, seat 0 thinks 0.5 s and answers well:
    # as with the original (which asks in seat order), seat 0's answer
    # counts and is traced first, then seat 1 forfeits.
    result = play([bot("simple.py", "defender", "0.5"), bot("garbage.py")])
    assert_fault(result, 1, "not JSON")
    values = [orjson.loads(line) for line in game_lines(result.trace)]
    assert [v.get("player") if isinstance(v, dict) else v for v in values] == [
        0,
        [0],
        1,
        "I choose the Ghost, obviously!",
        None,
    ]
    assert result.moves == 1
    assert_all_gone(pid_file)


def test_an_earlier_seat_fault_does_not_wait_for_later_seats(pid_file: str) -> None:
    started = time.monotonic()
    result = play([bot("garbage.py"), bot("simple.py", "defender", "10")], timeout=20)
    assert_fault(result, 0, "not JSON")
    assert time.monotonic() - started < 8  # seat 1 answers only after 10 s
    # Seat 1 was asked at the same time, but the trace stops at the faulty seat.
    assert [orjson.loads(line).get("player") for line in game_lines(result.trace)[::2]] == [0, None]
    assert_all_gone(pid_file)


def test_exit_status_is_the_reason_even_when_the_first_state_finds_the_pipe_closed(pid_file: str) -> None:
    # The bot is gone before it is asked anything: writing its first state
    # fails, and its exit status, not the closed pipe, is the reason.
    exit3 = bot("exit3.py")
    procs = BotGroup.spawn([(GOOD.argv, "good"), (exit3.argv, "exit3")], isolation=_isolation).detach()
    deadline = time.monotonic() + 60
    while procs[1].returncode() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        result = play_game(procs, GameOptions(timeout=5, isolation=_isolation))
    finally:
        BotGroup(procs).close()
    assert_fault(result, 1, "exited with status 3")
    assert_all_gone(pid_file)


def test_exit_status_before_the_first_answer(pid_file: str) -> None:
    result = play([GOOD, bot("exit3.py")], timeout=5)
    assert_fault(result, 1, "bot exited with status 3 instead of answering")
    assert_all_gone(pid_file)


class _Recorder(io.RawIOBase):
    """A trace output that notes when each line was written, and can raise
    KeyboardInterrupt (as Ctrl-C would) at its `interrupt_at`-th write."""

    def __init__(self, interrupt_at: int = 0) -> None:
        self.writes: list[tuple[float, bytes]] = []
        self.interrupt_at = interrupt_at

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.writes.append((time.monotonic(), bytes(data)))
        if len(self.writes) == self.interrupt_at:
            raise KeyboardInterrupt
        return len(data)


def test_a_hidden_answer_is_written_out_only_once_its_round_is_resolved(pid_file: str) -> None:
    # Seat 0 invests at once, seat 1 after 1 s: a bot reading the trace file
    # meanwhile must not find seat 0's investment in it.
    out = _Recorder()
    result = play_game([bot("stamp.py"), bot("stamp.py", "1")], GameOptions(max_days=1, timeout=10, isolation=_isolation), out)
    assert result.fault is None
    seat1_first_answer = float(result.stderr[1].split()[1])
    assert orjson.loads(out.writes[0][1])["meta"] == "header"
    written, line = out.writes[2]
    assert orjson.loads(line) == [0]  # seat 0's first investment
    assert written >= seat1_first_answer
    assert [line.rstrip(b"\n") for _, line in out.writes] == result.trace
    assert_all_gone(pid_file)


def test_an_interrupted_game_ends_its_trace_with_an_aborted_record(pid_file: str) -> None:
    out = _Recorder(interrupt_at=3)
    with pytest.raises(KeyboardInterrupt):
        play_game([GOOD, GOOD], GameOptions(max_days=6, timeout=5, isolation=_isolation), out)
    lines = [orjson.loads(line) for _, line in out.writes]
    assert lines[-1] == {"meta": "aborted", "reason": "the referee was interrupted (SIGINT)"}
    assert lines[0]["meta"] == "header" and len(lines[0]["seats"]) == 2
    assert all("meta" not in v for v in lines[1:-1] if isinstance(v, dict)) and len(lines) >= 4
    assert_all_gone(pid_file)


_FD_COUNT = """
import os, sys
from driver.botspec import BotSpec
from driver.game import GameOptions, play_game
good = BotSpec((sys.executable, sys.argv[1]), "good")
options = GameOptions(timeout=10, max_days=2, isolation=sys.argv[2])
play_game([good, good], options)
before = sorted(os.listdir("/proc/self/fd"))
for _ in range(10):
    assert play_game([good, good], options).fault is None
after = sorted(os.listdir("/proc/self/fd"))
def target(fd):
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # the one listdir read /proc/self/fd through
        return None
print(len(before), len(after), [target(fd) for fd in after if fd not in before])
"""


@pytest.mark.parametrize("isolation", ["auto", "none"])
def test_a_long_lived_referee_keeps_no_file_descriptor(isolation: str) -> None:
    # Tournament workers, the server and exploit play thousands of games in
    # one process: a pipe kept per bot ran one out of descriptors (select()
    # then failed past 1024, in an exploit run through the referee). The
    # games run in a process of their own: a test worker's other threads
    # open and close descriptors of their own meanwhile.
    done = subprocess.run([sys.executable, "-c", _FD_COUNT, str(GOOD.argv[-1]), isolation],
                          capture_output=True, text=True, timeout=300, cwd=Path(__file__).parents[1])
    assert done.returncode == 0, done.stderr
    before, after, new = done.stdout.split(" ", 2)
    assert int(after) <= int(before), new


def test_a_long_lived_referee_keeps_no_zombie(pid_file: str) -> None:
    # 20 games in this one process, each with a bot whose setsid grandchild
    # exits after being orphaned: nothing of them may stay, not even a zombie.
    for _ in range(20):
        result = play([bot("fork_setsid.py"), GOOD], max_days=1, timeout=10)
        assert result.fault is None
        time.sleep(0.05)
    time.sleep(0.5)  # the last orphans have exited by now
    assert_all_gone(pid_file)


def test_stderr_after_the_final_state_is_kept_apart(pid_file: str) -> None:
    # The bot's crash on the fault state it was sent used to read as the
    # cause of its forfeit, mixed with what it wrote while playing.
    result = play([bot("crash_on_end.py"), GOOD])
    assert_fault(result, 0, "invest more coins than they have")
    kept = result.stderr[0]
    before, mark, after = kept.partition(END_MARK)
    assert mark, kept
    assert b"the real cause" in before and b"Traceback" not in before
    assert b"Traceback" in after
    assert END_MARK not in result.stderr[1]  # the good bot wrote nothing after the end
    assert_all_gone(pid_file)
