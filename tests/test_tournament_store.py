"""The results database: schema checks, foreign files, resume keys, schedules."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from tournaments.entrants import Entrant
from tournaments.errors import TournamentError
from tournaments.schedule import gauntlet, round_robin, seatings
from tournaments.store import GameRecord, Store, compress_lines


def record(key: str, winner: int | None = 0) -> GameRecord:
    return GameRecord(
        key=key, seats=("a", "b"), winner=winner, fault_seat=None, fault_reason=None, days=3,
        moves=40, duration=0.1, options={"max_days": 3}, trace=compress_lines([b'{"day":1}', b"[0]"]),
    )


def test_games_are_stored_once_and_read_back(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with Store.open(db) as store:
        tid = store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
        assert store.add_game(tid, record("rr/0.1/0"))
        assert not store.add_game(tid, record("rr/0.1/0", winner=1))  # a replay is ignored
    with Store.open(db) as store:  # reopened: the same tournament, the same games
        assert store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])]) == tid
        assert store.tournament("round-robin", {"players": 3}, [("a", ["x"]), ("b", ["y"])]) != tid
        assert store.played_keys(tid) == {"rr/0.1/0"}
        [game] = store.games(tid, with_blobs=True)
        assert game.winner == 0 and game.trace_lines() == [b'{"day":1}', b"[0]"]
        assert game.options == {"max_days": 3}


@pytest.mark.parametrize(
    "content, message",
    [
        (b"hello, not a database\n" * 10, "not an SQLite database"),
        (b"SQLite format 3\x00" + b"\x00" * 200, "not a usable results database"),
    ],
)
def test_corrupt_files_are_refused_untouched(tmp_path: Path, content: bytes, message: str) -> None:
    db = tmp_path / "x.sqlite"
    db.write_bytes(content)
    with pytest.raises(TournamentError, match=message):
        Store.open(db)
    assert db.read_bytes() == content


def test_foreign_database_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "other.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(TournamentError, match="another program"):
        Store.open(db)
    assert db.read_bytes() == before


def test_incompatible_schema_version_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    Store.open(db).close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(TournamentError, match="schema version 99"):
        Store.open(db)
    assert db.read_bytes() == before


def test_our_bots_resume_under_another_interpreter(tmp_path: Path) -> None:
    """A recreated venv moves `python`; the same command must resume the
    same tournament. A user's own program keeps its exact command."""
    ours = [Entrant("mcts", (f"/{venv}/bin/python", "-P", "-m", "bots.mcts", "--time", "0.5"), None)
            for venv in ("old", "new")]
    theirs = [Entrant("mine", (f"/{venv}/bin/python", "mine.py"), None) for venv in ("old", "new")]
    store = Store.open(tmp_path / "t.sqlite")
    try:
        first = store.tournament("round-robin", {"players": 2}, [ours[0].identity, theirs[0].identity])
        assert store.tournament("round-robin", {"players": 2}, [ours[1].identity, theirs[0].identity]) == first
        assert store.tournament("round-robin", {"players": 2}, [ours[1].identity, theirs[1].identity]) != first
    finally:
        store.close()


def test_round_robin_balances_seats() -> None:
    specs = round_robin(4, 3, games=2)
    assert len(specs) == 4 * 6 * 2  # groups x permutations x games
    assert len({s.key for s in specs}) == len(specs)
    seat_counts = Counter((p, seat) for s in specs for seat, p in enumerate(s.seats))
    assert set(seat_counts.values()) == {12}  # each bot in each seat equally often
    latin = round_robin(4, 4, games=1, mode="latin")
    assert len(latin) == 4 and set(Counter((p, i) for s in latin for i, p in enumerate(s.seats)).values()) == {1}


def test_seatings_and_gauntlet_schedules() -> None:
    assert seatings((0, 1, 2), "latin") == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert len(seatings((0, 1, 2, 3))) == 24
    specs = gauntlet(4, 2, games=3)
    assert all(0 in s.seats for s in specs) and len(specs) == 3 * 2 * 3
    with pytest.raises(ValueError, match="at least 3 bots"):
        round_robin(2, 3, games=1)
