"""The tournament command as a user meets it: reproducible runs, openings,
identity, list, export, progress lines, honest intervals, no files left
behind by a rejected command, read-only databases, the API in a script."""

from __future__ import annotations

import csv
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest

from driver.game import game_lines
from tournaments.store import GameRecord, Store, compress_lines

BOTS = Path(__file__).parent / "bots_tournament"
PASSIVE, CRASH = str(BOTS / "passive.py"), str(BOTS / "crash.py")


def cli(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()", *args],
        capture_output=True, text=True, timeout=300, **kw,
    )


def cli_here(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`cli` for a command that plays no game (a listing, an export, input
    refused): the same command line, run in this process by click's test
    runner (a process each cost about 0.5 s of CPU)."""
    from click.testing import CliRunner

    from arena.cli import tournament_main

    before = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        done = CliRunner().invoke(tournament_main, list(args))
    finally:
        os.chdir(before)
    failed = done.exception if not isinstance(done.exception, SystemExit) else None
    return subprocess.CompletedProcess(["tournament", *args], done.exit_code, done.stdout,
                                       done.stderr + (repr(failed) if failed else ""))


def ok_json(*args: str) -> dict[str, Any]:
    out = cli(*args, "--json")
    assert out.returncode == 0, out.stderr
    return orjson.loads(out.stdout)


def test_the_same_command_twice_gives_the_same_table(tmp_path: Path) -> None:
    """random is deterministic given its seed: --seed fixes every game, with
    a new process per game (a reused one keeps its generator going)."""
    args = ["round-robin", "random", "random", "-n", "2", "--max-days", "6", "-j", "2", "--no-reuse", "--seed", "4"]
    first = ok_json(*args, "--db", str(tmp_path / "a.sqlite"))
    again = ok_json(*args, "--db", str(tmp_path / "b.sqlite"))
    for key in ("standings", "crosstable"):
        assert first[key] == again[key]
    digests = [{g.key: g.digest for g in Store.open(tmp_path / f"{n}.sqlite").games()} for n in "ab"]
    assert digests[0] == digests[1] and len(digests[0]) == 4
    other = ok_json(*args[:-1], "5", "--db", str(tmp_path / "c.sqlite"))
    assert other["played_now"] == 4
    assert {g.digest for g in Store.open(tmp_path / "c.sqlite").games()} != set(digests[0].values())


def test_openings_make_deterministic_bots_play_distinct_paired_games(tmp_path: Path) -> None:
    """expert and the passive bot never vary: from the start they play the
    same two games however often; from the suite, every game differs."""
    common = ["round-robin", "expert", f"passive={PASSIVE}", "-n", "4", "--max-days", "8", "-j", "2"]
    plain = ok_json(*common, "--openings", "none", "--db", str(tmp_path / "plain.sqlite"))
    suite = ok_json(*common, "--db", str(tmp_path / "suite.sqlite"))
    cell = lambda res: next(c for c in res["crosstable"] if c["bot"] == "expert")  # noqa: E731
    assert cell(plain)["games"] == cell(suite)["games"] == 8
    assert cell(plain)["distinct"] == 2 and cell(suite)["distinct"] == 8
    # Seat-swapped games from one opening form pairs: 4 pentanomial pairs.
    assert sum(cell(suite)["pentanomial"]) == 4 and cell(suite)["unpaired"] == 0
    with Store.open(tmp_path / "suite.sqlite") as store:
        games = store.games(with_blobs=True)
    by_index: dict[str, set[Any]] = {}
    for g in games:
        assert g.opening and g.seed is not None
        answers = [orjson.loads(line)[0] for line in game_lines(g.trace_lines())[1::2][: len(g.opening)]]
        assert answers == list(g.opening)  # the trace holds the opening as answers
        assert g.answer_times()[: len(g.opening)] == [None] * len(g.opening)
        # Each answer's CPU time is stored beside its wall time (none for the opening's moves).
        cpu = g.answer_cpu()
        assert len(cpu) == len(g.answer_times()) and cpu[: len(g.opening)] == [None] * len(g.opening)
        assert all(c is not None and c >= 0 for c in cpu[len(g.opening):])
        by_index.setdefault(g.key.rsplit("/", 1)[1], set()).add(g.opening)
    assert all(len(o) == 1 for o in by_index.values()) and len(by_index) == 4  # one opening per index


def test_random_openings_and_an_openings_file(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text('# two openings\n[1, 0, "Worker", "Pass"]\n[0, 2, "Pass", "Worker"]\n')
    res = ok_json("round-robin", "expert", PASSIVE, "-n", "2", "--max-days", "5", "--openings", str(book),
                  "--db", str(tmp_path / "f.sqlite"), "-j", "2")
    assert res["played_now"] == 4
    with Store.open(tmp_path / "f.sqlite") as store:
        assert {g.opening for g in store.games()} == {(1, 0, "Worker", "Pass"), (0, 2, "Pass", "Worker")}
    ok_json("round-robin", "expert", PASSIVE, "--max-days", "5", "--openings", "random:6",
            "--db", str(tmp_path / "r.sqlite"), "-j", "2")
    with Store.open(tmp_path / "r.sqlite") as store:
        [opening] = {g.opening for g in store.games()}
        assert opening is not None and len(opening) >= 6


def test_a_changed_identity_is_refused_and_list_shows_what_is_stored(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite")
    ok_json("round-robin", "random", PASSIVE, "--max-days", "3", "--db", db, "-j", "2")
    swapped = cli_here("round-robin", PASSIVE, "random", "--max-days", "3", "--db", db)
    assert swapped.returncode == 2 and "another order" in swapped.stderr and "--new" in swapped.stderr
    longer = cli_here("round-robin", "random", PASSIVE, "--max-days", "4", "--db", db)
    assert longer.returncode == 2 and "options.max_days 3 there, 4 here" in longer.stderr
    assert ok_json("round-robin", PASSIVE, "random", "--max-days", "3", "--db", db, "--new")["tournament_id"] == 2
    listing = cli_here("list", db)
    assert listing.returncode == 0
    assert "round-robin  2 games" in listing.stdout and "bots: random, " in listing.stdout
    inv = orjson.loads(cli_here("list", db, "--json").stdout)
    assert [t["games"] for t in inv["tournaments"]] == [2, 2] and inv["schema_version"] == 3


def test_the_reading_commands_take_the_results_file_as_the_playing_ones_do(tmp_path: Path) -> None:
    # Stored where the playing commands' --db defaults to (tournament.sqlite
    # in the working folder), then read back with DB as an argument, as
    # --db, or not named at all.
    db = str(tmp_path / "tournament.sqlite")
    ok_json("round-robin", "random", PASSIVE, "--max-days", "3", "-j", "2", "--db", db)
    for args in ([db], ["--db", db], []):
        assert "round-robin  2 games" in cli_here("list", *args, cwd=tmp_path).stdout
    page = tmp_path / "g.html"
    for args in ([db, "1"], ["--db", db, "1"], ["1"]):
        page.unlink(missing_ok=True)
        done = cli_here("replay", *args, "-o", str(page), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert page.stat().st_size > 0
    out = cli_here("export", "--db", db, "-o", str(tmp_path / "export"))
    assert out.returncode == 0 and len(list((tmp_path / "export").glob("*.jsonl"))) == 2
    refused = {
        ("list", "a.sqlite", "--db", "b.sqlite"): "two results files named",
        ("list", "--db", "missing.sqlite"): "no results file at missing.sqlite",
        ("report",): "no results file at tournament.sqlite",
        ("replay", "x"): "GAME_ID must be a game's number",
        ("replay", "a", "b", "1"): "expected [DB] GAME_ID, got 3",
    }
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, message in refused.items():
        out = cli_here(*args, cwd=empty)
        assert out.returncode == 2 and message in out.stderr, (args, out.stderr)
    assert list(empty.iterdir()) == []


def test_export_writes_original_traces_and_a_results_table(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite")
    ok_json("round-robin", "random", f"crash={CRASH}", "-n", "2", "--max-days", "3", "--db", db, "-j", "2")
    out = cli_here("export", db, "-o", str(tmp_path / "export"))
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader((tmp_path / "export" / "games.csv").open()))
    assert len(rows) == 4 and {r["result"] for r in rows} <= {"1-0", "0-1"}
    assert all(r["forfeit"] == "crash" and r["winner"] == "" for r in rows)
    with Store.open(db) as store:
        traces = {g.key: g.trace_lines() for g in store.games(with_blobs=True)}
    for r in rows:
        lines = (tmp_path / "export" / r["trace"]).read_bytes().splitlines()
        assert lines == traces[r["key"]] and "random" in r["trace"] and "crash" in r["trace"]
    again = cli_here("export", db, "-o", str(tmp_path / "export"))
    assert again.returncode == 2 and "already holds an export" in again.stderr


def test_each_game_is_one_line_on_a_non_terminal_and_sprt_shows_its_llr(tmp_path: Path) -> None:
    # --elo1 300: H1 is accepted after 13 games instead of 25 at 100 (each game starts a bot that crashes).
    out = cli("sprt", PASSIVE, CRASH, "--elo0", "0", "--elo1", "300", "--max-days", "2", "--max-games", "40",
              "--db", str(tmp_path / "s.sqlite"), "-j", "2")
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("game ")]
    assert lines and all("LLR" in line and "forfeits: bot exited with status 3" in line for line in lines)
    assert "H1 accepted" in out.stdout


def test_perfect_scores_get_honest_intervals_everywhere(tmp_path: Path) -> None:
    from tournaments.html_report import report
    from tournaments.standings import compute, render_text

    db = str(tmp_path / "p.sqlite")
    res = ok_json("round-robin", f"passive={PASSIVE}", f"crash={CRASH}", "-n", "5", "--max-days", "2",
                  "--db", db, "-j", "2")
    top, bottom = res["standings"]
    assert top["name"] == "passive" and top["elo_high"] is None and top["elo_low"] < top["elo"]
    assert bottom["elo_low"] is None and top["elo_text"].startswith("> ")
    cell = next(c for c in res["crosstable"] if c["bot"] == "passive")
    assert cell["mean"] == 1.0 and cell["high"] == 1.0 and cell["low"] < 0.8 and cell["significant"]
    assert cell["elo_high"] is None and cell["elo_text"] == f"> {round(cell['elo_low'])}"
    # The terminal, --json and the report say the same thing, with the same mark.
    with Store.open(db) as store:
        text = render_text(compute(store.games(), ["passive", "crash"]))
        html = report(store)
    assert top["elo_text"] in text and cell["elo_text"] in text and "1.00*" in text
    assert top["elo_text"].replace(">", "&gt;") in html and "1.00*" in html and "&#8224;" not in html


@pytest.mark.parametrize(
    "args, message",
    [
        (["sprt", "random", PASSIVE, "--elo0", "5", "--elo1", "0"], "--elo0 must be below --elo1"),
        (["round-robin", "random", PASSIVE, "--bot-option", "randm", "timeout=2"], "did you mean 'random'"),
        (["round-robin", "random", PASSIVE, "--bot-option", "random", "timout=2"], "did you mean 'timeout'"),
        (["round-robin", "random", PASSIVE, "--openings", "nope.txt"], "no such file"),
        (["round-robin", "random", PASSIVE, "--openings", "random:x"], "random:K needs K"),
        (["round-robin", "randon", PASSIVE], "did you mean 'random'"),
    ],
)
def test_bad_input_leaves_no_file_behind(tmp_path: Path, args: list[str], message: str) -> None:
    out = cli_here(*args, "--db", str(tmp_path / "x.sqlite"), cwd=tmp_path)
    assert out.returncode == 2 and message in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_db_folder_is_not_created(tmp_path: Path) -> None:
    out = cli_here("round-robin", "random", PASSIVE, "--db", str(tmp_path / "typo" / "x.sqlite"))
    assert out.returncode == 2 and "does not exist" in out.stderr and not (tmp_path / "typo").exists()


def test_a_mistyped_subcommand_and_the_version() -> None:
    out = cli_here("round-robn", "random", "random")
    assert out.returncode == 2 and "Did you mean 'round-robin'?" in out.stderr
    assert "(economancy-arena)" in cli_here("--version").stdout


def _as_nobody() -> list[str] | None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_a_read_only_database_is_still_read(tmp_path: Path) -> None:
    """WAL mode needs write access: report, list and export read the file
    anyway; storing into it is refused as read-only, not as unusable."""
    nobody = _as_nobody()
    if nobody is None:
        pytest.skip("needs root and setpriv to read as an unprivileged user")
    home = Path(os.environ.get("TMPDIR", "/tmp")) / f"ro-{os.getpid()}-{tmp_path.name}"
    home.mkdir()
    try:
        db = home / "t.sqlite"
        with Store.open(db) as store:  # two stored games, no need to play them
            tid = store.tournament("round-robin", {"players": 2}, [("a", ["x"]), ("b", ["y"])])
            for i in range(2):
                store.add_game(tid, GameRecord(f"rr/0.1/{i}", ("a", "b"), 0, None, None, 3, 20, 0.1,
                                               {"max_days": 3}, compress_lines([b'{"day":1}', b"[0]"])))
        out_dir = home / "out"
        out_dir.mkdir()
        os.chmod(out_dir, 0o777)
        for path in (home, db):
            os.chmod(path, os.stat(path).st_mode & ~(stat.S_IWGRP | stat.S_IWOTH) | stat.S_IROTH | stat.S_IXOTH)
        run = lambda *a: subprocess.run(  # noqa: E731
            [*nobody, sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()", *a],
            capture_output=True, text=True, timeout=120, cwd=out_dir,
        )
        listing = run("list", str(db))
        assert listing.returncode == 0, listing.stderr
        assert "round-robin  2 games" in listing.stdout
        report = run("report", str(db), "-o", str(out_dir / "r.html"))
        assert report.returncode == 0, report.stderr
        assert run("export", str(db), "-o", str(out_dir / "x")).returncode == 0
        write = run("round-robin", "random", PASSIVE, "--max-days", "3", "--db", str(db))
        assert write.returncode == 2 and "read-only" in write.stderr and "unusable" not in write.stderr
    finally:
        shutil.rmtree(home, ignore_errors=True)


_EXAMPLE = """
    from tournaments import PlayOptions, round_robin

    {guard}
        res = round_robin([{bot!r}, {bot!r}], games=1, db={db!r}, concurrency=2,
                          options=PlayOptions(max_days=2))
        print("winner:", res.standings.names[0])
"""


@pytest.mark.parametrize("guarded", [True, False], ids=["guarded", "unguarded"])
def test_the_documented_api_example_in_a_script(tmp_path: Path, guarded: bool) -> None:
    guard = 'if __name__ == "__main__":' if guarded else "if True:"
    script = tmp_path / "my_tournament.py"
    script.write_text(textwrap.dedent(_EXAMPLE.format(guard=guard, bot=PASSIVE, db=str(tmp_path / "api.sqlite"))))
    # Run from the repository: the bots (as nobody, when we are root) must be
    # able to enter the current directory, which a private tmp_path is not.
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                         cwd=Path(__file__).resolve().parent.parent)
    if guarded:
        assert out.returncode == 0 and "winner:" in out.stdout, out.stderr
    else:  # each worker imports the script again: say so, instead of "rerun to resume"
        assert out.returncode != 0 and 'if __name__ == "__main__":' in out.stderr
        assert "rerun to resume" not in out.stderr


@pytest.mark.parametrize(("bot", "says"), [
    ("x=python3 {tmp}/missing.py", "can't open file"),  # the program runs, the file it names is missing
    ("x={crash0}", "exited with status 3"),
    ("x={silent}", "no answer to its first state within 2 s"),
])
def test_a_bot_that_cannot_play_is_refused_before_the_first_game(tmp_path: Path, bot: str, says: str) -> None:
    # It used to play every game as a forfeit and exit 0.
    crash0 = tmp_path / "crash0.py"
    crash0.write_text("import sys\nsys.stderr.write('crash0: no\\n')\nsys.exit(3)\n")
    silent = tmp_path / "silent.py"
    silent.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(3600)\n")
    for script in (crash0, silent):
        script.chmod(0o755)
        script.write_text("#!" + sys.executable + "\n" + script.read_text())
    bot = bot.format(tmp=tmp_path, crash0=crash0, silent=silent)
    db = tmp_path / "t.sqlite"
    out = cli("round-robin", bot, "random", "-n", "2", "--max-days", "3", "--db", str(db),
              "--bot-option", "x", "startup=1,timeout=1")
    assert out.returncode == 2, out.stderr
    assert "bot 'x'" in out.stderr and "cannot play" in out.stderr and says in out.stderr
    assert "no game was played" in out.stderr
    if db.exists():
        with Store.open(db) as store:
            assert store.games() == []


def test_json_output_is_the_object_alone_whatever_a_library_prints(tmp_path: Path) -> None:
    # Ray printed to standard output from its threads about a node lost
    # mid-run, after the object too (tests/test_tournament_cluster.py saw
    # it): here a stand-in writes to descriptor 1 while the games are
    # played and as the process ends.
    program = textwrap.dedent("""
        import atexit, os, sys
        from tournaments import api
        played = api.round_robin
        def noisy(*args, **kw):
            os.write(1, b"a library's line, during the run\\n")
            return played(*args, **kw)
        api.round_robin = noisy
        atexit.register(lambda: os.write(1, b"a library's line, at exit\\n"))
        from arena.cli import tournament_main
        tournament_main()
    """)
    done = subprocess.run([sys.executable, "-c", program, "round-robin", "random", "random", "-n", "1",
                           "--db", str(tmp_path / "t.sqlite"), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["played_now"] == 2
    assert "during the run" in done.stderr and "at exit" in done.stderr
