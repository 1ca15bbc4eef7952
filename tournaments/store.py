"""SQLite storage of tournaments and finished games.

The parent process is the only writer; every finished game is committed
on its own, so an interrupted run keeps everything it finished and a
rerun of the same command plays only the missing games (each scheduled
game has a stable key inside its tournament). A file that is not ours,
or is ours from a newer schema version, is refused before anything is
written to it; a file of schema version 1 is migrated in place, in one
transaction, keeping every game.

Schema version 2 keeps per game, beside its result and trace: its status
(`finished`, or `aborted` for a game cut off by a crash or a restart,
which counts for nobody and is replayed by a resumed run), the opening
it started from, the seed its bots were given, the time each answer took
and a digest of its trace (to count distinct games). Version 3 adds the
CPU time each answer cost its bot, beside its wall time (`cpu`).

Creating a file is decided under SQLite's write lock, so two processes
opening the same new file at once agree on who creates it. A file that
cannot be written (read-only file or folder) is still read by `report`,
`list` and `export` (`Store.open(path, readonly=True)`).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import orjson

from tournaments.errors import TournamentError
from tournaments.outcomes import Result

APPLICATION = "economancy-arena"
SCHEMA_VERSION = 3

Status = Literal["finished", "aborted"]
STATUSES: tuple[Status, ...] = ("finished", "aborted")

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    config TEXT NOT NULL,
    created REAL NOT NULL
)""",
    """CREATE TABLE entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    argv TEXT NOT NULL,
    PRIMARY KEY (tournament_id, position)
)""",
    """CREATE TABLE games (
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
    status TEXT NOT NULL DEFAULT 'finished',
    opening TEXT,
    seed INTEGER,
    times BLOB,
    digest TEXT,
    cpu BLOB,
    UNIQUE (tournament_id, key)
)""",
    """CREATE TABLE notes (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (tournament_id, key)
)""",
    """CREATE TABLE ladder_bots (
    name TEXT PRIMARY KEY,
    argv TEXT NOT NULL,
    added REAL NOT NULL
)""",
)

_V2_COLUMNS = (
    ("status", "TEXT NOT NULL DEFAULT 'finished'"),
    ("opening", "TEXT"),
    ("seed", "INTEGER"),
    ("times", "BLOB"),
    ("digest", "TEXT"),
)
"""The game columns version 2 added to version 1 (and how the migration adds them)."""
_V3_COLUMNS = (("cpu", "BLOB"),)
"""The game column version 3 added to version 2."""


