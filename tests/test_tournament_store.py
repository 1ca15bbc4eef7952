"""The results database: schema checks, foreign files, resume keys, schedules."""

from __future__ import annotations

import sqlite3
import zlib
from collections import Counter
from pathlib import Path

import pytest

from tournaments.entrants import Entrant
from tournaments.errors import TournamentError
from tournaments.schedule import gauntlet, round_robin, seatings
from tournaments.store import GameRecord, Store, compress_lines, compress_times, trace_digest


def record(key: str, winner: int | None = 0) -> GameRecord:
    return GameRecord(
        key=key, seats=("a", "b"), winner=winner, fault_seat=None, fault_reason=None, days=3,
        moves=40, duration=0.1, options={"max_days": 3}, trace=compress_lines([b'{"day":1}', b"[0]"]),
    )


def test_each_answers_cpu_time_is_kept_beside_its_wall_time(tmp_path: Path) -> None:
    with Store.open(tmp_path / "c.sqlite") as store:
        tid = store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
        rec = record("rr/0.1/0")
        rec.times, rec.cpu = compress_times([0.25, None]), compress_times([0.125, None])
        store.add_game(tid, rec)
        (back,) = store.games(with_blobs=True)
        assert back.answer_times() == [0.25, None] and back.answer_cpu() == [0.125, None]


def test_the_digest_of_a_trace_ignores_the_referees_header() -> None:
    game = [b'{"day":1}', b"[0]"]
    header = b'{"env":[[]],"isolation":["x"],"limits":[null],"meta":"header"}'
    assert trace_digest([header, *game]) == trace_digest(game) != trace_digest([b'{"day":2}', b"[0]"])


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


