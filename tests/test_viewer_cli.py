"""driver view, driver run --view, tournament replay, and the report's game sections."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tracedata
from click.testing import CliRunner

from arena.cli import driver
from tournaments.cli import tournament_main
from tournaments.outcomes import Result
from tournaments.report_games import WIN_KINDS, GameFacts, buy_profile, how_bots_win, ratings_over_time
from tournaments.store import GameRecord, Store, compress_lines

TRACES = tracedata.unpacked()
TRACE = TRACES / "simple_2p_random_decent_1.jsonl"


def _data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m
    return json.loads(m.group(1))


def _offline(page: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_driver_view_writes_one_page_and_prints_its_path(tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    res = CliRunner().invoke(driver, ["view", str(TRACE), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == str(out.resolve())
    page = out.read_text()
    _offline(page)
    data = _data(page)
    assert len(data["games"]) == 1 and data["games"][0]["steps"][-1]["k"] == "end"


def test_driver_view_reads_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(driver, ["view", "-"], input=TRACE.read_bytes())
    assert res.exit_code == 0, res.output
    assert res.output.strip() == str(tmp_path.resolve() / "replay.html")
    assert _data((tmp_path / "replay.html").read_text())["games"][0]["steps"][-1]["k"] == "end"


def test_driver_view_refuses_a_bad_trace_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(TRACE.read_text().splitlines()[0] + "\n[1]\n{oops\n")
    res = CliRunner().invoke(driver, ["view", str(bad)])
    assert res.exit_code == 2 and "line 3: not JSON" in res.output
    assert not (tmp_path / "bad.html").exists()
    res = CliRunner().invoke(driver, ["view", str(tmp_path / "missing.jsonl")])
    assert res.exit_code == 2 and "cannot read" in res.output


def test_driver_run_view_writes_the_replay_of_the_game_played(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from arena.cli import driver_main; driver_main()", "run", "--view", "--max-days", "6",
         "random", "random"],
        cwd=tmp_path, capture_output=True, timeout=300,
    )
    assert done.returncode in (0, 3), done.stderr
    assert b"replay   " in done.stderr
    data = _data((tmp_path / "replay.html").read_text())
    trace_lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    game = data["games"][0]
    assert game["names"] == ["random", "random"]
    assert game["steps"][-1]["ln"] == len(trace_lines)  # the page holds the whole trace printed


def test_tournament_replay_opens_one_stored_game(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    lines = TRACE.read_bytes().splitlines()
    with Store.open(db) as store:
        tid = store.tournament("round-robin", {}, [("r", ["r"]), ("d", ["d"])])
        store.add_game(tid, GameRecord("k", ("r", "d"), 1, None, None, 3, len(lines), 0.1, {}, compress_lines(lines)))
        game_id = store.games()[0].id
    out = tmp_path / "one.html"
    res = CliRunner().invoke(tournament_main, ["replay", str(db), str(game_id), "-o", str(out)])
    assert res.exit_code == 0, res.output
    data = _data(out.read_text())
    assert data["title"] == f"Game {game_id}: r vs d" and data["games"][0]["names"] == ["r", "d"]
    res = CliRunner().invoke(tournament_main, ["replay", str(db), "99"])
    assert res.exit_code == 2 and "has no game 99" in res.output


def _facts(seats: tuple[str, ...], winner: int | None, fault: int | None, kind: str,
           bought: list[list[tuple[int, str]]], days: int = 5) -> GameFacts:
    return GameFacts(0, seats, Result(seats, winner, fault), kind, days, 10, None, bought)


def test_how_each_bot_wins_splits_its_games() -> None:
    facts = [
        _facts(("a", "b"), 0, None, "points", [[], []]),
        _facts(("b", "a"), 1, None, "elimination", [[], []]),
        _facts(("a", "b"), None, 1, "fault", [[], []]),
        _facts(("a", "b"), None, None, "draw", [[], []]),
    ]
    bots, table = how_bots_win(facts)
    assert bots == ["a", "b"]
    assert dict(zip(WIN_KINDS, table["a"])) == {"won on points": 1, "won by elimination": 1, "won by forfeit": 1,
                                                "draw": 1, "lost": 0, "forfeited": 0}
    assert dict(zip(WIN_KINDS, table["b"])) == {"won on points": 0, "won by elimination": 0, "won by forfeit": 0,
                                                "draw": 1, "lost": 2, "forfeited": 1}


def test_buy_profile_counts_cards_by_day_and_scores_them() -> None:
    facts = [
        _facts(("a", "b"), 0, None, "points", [[(1, "Ghost"), (1, "Ghost"), (2, "Worker")], [(1, "Worker")]]),
        _facts(("a", "b"), 1, None, "points", [[(1, "Ghost")], []]),
    ]
    html = buy_profile(facts)
    a_table = html.split("<details>")[1]
    # Ghost: 3 copies in 2 games on day 1 -> 1.50 per game; a won 1 of the 2 games where it bought one.
    assert re.search(r"Ghost</td><td[^>]*>1\.50</td>", a_table)
    assert "50% <span class=small>(2)</span>" in a_table
    assert "100% <span class=small>(1)</span>" in a_table  # Worker: bought in the won game only


def test_ratings_over_time_follow_the_games() -> None:
    facts = [_facts(("a", "b"), 0, None, "points", [[], []]) for _ in range(10)]
    svg = ratings_over_time(facts, points=5)
    assert svg.count("<polyline") == 2 and "games played" in svg


def test_game_list_escapes_bot_text_and_shows_control_characters() -> None:
    from tournaments.report_games import game_list

    f = _facts(("<b>a</b>\x1b[31m", "b"), None, 0, "fault", [[], []])
    f.fault_reason = "bad\x07 <i>move</i>"
    html = game_list([f], "db.sqlite")
    assert "\x1b" not in html and "\x07" not in html and "<b>a" not in html and "<i>" not in html
    assert "&lt;b&gt;a&lt;/b&gt;\\x1b[31m" in html and "bad\\x07 &lt;i&gt;move&lt;/i&gt;" in html