@dataclass
class GameRecord:
    """One game, as a worker returns it and the store keeps it.

    `trace`, `stderr` and `times` are zlib-compressed by the worker so the
    parent, which owns the database, does no heavy lifting per game.
    `times` holds the seconds each answer line of the trace took (None for
    the opening's moves, which the referee played), `opening` the moves
    the game started from, `seed` the per-game seed its bots were given,
    `digest` a hash of the trace: equal digests, equal games.
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
    status: Status = "finished"
    opening: tuple[int | str, ...] | None = None
    seed: int | None = None
    times: bytes = b""
    digest: str = ""
    cpu: bytes = b""  # CPU seconds per answer, as `times` (compress_times): None where not known
    id: int | None = None  # games.id once stored (the replay's address)

    @property
    def result(self) -> Result:
        return Result(tuple(self.seats), self.winner, self.fault_seat)

    def trace_lines(self) -> list[bytes]:
        """The trace as the referee wrote it, one JSON value per line."""
        return zlib.decompress(self.trace).splitlines() if self.trace else []

    def answer_times(self) -> list[float | None]:
        """Seconds each answer of the trace took, in trace order ([] if not kept)."""
        return orjson.loads(zlib.decompress(self.times)) if self.times else []

    def answer_cpu(self) -> list[float | None]:
        """CPU seconds each answer of the trace cost its bot, beside `answer_times` ([] if not kept)."""
        return orjson.loads(zlib.decompress(self.cpu)) if self.cpu else []


def compress_lines(lines: Sequence[bytes]) -> bytes:
    """How traces and standard errors are kept: newline-joined, zlib level 6."""
    return zlib.compress(b"\n".join(lines), 6)


def compress_times(times: Sequence[float | None]) -> bytes:
    """Answer times as kept: a JSON array of seconds (microseconds), zlib."""
    return zlib.compress(orjson.dumps([None if t is None else round(t, 6) for t in times]), 6)


def trace_digest(lines: Sequence[bytes]) -> str:
    """What identifies a game's course: the hash of its trace (128 bits, hex),
    the referee's own records (the header, which says how the bots were
    fenced) left out, so that the same game digests the same however run."""
    from driver.game import game_lines

    return hashlib.blake2b(b"\n".join(game_lines(lines)), digest_size=16).hexdigest()


@dataclass(frozen=True)
class TournamentRow:
    id: int
    kind: str
    config: dict[str, Any]
    entrants: list[tuple[str, list[str]]]
    created: float = 0.0


def fingerprint(kind: str, config: dict[str, Any]) -> str:
    """Identity of a tournament: the same command on the same database resumes it."""
    blob = orjson.dumps({"kind": kind, "config": config}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()


class Store:
    """An open results database. Use `Store.open(path)`; close it when done."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, version: int = SCHEMA_VERSION,
                 readonly: bool = False, created: bool = False) -> None:
        self._conn = conn
        self.path = path
        self.version = version
        self.readonly = readonly
        self.created = created  # this Store made the file (see discard_if_unused)

    @classmethod
    def open(cls, path: str | Path, *, readonly: bool = False) -> "Store":
        """Open or create a results database, refusing foreign or incompatible files.

        `readonly` only reads (a file or folder we may not write, a report
        of someone else's results): nothing is created or migrated, and a
        version-1 file is read as it is.
        """
        path = Path(path)
        if path.is_dir():
            raise TournamentError(f"{path} is a directory, not a database file")
        if not readonly:
            _check_safe(path)
        exists = path.exists() and path.stat().st_size > 0
        if exists:
            _check_header(path)
        elif readonly:
            raise TournamentError(f"{path}: no such results database")
        if readonly:
            return _open_readonly(path)
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise TournamentError(
                f"{path}: folder {folder} does not exist (create it first, or choose another --db)"
            )
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise TournamentError(
                f"{path} is read-only here, so no game can be stored in it"
                " (tournament report, list and export can still read it)"
            )
        new_file = not path.exists()
        try:
            conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        except sqlite3.Error as err:
            raise TournamentError(f"{path}: cannot open ({err})") from None
        try:
            created = _when_unlocked(lambda: _prepare(conn, path))
            _when_unlocked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except TournamentError:
            conn.close()
            raise
        except sqlite3.DatabaseError as err:
            conn.close()
            if new_file and path.exists() and path.stat().st_size == 0:
                path.unlink()
            raise TournamentError(f"{path}: not a usable results database ({err})") from None
        conn.text_factory = _strict_text
        return cls(conn, path, created=created and new_file)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def discard_if_unused(self) -> bool:
        """Close, and delete the file if this Store created it and nothing was
        stored in it: a rejected command leaves no empty database behind."""
        unused = (
            self.created
            and not self.readonly
            and self._conn.execute("SELECT count(*) FROM tournaments").fetchone()[0] == 0
            and self._conn.execute("SELECT count(*) FROM ladder_bots").fetchone()[0] == 0
        )
        self.close()
        if unused:
            for suffix in ("", "-wal", "-shm", "-journal"):
                try:
                    os.unlink(f"{self.path}{suffix}")
                except FileNotFoundError:
                    pass
        return unused

    # tournaments -----------------------------------------------------------

    def find_tournament(self, kind: str, config: dict[str, Any],
                        entrants: Sequence[tuple[str, Sequence[str]]]) -> int | None:
        """The id of the tournament with exactly this identity, if stored."""
        fp = fingerprint(kind, _identity(config, entrants))
        row = self._conn.execute("SELECT id FROM tournaments WHERE fingerprint=?", (fp,)).fetchone()
        return int(row[0]) if row else None

    def tournament(
        self, kind: str, config: dict[str, Any], entrants: Sequence[tuple[str, Sequence[str]]]
    ) -> int:
        """The id of the tournament with this identity, created if new."""
        found = self.find_tournament(kind, config, entrants)
        if found is not None:
            return found
        self._writable()
        fp = fingerprint(kind, _identity(config, entrants))
        with self._transaction():  # decided under the write lock: another process may be creating it too
            row = self._conn.execute("SELECT id FROM tournaments WHERE fingerprint=?", (fp,)).fetchone()
            if row:
                return int(row[0])
            cur = self._conn.execute(
                "INSERT INTO tournaments (fingerprint, kind, config, created) VALUES (?,?,?,?)",
                (fp, kind, orjson.dumps(config).decode(), time.time()),
            )
            tid = int(cur.lastrowid)  # type: ignore[arg-type]
            self._conn.executemany(
                "INSERT INTO entrants (tournament_id, position, name, argv) VALUES (?,?,?,?)",
                [(tid, i, n, orjson.dumps(list(a)).decode()) for i, (n, a) in enumerate(entrants)],
            )
        return tid

    def tournaments(self) -> list[TournamentRow]:
        rows = self._conn.execute("SELECT id, kind, CAST(config AS BLOB), created FROM tournaments ORDER BY id")
        out = []
        for tid, kind, config, created in rows.fetchall():
            entrants = [
                (_text(name, "entrants", tid, "name"), _json(argv, "entrants", tid, "argv"))
                for name, argv in self._conn.execute(
                    "SELECT CAST(name AS BLOB), CAST(argv AS BLOB) FROM entrants WHERE tournament_id=?"
                    " ORDER BY position",
                    (tid,),
                )
            ]
            out.append(TournamentRow(int(tid), kind, _json(config, "tournaments", tid, "config"), entrants,
                                     float(created)))
        return out

    def game_counts(self) -> dict[int, dict[str, int]]:
        """Stored games per tournament and status."""
        counts: dict[int, dict[str, int]] = {}
        status = "status" if self.version >= 2 else "'finished'"
        for tid, st, n in self._conn.execute(
            f"SELECT tournament_id, {status}, count(*) FROM games GROUP BY tournament_id, {status}"
        ):
            counts.setdefault(int(tid), {})[st] = int(n)
        return counts

    # games -----------------------------------------------------------------

    def played_keys(self, tournament_id: int) -> set[str]:
        """Keys of the finished games (an aborted game is played again)."""
        status = " AND status='finished'" if self.version >= 2 else ""
        rows = self._conn.execute(f"SELECT key FROM games WHERE tournament_id=?{status}", (tournament_id,))
        return {r[0] for r in rows}

    def add_game(self, tournament_id: int, rec: GameRecord) -> bool:
        """Commit one game at once. False if its key was already stored as
        finished (a replay is ignored); a finished game replaces an aborted one."""
        self._writable()
        if rec.status not in STATUSES:
            raise ValueError(f"a game's status is finished or aborted, not {rec.status!r}")
        values = (
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
            rec.status,
            None if rec.opening is None else orjson.dumps(list(rec.opening)).decode(),
            rec.seed,
            rec.times or None,
            rec.digest or None,
            rec.cpu or None,
        )
        cur = self._conn.execute(
            "INSERT INTO games (tournament_id, key, seats, winner, fault_seat, fault_reason, days, moves,"
            " duration, options, trace, stderr, finished, status, opening, seed, times, digest, cpu)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT (tournament_id, key) DO UPDATE SET seats=excluded.seats, winner=excluded.winner,"
            " fault_seat=excluded.fault_seat, fault_reason=excluded.fault_reason, days=excluded.days,"
            " moves=excluded.moves, duration=excluded.duration, options=excluded.options,"
            " trace=excluded.trace, stderr=excluded.stderr, finished=excluded.finished,"
            " status=excluded.status, opening=excluded.opening, seed=excluded.seed, times=excluded.times,"
            " digest=excluded.digest, cpu=excluded.cpu"
            " WHERE games.status='aborted' AND excluded.status='finished'",
            values,
        )
        return cur.rowcount == 1

    def game_stderr(self, tournament_id: int, key: str) -> tuple[list[str], bytes] | None:
        """Game `key`'s seats and stored (compressed) standard error; None if not stored."""
        row = self._conn.execute("SELECT seats, stderr FROM games WHERE tournament_id=? AND key=?",
                                 (tournament_id, key)).fetchone()
        return None if row is None else (orjson.loads(row[0]), bytes(row[1]))

    def set_game_stderr(self, tournament_id: int, key: str, stderr: bytes) -> None:
        """Replace game `key`'s stored (compressed) standard error."""
        self._writable()
        self._conn.execute("UPDATE games SET stderr=? WHERE tournament_id=? AND key=?", (stderr, tournament_id, key))

    def games(
        self,
        tournament_id: int | None = None,
        *,
        with_blobs: bool = False,
        statuses: Sequence[Status] = ("finished",),
        key: str | None = None,
        last: int | None = None,
    ) -> list[GameRecord]:
        """Stored games in the order they were stored, of one tournament or
        all; finished ones only unless `statuses` says otherwise; only the
        one with `key`, or only the `last` N, if asked.

        A row that cannot be decoded (a damaged file) raises TournamentError
        naming it; nothing is changed.
        """
        v2 = self.version >= 2
        sql, args = self._select(with_blobs), list[int | str]()
        if tournament_id is not None:
            sql += " AND tournament_id=?"
            args.append(tournament_id)
        if key is not None:
            sql += " AND key=?"
            args.append(key)
        if v2:
            sql += f" AND status IN ({','.join('?' * len(statuses))})"
            args += list(statuses)
        elif "finished" not in statuses:
            return []
        if last is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY id DESC LIMIT {int(last)})"
        return [self._record(r, with_blobs) for r in self._conn.execute(sql + " ORDER BY id", args)]

    def game(self, game_id: int) -> GameRecord:
        """One stored game with its trace and standard error, by games.id."""
        row = self._conn.execute(self._select(True) + " AND id=?", (game_id,)).fetchone()
        if row is None:
            raise TournamentError(f"{self.path} has no game {game_id}")
        return self._record(row, True)

    def _select(self, with_blobs: bool) -> str:
        v2 = self.version >= 2
        blobs = "trace, stderr" if with_blobs or not v2 else "x'', x''"
        extra = "status, CAST(opening AS BLOB), seed, times, digest" if v2 else "'finished', NULL, NULL, NULL, NULL"
        extra += ", cpu" if self.version >= 3 else ", NULL"
        return (
            "SELECT id, CAST(key AS BLOB), CAST(seats AS BLOB), winner, fault_seat, CAST(fault_reason AS BLOB),"
            f" days, moves, duration, CAST(options AS BLOB), {blobs}, finished, {extra} FROM games WHERE 1"
        )

    def _record(self, r: Any, with_blobs: bool) -> GameRecord:
        """A row of `_select` as a GameRecord; a damaged value raises TournamentError naming it."""
        gid = r[0]
        trace = bytes(r[10])
        digest = r[17]
        if self.version < 2:
            digest = _digest_of(trace)
            if not with_blobs:
                trace = b""
        return GameRecord(
            key=_text(r[1], "games", gid, "key"),
            seats=tuple(_json(r[2], "games", gid, "seats")),
            winner=r[3],
            fault_seat=r[4],
            fault_reason=None if r[5] is None else _text(r[5], "games", gid, "fault_reason"),
            days=r[6],
            moves=r[7],
            duration=r[8],
            options=_json(r[9], "games", gid, "options"),
            trace=trace,
            stderr=bytes(r[11]),
            finished=r[12],
            status=r[13],
            opening=None if r[14] is None else tuple(_json(r[14], "games", gid, "opening")),
            seed=r[15],
            times=bytes(r[16]) if r[16] is not None else b"",
            digest=digest or "",
            cpu=bytes(r[18]) if r[18] is not None else b"",
            id=gid,
        )

    def iter_results(self, bots: set[str] | None = None) -> Iterator[Result]:
        """Results of every finished game (optionally only those where all seats are in `bots`)."""
        for rec in self.games():
            if bots is None or all(n in bots for n in rec.seats):
                yield rec.result

    def note(self, tournament_id: int, key: str) -> Any:
        """A decision a tournament made once and must keep on resume (a seeding)."""
        row = self._conn.execute(
            "SELECT CAST(value AS BLOB) FROM notes WHERE tournament_id=? AND key=?", (tournament_id, key)
        ).fetchone()
        return _json(row[0], "notes", tournament_id, key) if row else None

    def set_note(self, tournament_id: int, key: str, value: Any) -> None:
        self._writable()
        self._conn.execute(
            "INSERT OR REPLACE INTO notes (tournament_id, key, value) VALUES (?,?,?)",
            (tournament_id, key, orjson.dumps(value).decode()),
        )

    # ladder ----------------------------------------------------------------

    def ladder_bots(self) -> list[tuple[str, list[str]]]:
        rows = self._conn.execute(
            "SELECT CAST(name AS BLOB), CAST(argv AS BLOB) FROM ladder_bots ORDER BY added, name"
        )
        return [(_text(n, "ladder_bots", 0, "name"), _json(a, "ladder_bots", 0, "argv")) for n, a in rows]

    def add_ladder_bot(self, name: str, argv: Sequence[str]) -> None:
        self._writable()
        try:
            self._conn.execute(
                "INSERT INTO ladder_bots (name, argv, added) VALUES (?,?,?)",
                (name, orjson.dumps(list(argv)).decode(), time.time()),
            )
        except sqlite3.IntegrityError:
            raise TournamentError(f"the ladder already has a bot named {name!r}") from None

    def remove_ladder_bot(self, name: str, tournament_id: int) -> str | None:
        """Take `name` out of the ladder's pool. Its games stay, their seats
        renamed `name~K` (the first K free), so that the name can be given
        to another bot without inheriting this one's history; returns that
        name (None if it had played no game)."""
        self._writable()
        with self._transaction():
            cur = self._conn.execute("DELETE FROM ladder_bots WHERE name=?", (name,))
            if cur.rowcount == 0:
                raise TournamentError(f"the ladder has no bot named {name!r}")
            rows = self._conn.execute(
                "SELECT id, CAST(seats AS BLOB) FROM games WHERE tournament_id=?", (tournament_id,)
            ).fetchall()
            games = [(gid, _json(seats, "games", gid, "seats")) for gid, seats in rows]
            mine = [(gid, seats) for gid, seats in games if name in seats]
            if not mine:
                return None
            used = {seat for _, seats in games for seat in seats}
            retired = next(f"{name}~{k}" for k in range(1, len(used) + 2) if f"{name}~{k}" not in used)
            for gid, seats in mine:
                renamed = [retired if seat == name else seat for seat in seats]
                self._conn.execute("UPDATE games SET seats=? WHERE id=?", (orjson.dumps(renamed).decode(), gid))
            return retired

    # internals -------------------------------------------------------------

    def _transaction(self) -> "_Tx":
        return _Tx(self._conn)

    def _writable(self) -> None:
        if self.readonly:
            raise TournamentError(f"{self.path} was opened read-only: nothing can be stored in it")


