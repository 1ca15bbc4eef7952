"""`tournament export`: every stored game as a trace file, and a results table.

Each game becomes one `.jsonl` file holding its trace exactly as the
referee wrote it (the original driver's format: one JSON value per line,
the states sent, the answers, the final state), named from the game's
tournament, key and seats. `games.csv` has one row per game for other
rating tools (Ordo, BayesElo importers, a spreadsheet): the seats, the
result in chess notation for two players (`1-0`, `0-1`, `1/2-1/2`), the
winner's and the forfeiting bot's names, how it ended, its length, seed,
opening and trace file.
"""

from __future__ import annotations

import csv
import io
import re
import zlib
from pathlib import Path

import orjson

from common.safefile import make_dirs, write_file
from tournaments.errors import TournamentError
from tournaments.store import GameRecord, Store

COLUMNS = (
    "tournament", "key", "status", "players", "seat0", "seat1", "seat2", "seat3", "result", "winner",
    "forfeit", "reason", "days", "moves", "seconds", "seed", "opening", "trace",
)

_UNSAFE = re.compile(r"[^A-Za-z0-9._+#=-]+")


def file_name(tournament_id: int, rec: GameRecord) -> str:
    """`t1_rr-0.1-3_alpha-vs-beta.jsonl`: unique per game, safe on any file system."""
    key = _UNSAFE.sub("_", rec.key.replace("/", "-"))
    seats = "-vs-".join(_UNSAFE.sub("_", s).strip("_") or "bot" for s in rec.seats)
    return f"t{tournament_id}_{key}_{seats[:150]}.jsonl"


def result_text(rec: GameRecord) -> str:
    """1-0 / 0-1 / 1/2-1/2 for two players (a forfeit loses); the winner's
    name, or "draw", for more."""
    two = len(rec.seats) == 2
    if rec.fault_seat is not None:
        return ("0-1" if rec.fault_seat == 0 else "1-0") if two else f"{rec.seats[rec.fault_seat]} forfeits"
    if rec.winner is None:
        return "1/2-1/2" if two else "draw"
    return ("1-0" if rec.winner == 0 else "0-1") if two else rec.seats[rec.winner]


def export(store: Store, out: Path, tournament_id: int | None = None) -> int:
    """Write the traces and games.csv into `out` (made if missing; its parent
    must exist). Returns the number of games written."""
    ids = {t.id for t in store.tournaments()}
    if tournament_id is not None and tournament_id not in ids:
        raise TournamentError(f"{store.path} has no tournament {tournament_id}")
    if out.exists() and not out.is_dir():
        raise TournamentError(f"{out} is a file, not a folder")
    if not out.parent.is_dir():
        raise TournamentError(f"{out.parent} does not exist (create it first)")
    if (out / "games.csv").exists():
        raise TournamentError(f"{out} already holds an export (games.csv); choose another -o")
    chosen = sorted(ids) if tournament_id is None else [tournament_id]
    make_dirs(out)
    rows = []
    for tid in chosen:
        for rec in store.games(tid, with_blobs=True, statuses=("finished", "aborted")):
            name = file_name(tid, rec)
            try:
                lines = rec.trace_lines()
            except zlib.error:
                raise TournamentError(f"the trace of game {rec.key} of tournament {tid} is damaged") from None
            write_file(out / name, b"".join(line + b"\n" for line in lines))
            seats = list(rec.seats) + [""] * (4 - len(rec.seats))
            rows.append({
                "tournament": tid, "key": rec.key, "status": rec.status, "players": len(rec.seats),
                **{f"seat{i}": s for i, s in enumerate(seats)},
                "result": result_text(rec) if rec.status == "finished" else "*",
                "winner": rec.seats[rec.winner] if rec.winner is not None else "",
                "forfeit": rec.seats[rec.fault_seat] if rec.fault_seat is not None else "",
                "reason": rec.fault_reason or "", "days": rec.days, "moves": rec.moves,
                "seconds": round(rec.duration, 3), "seed": "" if rec.seed is None else rec.seed,
                "opening": "" if rec.opening is None else orjson.dumps(list(rec.opening)).decode(),
                "trace": name,
            })
    table = io.StringIO(newline="")
    writer = csv.DictWriter(table, COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    write_file(out / "games.csv", table.getvalue())
    return len(rows)
