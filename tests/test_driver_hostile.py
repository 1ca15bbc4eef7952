"""Hostile bots cannot touch another seat's game (issue 17).

Each attack of tests/bots (the /proc injector, the thief, the spy) plays
against tests/bots/victim.py, which logs every state it receives and
every answer it sends. Under the default isolation the attack must fail,
through the real `driver run` and through a tournament playing two games
at once, as root and as an unprivileged user: the victim received exactly
the states the referee traced for it and the referee traced exactly the
answers it sent, nobody forfeits, and the attacker opened nothing.
Without isolation (`--isolation none`) the same bots do get in: that is
what shows they are real attacks, and these tests able to fail.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from proctable import MARK_VARIABLE, new_mark, wait_until_gone
from users import ROOT, User, shared_directory, user  # noqa: F401  (fixture)

from driver.cli import EXIT_DRAW, EXIT_FORFEIT, EXIT_WINNER

ATTACKS = ["injector", "thief", "spy"]
GOT_IN = ("opened ", "stole ", "saw ", "outbids ")  # what an attacker logs when it gets anywhere


@pytest.fixture
def logs() -> Iterator[Path]:
    """Where the bots write their logs: any user may write there (as root,
    bots run as nobody)."""
    directory = shared_directory("economancy-logs-")
    directory.chmod(0o777)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def _run_game(user: User, logs: Path, attack: str, isolation: str = "auto") -> tuple[int, list[bytes], str]:  # noqa: F811
    """One `driver run` of the victim (seat 0) against `attack`: (exit status, trace lines, summary).

    Without isolation a thief or a spy that gets in takes a state or an
    answer from the victim, which then forfeits by the clock: that wait is
    the run's --timeout, 4 s there instead of 10 (the bots answer at once),
    and --startup 6 instead of 30 on top when what it took was the victim's
    first (a loaded machine's race: 34 s instead of 4 once in a full run).
    Still 10 s for a `python -S` bot's first answer."""
    mark = new_mark()
    trace = user.workdir / f"{attack}-{isolation}.jsonl"
    clock = ["--timeout", "4", "--startup", "6"] if isolation == "none" else ["--timeout", "10"]
    command = user.driver(
        "run", "--isolation", isolation, "--max-days", "4", *clock, "--trace", str(trace),
        user.bot("victim.py"), user.bot(f"{attack}.py"),
    )
    env = {**user.env, MARK_VARIABLE: mark, "ECONOMANCY_TEST_LOGS": str(logs)}
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, timeout=300)
    assert wait_until_gone(mark) == []
    return done.returncode, trace.read_bytes().splitlines(), done.stderr.decode(errors="replace")


def _log(logs: Path, name: str) -> list[str]:
    (path,) = logs.glob(f"{name}-*.log")
    return path.read_text().splitlines()


def assert_untouched(victim_log: list[str], trace: list[bytes], seat: int) -> None:
    """The victim got exactly the states the referee traced for its seat, then
    the final state, and the referee traced exactly the answers it sent."""
    got = [line.removeprefix("victim: got ").encode() for line in victim_log if line.startswith("victim: got ")]
    sent = [line.removeprefix("victim: sent ").encode() for line in victim_log if line.startswith("victim: sent ")]
    values = [orjson.loads(line) for line in trace]
    asked = [i for i, v in enumerate(values) if isinstance(v, dict) and v.get("player") == seat]
    assert got[:-1] == [trace[i] for i in asked], "the victim did not receive what the referee sent it"
    assert [orjson.loads(line) for line in sent] == [values[i + 1] for i in asked], "answers not the victim's"
    final = json.loads(got[-1])
    assert final["phase"]["name"] in ("end", "fault") and final["player"] == seat
    assert "meta" not in values[-1] and "player" not in values[-1]


def assert_got_nowhere(attack_log: list[str]) -> None:
    assert attack_log and "sees 2 processes" in attack_log[0], attack_log  # its init and itself
    assert not [line for line in attack_log if any(word in line for word in GOT_IN)], attack_log


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_attack_through_proc_fails_in_a_real_game(user: User, logs: Path, attack: str) -> None:  # noqa: F811
    status, trace, summary = _run_game(user, logs, attack)
    assert status in (EXIT_WINNER, EXIT_DRAW), summary
    assert_untouched(_log(logs, "victim"), trace, 0)
    assert_got_nowhere(_log(logs, attack))


@pytest.mark.parametrize("attack", ATTACKS)
def test_without_isolation_the_same_attack_gets_in(logs: Path, attack: str) -> None:
    me = User("me", [], sys.executable, dict(os.environ), logs, os.geteuid())
    status, trace, summary = _run_game(me, logs, attack, isolation="none")
    log = _log(logs, attack)
    assert [line for line in log if " opened /proc/" in line], log
    # The spy now holds the victim's answer pipe open for reading: whether
    # it wins a read against the referee is a race, so only that is asserted.
    if attack != "spy":  # forged answers, or states stolen: the victim forfeits
        assert status == EXIT_FORFEIT and "forfeit  seat 0" in summary, summary


def test_attacks_fail_in_a_tournament_playing_two_games_at_once(user: User, logs: Path) -> None:  # noqa: F811
    mark = new_mark()
    db = user.workdir / "hostile.sqlite"
    bots = [f"{name}={user.bot(name + '.py')}" for name in ["victim", *ATTACKS]]
    # From the start: the referee plays an opening's moves itself, and the
    # victim's log is compared with every state traced for its seat, so each
    # game gets new processes (--no-reuse: an attacker logs what it sees once
    # per process, from a thread of its own, so a kept one's later games
    # would have no such line in their logs).
    command = user.tournament(
        "round-robin", *bots, "--games", "1", "--openings", "none", "-j", "2",
        "--max-days", "4", "--timeout", "10", "--db", str(db), "--no-reuse",
    )
    env = {**user.env, MARK_VARIABLE: mark, "ECONOMANCY_TEST_LOGS": str(logs)}
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert wait_until_gone(mark) == []
    games = sqlite3.connect(db).execute("SELECT seats, fault_seat, fault_reason, trace, stderr FROM games").fetchall()
    assert len(games) == 12  # 6 pairs, both seatings
    for seats_json, fault_seat, reason, trace, stderr in games:
        seats = json.loads(seats_json)
        assert fault_seat is None, (seats, reason)
        logs_by_bot = _stderr_by_bot(zlib.decompress(stderr).decode(errors="replace"))
        if "victim" in seats:
            assert_untouched(logs_by_bot["victim"], zlib.decompress(trace).splitlines(), seats.index("victim"))
        for name in seats:
            if name != "victim":
                assert_got_nowhere(logs_by_bot[name])


def _stderr_by_bot(text: str) -> dict[str, list[str]]:
    """A stored game's standard error, split at its "== name ==" headers."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith("== ") and line.endswith(" =="):
            current = sections.setdefault(line[3:-3], [])
        else:
            current.append(line)
    return sections
