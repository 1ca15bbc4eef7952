"""A bot kept for its next game (`tournament --reuse`) that exits after its
last game's end is started afresh for the next game, never forfeited:
the original driver starts one process per game, so exiting after the
end is correct."""

from __future__ import annotations

import sqlite3
import sys
import zlib
from pathlib import Path

import pytest
from proctable import MARK_VARIABLE, new_mark, wait_until_gone

from driver.botspec import BotSpec
from driver.game import GameOptions, play_game
from driver.process import END_MARK, BotGroup, respawner
from tournaments import PlayOptions, round_robin

BOTS = Path(__file__).parent / "bots"


def one_game(*args: str) -> BotSpec:
    return BotSpec((sys.executable, "-S", str(BOTS / "one_game.py"), *args), "one_game")


def test_a_kept_bot_that_exits_after_the_end_is_restarted_for_the_next_game() -> None:
    # It lingers 3 s after the end: still alive, so it looks reusable, when
    # the next game's first state is sent to it; then it exits.
    specs = [one_game("linger", "3"), one_game("linger", "3")]
    options = GameOptions(max_days=2, timeout=20)
    procs = BotGroup.spawn([(s.argv, s.name) for s in specs]).detach()
    first_procs = list(procs)
    try:
        first = play_game(procs, options, restart=respawner(procs))
        assert first.fault is None
        assert all(p.reusable for p in procs)
        second = play_game(procs, options, restart=respawner(procs))
    finally:
        BotGroup(procs).close()
    assert second.fault is None, second.fault
    assert second.moves >= 4
    assert all(new is not old for new, old in zip(procs, first_procs))  # both were restarted, by their owner


def test_without_its_owners_restart_a_kept_bot_that_exits_after_the_end_forfeits() -> None:
    # The referee restarts nothing it did not start: the owner says how.
    specs = [one_game("linger", "3"), one_game("linger", "3")]
    options = GameOptions(max_days=2, timeout=20)
    procs = BotGroup.spawn([(s.argv, s.name) for s in specs]).detach()
    try:
        assert play_game(procs, options).fault is None
        second = play_game(procs, options)
    finally:
        BotGroup(procs).close()
    assert second.fault is not None and second.fault[0] == 0


def test_a_reuse_tournament_never_forfeits_bots_that_exit_after_each_game(tmp_path: Path) -> None:
    db = tmp_path / "reuse.sqlite"
    bot = f"{sys.executable} -S {BOTS / 'one_game.py'} linger 0.5"
    result = round_robin(
        [f"a={bot}", f"b={bot}"],
        games=3,
        db=db,
        concurrency=2,
        reuse=True,
        options=PlayOptions(max_days=2, timeout=20),
    )
    assert result.played_now == 6
    reasons = [r for (r,) in sqlite3.connect(db).execute("SELECT fault_reason FROM games") if r is not None]
    assert reasons == []
    records = result.standings.records
    assert records["a"].forfeits == records["b"].forfeits == 0


def test_the_worker_keeps_the_restarted_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    from tournaments.workers import _KeptBots

    mark = new_mark()
    monkeypatch.setenv(MARK_VARIABLE, mark)
    kept = _KeptBots()
    specs = [BotSpec(one_game("linger", "3").argv, name) for name in ("a", "b")]
    options = GameOptions(max_days=2, timeout=20)
    try:
        assert kept.play(specs, options).fault is None
        first = dict(kept.procs)
        assert kept.play(specs, options).fault is None
        assert all(kept.procs[k] is not first[k] and kept.procs[k].returncode() is None for k in first)
    finally:
        kept.close_all()
    assert wait_until_gone(mark) == []  # none leaked


def test_a_kept_bot_that_cannot_start_forfeits_as_without_reuse(monkeypatch: pytest.MonkeyPatch) -> None:
    from tournaments.workers import _KeptBots

    mark = new_mark()
    monkeypatch.setenv(MARK_VARIABLE, mark)
    kept = _KeptBots()
    missing = BotSpec((str(BOTS / "no-such-bot"),), "missing")
    specs = [one_game("linger", "0"), missing]
    options = GameOptions(max_days=2, timeout=20)
    try:
        result = kept.play(specs, options, [False, True])  # the worker used to raise BotStartError here
        assert list(kept.procs) == []  # neither is kept: one is the referee's, the other never started
    finally:
        kept.close_all()
    assert result.fault is not None and result.fault[0] == 1 and "cannot start" in result.fault[1], result.fault
    assert wait_until_gone(mark) == []
@pytest.mark.parametrize("busy", ["0", "0.3"])
def test_each_game_keeps_what_a_kept_bot_wrote_after_its_end_and_before_its_next_game(tmp_path: Path,
                                                                                       busy: str) -> None:
    # One worker keeps both bots for all their games; each says "after game N"
    # only once it has seen game N's end, when that game is already stored:
    # the line belongs to game N (the last one's too), never to game N+1.
    # With busy=0.3 each works 0.3 s of CPU on the end before saying so: the
    # next game must wait for it (BotProcess.settle), or the line lands there.
    db = tmp_path / "late.sqlite"
    bot = f"{sys.executable} -S {BOTS / 'late_words.py'} {busy}"
    result = round_robin([f"a={bot}", f"b={bot}"], games=2, db=db, concurrency=1, reuse=True,
                         options=PlayOptions(max_days=2, timeout=20))
    assert result.played_now == 4
    seen: dict[str, list[int]] = {"a": [], "b": []}
    for (stderr,) in sqlite3.connect(db).execute("SELECT stderr FROM games ORDER BY id"):
        sections: dict[str, list[bytes]] = {}
        for line in zlib.decompress(stderr).split(b"\n"):
            if line.startswith(b"== ") and line.endswith(b" =="):
                current = sections.setdefault(line[3:-3].decode(), [])
            else:
                current.append(line)
        assert set(sections) == {"a", "b"}, sections
        for name, lines in sections.items():
            n = int(lines[0].removeprefix(b"in game "))
            assert lines == [b"in game %d" % n, END_MARK.rstrip(b"\n"), b"after game %d" % n], (name, lines)
            seen[name].append(n)
    assert seen == {"a": [1, 2, 3, 4], "b": [1, 2, 3, 4]}  # one process each, kept for all four games


def test_settle_waits_for_a_bot_to_read_its_input_and_sleep_and_no_longer() -> None:
    # A kept bot's next game waits for it to be done with the last one's end,
    # but a bot that never rests (or never reads) holds it up for the bound only.
    from driver.process import BotProcess

    reader = BotProcess((sys.executable, "-S", "-c", "import sys\nfor line in sys.stdin: pass"), "reader")
    spinner = BotProcess((sys.executable, "-S", "-c", "while True: pass"), "spinner")
    try:
        reader._out += b"x" * 1000 + b"\n"
        reader._write()
        assert reader.settle(timeout=60)  # it reads the line and sleeps in read again
        assert reader._unread_input() == 0
        spinner._out += b"x\n"
        spinner._write()
        assert not spinner.settle(timeout=0.3)  # always running, never reading
        assert spinner._unread_input() == 2
    finally:
        BotGroup([reader, spinner]).close(exit_grace=0.05, term_grace=0.2)
