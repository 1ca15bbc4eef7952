"""SQLite storage of tournaments and finished games.

The parent process is the only writer; every finished game is committed
on its own, so an interrupted run keeps everything it finished and a
rerun of the same command plays only the missing games (each scheduled
game has a stable key inside its tournament). A file that is not ours,
or is ours from another schema version, is refused before anything is
written to it.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tournaments.errors import TournamentError
from tournaments.outcomes import Result

APPLICATION = "economancy-arena"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    config TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    argv TEXT NOT NULL,
    PRIMARY KEY (tournament_id, position)
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    key TEXT NOT NULL,
    seats TEXT NOT NULL,
    winner INTEGER,
    fault_seat INTEGER,
    fault_reason TEXT,
    days INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    duration REAL NOT NULL,
    options TEXT NOT NULL,
    trace BLOB NOT NULL,
    stderr BLOB NOT NULL,
    finished REAL NOT NULL,
    UNIQUE (tournament_id, key)
);
CREATE TABLE notes (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (tournament_id, key)
);
CREATE TABLE ladder_bots (
    name TEXT PRIMARY KEY,
    argv TEXT NOT NULL,
    added REAL NOT NULL
);
"""


@dataclass
class GameRecord:
    """One finished game, as a worker returns it and the store keeps it.

    `trace` and `stderr` are zlib-compressed by the worker so the parent,
    which owns the database, does no heavy lifting per game.
    """

    key: str
    seats: tuple[str, ...]
    winner: int | None
    fault_seat: int | None
    fault_reason: str | None
    days: int
    moves: int
    duration: float
    options: dict[str, Any]
    trace: bytes = b""
    stderr: bytes = b""
    finished: float = field(default_factory=time.time)
    id: int | None = None  # games.id once stored (the replay's address)

    @property
    def result(self) -> Result:
        return Result(tuple(self.seats), self.winner, self.fault_seat)

    def trace_lines(self) -> list[bytes]:
        """The trace as the referee wrote it, one JSON value per line."""
        return zlib.decompress(self.trace).splitlines() if self.trace else []


def compress_lines(lines: Sequence[bytes]) -> bytes:
    """How traces and standard errors are kept: newline-joined, zlib level 6."""
    return zlib.compress(b"\n".join(lines), 6)


@dataclass(frozen=True)
class TournamentRow:
    id: int
    kind: str
    config: dict[str, Any]
    entrants: list[tuple[str, list[str]]]


