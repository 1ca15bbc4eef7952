"""What a bot can and cannot reach (docs/protocol.md, "What a bot can
reach"), how --isolation chooses, and bots that outlive the thread that
started them."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from proctable import MARK_VARIABLE, new_mark, wait_until_gone
from users import ROOT, User, shared_directory, user  # noqa: F401  (fixture)

from driver import isolation
from driver.cli import EXIT_USAGE
from arena.cli import driver as cli
from driver.process import BotGroup

BOTS = Path(__file__).parent / "bots"


@pytest.fixture
def logs() -> Iterator[Path]:
    directory = shared_directory("economancy-logs-")
    directory.chmod(0o777)  # as root, bots run as nobody
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def _inspect(user: User, logs: Path, mode: str) -> tuple[dict, str]:  # noqa: F811
    """Run tests/bots/inspect_env.py in a real game; its report and the summary."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        mark = new_mark()
        env = {
            **user.env,
            MARK_VARIABLE: mark,
            "ECONOMANCY_TEST_LOGS": str(logs),
            "ECONOMANCY_TEST_PORT": str(listener.getsockname()[1]),
        }
        command = user.driver(
            "run", "--isolation", mode, "--max-days", "1", "--timeout", "30",
            user.bot("inspect_env.py"), user.bot("simple.py"),
        )
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, timeout=300)
    summary = done.stderr.decode(errors="replace")
    assert done.returncode in (0, 3), summary
    assert wait_until_gone(mark) == []
    (log,) = logs.glob("inspect-*.log")
    return json.loads(log.read_text().removeprefix("inspect: ")), summary


def test_what_a_bot_can_reach_under_namespaces(user: User, logs: Path) -> None:  # noqa: F811
    report, summary = _inspect(user, logs, "auto")
    assert "isolation  namespaces: own user, PID, mount, IPC and network namespaces" in summary
    assert report["uid"] == report["gid"] == (65534 if user.uid == 0 else user.uid)
    if user.uid == 0:
        assert report["groups"] == []  # none of root's supplementary groups
    # Its init (pid 1) and itself: no referee, no other bot, nothing of the host.
    assert report["processes"] == [1, report["pid"]]
    assert report["CapEff"] == report["CapBnd"] == "0000000000000000"
    assert report["NoNewPrivs"] == "1"
    assert report["interfaces"] == ["lo"]
    assert report["port"][0] == "refused"  # the host's loopback is not its own
    python = Path(os.path.realpath(user.python))
    if user.uid == 0 and python.is_relative_to("/root"):
        # A private directory it needs shows that one path alone, read-only.
        assert report["root"] == ["ok", [python.relative_to("/root").parts[0]]]
    else:
        assert report["root"] == ["refused", "Permission denied"]
    # A user namespace of its own does not let it uncover the host's /proc.
    assert report["escape"][0] == "refused", report["escape"]


def test_without_namespaces_a_bot_reaches_everything_its_user_can(logs: Path) -> None:
    me = User("me", [], sys.executable, dict(os.environ), logs, os.geteuid())
    report, summary = _inspect(me, logs, "none")
    assert "isolation  none (--isolation none); the bot runs as the referee's user" in summary
    assert report["uid"] == os.geteuid()
    assert len(report["processes"]) > 10 and os.getpid() in report["processes"]
    assert report["port"] == ["ok", "connected"]


def test_auto_without_namespaces_falls_back_to_none_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(isolation._unavailable, os.getpid(), "user namespaces are disabled (simulated)")
    chosen = isolation.choose("auto")
    assert not chosen.namespaces
    assert chosen.description.startswith("none (namespaces are not available here: user namespaces are disabled")
    with pytest.raises(isolation.LaunchError, match="--isolation namespaces is not available here"):
        isolation.choose("namespaces")
    done = CliRunner().invoke(cli, ["run", "--isolation", "namespaces", "random", "random"])
    assert done.exit_code == EXIT_USAGE
    assert "namespaces are not available here: user namespaces are disabled (simulated)" in done.output


def test_a_bot_outlives_the_thread_that_started_it() -> None:
    # A server plays games in threads: a bot must live as long as the
    # referee process, not as long as the thread that spawned it (the
    # parent-death signal would follow the thread).
    started: list[BotGroup] = []
    echo = "import sys\nfor line in sys.stdin: print(line, end='', flush=True)\n"
    thread = threading.Thread(target=lambda: started.append(BotGroup.spawn([((sys.executable, "-S", "-c", echo), "echo")])))
    thread.start()
    thread.join()
    (group,) = started
    try:
        time.sleep(0.5)
        group.send(0, b"[1]")
        ((_, reply),) = group.replies([0], 30)
        assert reply.line == b"[1]", reply
    finally:
        group.close()
