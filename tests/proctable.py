"""Finding bot processes from a test: by a marker in their environment.

Bots may run in PID namespaces of their own (so the pids they see are not
ours) and as another user (so they cannot write to our files); what every
process a bot starts does carry is the environment it inherits. A test
puts a fresh `ECONOMANCY_TEST_MARK` in the referee's environment and
scans /proc for it. /proc/PID/environ shows a process's environment as it
was at exec, so the test process itself, which set the marker later,
never matches; processes of other users are only readable by root.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

MARK_VARIABLE = "ECONOMANCY_TEST_MARK"


def new_mark() -> str:
    return uuid.uuid4().hex


def _each_process(name: str) -> Iterator[tuple[int, bytes]]:
    """(pid, contents of /proc/PID/`name`) for every process we may read it of."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                yield int(entry), Path(f"/proc/{entry}/{name}").read_bytes()
            except OSError:
                continue


def marked_processes(mark: str) -> list[int]:
    """Pids of live processes whose environment carries `mark` (zombies have
    no readable environment and are not listed: see `zombie_children`)."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    return [pid for pid, environ in _each_process("environ") if needle in environ.split(b"\0")]


def wait_for_marked(mark: str, at_least: int, timeout: float = 60.0) -> list[int]:
    """Wait until at least `at_least` marked processes run; returns them."""
    deadline = time.monotonic() + timeout
    while True:
        found = marked_processes(mark)
        if len(found) >= at_least or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def wait_until_answered(mark: str, script: str, timeout: float = 60.0) -> bool:
    """Wait until the marked process running `script` has written to its
    standard output and its reader (the referee) has taken every byte of
    it from the pipe; False if that cannot be seen within `timeout`.

    Processes running is not the same as a bot having answered: a loaded
    machine may start every process long before the first answer comes.
    The pipe is reopened through /proc to ask how much is still unread."""
    import fcntl
    import termios

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in marked_processes(mark):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if not any(arg.endswith(script.encode()) for arg in cmdline):
                    continue
                written = dict(
                    line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines()
                )
                if int(written["wchar"]) == 0:
                    continue
                fd = os.open(f"/proc/{pid}/fd/1", os.O_RDONLY | os.O_NONBLOCK)
                try:
                    unread = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
                finally:
                    os.close(fd)
                if int.from_bytes(unread, "little") == 0:
                    return True
            except (OSError, KeyError, ValueError):
                continue
        time.sleep(0.05)
    return False


def wait_until_gone(mark: str, timeout: float = 20.0) -> list[int]:
    """Wait until no marked process is left; returns those still there."""
    deadline = time.monotonic() + timeout
    while True:
        found = marked_processes(mark)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def zombie_children(parent: int | None = None) -> list[int]:
    """Zombies whose parent is `parent` (this process by default)."""
    me = os.getpid() if parent is None else parent
    found = []
    for pid, stat in _each_process("stat"):
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields[0] == b"Z" and int(fields[1]) == me:
            found.append(pid)
    return found


def default_signals() -> None:
    """A child's preexec_fn: the signals a terminal sends (SIGINT, SIGHUP,
    SIGQUIT) back at their defaults. A test started as a background job has
    SIGINT ignored, one under nohup SIGHUP, and an ignored disposition is
    inherited across exec: the program under test would never see them."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)