def fingerprint(kind: str, config: dict[str, Any]) -> str:
    """Identity of a tournament: the same command on the same database resumes it."""
    blob = orjson.dumps({"kind": kind, "config": config}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()


class Store:
    """An open results database. Use `Store.open(path)`; close it when done."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> "Store":
        """Open or create a results database, refusing foreign or incompatible files."""
        path = Path(path)
        if path.is_dir():
            raise TournamentError(f"{path} is a directory, not a database file")
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            _check_header(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            if fresh:
                _create(conn)
            else:
                _check_schema(conn, path)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as err:
            raise TournamentError(f"{path}: not a usable results database ({err})") from None
        return cls(conn, path)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # tournaments -----------------------------------------------------------

    def tournament(
        self, kind: str, config: dict[str, Any], entrants: Sequence[tuple[str, Sequence[str]]]
    ) -> int:
        """The id of the tournament with this identity, created if new."""
        fp = fingerprint(kind, {**config, "entrants": [[n, list(a)] for n, a in entrants]})
        row = self._conn.execute("SELECT id FROM tournaments WHERE fingerprint=?", (fp,)).fetchone()
        if row:
            return int(row[0])
        with self._transaction():
            cur = self._conn.execute(
                "INSERT INTO tournaments (fingerprint, kind, config, created) VALUES (?,?,?,?)",
                (fp, kind, orjson.dumps(config).decode(), time.time()),
            )
            tid = int(cur.lastrowid)
            self._conn.executemany(
                "INSERT INTO entrants (tournament_id, position, name, argv) VALUES (?,?,?,?)",
                [(tid, i, n, orjson.dumps(list(a)).decode()) for i, (n, a) in enumerate(entrants)],
            )
        return tid

    def tournaments(self) -> list[TournamentRow]:
        rows = self._conn.execute("SELECT id, kind, config FROM tournaments ORDER BY id").fetchall()
        return [
            TournamentRow(
                int(tid),
                kind,
                orjson.loads(config),
                [
                    (name, orjson.loads(argv))
                    for name, argv in self._conn.execute(
                        "SELECT name, argv FROM entrants WHERE tournament_id=? ORDER BY position",
                        (tid,),
                    )
                ],
            )
            for tid, kind, config in rows
        ]

    # games -----------------------------------------------------------------

    def played_keys(self, tournament_id: int) -> set[str]:
        rows = self._conn.execute("SELECT key FROM games WHERE tournament_id=?", (tournament_id,))
        return {r[0] for r in rows}

    def add_game(self, tournament_id: int, rec: GameRecord) -> bool:
        """Commit one finished game at once. False if its key was already stored."""
        cur = self._conn.execute(
            "INSERT OR IGNORE INTO games (tournament_id, key, seats, winner, fault_seat,"
            " fault_reason, days, moves, duration, options, trace, stderr, finished)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                tournament_id,
                rec.key,
                orjson.dumps(list(rec.seats)).decode(),
                rec.winner,
                rec.fault_seat,
                rec.fault_reason,
                rec.days,
                rec.moves,
                rec.duration,
                orjson.dumps(rec.options).decode(),
                rec.trace,
                rec.stderr,
                rec.finished,
            ),
        )
        return cur.rowcount == 1

    def games(
        self, tournament_id: int | None = None, *, with_blobs: bool = False, key: str | None = None,
        last: int | None = None,
    ) -> list[GameRecord]:
        """Stored games in the order they finished, of one tournament or all;
        only the one with `key`, or only the `last` N, if asked."""
        blobs = "trace, stderr" if with_blobs else "x'', x''"
        sql = (
            f"SELECT key, seats, winner, fault_seat, fault_reason, days, moves, duration,"
            f" options, {blobs}, finished, id FROM games"
        )
        where, args = [], []
        if tournament_id is not None:
            where.append("tournament_id=?")
            args.append(tournament_id)
        if key is not None:
            where.append("key=?")
            args.append(key)
        if where:
            sql += " WHERE " + " AND ".join(where)
        if last is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY id DESC LIMIT {int(last)}) ORDER BY id"
            return self._records(self._conn.execute(sql, args))
        return self._records(self._conn.execute(sql + " ORDER BY id", args))

    def game(self, game_id: int) -> GameRecord:
        """One stored game with its trace and standard error, by games.id."""
        rows = self._records(self._conn.execute(
            "SELECT key, seats, winner, fault_seat, fault_reason, days, moves, duration,"
            " options, trace, stderr, finished, id FROM games WHERE id=?", (game_id,)))
        if not rows:
            raise TournamentError(f"{self.path} has no game {game_id}")
        return rows[0]

    @staticmethod
    def _records(rows: Iterator[Any]) -> list[GameRecord]:
        return [
            GameRecord(
                key=r[0],
                seats=tuple(orjson.loads(r[1])),
                winner=r[2],
                fault_seat=r[3],
                fault_reason=r[4],
                days=r[5],
                moves=r[6],
                duration=r[7],
                options=orjson.loads(r[8]),
                trace=bytes(r[9]),
                stderr=bytes(r[10]),
                finished=r[11],
                id=r[12],
            )
            for r in rows
        ]

    def iter_results(self, bots: set[str] | None = None) -> Iterator[Result]:
        """Results of every stored game (optionally only those where all seats are in `bots`)."""
        for seats, winner, fault_seat in self._conn.execute(
            "SELECT seats, winner, fault_seat FROM games ORDER BY id"
        ):
            names = tuple(orjson.loads(seats))
            if bots is None or all(n in bots for n in names):
                yield Result(names, winner, fault_seat)

    def note(self, tournament_id: int, key: str) -> Any:
        """A decision a tournament made once and must keep on resume (a seeding)."""
        row = self._conn.execute(
            "SELECT value FROM notes WHERE tournament_id=? AND key=?", (tournament_id, key)
        ).fetchone()
        return orjson.loads(row[0]) if row else None

    def set_note(self, tournament_id: int, key: str, value: Any) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO notes (tournament_id, key, value) VALUES (?,?,?)",
            (tournament_id, key, orjson.dumps(value).decode()),
        )

    # ladder ----------------------------------------------------------------

    def ladder_bots(self) -> list[tuple[str, list[str]]]:
        rows = self._conn.execute("SELECT name, argv FROM ladder_bots ORDER BY added, name")
        return [(n, orjson.loads(a)) for n, a in rows]

    def add_ladder_bot(self, name: str, argv: Sequence[str]) -> None:
        try:
            self._conn.execute(
                "INSERT INTO ladder_bots (name, argv, added) VALUES (?,?,?)",
                (name, orjson.dumps(list(argv)).decode(), time.time()),
            )
        except sqlite3.IntegrityError:
            raise TournamentError(f"the ladder already has a bot named {name!r}") from None

    def remove_ladder_bot(self, name: str) -> None:
        cur = self._conn.execute("DELETE FROM ladder_bots WHERE name=?", (name,))
        if cur.rowcount == 0:
            raise TournamentError(f"the ladder has no bot named {name!r}")

    # internals -------------------------------------------------------------

    def _transaction(self) -> "_Tx":
        return _Tx(self._conn)


class _Tx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_header(path: Path) -> None:
    with path.open("rb") as f:
        head = f.read(len(_SQLITE_MAGIC))
    if head != _SQLITE_MAGIC:
        raise TournamentError(f"{path} is not an SQLite database; refusing to touch it")


def _create(conn: sqlite3.Connection) -> None:
    conn.executescript(
        "BEGIN IMMEDIATE;"
        + _SCHEMA
        + f"INSERT INTO meta VALUES ('application', '{APPLICATION}');"
        + f"INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');"
        + "COMMIT;"
    )


def _check_schema(conn: sqlite3.Connection, path: Path) -> None:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables:
        raise TournamentError(
            f"{path} is an SQLite database of another program (no meta table); refusing to touch it"
        )
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("application") != APPLICATION:
        raise TournamentError(
            f"{path} belongs to {meta.get('application')!r}, not {APPLICATION}; refusing to touch it"
        )
    version = meta.get("schema_version")
    if version != str(SCHEMA_VERSION):
        raise TournamentError(
            f"{path} has results schema version {version}, this program reads version"
            f" {SCHEMA_VERSION}; use a matching version or another --db"
        )
