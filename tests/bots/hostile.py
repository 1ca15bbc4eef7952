"""What the hostile test bots share: finding their victim, and every path
in /proc that leads to one of its pipes (its own fd 0 or 1, and any other
process's fd on the same pipe: the referee's end).

Only processes of the same test are touched: those whose environment
carries this bot's ECONOMANCY_TEST_MARK, and the victim is the one
running victim.py. What a bot manages or is refused goes to its log
(`Log`): standard error, and a file in $ECONOMANCY_TEST_LOGS if set.
"""
import os
import select
import sys
import threading
import time
import uuid

MARK = "ECONOMANCY_TEST_MARK=" + os.environ.get("ECONOMANCY_TEST_MARK", "")


class Log:
    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self.file = None
        directory = os.environ.get("ECONOMANCY_TEST_LOGS")
        if directory:
            path = os.path.join(directory, f"{name}-{uuid.uuid4().hex}.log")
            self.file = open(path, "w", buffering=1)

    def __call__(self, text):
        line = f"{self.name}: {text}\n"
        with self.lock:
            sys.stderr.write(line)
            sys.stderr.flush()
            if self.file:
                self.file.write(line)


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _ours(pid):
    return pid != os.getpid() and MARK.encode() in _read(f"/proc/{pid}/environ").split(b"\0")


def visible():
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]


def _is_victim(pid):
    argv = _read(f"/proc/{pid}/cmdline").split(b"\0")  # python -S .../victim.py
    return len(argv) >= 3 and argv[1] == b"-S" and argv[2].endswith(b"/victim.py")


def victims():
    return [p for p in visible() if _ours(p) and _is_victim(p)]


def _pipe(path):
    try:
        link = os.readlink(path)
    except OSError:
        return None
    return link if link.startswith("pipe:") else None


def paths_to(fd):
    """Every /proc path to the pipe that is a victim's `fd` (0: the states it
    reads, 1: the answers it writes), the referee's end included."""
    found = []
    for victim in victims():
        own = f"/proc/{victim}/fd/{fd}"
        pipe = _pipe(own)
        if pipe is None:
            continue
        found.append(own)
        for pid in visible():
            if pid == victim or not _ours(pid):
                continue
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            found += [f"/proc/{pid}/fd/{n}" for n in fds if _pipe(f"/proc/{pid}/fd/{n}") == pipe]
    return found


def reader(handle):
    """An `act` for `attack` that reads what the pipe brings and hands it to
    handle(data, path) until the pipe is closed."""

    def read(fd, path):
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                return
            handle(data, path)

    return read


def attack(log, fd, flags, act, seconds=600):
    """In the background: open every path to the victim's `fd` with `flags`
    and call act(opened_fd, path) on each, again as new ones appear.

    Returns once the attack has had its chance: a path to the victim tried,
    or a whole search of /proc begun after this bot's first state came (the
    bot then starts playing, so that the game cannot end before the attack
    has begun). The referee sends no state before every bot of the game is
    running (its launcher reports the exec): by then the victim is there to
    be found, if this bot can see it at all. (It was 2 s of finding none,
    which every game of the isolated runs waited out.)"""
    ready, asked = threading.Event(), threading.Event()

    def loop():
        done = set()
        denied = set()
        log(f"sees {len(visible())} processes")
        started = time.monotonic()
        while time.monotonic() < started + seconds:
            armed = asked.is_set()  # before the search: it began after the first state came
            for path in paths_to(fd):
                if path in done:
                    continue
                try:
                    opened = os.open(path, flags)
                except OSError as e:
                    if path not in denied:
                        denied.add(path)
                        log(f"denied {path}: {e.strerror}")
                    continue
                done.add(path)
                log(f"opened {path}")
                threading.Thread(target=act, args=(opened, path), daemon=True).start()
            if done or denied or armed:
                ready.set()
            time.sleep(0.02)

    threading.Thread(target=loop, daemon=True).start()
    select.select([sys.stdin.fileno()], [], [])  # the first state (or the end of input) is waiting; none read
    asked.set()
    ready.wait(30)
