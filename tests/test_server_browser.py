"""People in the browser (Debian's headless Chromium through the viewer's
Playwright fixtures): a person, played by this test's clicks, finishes a
game against `random` from the lobby's form, while a second page watching
the same game sees each round appear as it resolves."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serverlib import Server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("browser") / "games.sqlite").start()
    yield srv
    srv.stop()


def _shot(page: Any, name: str) -> None:
    """ECONOMANCY_SCREENSHOTS=DIR keeps pictures of the pages (docs/ uses them)."""
    where = os.environ.get("ECONOMANCY_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"server-{name}.png"), full_page=True)


def _revealed(watcher: Any) -> int:
    return watcher.locator("#log li", has_text="Investments revealed").count()


def test_a_person_plays_random_in_the_browser_and_a_spectator_watches_live(
    server: Server, page: Any, chromium: Any
) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("select.opponent option[value=random]", state="attached")
    _shot(page, "lobby")
    page.fill("input[name=name]", "Ann <b>&amp;")
    page.fill("input[name=max_days]", "4")  # a short game: both pages redraw every round
    page.select_option("select.opponent", "random")
    page.click("#start")
    page.wait_for_url("**/game/**#seat=0&token=*")
    game_id = page.url.split("/game/")[1].split("#")[0]

    spectator = chromium.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    spectator.goto(f"{server.url}/game/{game_id}")
    spectator.wait_for_selector("#status:has-text('watching')")

    invested = moves = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if page.locator("#replay-link").count():
            break
        if not page.locator("#controls:not([hidden])").count():
            page.wait_for_timeout(100)
            continue
        # A new question: the round answered before it has resolved, and the
        # spectator must see its investments revealed now, before the game ends.
        wait_until = time.monotonic() + 20
        while _revealed(spectator) < invested and time.monotonic() < wait_until:
            spectator.wait_for_timeout(100)
        assert _revealed(spectator) >= invested, "the spectator did not see the last round live"
        assert not spectator.locator("#replay-link").count()
        if page.locator("#invest").count():
            assert page.locator("#invest-amount").get_attribute("max") is not None
            page.fill("#invest-amount", "0")
            page.click("#invest")
            # Counted once the page sent it: a click the page could not send
            # (its connection not open at that moment) leaves the same
            # question up, answered on the next pass, and counting both made
            # the spectator look one round behind (a CI run on a busy machine).
            if not page.locator("#controls:not([hidden]) #invest").count():
                invested += 1
        elif page.locator("#controls #pass").count():
            piles = page.locator(".ect-shop .ect-pile.ect-clickable")
            (piles.first.click() if piles.count() else page.click("#pass"))  # buy to have defenders
        elif page.locator("#stop").count():
            page.click("#stop")
        else:  # defending: only legal cards are clickable
            page.locator(".ect-player.ect-you .ect-card.ect-clickable").first.click()
        moves += 1
        if moves == 3:
            _shot(page, "play")
        page.wait_for_timeout(50)
    assert page.locator("#replay-link").count(), "the game did not end in time"
    assert invested >= 1 and moves >= 2
    page.wait_for_selector("#banner:has-text('Game over')")
    spectator.wait_for_selector("#banner:has-text('Game over')")
    _shot(page, "over")
    _shot(spectator, "watch")
    # The name typed with markup in it is text, not markup.
    assert page.locator(".ect-name", has_text="Ann <b>&amp;").count() >= 1
    assert page.locator(".ect-name b").count() == 0
    log = spectator.locator("#log li").all_text_contents()
    assert any("Investments revealed" in line for line in log) and log[-1]
    # A spectator who arrives after the end sees the ended game, its result and its replay.
    late = chromium.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    late.goto(f"{server.url}/game/{game_id}")
    late.wait_for_selector("#banner:has-text('Game over')")
    late.wait_for_selector("#replay-link")
    _shot(late, "late")
    assert late.locator("#log li").count() >= 1
    page.click("#replay-link")
    page.wait_for_selector("#scrub")
    assert page.title().startswith("Game ") and "random" in page.title()
    assert page.errors == [] and spectator.context.pages  # no script error on our pages