_V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tournaments (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    config TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE entrants (tournament_id INTEGER NOT NULL REFERENCES tournaments(id), position INTEGER NOT NULL,
    name TEXT NOT NULL, argv TEXT NOT NULL, PRIMARY KEY (tournament_id, position));
CREATE TABLE games (id INTEGER PRIMARY KEY, tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    key TEXT NOT NULL, seats TEXT NOT NULL, winner INTEGER, fault_seat INTEGER, fault_reason TEXT,
    days INTEGER NOT NULL, moves INTEGER NOT NULL, duration REAL NOT NULL, options TEXT NOT NULL,
    trace BLOB NOT NULL, stderr BLOB NOT NULL, finished REAL NOT NULL, UNIQUE (tournament_id, key));
CREATE TABLE notes (tournament_id INTEGER NOT NULL REFERENCES tournaments(id), key TEXT NOT NULL,
    value TEXT NOT NULL, PRIMARY KEY (tournament_id, key));
CREATE TABLE ladder_bots (name TEXT PRIMARY KEY, argv TEXT NOT NULL, added REAL NOT NULL);
INSERT INTO meta VALUES ('application', 'economancy-arena');
INSERT INTO meta VALUES ('schema_version', '1');
"""


def _v1_file(db: Path, games: int = 3) -> None:
    """A results file exactly as version 1 wrote it, with `games` games."""
    conn = sqlite3.connect(db)
    conn.executescript(_V1_SCHEMA)
    conn.execute("INSERT INTO tournaments VALUES (1, 'fp', 'round-robin', '{\"players\": 2}', 0)")
    conn.executemany("INSERT INTO entrants VALUES (1, ?, ?, '[\"x\"]')", [(0, "a"), (1, "b")])
    for i in range(games):
        conn.execute(
            "INSERT INTO games (tournament_id, key, seats, winner, fault_seat, fault_reason, days, moves, duration,"
            " options, trace, stderr, finished) VALUES (1, ?, '[\"a\",\"b\"]', ?, NULL, NULL, 3, 40, 0.1,"
            " '{\"max_days\": 3}', ?, ?, ?)",
            (f"rr/0.1/{i}", i % 2, compress_lines([b'{"day":1}', b"[%d]" % (i % 2)]), compress_lines([]), float(i)),
        )
    conn.commit()
    conn.close()


def test_a_version_1_file_is_migrated_in_place_keeping_every_game(tmp_path: Path) -> None:
    db = tmp_path / "v1.sqlite"
    _v1_file(db)
    with Store.open(db) as store:
        games = store.games(with_blobs=True)
        assert [g.key for g in games] == ["rr/0.1/0", "rr/0.1/1", "rr/0.1/2"]
        assert [g.winner for g in games] == [0, 1, 0] and all(g.status == "finished" for g in games)
        assert games[0].trace_lines() == [b'{"day":1}', b"[0]"]
        # The digest of each trace was computed: equal traces, equal digests.
        assert games[0].digest == games[2].digest != games[1].digest and len(games[0].digest) == 32
        assert store.played_keys(1) == {"rr/0.1/0", "rr/0.1/1", "rr/0.1/2"}
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("3",)
    with Store.open(db) as store:  # games stored before version 3 have no CPU times
        assert store.games(with_blobs=True)[0].answer_cpu() == []


def test_a_read_only_store_reads_a_version_1_file_without_changing_it(tmp_path: Path) -> None:
    db = tmp_path / "v1.sqlite"
    _v1_file(db, games=2)
    before = db.read_bytes()
    with Store.open(db, readonly=True) as store:
        assert store.version == 1 and [g.winner for g in store.games()] == [0, 1]
        assert store.games()[0].digest and store.tournaments()[0].entrants == [("a", ["x"]), ("b", ["x"])]
        with pytest.raises(TournamentError, match="read-only"):
            store.add_game(1, record("rr/0.1/9"))
    assert db.read_bytes() == before


def _open_at_once(db: str, barrier: object, errors: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    try:
        with Store.open(db) as store:
            store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
    except Exception as err:  # reported to the parent
        errors.put(f"{type(err).__name__}: {err}")  # type: ignore[attr-defined]


def test_processes_creating_the_same_new_file_at_once_agree(tmp_path: Path) -> None:
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for attempt in range(5):
        db = tmp_path / f"new{attempt}.sqlite"
        barrier, errors = ctx.Barrier(6), ctx.Queue()
        procs = [ctx.Process(target=_open_at_once, args=(str(db), barrier, errors)) for _ in range(6)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        problems = [errors.get() for _ in range(errors.qsize())] if not errors.empty() else []
        assert problems == [] and all(p.exitcode == 0 for p in procs)
        with Store.open(db) as store:
            assert len(store.tournaments()) == 1


def test_a_damaged_row_is_named_and_nothing_is_changed(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with Store.open(db) as store:
        tid = store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
        store.add_game(tid, record("rr/0.1/0"))
        store.add_game(tid, record("rr/0.1/1"))
    conn = sqlite3.connect(db)
    conn.execute("UPDATE games SET options=CAST(x'ff7b7d' AS TEXT) WHERE key='rr/0.1/1'")
    conn.commit()
    conn.close()
    with Store.open(db) as store:
        assert store.played_keys(tid) == {"rr/0.1/0", "rr/0.1/1"}  # resuming still knows what is stored
        with pytest.raises(TournamentError, match=r"games row 2, column options is not UTF-8.*Nothing was changed"):
            store.games(tid)
    assert sqlite3.connect(db).execute("SELECT count(*) FROM games").fetchone() == (2,)


def test_aborted_games_count_for_nobody_and_are_replayed(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
        aborted = record("rr/0.1/0", winner=None)
        aborted.status = "aborted"
        assert store.add_game(tid, aborted)
        assert store.played_keys(tid) == set() and store.games(tid) == [] and list(store.iter_results()) == []
        assert [g.status for g in store.games(tid, statuses=("finished", "aborted"))] == ["aborted"]
        assert store.add_game(tid, record("rr/0.1/0", winner=1))  # the replay replaces it
        assert not store.add_game(tid, record("rr/0.1/0", winner=0))  # a finished game stays
        [game] = store.games(tid)
        assert game.winner == 1 and game.status == "finished"
        assert store.game_counts() == {tid: {"finished": 1}}


def test_new_columns_round_trip(tmp_path: Path) -> None:
    from tournaments.store import compress_times, trace_digest

    rec = record("rr/0.1/0")
    rec.opening, rec.seed, rec.times = (1, 0, "Worker", "Pass"), 12345, compress_times([None, 0.0123456789, 2.5])
    rec.digest = trace_digest([b"x"])
    with Store.open(tmp_path / "r.sqlite") as store:
        tid = store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
        store.add_game(tid, rec)
        [game] = store.games(tid)
    assert game.opening == (1, 0, "Worker", "Pass") and game.seed == 12345 and game.digest == rec.digest
    assert game.answer_times() == [None, 0.012346, 2.5]


def test_a_missing_folder_is_not_created_and_an_unused_new_file_is_removed(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="does not exist"):
        Store.open(tmp_path / "nope" / "r.sqlite")
    assert not (tmp_path / "nope").exists()
    store = Store.open(tmp_path / "r.sqlite")
    assert store.discard_if_unused() and not list(tmp_path.iterdir())
    Store.open(tmp_path / "kept.sqlite").close()
    assert not Store.open(tmp_path / "kept.sqlite").discard_if_unused()  # not made by this Store
    assert (tmp_path / "kept.sqlite").exists()


def test_the_trace_header_is_not_part_of_a_games_course() -> None:
    from tournaments.store import trace_digest

    course = [b'{"day":1}', b"[0]"]
    assert trace_digest([b'{"meta":"header","seats":["a","b"]}', *course]) == trace_digest(course)
    assert trace_digest([b'{"meta":"header","seats":["b","a"]}', *course]) == trace_digest(course)


def test_a_late_stderr_tail_that_comes_before_its_game_is_stored_waits_for_it(tmp_path: Path) -> None:
    # A worker starts its next game, and sends the kept bot's late lines of
    # the last one, as soon as it has handed that game's result over: the
    # tail can reach this process before the game is stored.
    from tournaments.runner import store_tails

    with Store.open(tmp_path / "t.sqlite") as store:
        tid = store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
        early = (tid, "rr/0.1/0", 1, b"after game 1\n")
        assert store_tails(store, [early]) == [early]  # its game is not stored yet: kept, not dropped
        rec = record("rr/0.1/0")
        rec.stderr = compress_lines([b"== b ==", b"in game 1"])
        store.add_game(tid, rec)
        assert store_tails(store, [early]) == []
        names, stderr = store.game_stderr(tid, "rr/0.1/0")
        assert b"after game 1" in zlib.decompress(stderr)
