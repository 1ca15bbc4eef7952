"""Issue 25 in a real browser (Debian's headless Chromium through the
fixtures of conftest.py): the replay, the report, the lobby and a live
game on a phone (390x844) and a desktop, and the fourteen defects found
by trying them as a new user would. Each test names the defect it pins;
each fails without its fix.

ECONOMANCY_SCREENSHOTS=DIR keeps the pictures docs/ shows (the replay,
the report, the lobby and a game against `expert` from start to end, at
both sizes): ECONOMANCY_SCREENSHOTS=docs/screens pytest tests/test_people_browser.py
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from driver.botspec import BotSpec, parse_bot
from driver.game import GameOptions, GameResult, play_game
from tournaments.store import GameRecord, Store, compress_lines, compress_times
from viewer.export import write_page
from viewer.model import build_replay
from scripts import load_script

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BOTS = Path(__file__).resolve().parent / "bots"
DRIVER = [sys.executable, "-m", "arena.cli"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}


def _command(program: str, *args: str) -> None:
    """A command that plays no game, through its command line in this
    process (click's runner): a process of its own cost about 0.7 s of CPU
    to start. Those that play games, or read a pipe, run as programs."""
    from click.testing import CliRunner

    from arena.cli import driver, ladder_main, tournament_main

    group = {"driver": driver, "ladder": ladder_main, "tournament": tournament_main}[program]
    done = CliRunner().invoke(group, list(args))
    assert done.exit_code == 0, f"{program} {' '.join(args)}: {done.output}{done.exception!r}"


def _shot(page: Any, name: str, full: bool = False) -> None:
    """ECONOMANCY_SCREENSHOTS=DIR keeps pictures of the pages (docs/ uses them)."""
    where = os.environ.get("ECONOMANCY_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=full)


@pytest.fixture
def phone(chromium: Any) -> Iterator[Any]:
    """A page at a phone's size, touch and all; `errors` as the `page` fixture's."""
    context = chromium.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    pg.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    pg.errors = errors  # type: ignore[attr-defined]
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture(scope="module")
def game() -> GameResult:
    """A real 4-player base-set game through the referee, with an opening the referee set."""
    bots = [parse_bot("expert"), parse_bot("random"), parse_bot("expert"), parse_bot("random")]
    return play_game(bots, GameOptions(base=True, max_days=20, seed=7, timeout=30, opening=(1, 0, 0, 0)))


def _no_sideways_scroll(page: Any) -> None:
    width = page.viewport_size["width"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width, "the page scrolls sideways"


def _on_screen(page: Any, selector: str) -> None:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    width = page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, f"{selector} is off-screen: {box}"


# ------------------------------------------------------------------ replays


def test_2_stepping_on_a_phone_keeps_the_table_on_screen(phone: Any, game: GameResult, tmp_path: Path) -> None:
    path = write_page(build_replay(game.trace), tmp_path / "g.html")
    phone.goto(path.as_uri() + "#step=5")
    assert phone.evaluate("window.scrollY") == 0
    for _ in range(4):
        phone.keyboard.press("ArrowRight")
    phone.click("#next")
    assert phone.evaluate("EconomancyReplay.current().step") == 10
    assert phone.evaluate("window.scrollY") == 0, "stepping scrolled the window to the log"
    table = phone.locator("#table").bounding_box()
    bar = phone.locator(".controls").bounding_box()
    assert 0 <= table["y"] < PHONE["height"] / 2
    assert bar["height"] <= 130, f"the toolbar takes {bar['height']} px of a phone's height"
    for button in ("#start", "#prev", "#play", "#next", "#end", "#speed", "#unit"):
        _on_screen(phone, button)
    _no_sideways_scroll(phone)
    _shot(phone, "replay-phone")
    assert phone.errors == []


def test_13_the_address_keeps_what_was_typed_until_the_reader_moves(page: Any, game: GameResult, tmp_path: Path) -> None:
    path = write_page(build_replay(game.trace), tmp_path / "g.html")
    page.goto(path.as_uri() + "#day=3")
    assert page.evaluate("location.hash") == "#day=3"
    assert page.locator(".ect-day-n").inner_text() == "3"
    page.keyboard.press("ArrowRight")
    assert re.fullmatch(r"#step=\d+", page.evaluate("location.hash"))
    page.goto(path.as_uri() + "#end")
    assert page.evaluate("location.hash") == "#end"
    page.set_viewport_size(DESKTOP)
    fight = next(i for i, s in enumerate(build_replay(game.trace).games[0].steps) if s["k"] == "fight")
    page.goto(path.as_uri() + f"#step={fight}")
    _no_sideways_scroll(page)
    page.evaluate("window.scrollTo(0, 0)")
    _shot(page, "replay-desktop")
    assert page.errors == []


def test_the_replay_plays_by_day_at_a_chosen_speed(page: Any, game: GameResult, tmp_path: Path) -> None:
    path = write_page(build_replay(game.trace), tmp_path / "g.html")
    page.goto(path.as_uri() + "#step=0")
    page.select_option("#unit", "day")
    page.select_option("#speed", "4")
    page.click("#play")
    page.wait_for_function("() => EconomancyReplay.current().step > 0")
    page.click("#play")  # pause
    at = page.evaluate("EconomancyReplay.current().step")
    steps = page.evaluate("EconomancyReplay.data.games[0].steps.map(s => s.D)")
    assert steps[at] != steps[at - 1], "playing by day stopped inside a day"
    assert page.errors == []


def test_4_opening_moves_are_marked_and_think_times_shown(page: Any, game: GameResult, tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with Store.open(db) as store:
        tid = store.tournament("round-robin", {"players": 4}, [("expert", ["expert"]), ("random", ["random"])])
        store.add_game(tid, GameRecord("g/0", ("expert", "random", "expert", "random"), game.winner, None, None,
                                       game.days, game.moves, game.duration, {"max_days": 20, "base": True},
                                       trace=compress_lines(game.trace), times=compress_times(game.answer_times),
                                       opening=(1, 0, 0, 0)))
    out = tmp_path / "replay.html"
    _command("tournament", "replay", str(db), "1", "-o", str(out))
    page.goto(out.as_uri() + "#step=0")
    log = page.locator("#log li").all_inner_texts()
    assert log[0].startswith("expert invests 1 (opening move, set by the referee)")
    assert sum("opening move" in line for line in log) == 4  # the opening's four moves, no more
    assert page.locator(".ect-mark").inner_text() == "opening move, set by the referee"
    page.goto(out.as_uri() + "#step=6")  # past the opening: the bots' own answers, each with its time
    took = page.locator(".ect-took").inner_text()
    assert re.fullmatch(r"thought \d+(\.\d+)? s", took)
    assert not page.locator(".ect-mark").count()
    assert page.errors == []


def _faulted(bot: str, *args: str) -> GameResult:
    spec = BotSpec((sys.executable, str(BOTS / bot), *args), bot.removesuffix(".py"))
    return play_game([parse_bot("random"), spec], GameOptions(max_days=5, timeout=1.0, startup=5.0))


def test_5_and_11_a_forfeit_shows_its_standard_error_as_lines_and_says_what_went_wrong(
    page: Any, tmp_path: Path
) -> None:
    crash = _faulted("crash_mid.py")
    assert crash.fault is not None and crash.fault[0] == 1
    stderr = "Traceback (most recent call last):\n  File \"bot.py\", line 3\nValueError: boom"
    path = write_page(build_replay(crash.trace, ["random", "crash_mid"], stderr=["", stderr]), tmp_path / "c.html")
    page.goto(path.as_uri() + "#end")
    shown = page.locator(".ect-stderr").evaluate("e => e.textContent")
    assert shown == stderr, "the standard error lost its line breaks"
    assert page.locator(".ect-stderr").bounding_box()["height"] > 40  # three lines, not one
    said = [line for line in page.locator("#log li").all_inner_texts() if line.startswith("crash_mid") and "forfeits" not in line][-1]
    assert "gave no answer" in said and "not a legal move" not in said

    slow = _faulted("silent.py")
    assert slow.fault is not None and "timeout" in slow.fault[1]
    path = write_page(build_replay(slow.trace), tmp_path / "s.html")
    page.goto(path.as_uri() + "#end")
    said = [line for line in page.locator("#log li").all_inner_texts() if line.startswith("silent") and "forfeits" not in line][-1]
    assert said == "silent ran out of time", said
    assert page.errors == []


def test_9_the_coins_chart_title_fits_and_its_log_axis_has_ticks(page: Any, tmp_path: Path) -> None:
    bench = load_script(ROOT / "bench" / "replay.py")
    lines = bench.long_trace(4, 100, True, 1)
    path = write_page(build_replay(lines, title="long"), tmp_path / "long.html")
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        page.goto(path.as_uri() + "#end")
        title = page.locator("#chart-coins .chart-title")
        assert title.inner_text().endswith("(log scale)")
        assert title.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the chart title is cut"
        ticks = page.eval_on_selector_all("#chart-coins svg text.tick", "els => els.map(e => e.textContent)")
        powers = [t for t in ticks if re.fullmatch(r"1e\d+|1000?0?|10", t)]
        assert len(powers) >= 3, f"a log axis needs more than 0 and its top: {ticks}"
    assert page.errors == []


def test_10_a_trace_cut_mid_line_is_shown_up_to_its_last_whole_line(page: Any, game: GameResult, tmp_path: Path) -> None:
    data = b"".join(line + b"\n" for line in game.trace)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: data.rfind(b"\n", 0, len(data) // 2) + 40])  # 40 bytes into a line
    out = tmp_path / "cut.html"
    _command("driver", "view", str(cut), "-o", str(out))
    page.goto(out.as_uri() + "#end")
    assert page.locator(".ect-event-end h3").inner_text() == "Trace ends"
    assert "cut mid-line" in page.locator(".ect-end-text").inner_text()
    assert page.errors == []


def test_12_a_piped_trace_keeps_the_bots_names(page: Any, tmp_path: Path) -> None:
    run = subprocess.run([*DRIVER, "run", "--max_days", "6", "expert", "random"],
                         capture_output=True, timeout=120, cwd=ROOT)
    header = json.loads(run.stdout.splitlines()[0])
    assert header["meta"] == "header" and header["seats"] == ["expert", "random"], header
    view = subprocess.run([*DRIVER, "view", "-", "-o", str(tmp_path / "p.html")],
                          input=run.stdout, capture_output=True, timeout=120, cwd=ROOT)
    assert view.returncode == 0, view.stderr
    page.goto((tmp_path / "p.html").as_uri())
    assert page.locator(".ect-player .ect-name").all_inner_texts() == ["expert", "random"]
    assert page.errors == []


# ------------------------------------------------------------------ the report


def _report(tmp_path: Path) -> Path:
    """A real round-robin (random, expert; 6 games) and its report."""
    db, out = tmp_path / "r.sqlite", tmp_path / "report.html"
    cmd = [sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()"]
    done = subprocess.run(cmd + ["round-robin", "--db", str(db), "--games", "3", "--max-days", "15", "--timeout", "30",
                                 "-j", "1", "random", "expert"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    _command("tournament", "report", str(db), "-o", str(out))
    return out


def test_8_the_result_filter_is_the_chosen_bots_and_cells_link_to_games(
    page: Any, phone: Any, tmp_path: Path
) -> None:
    out = _report(tmp_path)
    page.goto(out.as_uri())
    rows = page.locator("#game-list tbody tr")
    total = rows.count()
    with Store.open(out.parent / "r.sqlite") as store:
        games = store.games()
    won_by_random = sum(1 for g in games if g.winner is not None and g.seats[g.winner] == "random")
    page.select_option("#f-bot", "random")
    page.select_option("#f-result", "win")
    shown = page.locator("#game-list tbody tr:not([hidden])").count()
    assert shown == won_by_random, f"{shown} games shown, random won {won_by_random}"
    assert won_by_random < total
    page.select_option("#f-result", "")
    page.select_option("#f-bot", "")
    page.locator("#crosstable a.pair").first.click()
    assert page.input_value("#f-bot") and page.input_value("#f-vs")
    assert page.locator("#game-list tbody tr:not([hidden])").count() == total  # every game is random against expert
    _shot(page, "report-desktop")
    phone.goto(out.as_uri())
    _no_sideways_scroll(phone)
    _shot(phone, "report-phone")
    assert page.errors == [] and phone.errors == []


# ------------------------------------------------------------------ the server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from serverlib import Server

    srv = Server(tmp_path_factory.mktemp("people") / "games.sqlite").start()
    yield srv
    srv.stop()


def test_3_the_lobby_fits_a_phone(server: Any, phone: Any, page: Any) -> None:
    for name, bot in (("a-bot-with-a-rather-long-name", "random"), ("expert-of-the-ladder", "expert")):
        _command("ladder", "add", name, bot, "--db", str(server.db))
    phone.goto(server.url + "/")
    phone.wait_for_selector("select.opponent option[value=expert]", state="attached")
    phone.wait_for_function("() => document.querySelectorAll('table.standings tbody tr').length === 2",
                            timeout=30_000)  # the server looks at the ladder every 3 s
    phone.click("#add-opponent")
    _no_sideways_scroll(phone)
    for selector in ("select.opponent", ".opponent-row button", "select[name=people_timeout]", "input[name=max_days]",
                     "#start", "#join button", "table.standings"):
        _on_screen(phone, selector)
    _shot(phone, "lobby-phone", full=True)
    page.set_viewport_size(DESKTOP)
    page.goto(server.url + "/")
    page.wait_for_selector("select.opponent option[value=expert]", state="attached")
    page.wait_for_selector("table.standings")
    assert page.locator("table.standings th").count() == 9  # a desktop shows every column
    _shot(page, "lobby-desktop")
    assert phone.errors == [] and page.errors == []


def _api(server: Any, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=30) as r:
        return json.loads(r.read())


def _defense(pile: Any) -> int:
    text = pile.locator(".ect-def").inner_text().strip()
    return int(text) if text.isdigit() else -1


def _play_as_a_person(server: Any, pg: Any, name: str, shots: str, max_days: int = 10) -> dict[str, Any]:
    """Start a game against `expert` from the lobby and play it to the end
    by clicking only what the page offers; check the page on the way."""
    pg.goto(server.url + "/")
    pg.wait_for_selector("select.opponent option[value=expert]", state="attached")
    pg.fill("input[name=name]", name)
    pg.fill("input[name=max_days]", str(max_days))
    pg.select_option("select.opponent", "expert")
    pg.select_option("select[name=set]", "base")
    pg.click("#start")
    pg.wait_for_url("**/game/**#seat=0&token=*")
    game_id = pg.url.split("/game/")[1].split("#")[0]
    invests = moves = 0
    seen: dict[str, int] = {}
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline and not pg.locator("#replay-link").count():
        if not pg.locator("#controls:not([hidden])").count():
            pg.wait_for_timeout(100)
            continue
        _no_sideways_scroll(pg)
        prompt = pg.locator("#controls").inner_text()
        assert "or 0 to stop" not in prompt and "thinking" not in pg.locator(".ect-you").inner_text()
        if pg.locator("#invest").count():
            invests += 1
            # Defect 1: each day starts with an investment, so this is day `invests`.
            assert pg.locator(".ect-day-n").inner_text() == str(invests), "the headline shows another day"
            assert _api(server, f"/api/games/{game_id}")["day"] == invests, "the lobby counts days otherwise"
            seen["invest"] = seen.get("invest", 0) + 1
            if seen["invest"] == 1:
                _shot(pg, f"{shots}-start")
            pg.fill("#invest-amount", "1" if invests % 2 else "0")
            pg.click("#invest")
        elif pg.locator("#controls #pass").count():
            piles = pg.locator(".ect-shop .ect-pile.ect-clickable")
            if piles.count():
                assert "Buy a highlighted card" in prompt
                # The sturdiest defender it can afford: a person with a card to defend stays in the game.
                sturdy = max(range(piles.count()), key=lambda k: (_defense(piles.nth(k)), -k))
                piles.nth(sturdy).click()
            else:
                assert "cannot afford" in prompt and "highlighted" not in prompt
                pg.click("#pass")
        elif pg.locator("#stop").count():
            seen["attack"] = 1
            _shot(pg, f"{shots}-fight")
            offered = pg.locator("#controls .choice")
            (offered.first.click() if offered.count() else pg.click("#stop"))
        else:  # defending: the offered choices say what each card would do
            seen["defend"] = 1
            offered = pg.locator("#controls .choice")
            assert offered.count() and re.search(r"(holds|faints) against", offered.first.inner_text())
            _shot(pg, f"{shots}-fight")
            offered.first.click()
        moves += 1
        pg.wait_for_timeout(50)
    assert pg.locator("#replay-link").count(), "the game did not end in time"
    pg.wait_for_selector("#banner:has-text('Game over')")
    pg.wait_for_function("() => document.getElementById('pace-where').textContent === 'live'")  # paced to the end
    pg.evaluate("window.scrollTo(0, 0)")
    _shot(pg, f"{shots}-end")
    return {"id": game_id, "invests": invests, "moves": moves}


def test_a_person_plays_expert_to_the_end_on_a_phone(server: Any, phone: Any, page: Any) -> None:
    """The whole game by clicking only offered moves (defects 1, 6, 7, 11 on the way)."""
    played = _play_as_a_person(server, phone, "Ada", "game-phone", max_days=12)
    assert played["invests"] >= 4, "the person left the game before day 4: defect 1 was not reached"
    game_id = played["id"]
    # Defect 7: one count of days: the lobby's list, the store and the replay agree.
    lobby = phone.evaluate("""() => fetch('/api/lobby').then(r => r.json())""")
    row = next(f for f in lobby["finished"] if f["id"] == game_id)
    phone.click("#replay-link")
    phone.wait_for_selector("#scrub")
    phone.goto(phone.url.split("#")[0] + "#end")
    last_day = phone.evaluate("(() => { const g = EconomancyReplay.data.games[0]; return g.steps[g.steps.length - 1].D; })()")
    assert row["days"] == last_day, f"the lobby says {row['days']} days, the replay {last_day}"
    # Defect 6: the replay says Ada, as the live page did, never person:Ada.
    text = phone.locator("body").inner_text() + phone.title()
    assert "person:" not in text and "Ada" in phone.title()
    assert phone.locator(".ect-player .ect-name").first.inner_text() == "Ada"
    _no_sideways_scroll(phone)
    assert phone.errors == []


def test_a_person_plays_expert_on_a_desktop_with_pacing_and_help(server: Any, page: Any) -> None:
    page.set_viewport_size(DESKTOP)
    played = _play_as_a_person(server, page, "Grace", "game-desktop", max_days=6)
    assert played["moves"] >= 2
    assert "Reading the table" in page.locator(".side .help").inner_text()
    assert page.errors == []


def test_a_person_who_lets_the_clock_run_out_is_warned_and_invests_nothing(server: Any, page: Any) -> None:
    """The page warns before the time is up, then plays the default move
    (invest 0) instead of letting the referee forfeit the person."""
    page.goto(server.url + "/")
    page.wait_for_selector("select.opponent option[value=random]", state="attached")
    page.fill("input[name=name]", "Slow")
    page.select_option("select[name=people_timeout]", "30")
    page.select_option("select.opponent", "random")
    page.click("#start")
    page.wait_for_selector("#invest")
    page.wait_for_selector("#clock:has-text('then you invest 0')", timeout=60_000)
    page.wait_for_selector("#log li:has-text('Slow invests 0')", timeout=60_000)
    assert "forfeit" not in page.locator("#banner").inner_text()
    assert page.errors == []


@pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")
def test_a_spectator_steps_back_and_returns_to_live(server: Any, page: Any) -> None:
    """The page must be watching before the game ends (a game of expert and
    random could end before it loads): one seat is a bot connected over
    WebSocket that, after its first three answers, holds each answer until
    the page watches (up to 5 s a move, within the server's 10 s), then
    answers at once. A champion thinking its budget at every move did this
    before, at 10 s of CPU and 40 s of wall clock."""
    from serverlib import WsBot, random_move

    watching, answers, rng = threading.Event(), [], random.Random(8)

    def answer(state: dict[str, Any]) -> list[Any]:
        answers.append(state)
        if len(answers) > 3:
            watching.wait(5)
        return [random_move(state, state["player"], rng)]

    bot = WsBot(server, "spectated", answer=answer).run()
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("select.opponent option[value='remote:spectated']", state="attached")
        page.fill("input[name=max_days]", "8")
        page.select_option("select.opponent", "remote:spectated")
        page.click("#add-opponent")
        page.select_option("select.opponent >> nth=1", "random")
        page.check("input[name=watch]")
        page.click("#start")
        page.wait_for_url("**/game/**")
        page.wait_for_selector("#pace:not([hidden])")
        assert page.locator("#pace-where").inner_text() != "" and "Game over" not in page.locator("#banner").inner_text()
        watching.set()
        page.select_option("#speed", "4")  # the pace a spectator may choose: reveals and fights linger a quarter
        page.wait_for_selector("#banner:has-text('Game over')", timeout=120_000)
        # Live on the game's last step: the status that ends the game can come
        # before the view of its last moves (the page then catches up again).
        page.wait_for_function("() => document.getElementById('pace-where').textContent === 'live'"
                               " && document.querySelector('#table .ect-event-end') !== null")
        page.click("#pace-back")
        page.click("#pace-back")
        where = page.locator("#pace-where").inner_text()
        total = int(where.rsplit(" ", 1)[1])
        assert where == f"step {total - 2} of {total}"
        page.click("#pace-live")
        page.wait_for_function("() => document.getElementById('pace-where').textContent === 'live'")
        assert page.errors == []
    finally:
        watching.set()
        bot.close()
    assert bot.thread is not None
    bot.thread.join(30)
    assert len(bot.finals) == 1 and bot.finals[0]["phase"]["name"] == "end", "the connected bot did not play to the end"


# ------------------------------------------------------------------ driver connect


def test_14_driver_connect_lists_and_forgets_its_tokens(tmp_path: Path) -> None:
    """Not a page: the token file `driver connect` keeps can be found and forgotten."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    code = ("from server.bridge import stored_token; stored_token('ws://example.org/ws/bot', 'mybot')")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60, cwd=ROOT)
    kept = tmp_path / "economancy-arena" / "bot-tokens.json"
    assert kept.exists()
    run = lambda *a: subprocess.run([*DRIVER, "connect", *a], env=env, capture_output=True,  # noqa: E731
                                    text=True, timeout=60, cwd=ROOT)
    listed = run("--tokens")
    assert listed.returncode == 0 and str(kept) in listed.stdout and "mybot" in listed.stdout
    helped = run("--help")
    assert "--forget" in helped.stdout and "bot-tokens.json" in helped.stdout
    forgot = run("http://example.org", "--name", "mybot", "--forget")
    assert forgot.returncode == 0, forgot.stderr
    assert "mybot" not in run("--tokens").stdout
    again = run("http://example.org", "--name", "mybot", "--forget")
    assert again.returncode != 0 and "no token kept" in again.stderr
