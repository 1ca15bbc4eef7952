"""--reuse: each bot process plays many games; faulty bots are replaced;
by default, the bots the start-up probe finds reusable are reused."""

from __future__ import annotations

import re
import sys
import sqlite3
import time
import zlib
from pathlib import Path

import pytest

from tournaments import PlayOptions, round_robin

BOTS = Path(__file__).parent / "bots_tournament"
PASSIVE, CRASH, HANG = (str(BOTS / f) for f in ("passive.py", "crash.py", "hang.py"))
ONE_GAME = f"{sys.executable} -S {Path(__file__).parent / 'bots' / 'one_game.py'}"


def _passive_pids(db: Path) -> list[int]:
    blobs = [zlib.decompress(b) for (b,) in sqlite3.connect(db).execute("SELECT stderr FROM games")]
    return [int(m) for b in blobs for m in re.findall(rb"passive bot (\d+) started", b)]


def test_reuse_keeps_bots_alive_and_replaces_faulty_ones(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    res = round_robin(
        [f"a={PASSIVE}", f"b={PASSIVE}", f"crash={CRASH}", f"hang={HANG}"],
        games=2, db=db, concurrency=2, reuse=True,
        # Each game's first answer has the default start-up allowance (a reused
        # process still gets it for its first game): the hanging bot answers
        # its first state and times out at its second. Only it gets a short
        # clock: a passive bot slowed past it by a busy machine would be
        # replaced (its late answer must not reach its next game), which is
        # right, but not what this test counts.
        options=PlayOptions(max_days=4, timeout=10.0, bot_options={"hang": "timeout=0.5"}),
    )
    rec = res.standings.records
    assert res.played_now == 24
    assert rec["a"].draws == rec["b"].draws == 4  # a vs b: 4 full games, no stale answers
    assert rec["a"].forfeits == rec["b"].forfeits == 0
    # crash and hang forfeit against a and b (8 games each) and, between
    # them, whoever sits first forfeits first (2 games each).
    assert rec["crash"].forfeits == rec["hang"].forfeits == 10
    pids = _passive_pids(db)
    # a and b sit in 24 games; without reuse that is 24 starts. Each of the 2
    # workers starts each once, and may replace one after each of the 8 games
    # against `crash`: crash dies on an investing state, which its opponent is
    # asked at the same time, and a bot whose answer is still owed when the
    # game ends must not carry it into its next game (`BotProcess.reusable`);
    # whether it is owed depends on which pipe the referee reads first.
    assert len(set(pids)) == len(pids) <= 4 + 8


def test_without_reuse_every_game_starts_its_bots(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    round_robin([PASSIVE, PASSIVE], games=2, db=db, concurrency=1, options=PlayOptions(max_days=2), reuse=False)
    assert len(set(_passive_pids(db))) == 8


def test_by_default_the_reusable_bots_are_reused_and_the_output_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "r.sqlite"
    # one_game.py exits after each game, as the original's bots do: the probe finds it not reusable.
    res = round_robin([f"a={PASSIVE}", f"once={ONE_GAME}"], games=3, db=db, concurrency=1,
                      options=PlayOptions(max_days=2), progress=True)
    assert res.played_now == 6 and all(r.forfeits == 0 for r in res.standings.records.values())
    assert len(set(_passive_pids(db))) == 1  # one worker, one process of `a` for all 6 games
    err = capsys.readouterr().err
    assert "reused across games: a; a new process for each game: once (not reusable" in err, err
    assert "--no-reuse for a new process every game" in err


def test_the_probe_finds_reusable_only_a_bot_that_stays_alive_and_silent_after_a_game(tmp_path: Path) -> None:
    from driver.botspec import parse_bot
    from driver.game import GameOptions
    from driver.probe import probe

    talker = tmp_path / "talker.py"  # answers "[0]" to everything, the end of a game too, and plays on
    talker.write_text("import sys\nfor line in sys.stdin:\n    print('[0]', flush=True)\n")
    options = GameOptions(timeout=10.0)
    assert probe(parse_bot(PASSIVE), options) is True
    assert probe(parse_bot(ONE_GAME), options) is False  # exits after its game
    assert probe(parse_bot(f"{sys.executable} -S {talker}"), options) is False  # writes after the end
    # A bot that answers its first state and hangs at its second is not waited for its whole timeout.
    started = time.monotonic()
    assert probe(parse_bot(HANG), GameOptions(timeout=60.0)) is False
    assert time.monotonic() - started < 30
