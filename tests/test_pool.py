"""The one pool of worker processes (`common.pool.WorkerPool`): spawned
workers, Ctrl-C left to the parent, work abandoned at once on an error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import CancelledError
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from common.pool import WorkerPool, default_workers

STATE = "as imported"


def _state() -> str:
    return STATE


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _gone(pids: list[int]) -> bool:
    """Whether every pid is gone, waiting for up to a minute (a loaded machine reaps slowly)."""
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_alive(p) for p in pids)


def test_workers_are_spawned_not_forked() -> None:
    """A worker is a fresh interpreter: it does not share the parent's
    state (a forked one would, threads' locks included)."""
    global STATE
    STATE = "changed in the parent"
    try:
        with WorkerPool(1) as pool:
            assert pool.submit(_state).result() == "as imported"
    finally:
        STATE = "as imported"


def test_an_error_in_the_block_stops_the_workers_without_waiting_for_their_work() -> None:
    with pytest.raises(RuntimeError), WorkerPool(2) as pool:
        running = [pool.submit(_pid_after, 3600) for _ in range(2)]  # an hour's work nobody will read
        queued = pool.submit(_pid_after, 3600)
        pids = [p.pid for p in pool._processes.values()]  # the test looks inside
        assert len(pids) == 2 and not any(f.done() for f in running)
        raise RuntimeError("the caller gives up")
    assert _gone(pids), "a worker outlived its pool"
    with pytest.raises((CancelledError, BrokenProcessPool)):  # dropped, never played
        queued.result(timeout=60)


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError):
        WorkerPool(0)
    assert default_workers() >= 1


_CTRL_C = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal (a test runner may ignore it)
sys.path.insert(0, {tests!r})
from common.pool import WorkerPool
from test_pool import _pid_after
with WorkerPool(2) as pool:
    futures = [pool.submit(_pid_after, 3600) for _ in range(4)]
    print(" ".join(str(p.pid) for p in pool._processes.values()), flush=True)
    futures[0].result()
"""


def test_ctrl_c_is_the_parents_and_leaves_no_worker_and_no_worker_traceback() -> None:
    """A terminal's Ctrl-C reaches the whole process group: the parent
    stops, its workers with it, and only the parent says so."""
    code = _CTRL_C.format(tests=str(Path(__file__).parent))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0
    assert err.count(b"Traceback") == 1 and b"KeyboardInterrupt" in err, err.decode()
    assert _gone(pids), "a worker outlived the Ctrl-C"
