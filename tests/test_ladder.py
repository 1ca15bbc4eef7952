"""The ladder end to end through its command line (every command with --json)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from tournaments.ladder import _Live
from tournaments.outcomes import Result

BOTS = Path(__file__).parent / "bots_tournament"


# Commands that play no game run here, through the same command line
# (click's test runner); those that play (run, eval) as the program itself,
# with its worker processes. A process each cost about 0.5 s of CPU.
IN_PROCESS = ("add", "remove", "show")


def ladder(db: Path, *args: str, ok: bool = True) -> Any:
    if args[0] in IN_PROCESS:
        from click.testing import CliRunner

        from arena.cli import ladder_main

        done = CliRunner().invoke(ladder_main, [*args, "--db", str(db)])
        failed = done.exception if not isinstance(done.exception, SystemExit) else None
        code, stdout, stderr = done.exit_code, done.stdout, done.stderr + (repr(failed) if failed else "")
    else:
        out = subprocess.run(
            [sys.executable, "-c", "from arena.cli import ladder_main; ladder_main()", *args, "--db", str(db)],
            capture_output=True, text=True, timeout=120,
        )
        code, stdout, stderr = out.returncode, out.stdout, out.stderr
    if not ok:
        assert code == 2, stdout
        return stderr
    assert code == 0, stderr
    return orjson.loads(stdout) if "--json" in args else stdout


def test_ladder_pool_runs_rates_evaluates_and_keeps_history(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    assert ladder(db, "add", "rnd", "random", "--json")["added"]["name"] == "rnd"
    ladder(db, "add", "pas", str(BOTS / "passive.py"), "--json")
    ladder(db, "add", "crash", str(BOTS / "crash.py"), "--json")
    assert "already has a bot named 'rnd'" in ladder(db, "add", "rnd", "random", ok=False)
    assert "unknown bot" in ladder(db, "add", "x", "no-such-bot", ok=False)

    run = ladder(db, "run", "--total", "9", "--max-days", "3", "--json")
    assert run["played_now"] == 9 and run["games"] == 9
    rows = {r["name"]: r for r in run["standings"]}
    assert rows["crash"]["forfeits"] == rows["crash"]["games"] > 0
    assert rows["crash"]["elo"] < rows["pas"]["elo"]

    shown = ladder(db, "show", "--max-days", "3", "--json")
    assert {b["name"] for b in shown["pool"]} == {"rnd", "pas", "crash"} and shown["games"] == 9
    # Another day limit is another rating pool: its games never mix with these.
    assert ladder(db, "run", "--games", "3", "--max-days", "2", "--json")["games"] == 3
    assert ladder(db, "show", "--max-days", "3", "--json")["games"] == 9
    assert ladder(db, "show", "--json")["games"] == 0  # simple set, 100 days: nothing played
    assert ladder(db, "show", "--json")["pools"] == {"simple set, 3 days": 9, "simple set, 2 days": 3}

    ev = ladder(db, "eval", "random", "--games", "1", "--max-days", "3", "--json")
    assert ev["challenger"] == "random" and ev["played_now"] == 6  # 3 opponents x 2 seatings
    assert ev["elo_low"] is None or ev["elo_low"] <= ev["elo"]  # None: an open side (a perfect score)
    assert ev["elo_high"] is None or ev["elo"] <= ev["elo_high"]
    assert ladder(db, "show", "--max-days", "3", "--json")["games"] == 9  # the evaluated bot was not added

    assert ladder(db, "remove", "crash", "--json")["history_as"] == "crash~1"
    after = ladder(db, "show", "--max-days", "3", "--json")
    assert [r["name"] for r in after["standings"]].count("crash") == 0 and after["games"] == 9
    assert "no bot named 'crash'" in ladder(db, "remove", "crash", ok=False)
    # The name is free again (it used to be refused for good), without the old bot's games.
    ladder(db, "add", "crash", "random")
    again = ladder(db, "show", "--max-days", "3", "--json")
    assert again["games"] == 9 and next(r for r in again["standings"] if r["name"] == "crash")["games"] == 0


def test_match_making_prefers_uncertain_and_even_tables() -> None:
    live = _Live(["a", "b", "c"])
    for _ in range(30):  # a and b are well known, c is new
        live.update(Result(("a", "b"), 0))
        live.update(Result(("b", "a"), 1))
    assert max([("a", "b"), ("a", "c"), ("b", "c")], key=live.value) in {("a", "c"), ("b", "c")}
    best = max([("a", "c"), ("b", "c")], key=live.value)
    before = live.value(best)
    live.pending(best)  # a scheduled table counts as played: the next pick looks elsewhere
    assert live.value(best) < before


def _progress_counts(stderr: str) -> list[str]:
    return [line.split()[1] for line in stderr.splitlines() if line.startswith("game ")]


def test_progress_counts_the_games_of_this_run(tmp_path: Path) -> None:
    # A second `ladder run` counted down from the games already stored: "game 1/-2".
    db = tmp_path / "ladder.sqlite"
    passive = str(BOTS / "passive.py")
    ladder(db, "add", "a", passive)
    ladder(db, "add", "b", passive)
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", "from arena.cli import ladder_main; ladder_main()", "run", "--total", "2",
             "--max-days", "2", "-j", "1", "--db", str(db)], capture_output=True, text=True, timeout=300,
        )
        assert out.returncode == 0, out.stderr
        assert _progress_counts(out.stderr) == ["1/2", "2/2"], out.stderr


def test_progress_of_an_elimination_counts_each_round(tmp_path: Path) -> None:
    passive = str(BOTS / "passive.py")
    out = subprocess.run(
        [sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()", "elimination",
         *(f"p{i}={passive}" for i in range(4)), "-n", "1", "--max-days", "2", "-j", "1",
         "--db", str(tmp_path / "e.sqlite")], capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    counts = _progress_counts(out.stderr)
    assert counts and all(not c.split("/")[1].startswith("-") and int(c.split("/")[0]) <= int(c.split("/")[1])
                          for c in counts), counts
