"""However the referee ends, no bot process outlives it, and a stopped
`driver run` says so in its exit status and at the end of its trace."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from proctable import (
    MARK_VARIABLE,
    default_signals,
    new_mark,
    wait_for_marked,
    wait_until_answered,
    wait_until_gone,
)
from users import User, user  # noqa: F401  (fixture)

# The driver, the simple bot and its init, the hanging bot, its init, its
# child and its setsid grandchild.
PROCESSES = 7


def _start(user: User, trace: Path, mark: str, *args: str) -> subprocess.Popen[bytes]:  # noqa: F811
    command = user.driver(
        "run", "--timeout", "120", "--trace", str(trace), *args, user.bot("simple.py"), user.bot("hang_family.py")
    )
    return subprocess.Popen(
        command,
        env={**user.env, MARK_VARIABLE: mark},
        cwd=Path(__file__).parents[1],
        stderr=subprocess.PIPE,
        # A terminal's Ctrl-C and hang-up reach a program whose SIGINT and
        # SIGHUP are at their defaults; this test may run where they were set
        # to ignored (a background job, nohup), and the referee, as nohup
        # asks, keeps an ignored SIGHUP ignored.
        preexec_fn=default_signals,
    )


def _signal_mid_game(user: User, trace: Path, mark: str, sig: int, *args: str) -> tuple[int, str]:  # noqa: F811
    """Start a game that cannot end by itself, signal the driver once all
    its processes run and seat 0 has answered its first state (the referee
    has read the answer); (exit status, its standard error)."""
    proc = _start(user, trace, mark, *args)
    try:
        started = wait_for_marked(mark, PROCESSES)
        assert len(started) >= PROCESSES, f"only {len(started)} processes started"
        assert wait_until_answered(mark, "simple.py"), "seat 0 never answered"
        # The referee has the answer's bytes; give it a moment to record them.
        time.sleep(0.3)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err.decode(errors="replace")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
@pytest.mark.parametrize("isolation", ["auto", "none"])
def test_no_bot_process_outlives_the_referee(user: User, isolation: str, sig: int) -> None:  # noqa: F811
    mark = new_mark()
    trace = user.workdir / f"killed-{isolation}-{sig}.jsonl"
    status, err = _signal_mid_game(user, trace, mark, sig, "--isolation", isolation)
    assert wait_until_gone(mark) == [], f"bot processes outlived the referee ({user.label}, {isolation})"
    if sig == signal.SIGHUP:
        assert status == 128 + signal.SIGHUP, err
        last = orjson.loads(trace.read_bytes().splitlines()[-1])
        assert last == {"meta": "aborted", "reason": "the referee was stopped (SIGHUP)"}
    else:
        assert status == -signal.SIGKILL


@pytest.mark.parametrize(
    "sig, reason",
    [
        (signal.SIGINT, "the referee was interrupted (SIGINT)"),
        (signal.SIGTERM, "the referee was stopped (SIGTERM)"),
    ],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_stopped_run_exits_with_128_plus_the_signal_and_ends_its_trace(
    tmp_path: Path, sig: int, reason: str
) -> None:
    me = User("me", [], sys.executable, dict(os.environ), tmp_path, os.geteuid())
    mark = new_mark()
    trace = tmp_path / "stopped.jsonl"
    status, err = _signal_mid_game(me, trace, mark, sig)
    assert status == 128 + sig, err
    assert "game abandoned" in err
    header, *lines = [orjson.loads(line) for line in trace.read_bytes().splitlines()]
    assert header["meta"] == "header"
    assert lines[-1] == {"meta": "aborted", "reason": reason}
    # What was asked and answered before the stop (seat 0's first investment) is kept.
    assert lines[:-1] == [lines[0], [0]] and lines[0]["player"] == 0
    assert wait_until_gone(mark) == []
