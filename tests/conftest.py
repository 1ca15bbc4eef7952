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
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
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


# --- where the suite's time goes ---------------------------------------------


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (the default): three test workers per core. Most of the
    suite waits (bot processes starting, timeouts a bot must miss, servers,
    the browser, Ray): measured on the 2-core CI machine, one worker per
    core kept the cores only 68% busy (14m53s user + 2m27s sys in 12m45s).
    `.ci/run` on a clean clone, idle, one run after another (a5b2c26, 1851
    passed each time): 4m59s, 5m02s and 5m00s with two per core, 4m16s and
    4m22s with three. An earlier trial of three (4m42s, 4m51s, 5m04s
    against 5m02s, 5m05s, 5m24s) had looked like noise. It passed with
    both cores busy too."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 3 * cores


DURATIONS = Path(__file__).with_name("durations.tsv")


def known_durations(path: Path = DURATIONS) -> dict[str, float]:
    """The wall seconds a whole run measured per test, from lines of
    ECONOMANCY_TEST_CPU's log (test, wall, CPU): what run_order sorts by,
    keyed by `stable_id`. A test renamed or new is unknown until the file
    is written again:
    ECONOMANCY_TEST_CPU=/tmp/cpu.tsv .venv/bin/python -m pytest -q, then
    awk -F'\t' '$2 >= 1.5' /tmp/cpu.tsv | sort -t$'\t' -k2 -rn > tests/durations.tsv"""
    out: dict[str, float] = {}
    for line in path.read_text().splitlines() if path.exists() else ():
        nodeid, wall, *_ = line.split("\t")
        out[stable_id(nodeid)] = float(wall)
    return out


_DOC_LINE = re.compile(r"\[([^\]:\s]+\.md):\d+ ")


def stable_id(nodeid: str) -> str:
    """A test's id without the line number of a documented command
    (test_docs' ids name the page and line): an edit above a command
    moved its line, and some of the suite's longest tests were then
    unknown to run_order (the file named 8 such ids, among them a bench
    of 40 s that ran last of its module)."""
    return _DOC_LINE.sub(r"[\1 ", nodeid, count=1)


def run_order(items: list[pytest.Item], known: dict[str, float]) -> list[pytest.Item]:
    """Longest first, the classic cure for the tail: started last, a test
    of a minute runs alone at the end while the other workers idle. Module
    by module, the module of the longest test first, so that a worker
    mostly takes a module's tests one after another and sets its module
    fixtures up once; inside a module, longest first. A test the file does
    not know counts 20 s if marked slow (end-to-end), else nothing; ties
    keep their order."""

    def module(item: pytest.Item) -> str:
        return item.nodeid.split("::", 1)[0]

    own = {item.nodeid: known.get(stable_id(item.nodeid), 20.0 if item.get_closest_marker("slow") else 0.0)
           for item in items}
    longest: dict[str, float] = {}
    for item in items:
        longest[module(item)] = max(longest.get(module(item), 0.0), own[item.nodeid])
    return sorted(items, key=lambda item: (-longest[module(item)], -own[item.nodeid]))


BROWSER_MODULES = frozenset(f"tests/{name}.py" for name in (
    "test_people_browser", "test_report_html", "test_server_browser", "test_viewer_browser"))
"""The modules whose tests use the browser: one test worker runs them all
(pytest_xdist_make_scheduler), so that one Chromium serves them and their
modules' fixtures (a game server, a game) are set up once."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every run, serial or not, in run_order's order (tests/durations.tsv);
    a test that uses the browser outside BROWSER_MODULES is refused."""
    items[:] = run_order(items, known_durations())
    strays = sorted({item.nodeid.split("::", 1)[0] for item in items
                     if "chromium" in getattr(item, "fixturenames", ())} - BROWSER_MODULES)
    if strays:
        raise pytest.UsageError(f"{', '.join(strays)} use the browser: add them to BROWSER_MODULES in tests/conftest.py")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's `load` schedule (tests go out a couple at a time, in
    run_order's order), except that the browser's tests (BROWSER_MODULES)
    go to one worker together, first (xdist sends its largest unit first):
    each worker that took one launched its own Chromium and Playwright
    (3.4 s of CPU) and set up the modules' game server and game again.
    (xdist's own `xdist_group` marks are lost under pytest 9, which ignores
    the node id that xdist rewrites.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BrowserTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "browser" if module in BROWSER_MODULES else nodeid

    return BrowserTogether(config, log)


_CPU_LOG = os.environ.get("ECONOMANCY_TEST_CPU")


def _descendants() -> dict[tuple[int, int], tuple[int, float]]:
    """Every live descendant of this process, by (pid, start time): its
    parent and its CPU seconds with what it has reaped of its own (/proc)."""
    parents: dict[int, list[int]] = {}
    found: dict[int, tuple[int, int, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        pid, ppid = int(entry.name), int(fields[1])
        parents.setdefault(ppid, []).append(pid)
        found[pid] = (ppid, int(fields[19]), sum(int(x) for x in fields[11:15]) / tick)  # utime..cstime
    out, todo = {}, list(parents.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        if pid in found:
            ppid, started, cpu = found[pid]
            out[(pid, started)] = (ppid, cpu)
        todo.extend(parents.get(pid, []))
    return out


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """With ECONOMANCY_TEST_CPU=FILE, append each test's wall time and CPU
    time to FILE, tab-separated: its worker's, the children it reaped
    (bots, servers, commands) and the work meanwhile of the processes it
    shares with other tests (the session's Chromium, a module's server):
    CI's budget is CPU as much as waiting (2 cores), and `--durations`
    shows only the wall clock. A process that outlives its parent (a
    daemon) is counted by no test once orphaned."""
    if not _CPU_LOG:
        yield
        return
    import resource
    import time

    def rusage() -> float:
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    wall, used, before = time.monotonic(), rusage(), _descendants()
    yield
    after = _descendants()
    # What the processes alive at the end did meanwhile, with what they
    # reaped; what this worker reaped (RUSAGE_CHILDREN). A process its
    # parent reaped meanwhile is counted there with its whole life: what it
    # had done before the test (its count at the start) was another test's.
    # (One whose parent went first, as the session's Chromium at the end, is lost.)
    reapers = {pid for pid, _ in after} | {os.getpid()}
    spent = rusage() - used + sum(cpu - before.get(key, (0, 0.0))[1] for key, (_, cpu) in after.items())
    spent -= sum(cpu for key, (ppid, cpu) in before.items() if key not in after and ppid in reapers)
    with open(_CPU_LOG, "a") as out:
        out.write(f"{item.nodeid}\t{time.monotonic() - wall:.2f}\t{spent:.2f}\n")
