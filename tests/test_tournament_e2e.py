"""End to end with real bot processes: faults, bad input, resume, formats."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest


from tournaments import PlayOptions, TournamentError, elimination, gauntlet, round_robin, sprt
from tournaments.html_report import report
from tournaments.store import Store

BOTS = Path(__file__).parent / "bots_tournament"
PASSIVE, CRASH, HANG = (str(BOTS / f) for f in ("passive.py", "crash.py", "hang.py"))


def cli(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()", *args],
        capture_output=True, text=True, timeout=120, **kw,  # type: ignore[arg-type]
    )


def test_crashing_and_hanging_bots_forfeit_and_the_tournament_goes_on(tmp_path: Path) -> None:
    res = round_robin(
        [f"passive={PASSIVE}", f"crash={CRASH}", f"hang={HANG}"],
        games=1, db=tmp_path / "r.sqlite", concurrency=2,
        options=PlayOptions(max_days=3, timeout=1.0),
    )
    rec = res.standings.records
    assert res.standings.games == res.played_now == 6
    assert (rec["passive"].wins, rec["passive"].forfeits) == (4, 0)
    # Against each other the first seat to misbehave forfeits: one game each.
    assert (rec["crash"].forfeits, rec["crash"].wins) == (3, 1)
    assert (rec["hang"].forfeits, rec["hang"].wins) == (3, 1)
    assert set(res.standings.forfeit_reasons["hang"]) == {"timeout"}
    assert "status 3" in next(iter(res.standings.forfeit_reasons["crash"]))
    assert res.standings.names[0] == "passive"
    conn = sqlite3.connect(tmp_path / "r.sqlite")
    rows = conn.execute("SELECT fault_seat, fault_reason, length(trace) FROM games").fetchall()
    assert sum(1 for f, why, n in rows if f is not None and why) == 6 and all(n > 0 for *_, n in rows)


def test_bad_bots_and_fields_fail_before_any_game(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    out = cli("round-robin", PASSIVE, str(tmp_path / "nope.py"), "--db", str(db))
    assert out.returncode == 2 and "bot 2" in out.stderr and "does not exist" in out.stderr
    plain = tmp_path / "plain.py"
    plain.write_text("print('hi')\n")
    out = cli("round-robin", PASSIVE, str(plain), "--db", str(db))
    assert out.returncode == 2 and "not executable" in out.stderr
    out = cli("round-robin", PASSIVE, PASSIVE, "--players", "3", "--db", str(db))
    assert out.returncode == 2 and "at least 3 bots" in out.stderr
    assert not db.exists()


def test_corrupt_database_is_refused_and_kept(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    db.write_bytes(b"my thesis, not a database\n")
    out = cli("round-robin", PASSIVE, PASSIVE, "--db", str(db))
    assert out.returncode == 2 and "not an SQLite database" in out.stderr
    assert db.read_bytes() == b"my thesis, not a database\n"


def _stored(db: Path) -> dict[str, float]:
    try:
        conn = sqlite3.connect(db, timeout=5)
        try:
            return dict(conn.execute("SELECT key, finished FROM games").fetchall())
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return {}


def _descendants(root: int) -> set[int]:
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent[int(entry)] = int(stat[stat.rfind(")") + 2 :].split()[1])
    found, stack = set(), [root]
    while stack:
        p = stack.pop()
        kids = {c for c, pp in parent.items() if pp == p} - found
        found |= kids
        stack.extend(kids)
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def _start_cli(args: list[str]) -> subprocess.Popen[str]:
    """The tournament CLI in a process group of its own, as from a terminal."""
    # A terminal's Ctrl-C reaches a program whose SIGINT is at its default.
    # This test may itself run in the background of a script, where the
    # shell has set SIGINT to ignored and every child inherits that, so the
    # child restores the default before the CLI starts.
    main = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from arena.cli import tournament_main; tournament_main()")
    return subprocess.Popen(
        [sys.executable, "-c", main, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def _run_until(args: list[str], db: Path, n: int, sig: int) -> tuple[int, str, set[int]]:
    """Run the CLI until `n` games are stored, then send `sig` (SIGINT to the
    process group, as a terminal's Ctrl-C does; anything else to the parent
    only). Returns the exit status, stderr and the processes left after 5 s."""
    proc = _start_cli(args)
    deadline = time.monotonic() + 60
    while len(_stored(db)) < n and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    family = _descendants(proc.pid)
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    deadline = time.monotonic() + 5
    while any(map(_alive, family)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc.returncode, err, set(filter(_alive, family))


def test_interrupt_and_kill_lose_no_game_and_resume_plays_only_the_rest(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    per_seating = 4
    total = 3 * 2 * per_seating
    args = ["round-robin", PASSIVE, PASSIVE, PASSIVE, "--games", str(per_seating), "--max-days", "40", "--db", str(db),
            "-j", "2"]
    code, err, left = _run_until(args, db, 3, signal.SIGINT)
    first = _stored(db)
    assert code == 130 and "resume" in err and not left
    assert 3 <= len(first) < total
    code, _, left = _run_until(args, db, len(first) + 3, signal.SIGKILL)
    second = _stored(db)
    assert code == -signal.SIGKILL and not left  # workers and bots died with the parent
    assert len(second) < total and all(second[k] == first[k] for k in first)  # nothing lost or replayed
    out = cli(*args, "--json")
    assert out.returncode == 0, out.stderr
    final = _stored(db)
    assert len(final) == total and all(final[k] == second[k] for k in second)
    import orjson

    report = orjson.loads(out.stdout)
    assert report["played_now"] == total - len(second) and report["games"] == total


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_stopping_abandons_the_games_in_flight_at_once(tmp_path: Path, sig: int) -> None:
    """Both games in flight would end only at the 60 s timeout of the bot
    that never answers: stopping must not wait for them, nor leave a
    worker or a bot behind. SIGTERM goes to the parent alone, SIGINT to the
    whole process group as a terminal's Ctrl-C."""
    db = tmp_path / "h.sqlite"
    proc = _start_cli(["round-robin", HANG, PASSIVE, "--games", "1", "--timeout", "60", "--db", str(db), "-j", "2"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        family = _descendants(proc.pid)
        # Each bot runs under an init whose command line shows the bot's too.
        if sum("hang.py" in c and "botinit" not in c for c in map(_cmdline, family)) == 2:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the two games never started")
    asked = time.monotonic()
    os.killpg(proc.pid, sig) if sig == signal.SIGINT else os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=90)
    took = time.monotonic() - asked
    assert proc.returncode == 130 and "resume" in err, err
    assert took < 30, f"stopping waited {took:.0f} s for the games in flight"
    deadline = time.monotonic() + 5
    while any(map(_alive, family)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(filter(_alive, family))
    assert _stored(db) == {}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_elimination_with_four_player_tables_byes_and_resume(tmp_path: Path) -> None:
    bots = [f"p{i}={PASSIVE}" for i in range(4)] + ["r=random"]
    kw = dict(players=4, games=1, seatings="latin", db=tmp_path / "e.sqlite", concurrency=2,
              options=PlayOptions(max_days=3))
    shown: list[str] = []
    res = elimination(bots, echo=shown.append, **kw)  # type: ignore[arg-type]
    d = res.details
    assert d["seeding_from"] == "seeding round"
    first_round = d["bracket"][0]
    assert [len(t["bots"]) for t in first_round] == [1, 1, 1, 2]  # seeds 1-3 have byes
    assert d["bracket"][1][0]["bots"] and len(d["bracket"][1][0]["bots"]) == 4
    assert d["champion"] == d["bracket"][1][0]["winner"]
    # seeding: 5 tables x 4 seatings; round 1: 1 table x 2; final: 4
    assert res.played_now == 20 + 2 + 4
    assert any("Final" in s for s in shown)
    again = elimination(bots, **kw)  # type: ignore[arg-type]
    assert again.played_now == 0 and again.details["champion"] == d["champion"]
    # The report rebuilds the bracket from the database: the same champion.
    with Store.open(kw["db"]) as store:  # type: ignore[arg-type]
        page = report(store, res.tournament_id)
    assert f"Champion: <b>{d['champion']}</b>" in page and "id=bracket" in page
    # Another seed is another tournament: refused, saying how it differs, unless asked for.
    with pytest.raises(TournamentError, match="seed 0 there, 1 here.*--new"):
        elimination(bots, seed=1, **kw)  # type: ignore[arg-type]
    reseeded = elimination(bots, seed=1, new=True, **kw)  # type: ignore[arg-type]
    assert reseeded.details["seeding_from"] == "stored ratings"
    assert reseeded.played_now == 6


def test_sprt_stops_when_decided_and_resumes_decided(tmp_path: Path) -> None:
    # --elo1 300: decided in about half the games it takes at 100 (each game starts a bot that crashes).
    kw = dict(elo0=0.0, elo1=300.0, db=tmp_path / "s.sqlite", concurrency=2, options=PlayOptions(max_days=2),
              max_games=400)
    res = sprt(PASSIVE, CRASH, **kw)  # type: ignore[arg-type]
    s = res.details["sprt"]
    assert s["decision"] == "H1" and s["llr"] >= s["upper"]
    assert s["pentanomial"][4] == s["pairs"] and res.played_now < 60
    # Games in flight at the decision are stored and counted: a rerun agrees.
    assert s["pairs"] == res.standings.games // 2
    again = sprt(PASSIVE, CRASH, **kw)  # type: ignore[arg-type]
    assert again.played_now == 0 and again.details["sprt"]["pentanomial"] == s["pentanomial"]
    # The report says what the test said: the same LLR, counts and decision.
    with Store.open(kw["db"]) as store:  # type: ignore[arg-type]
        page = report(store)
    assert f"LLR {s['llr']:.3f}" in page and "H1 accepted" in page
    assert f"pentanomial [LL, LD, DD/WL, WD, WW] = {s['pentanomial']}" in page


@pytest.mark.parametrize(("bounds", "message"), [
    (dict(elo0=5.0, elo1=0.0), "--elo0 must be below --elo1"),
    (dict(elo0=0.0, elo1=5.0, alpha=0.5), "--alpha and --beta must be between 0 and 0.5"),
])
def test_an_sprt_that_cannot_decide_is_refused_before_anything_starts(tmp_path: Path, bounds: dict,
                                                                     message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sprt(PASSIVE, CRASH, db=tmp_path / "s.sqlite", **bounds)
    assert not (tmp_path / "s.sqlite").exists()


def test_gauntlet_puts_the_challenger_at_every_table(tmp_path: Path) -> None:
    res = gauntlet("random", [PASSIVE, PASSIVE, PASSIVE], players=3, games=1, seatings="latin",
                   db=tmp_path / "g.sqlite", options=PlayOptions(max_days=3))
    conn = sqlite3.connect(tmp_path / "g.sqlite")
    seats = [row[0] for row in conn.execute("SELECT seats FROM games")]
    assert len(seats) == 3 * 3 and all('"random"' in s for s in seats)
    assert res.standings.records["random"].games == 9


def test_an_early_ctrl_c_prints_no_worker_traceback(tmp_path: Path) -> None:
    """Ctrl-C while the workers are still starting (importing, before they
    leave SIGINT to the parent) stops the run quietly: no worker traceback."""
    db = tmp_path / "c.sqlite"
    proc = _start_cli(["round-robin", PASSIVE, PASSIVE, "--games", "4", "--max-days", "40", "--db", str(db), "-j", "2"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not _descendants(proc.pid):
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "resume" in err, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
