"""Shared fixtures. `chromium` and `page` drive Debian's headless Chromium
through Playwright for the pages we write (the replay viewer, the report;
the game server's live pages can reuse them).

Why Playwright rather than Selenium: one persistent connection (a fast
session for the 124 traces), console messages and uncaught page errors
as events (`page.errors` below), and keyboard, fragments and screenshots
in one API. It drives the system's /usr/bin/chromium (`executable_path`);
no browser is ever downloaded. Each launch gets a fresh temporary profile
from Playwright (its equivalent of a new --user-data-dir).

Without Playwright or Chromium the browser tests are skipped, except in
CI (the CI variable set), where they fail: .ci/run installs both.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

# Bots start with a clean environment (driver.isolation.bot_environment):
# the test bots get the variables the tests mark and steer them with by name.
os.environ["ECONOMANCY_BOT_ENV"] = " ".join(
    ["ECONOMANCY_TEST_MARK", "ECONOMANCY_TEST_LOGS", "ECONOMANCY_TEST_PORT", "LATE_SECONDS", "PYTHONPATH"]
)

CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _missing(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{why}: CI must run the browser tests (bash .ci/run installs chromium and the browser extra)")
    pytest.skip(why)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the whole session (a Playwright Browser)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[browser]')")
    executable = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if executable is None:
        _missing("no chromium on PATH (apt-get install chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS,
                                     timeout=120_000)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    """A fresh page; `page.errors` collects console errors and uncaught
    exceptions, which a test should assert empty."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)  # generous: both cores may be busy
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    pg.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    pg.errors = errors  # type: ignore[attr-defined]
    try:
        yield pg
    finally:
        context.close()