class _Tx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _identity(config: dict[str, Any], entrants: Sequence[tuple[str, Sequence[str]]]) -> dict[str, Any]:
    return {**config, "entrants": [[n, list(a)] for n, a in entrants]}


_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as f:
            head = f.read(len(_SQLITE_MAGIC))
    except OSError as err:
        raise TournamentError(f"{path}: cannot read ({err.strerror or err})") from None
    if head != _SQLITE_MAGIC:
        raise TournamentError(f"{path} is not an SQLite database; refusing to touch it")


T = TypeVar("T")

def _when_unlocked(step: Callable[[], T], patience: float = 30.0) -> T:
    """`step()`, tried again while another process holds a lock it needs.

    SQLite waits out most locks itself (the connection's busy timeout), but
    not all: switching a new file to WAL needs it to itself, and a reader
    that meets another connection's conversion half done is told "locked"
    at once. Processes that open the same new file together (parallel
    workers, two commands started at once) meet exactly these."""
    deadline = time.monotonic() + patience
    while True:
        try:
            return step()
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _prepare(conn: sqlite3.Connection, path: Path) -> bool:
    """Create the schema in an empty file, or check (and migrate) an existing
    one, under the write lock so that concurrent openers agree. True if
    this call created the schema."""
    tables = _tables(conn)
    if tables:  # the common case: check without taking the write lock
        version = _check_schema(conn, path, tables)
        if version == SCHEMA_VERSION:
            return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        tables = _tables(conn)
        if not tables:
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute("CREATE INDEX games_by_tournament ON games (tournament_id, status)")
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [("application", APPLICATION), ("schema_version", str(SCHEMA_VERSION))],
            )
            created = True
        else:
            version = _check_schema(conn, path, tables)
            if version == 1:
                _migrate_1_to_2(conn)
            if version <= 2:
                _migrate_2_to_3(conn)
            created = False
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return created


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _check_schema(conn: sqlite3.Connection, path: Path, tables: set[str]) -> int:
    """The file's schema version, if we can read it; TournamentError if not ours."""
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
    if version not in [str(v) for v in range(1, SCHEMA_VERSION + 1)]:
        raise TournamentError(
            f"{path} has results schema version {version}, this program reads versions 1 to"
            f" {SCHEMA_VERSION}; use a matching version or another --db"
        )
    return int(version)


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    """Add version 2's game columns and each stored game's trace digest,
    inside the caller's transaction: all of it happens or none of it."""
    for name, decl in _V2_COLUMNS:
        conn.execute(f"ALTER TABLE games ADD COLUMN {name} {decl}")
    rows = conn.execute("SELECT id, trace FROM games").fetchall()
    conn.executemany("UPDATE games SET digest=? WHERE id=?", [(_digest_of(bytes(t)), i) for i, t in rows])
    conn.execute("CREATE INDEX games_by_tournament ON games (tournament_id, status)")
    conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", ("2",))


