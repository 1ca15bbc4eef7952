"""The replay page and the report in a real browser (Debian's headless
Chromium; fixtures in conftest.py): what the page shows must be what the
trace says, navigation must reach the right step, every golden trace must
render without a script error, and the report's links must open the
right game.

ECONOMANCY_SCREENSHOTS=DIR also saves screenshots there (the README's
docs/replay.png is made so: ECONOMANCY_SCREENSHOTS=docs pytest
tests/test_viewer_browser.py -k screenshot).
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

import pytest

import tracedata

from protocol.cards import NAME_TO_ID, POINTS
from tournaments.store import GameRecord, Store, compress_lines
from viewer.export import write_page
from viewer.model import Replay, build_replay

TRACES = tracedata.unpacked()
KNOWN = TRACES / "base_4p_random_x4_3.jsonl"


def _page_for(trace: Path, out: Path, names: tuple[str, ...] = ()) -> tuple[Path, Any]:
    replay = build_replay(trace.read_bytes(), names, title=trace.name)
    return write_page(replay, out), replay


def _shown(page: Any) -> dict[str, Any]:
    """What the table shows, read back from the page."""
    return page.evaluate("""() => {
      const root = document.querySelector('.ect');
      const players = [...document.querySelectorAll('.ect-player')].map(p => ({
        coins: p.querySelector('.ect-coins-n').textContent,
        buys: p.querySelector('.ect-buys-n').textContent,
        points: +p.querySelector('.ect-points-n').textContent,
        // identical cards are drawn once with their count ("x3"): count them back
        cards: [...p.querySelectorAll('.ect-hand .ect-card')].flatMap(c => Array(+(c.dataset.count || 1)).fill(c.dataset.card)),
      }));
      const shop = {};
      document.querySelectorAll('.ect-pile').forEach(p => shop[p.dataset.card] = p.querySelector('.ect-count-n').textContent);
      return {phase: root.dataset.phase, day: +root.dataset.day, players, shop,
              where: window.EconomancyReplay.current()};
    }""")


def _expected(state: dict[str, Any]) -> dict[str, Any]:
    return {
        "phase": state["phase"]["name"],
        "players": [{"coins": str(p["coins"]), "buys": str(p["buys"]),
                     "points": sum(POINTS[NAME_TO_ID[c["name"]]] for c in p["cards"]),
                     "cards": [c["name"] for c in p["cards"]]} for p in state["players"]],
        "shop": {k: str(v) for k, v in state["shop"].items()},
    }


def test_replay_shows_what_the_trace_says_at_each_position(page: Any, tmp_path: Path) -> None:
    path, replay = _page_for(KNOWN, tmp_path / "known.html")
    lines = KNOWN.read_text().splitlines()
    steps = replay.games[0].steps
    asks = [i for i, s in enumerate(steps) if s["k"] == "ask"]
    chosen = [asks[0], asks[7], asks[len(asks) // 2], asks[-1]]
    chosen += [i for i, s in enumerate(steps) if s["k"] == "fight"][:2]
    page.goto(path.as_uri())
    for i in chosen:
        page.goto(path.as_uri() + f"#step={i}")
        shown = _shown(page)
        assert shown["where"]["step"] == i
        # An ask shows the state on its trace line; a fight the state the next line sends.
        line = steps[i]["ln"] if steps[i]["k"] == "ask" else steps[i + 1]["ln"]
        want = _expected(json.loads(lines[line - 1]))
        got = {k: shown[k] for k in ("phase", "players", "shop")}
        assert got == want, f"step {i} (trace line {line})"
    assert page.errors == []


def test_keyboard_and_buttons_move_by_decision_round_and_day(page: Any, tmp_path: Path) -> None:
    path, replay = _page_for(KNOWN, tmp_path / "known.html")
    steps = replay.games[0].steps
    page.goto(path.as_uri())
    assert _shown(page)["where"]["step"] == 0 and _shown(page)["day"] == 1
    page.keyboard.press("ArrowRight")
    assert _shown(page)["where"]["step"] == 1
    page.keyboard.press("PageDown")
    day2 = next(i for i, s in enumerate(steps) if s["D"] == 2)
    assert _shown(page)["where"]["step"] == day2 and _shown(page)["day"] == 2
    assert _shown(page)["phase"] == "investing"
    page.keyboard.press("ArrowDown")
    next_round = next(i for i, s in enumerate(steps) if s["r"] > steps[day2]["r"])
    assert _shown(page)["where"]["step"] == next_round
    page.keyboard.press("ArrowUp")
    assert _shown(page)["where"]["step"] == day2
    page.click("#next-day")
    day3 = next(i for i, s in enumerate(steps) if s["D"] == 3)
    assert _shown(page)["where"]["step"] == day3
    page.click("#prev-day")
    assert _shown(page)["where"]["step"] == day2
    page.keyboard.press("End")
    end = _shown(page)
    assert end["where"]["step"] == len(steps) - 1 and end["phase"] == "end"
    final = json.loads(KNOWN.read_text().splitlines()[-1])
    assert {k: end[k] for k in ("phase", "players", "shop")} == _expected(final)
    assert page.locator(".ect-winner .ect-name").inner_text() == f"Seat {final['phase']['winner']}"
    page.keyboard.press("Home")
    assert _shown(page)["where"]["step"] == 0
    # The scrubber and the address follow.
    page.fill("#scrub", "40")
    page.dispatch_event("#scrub", "input")
    assert _shown(page)["where"]["step"] == 40 and page.evaluate("location.hash") == "#step=40"
    assert page.errors == []


def test_fragment_points_at_one_step_or_day(page: Any, tmp_path: Path) -> None:
    path, replay = _page_for(KNOWN, tmp_path / "known.html")
    steps = replay.games[0].steps
    page.goto(path.as_uri() + "#day=7")
    day7 = next(i for i, s in enumerate(steps) if s["D"] == 7)
    shown = _shown(page)
    assert shown["day"] == 7 and shown["where"]["step"] == day7
    page.goto(path.as_uri() + "#step=123")
    assert _shown(page)["where"]["step"] == 123
    page.evaluate("location.hash = '#end'")
    page.wait_for_function("window.EconomancyReplay.current().step === %d" % (len(steps) - 1))
    assert page.errors == []


@pytest.mark.slow
def test_every_golden_trace_renders_every_step_without_a_script_error(page: Any, tmp_path: Path) -> None:
    """Each trace's game is built on its own, as its own page would hold
    it; all of them then go into one page (its game list), chosen in turn:
    one page load instead of one per trace, each of which cost Chromium
    about a quarter of a second of CPU (this test: 28 s of CPU instead of
    60 s, page loads and all)."""
    traces = sorted(TRACES.glob("*.jsonl"))
    assert len(traces) > 100
    replays = [build_replay(trace.read_bytes(), (), title=trace.name) for trace in traces]
    assert all(len(r.games) == 1 and r.cards == replays[0].cards for r in replays)
    path = write_page(Replay([r.games[0] for r in replays], replays[0].cards, "golden traces"), tmp_path / "all.html")
    page.goto(path.as_uri())
    for index, (trace, replay) in enumerate(zip(traces, replays)):
        # Every event (reveal, fight, end) and every fourth decision through the
        # renderer (into a detached node: no layout), and the whole page (log,
        # charts) at the start, the middle and the end of the game.
        n, ends = page.evaluate("""(index) => {
          const r = window.EconomancyReplay, d = r.data, g = d.games[index], n = g.steps.length, box = document.createElement('div');
          for (let i = 0; i < n; i++) {
            if (g.steps[i].k === 'ask' && i % 4 && !(g.steps[i].m || {}).bad) continue;
            const view = {cards: d.cards, names: g.names, shop: g.shop, state: g.states[g.steps[i].s], step: g.steps[i]};
            EconomancyTable.render(box, view, {});
            if (!EconomancyTable.describe(view)) throw new Error('step ' + i + ' has no description');
          }
          const choice = document.getElementById('game');
          choice.value = String(index);
          choice.dispatchEvent(new Event('change'));  // the game list: its step 0 drawn
          if (r.current().game !== index || r.current().step !== 0) throw new Error('game ' + index + ' not shown');
          r.go(n >> 1, true); r.go(n - 1, true);
          return [n, document.querySelectorAll('.ect-event-end').length]; }""", index)
        assert n == len(replay.games[0].steps), trace.name
        assert ends == 1, trace.name
        assert page.errors == [], trace.name


def test_hostile_text_is_shown_as_text(page: Any, tmp_path: Path) -> None:
    lines = (TRACES / "simple_2p_wrong_random_1.jsonl").read_text().splitlines()
    final = json.loads(lines[-1])
    final["phase"]["reason"] = "bad <img src=x onerror=alert(1)> move\x1b[2J"
    lines[-1] = json.dumps(final)
    trace = tmp_path / "hostile.jsonl"
    trace.write_text("\n".join(lines))
    path, _ = _page_for(trace, tmp_path / "hostile.html", ("<b>wrong</b>", "random\u202e"))
    page.goto(path.as_uri() + "#end")
    assert page.locator("img").count() == 0 and page.locator(".ect b b").count() == 0
    assert "bad <img src=x onerror=alert(1)> move\\x1b[2J" in page.locator(".ect-end-text").inner_text()
    assert page.locator(".ect-player .ect-name").all_inner_texts() == ["<b>wrong</b>", "random\\u202e"]
    assert page.errors == []


def _fill_store(db: Path) -> dict[int, tuple[str, ...]]:
    """Golden traces stored as games, one a forfeit with standard error."""
    games = [
        ("simple_2p_random_decent_1.jsonl", ("random", "decent")),
        ("simple_2p_wrong_random_1.jsonl", ("wrong", "random")),
        ("simple_2p_decent_decent_maxdays12.jsonl", ("decent", "decent-b")),
        ("base_4p_random_x4_3.jsonl", ("r0", "r1", "r2", "r3")),
    ]
    ids = {}
    with Store.open(db) as store:
        tid = store.tournament("round-robin", {}, [(n, [n]) for n in ("random", "decent", "wrong")])
        for k, (name, seats) in enumerate(games):
            lines = (TRACES / name).read_bytes().splitlines()
            final = json.loads(lines[-1])["phase"]
            winner = final.get("winner") if final["name"] == "end" and final.get("winner") is not False else None
            fault = final.get("forfiet") if final["name"] == "fault" else None
            err = [b"== wrong ==", b"Traceback (most recent call last):\n  ValueError: <oops>"] if fault is not None else []
            store.add_game(tid, GameRecord(f"g/{k}", seats, winner, fault, final.get("reason"), 3, len(lines), 0.1,
                                           {}, compress_lines(lines), compress_lines(err)))
        for rec in store.games():
            ids[rec.id] = rec.seats
    return ids


def test_report_game_list_links_open_the_right_game(page: Any, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tournaments.cli import tournament_main

    db = tmp_path / "r.sqlite"
    ids = _fill_store(db)
    out = tmp_path / "report.html"
    res = CliRunner().invoke(tournament_main, ["report", str(db), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page.goto(out.as_uri())
    assert page.locator("#game-list tbody tr").count() == len(ids)
    for game_id, seats in ids.items():
        page.goto(out.as_uri())
        page.click(f"a.replay[data-game='{game_id}']")
        page.wait_for_selector(".ect")
        assert page.title().startswith(f"Game {game_id}: ")
        assert page.locator(".ect-player .ect-name").all_inner_texts() == list(seats)
    # The forfeit's replay ends on the reason and the bot's kept standard error.
    fault_id = next(i for i, s in ids.items() if s[0] == "wrong")
    page.goto((tmp_path / "report_replays" / f"game-{fault_id}.html").as_uri() + "#end")
    assert "ValueError: <oops>" in page.locator(".ect-stderr").inner_text()
    assert "wrong forfeits" in page.locator(".ect-end-text").inner_text()
    # Filters: by bot, by result, by length.
    page.goto(out.as_uri())
    page.select_option("#f-bot", "wrong")
    assert page.locator("#game-list tbody tr:not([hidden])").count() == 1
    page.select_option("#f-bot", "")
    page.select_option("#f-result", "draw")
    assert page.locator("#game-list tbody tr:not([hidden])").count() == 1
    page.select_option("#f-result", "")
    days = [int(d) for d in page.eval_on_selector_all("#game-list tbody tr", "rows => rows.map(r => r.dataset.days)")]
    page.fill("#f-min", str(max(days)))  # days as each replay counts them: the day the game ended on
    page.dispatch_event("#f-min", "input")
    assert page.locator("#game-list tbody tr:not([hidden])").count() == days.count(max(days))
    page.fill("#f-min", str(max(days) + 1))
    page.dispatch_event("#f-min", "input")
    assert page.locator("#game-list tbody tr:not([hidden])").count() == 0
    assert page.errors == []


def test_screenshot_for_the_readme(page: Any, tmp_path: Path) -> None:
    """Renders a fight for a new reader; saved when ECONOMANCY_SCREENSHOTS names a folder."""
    trace = TRACES / "base_3p_decent_attack_random_1.jsonl"
    path, replay = _page_for(trace, tmp_path / "shot.html", ("decent", "attack", "random"))
    fight = next(i for i, s in enumerate(replay.games[0].steps) if s["k"] == "fight" and s["ev"]["defs"])
    page.set_viewport_size({"width": 1500, "height": 1050})
    page.goto(path.as_uri() + f"#step={fight}")
    assert page.locator(".ect-event-fight .ect-card").count() >= 2
    folder = os.environ.get("ECONOMANCY_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / "replay.png"))
    assert page.errors == []


def test_stored_stderr_is_split_by_seat() -> None:
    from tournaments.report_games import seat_stderr

    blob = zlib.compress(b"== a ==\nline a\n== b ==\nline b1\n== a ==\nline b2")
    assert seat_stderr(blob, ("a", "b")) == ["line a", "line b1\n== a ==\nline b2"]
    assert seat_stderr(b"", ("a", "b")) == ["", ""]


@pytest.mark.parametrize("every, frames", [("day", None), ("step", None)])
def test_frame_steps(every: str, frames: None) -> None:
    from viewer.export import frame_steps

    replay = build_replay(KNOWN.read_bytes())
    steps = replay.games[0].steps
    got = frame_steps(replay, every)
    if every == "step":
        assert got == list(range(len(steps)))
    else:
        assert len(got) == steps[-1]["D"] and got[-1] == len(steps) - 1
        assert all(steps[i]["D"] != steps[i + 1]["D"] for i in got[:-1])


def test_a_stream_of_games_with_names_and_a_cut_off_game(page: Any, tmp_path: Path) -> None:
    one = (TRACES / "simple_2p_attack_points_1.jsonl").read_text().strip()
    stream = tmp_path / "stream.jsonl"
    stream.write_text("\n".join([
        '{"meta":"players","names":["attack","points"]}', one, one,
        '{"meta":"players","names":["x","y"]}', "\n".join(one.splitlines()[:9]),
        '{"meta":"aborted","reason":"referee stopped"}',
    ]))
    path, _ = _page_for(stream, tmp_path / "stream.html")
    page.goto(path.as_uri())
    assert page.locator("#game option").count() == 3 and page.is_visible("#game")
    page.goto(path.as_uri() + "#game=3&end")
    assert page.locator(".ect-player .ect-name").all_inner_texts() == ["x", "y"]
    assert page.locator(".ect-event-end h3").inner_text() == "Game cut off"
    assert "referee stopped" in page.locator(".ect-end-text").inner_text()
    page.select_option("#game", "1")
    assert page.evaluate("location.hash") == "#game=2&step=0"
    assert page.errors == []


def test_pdf_export_prints_one_frame_per_day(tmp_path: Path, chromium: Any) -> None:
    from click.testing import CliRunner

    from arena.cli import driver

    pdf = tmp_path / "game.pdf"
    trace = TRACES / "simple_2p_decent_decent_maxdays12.jsonl"
    res = CliRunner().invoke(driver, ["view", str(trace), "-o", str(tmp_path / "g.html"), "--pdf", str(pdf)])
    assert res.exit_code == 0, res.output
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and data.count(b"/Type /Page") - data.count(b"/Type /Pages") >= 12


def test_renderer_api_draws_a_wire_state_with_clickable_moves(page: Any) -> None:
    """The API the game server's live pages use: fromWire, render with legal
    moves and callbacks, describe."""
    from viewer.model import card_table
    from viewer.page import json_for_script, static_text

    wire = json.loads((TRACES / "base_4p_random_x4_3.jsonl").read_text().splitlines()[0])
    page.set_content(f"<style>{static_text('table.css')}</style><div id=t></div><script>{static_text('table.js')}</script>")
    clicked = page.evaluate(f"""() => {{
      const wire = {json_for_script(wire)}, cards = {json_for_script(card_table())}, got = [];
      const view = EconomancyTable.fromWire(wire, cards, ["you", "b", "c", "d"]);
      const ghost = cards.findIndex(c => c.name === "Ghost");
      EconomancyTable.render(document.getElementById("t"), view, {{
        perspective: 0, legal: {{cards: [[0, 0]], shop: [ghost]}},
        onShop: id => got.push(["shop", id]), onCard: (s, i) => got.push(["card", s, i])}});
      document.querySelector(".ect-pile.ect-clickable").click();
      document.querySelector(".ect-player[data-seat='0'] .ect-card.ect-clickable").click();
      return {{got, ghost, clickable: document.querySelectorAll(".ect-clickable").length,
               text: EconomancyTable.describe(view), you: !!document.querySelector(".ect-you")}};
    }}""")
    assert clicked["got"] == [["shop", clicked["ghost"]], ["card", 0, 0]]
    assert clicked["clickable"] == 2 and clicked["you"]
    assert clicked["text"] == "Waiting for you: how much to invest (hidden from the others)"
    assert page.locator(".ect-player[data-seat='0'] .ect-coins-n").inner_text() == str(wire["players"][0]["coins"])
    assert page.errors == []
