"""--reuse: each bot process plays many games; faulty bots are replaced."""

from __future__ import annotations

import re
import sqlite3
import zlib
from pathlib import Path

from tournaments import PlayOptions, round_robin

BOTS = Path(__file__).parent / "bots_tournament"
PASSIVE, CRASH, HANG = (str(BOTS / f) for f in ("passive.py", "crash.py", "hang.py"))


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
    round_robin([PASSIVE, PASSIVE], games=2, db=db, concurrency=1, options=PlayOptions(max_days=2))
    assert len(set(_passive_pids(db))) == 8