def _migrate_2_to_3(conn: sqlite3.Connection) -> None:
    """Add version 3's column (answers' CPU times: unknown for games stored before)."""
    for name, decl in _V3_COLUMNS:
        conn.execute(f"ALTER TABLE games ADD COLUMN {name} {decl}")
    conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))


def _digest_of(trace: bytes) -> str | None:
    try:
        return trace_digest(zlib.decompress(trace).splitlines()) if trace else None
    except zlib.error:
        return None


def _check_safe(path: Path) -> None:
    """SQLite opens the database and its -wal, -shm and -journal files by
    name, following links: refuse the files `common.safefile` would
    (a link or a file another user laid where the store goes)."""
    from common.safefile import check_target, error_text

    for name in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        try:
            check_target(name)
        except (FileNotFoundError, NotADirectoryError):
            return  # no folder there: said below, in the store's words
        except OSError as e:
            raise TournamentError(error_text(e, name)) from None


def _open_readonly(path: Path) -> Store:
    """Read a file we may not write. WAL mode needs a shared-memory file
    beside the database; where that cannot be made, read it as immutable
    (nobody may be writing it then, which a read-only file implies)."""
    uri = "file:" + quote(str(path.resolve()))
    last: Exception | None = None
    for mode in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"{uri}?{mode}", uri=True, timeout=30.0, isolation_level=None)
        except sqlite3.Error as err:
            last = err
            continue
        try:
            version = _check_schema(conn, path, _tables(conn))
        except sqlite3.DatabaseError as err:
            conn.close()
            last = err
            continue
        except TournamentError:
            conn.close()
            raise
        conn.text_factory = _strict_text
        return Store(conn, path, version=version, readonly=True)
    raise TournamentError(f"{path}: cannot read it as a results database ({last})")


def _strict_text(data: bytes) -> str:
    return data.decode("utf-8")


def _text(value: Any, table: str, row: Any, column: str) -> str:
    if isinstance(value, str):
        return value
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise _damaged(table, row, column, "is not UTF-8 text") from None


def _json(value: Any, table: str, row: Any, column: str) -> Any:
    text = _text(value, table, row, column)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise _damaged(table, row, column, "is not valid JSON") from None


def _damaged(table: str, row: Any, column: str, what: str) -> TournamentError:
    return TournamentError(
        f"the database is damaged: {table} row {row}, column {column} {what}. Nothing was changed and"
        " every game played is stored; inspect the row with the sqlite3 tool, or play on in another --db"
    )
