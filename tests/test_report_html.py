"""The HTML report: self-contained, and rendered by a real headless browser."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.store import GameRecord, Store


def _browser() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _fill(db: Path) -> None:
    """Three bots, 2- and 3-player games, a draw and forfeits with reasons."""
    games = [
        (("alpha", "beta"), 0, None, None),
        (("beta", "alpha"), 1, None, None),
        (("alpha", "<gamma>"), None, 1, "timeout: no answer within 1 s"),
        (("<gamma>", "beta"), None, 0, "bot exited with status 3 instead of answering"),
        (("alpha", "beta", "<gamma>"), None, None, None),
        (("beta", "<gamma>", "alpha"), 2, None, None),
    ] * 3
    with Store.open(db) as store:
        tid = store.tournament("round-robin", {"players": 2}, [("alpha", ["a"]), ("beta", ["b"]), ("<gamma>", ["c"])])
        for i, (seats, winner, fault, why) in enumerate(games):
            store.add_game(tid, GameRecord(f"g/{i}", seats, winner, fault, why, 5, 60, 0.2, {"max_days": 5}))


def test_report_is_self_contained_and_renders_in_chromium(tmp_path: Path) -> None:
    db, page = tmp_path / "r.sqlite", tmp_path / "report.html"
    _fill(db)
    out = subprocess.run(
        [sys.executable, "-c", "from arena.cli import tournament_main; tournament_main()",
         "report", str(db), "-o", str(page)],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    html = page.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)  # nothing from the network
    assert not re.search(r"<script[^>]*\ssrc", html)  # the game list's one script is inline
    assert "&lt;gamma&gt;" in html and "<gamma>" not in html

    browser = _browser()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required in CI (apt-get install -y chromium)")
        pytest.skip("no chromium to render the report")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--user-data-dir=" + str(tmp_path / "profile"), "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=60,
    ).stdout
    # The browser parsed the page into the tables and the chart we wrote.
    for table, rows in (("standings", 4), ("crosstable", 4), ("forfeits", 3)):
        m = re.search(rf'<table id="{table}">(.*?)</table>', dom, re.S)
        assert m, f"{table} table not rendered"
        assert m.group(1).count("<tr>") == rows
    assert dom.count("<circle") == 3 and "Economancy" in dom
