"""How a bot process is started and fenced off: `--isolation {auto,namespaces,none}`.

Every bot runs under a small init of ours (`driver/botinit.c`, built with
the package), a direct child of the referee. The init starts the bot,
reaps whatever the bot leaves behind, forwards SIGTERM to all of it, and
kills all of it when the bot exits, when the referee asks, or when the
referee process dies in any way (it watches a pipe only the referee
holds, so kill -9 of the referee ends the bots too, and so does the end
of whichever thread started them: the init does not rely on the
parent-death signal, which follows the spawning thread, not the process).
The referee is never a subreaper, so no orphan of a bot ever becomes its
zombie, however long it lives.

With namespaces (`auto` where the kernel allows them, or `namespaces`)
each bot gets its own user, PID, mount, IPC and network namespaces with a
/proc of its own: it sees no process but its own descendants and its
init, so it cannot open another bot's or the referee's pipes through
/proc/PID/fd, signal or trace them, or reach a service on the host's
loopback (there is only a loopback of its own). It runs with no
capabilities and no_new_privs, so it cannot undo any of that. Run as
root, the referee starts every bot as user `nobody` (65534): a bot whose
program lies under a directory nobody may not search (a virtualenv under
/root) gets that directory covered by an empty one in which only the
paths on its command line are bound back, read-only. A bot is never run
as root under namespaces. Run as a normal user, bots run as that user:
isolated from processes and the network, but not from that user's files.

`none` (or `auto` without namespaces, which says why) starts the bot as
the referee's user with nothing between them but the init; the referee
then makes itself non-dumpable, so other same-user processes cannot open
its /proc files, but bots can still reach each other's.

Fences between bots (`Fence`): under namespaces each bot's /tmp,
/var/tmp, /dev/shm and /run/lock are one private tmpfs of `scratch`
bytes, gone with the bot, and it has terminals of its own; so two bots
share no writable place, no IPC and no network. Every bot but one under
explicit `--isolation none` gets `Limits`: memory, processes and threads,
open files, file size and scratch space, through cgroup v2 where this
machine delegates it (`limit_backend`) and rlimits otherwise, and starts
with a clean environment (`bot_environment`): PATH, LANG, LC_*, TZ and
TERM, HOME in its scratch space, and what the user passes by name
(`--bot-env`). Explicit `--isolation none` keeps the old behaviour (the
referee's whole environment, no limits) and says so.
"""

from __future__ import annotations

import ctypes
import errno
import math
import os
import pwd
import re
import select
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from common.settings import MODES
from common.settings import Isolation as IsolationMode

__all__ = [
    "ENV_ALLOWED",
    "Fence",
    "Limits",
    "bot_environment",
    "CpuMeter",
    "cpu_seconds",
    "format_size",
    "limit_backend",
    "parse_size",
    "MODES",
    "LaunchError",
    "Launched",
    "Isolation",
    "botinit_path",
    "choose",
    "launch",
    "namespaces_unavailable",
    "lifeline",
    "out_of_memory",
    "release",
]

RELAY = IsolationMode.RELAY
"""Not a user's choice: the mode of a program of ours that plays a bot
running elsewhere (the relay of a `remote:NAME` bot) and must reach the
network, so it runs as `none` does."""

NOBODY = 65534
"""uid and gid bots run as when the referee is root (nobody/nogroup on Debian)."""

_START_TIMEOUT = 60.0  # seconds for the init to report; generous: the machine may be loaded
_PR_SET_DUMPABLE = 4
_SHEBANG = 256  # bytes of a script read to find its interpreter


class LaunchError(OSError):
    """A bot could not be started; `strerror` says why in words."""


# -- limits and environment -------------------------------------------------

_GiB = 1 << 30
_MiB = 1 << 20


@dataclass(frozen=True, slots=True)
class Limits:
    """What one bot process tree may use (see docs/protocol.md, "What a bot
    can reach"): sane for any bot we know of (a JVM, Node.js, a PyInstaller
    bundle, ours), small enough that a runaway bot hurts only itself.

    `memory`, `file_size` and `scratch` are bytes, `processes` counts
    processes and threads, `files` open descriptors per process; `cpu` is
    a CPU-time budget in seconds per move (None: none), which the referee
    enforces beside the wall-clock timeout (`driver.game`)."""

    memory: int = 2 * _GiB
    processes: int = 256
    files: int = 1024
    file_size: int = _GiB
    scratch: int = 512 * _MiB
    cpu: float | None = None

    def to_json(self) -> dict[str, int | float | None]:
        """The limits as the trace header records them (bytes, counts, seconds)."""
        return {
            "memory": self.memory,
            "processes": self.processes,
            "files": self.files,
            "file_size": self.file_size,
            "scratch": self.scratch,
            "cpu": self.cpu,
        }

    def describe(self) -> str:
        """The limits in words, for `driver check` and the run summary."""
        cpu = "no CPU budget" if self.cpu is None else f"{self.cpu:g} s of CPU per move"
        return (
            f"memory {format_size(self.memory)}, {self.processes} processes/threads, {self.files} open files, "
            f"files up to {format_size(self.file_size)}, scratch {format_size(self.scratch)}, {cpu}"
        )


@dataclass(frozen=True, slots=True)
class Fence:
    """Everything that fences one bot besides its namespaces: its limits and
    the variables the user passes it (`NAME` copies the referee's value,
    `NAME=VALUE` sets one; see `bot_environment`)."""

    limits: Limits = field(default_factory=Limits)
    env: tuple[str, ...] = ()


ENV_ALLOWED = ("PATH", "LANG", "TZ", "TERM")
"""Variables every bot gets from the referee's environment (and LC_*)."""
ENV_VARIABLE = "ECONOMANCY_BOT_ENV"
"""The referee's variable naming more variables for every bot (NAME or
NAME=VALUE, separated by spaces), as if each were given with --bot-env."""
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """`2G`, `512M`, `64k`, `1.5GiB` or a number of bytes -> bytes (powers of 1024).

    Raises ValueError with the accepted forms."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a size (bytes, or a number with K, M, G or T, e.g. 2G)")
    number, unit = match.groups()
    value = int(float(number) * (1 << (10 * "KMGT".find(unit.upper()) + 10) if unit else 1))
    if value <= 0:
        raise ValueError(f"{text!r} is not a size above 0")
    return value


def format_size(size: int) -> str:
    """Bytes in the largest unit that divides them (2 GiB, 512 MiB, 1000 B)."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def check_env_entry(entry: str) -> str:
    """An --bot-env entry (`NAME` or `NAME=VALUE`) as given; ValueError if NAME is not a variable name."""
    name = entry.partition("=")[0]
    if not _ENV_NAME.match(name):
        raise ValueError(f"--bot-env {entry!r}: {name!r} is not a variable name (letters, digits, _)")
    return entry


def bot_environment(given: Sequence[str], base: Mapping[str, str], home: str) -> dict[str, str]:
    """The environment a fenced bot starts with: from `base` (the referee's)
    only the allow-list (ENV_ALLOWED, LC_*), HOME set to `home` (its own
    scratch folder), then each entry of $ECONOMANCY_BOT_ENV and of `given`
    (`NAME`: base's value, if it has one; `NAME=VALUE`), later ones winning.

    Why an allow-list: the shell that runs a tournament holds tokens and
    credentials (ECONOMANCY_TOKEN, cloud and CI keys) that no bot should
    read; a bot that needs a variable gets it by name, visibly (the trace
    header lists the names)."""
    env = {k: v for k, v in base.items() if k in ENV_ALLOWED or k.startswith("LC_")}
    env["HOME"] = home
    for entry in [*base.get(ENV_VARIABLE, "").split(), *given]:
        name, eq, value = check_env_entry(entry).partition("=")
        if eq:
            env[name] = value
        elif name in base:
            env[name] = base[name]
    return env


# -- cgroup v2 -------------------------------------------------------------

_CPU_PERIOD = 100_000  # microseconds: cpu.max's period; each bot gets one core's worth of it
_cgroup_state: dict[int, tuple[Path | None, str]] = {}  # pid -> (parent of the bots' groups, why not)
_cgroup_count = 0


def _cgroup_parent() -> tuple[Path | None, str]:
    """Where this process can make a cgroup v2 group per bot with the memory,
    pids and cpu controllers, or (None, why not)."""
    pid = os.getpid()
    if pid in _cgroup_state:
        return _cgroup_state[pid]
    result: tuple[Path | None, str]
    try:
        result = _find_cgroup_parent()
    except OSError as e:
        result = (None, f"cgroup v2 is not usable here: {e.strerror or e}")
    _cgroup_state[pid] = result
    return result


def _find_cgroup_parent() -> tuple[Path | None, str]:
    mount = None
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) > 2 and fields[2] == "cgroup2":
                mount = fields[1]
                break
    if mount is None:
        return None, "no cgroup v2 file system is mounted"
    own = None
    with open("/proc/self/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                own = line[3:].strip()
    if own is None:
        return None, "this process is in no cgroup v2 group"
    here = Path(mount) / own.lstrip("/")
    wanted = {"memory", "pids", "cpu"}
    available = set((here / "cgroup.controllers").read_text().split())
    if not wanted <= available:
        missing = ", ".join(sorted(wanted - available))
        return None, f"cgroup v2 at {mount} lacks the {missing} controller(s) here (cgroup v1 holds them)"
    enabled = set((here / "cgroup.subtree_control").read_text().split())
    if not wanted <= enabled:
        try:  # possible where this group has no process of its own (a delegated, empty group) or is the root
            (here / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(wanted - enabled)))
        except OSError as e:
            return None, f"cgroup v2 at {here} is not delegated to us ({e.strerror})"
    if not os.access(here, os.W_OK):
        return None, f"cgroup v2 at {here} is not writable by us"
    return here, ""


def limit_backend() -> str:
    """How limits are enforced here, in words: "cgroup v2 (DIR)" or
    "rlimits (why not cgroup v2)"; what `driver check` and the header say."""
    parent, why = _cgroup_parent()
    if parent is not None:
        return f"cgroup v2 ({parent})"
    return f"rlimits ({why})"


def _make_cgroup(limits: Limits) -> Path | None:
    """A fresh cgroup v2 group for one bot with its limits, or None where
    cgroup v2 cannot be had (rlimits then do the job)."""
    global _cgroup_count
    parent, _ = _cgroup_parent()
    if parent is None:
        return None
    with _lock:  # games may start bots from several threads (the server)
        _cgroup_count += 1
        group = parent / f"economancy-bot-{os.getpid()}-{_cgroup_count}"
    group.mkdir()
    try:
        (group / "memory.max").write_text(str(limits.memory))
        if (group / "memory.swap.max").exists():
            (group / "memory.swap.max").write_text("0")
        (group / "pids.max").write_text(str(limits.processes))
        (group / "cpu.max").write_text(f"{_CPU_PERIOD} {_CPU_PERIOD}")
    except OSError:
        group.rmdir()
        raise
    return group


def remove_cgroup(group: Path) -> None:
    """Remove a bot's group once its init is gone (nothing is left in it)."""
    for _ in range(50):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # EBUSY: the kernel is still emptying it
            time.sleep(0.01)


def out_of_memory(group: Path | None) -> bool:
    """Whether the kernel killed a process of the bot's group for memory."""
    if group is None:
        return False
    try:
        for line in (group / "memory.events").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and int(value) > 0:
                return True
    except (OSError, ValueError):
        pass
    return False


_TICKS = os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU seconds a bot's whole process tree has used so far: its cgroup's
    usage, or, without one, the sum over its init's live descendants (every
    thread) and what they have reaped.

    Why a tree walk: orphans of a bot are the init's to reap, so nothing
    the bot started escapes the sum, however it forks. Read once per
    answer (`driver.game`), so the /proc files of the first few processes
    of the tree (the init and the bot, for most bots) stay open and are
    re-read with pread: two system calls a process, not six (the rest are
    opened each time, so a bot of many processes costs the referee no
    descriptors); the cgroup's cpu.stat stays open too."""

    _KEPT = 4  # processes whose /proc files stay open

    def __init__(self, init: int, group: Path | None) -> None:
        self.init = init
        self.group = group
        self._open: dict[int, tuple[int, dict[int, int]]] = {}  # pid -> (stat fd, {task: children fd})
        self._group_fd: int | None = None

    def seconds(self) -> float | None:
        """The tree's CPU seconds now, None once its init is gone."""
        if self.group is not None:
            return self._group_seconds()
        total = 0
        todo = [self.init]
        seen: set[int] = set()
        while todo and len(seen) < 4096:
            pid = todo.pop()
            seen.add(pid)
            try:
                kept = self._open.get(pid)
                if kept is None and len(self._open) < self._KEPT:
                    kept = self._open[pid] = (_open_proc(pid, "stat"), {})
                stat = os.pread(kept[0], 4096, 0) if kept is not None else _read_proc(pid, "stat")
                fields = stat.rpartition(b")")[2].split()
                # utime stime cutime cstime
                total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
                # Children hang off the thread that made them: every thread's list, one read if one thread.
                tasks = (pid,) if fields[17] == b"1" else [int(t) for t in os.listdir(f"/proc/{pid}/task")]
                for task in tasks:
                    if kept is None:
                        children = _read_proc(pid, f"task/{task}/children")
                    else:
                        fd = kept[1].get(task)
                        if fd is None:
                            fd = kept[1][task] = _open_proc(pid, f"task/{task}/children")
                        children = os.pread(fd, 65536, 0)
                    if children:
                        todo += map(int, children.split())
            except (OSError, ValueError, IndexError):
                self._forget(pid)  # gone (ESRCH): never its pid's next owner
                if pid == self.init:
                    self.close()
                    return None
        for pid in [p for p in self._open if p not in seen]:  # processes gone since
            self._forget(pid)
        return total / _TICKS

    def _group_seconds(self) -> float | None:
        assert self.group is not None
        try:
            if self._group_fd is None:
                self._group_fd = os.open(self.group / "cpu.stat", os.O_RDONLY | os.O_CLOEXEC)
            for line in os.pread(self._group_fd, 4096, 0).splitlines():
                if line.startswith(b"usage_usec "):
                    return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            pass
        return None

    def _forget(self, pid: int) -> None:
        kept = self._open.pop(pid, None)
        if kept is not None:
            for fd in (kept[0], *kept[1].values()):
                os.close(fd)

    def close(self) -> None:
        """Close the files kept open (the bot is gone)."""
        for pid in list(self._open):
            self._forget(pid)
        if self._group_fd is not None:
            os.close(self._group_fd)
            self._group_fd = None


def _open_proc(pid: int, name: str) -> int:
    return os.open(f"/proc/{pid}/{name}", os.O_RDONLY | os.O_CLOEXEC)


def _read_proc(pid: int, name: str) -> bytes:
    fd = _open_proc(pid, name)
    try:
        return os.read(fd, 65536)
    finally:
        os.close(fd)


def tree_running(init: int) -> bool:
    """Whether some thread of the process tree under `init` (the init
    included) is running or ready to run (state R), as /proc says now: a
    bot whose every thread sleeps has done what it was doing (for a bot
    waiting for input: it has read what it was sent and answered it).
    False once the init is gone."""
    todo = [init]
    seen = 0
    while todo and seen < 4096:
        pid = todo.pop()
        seen += 1
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                stat = _read_proc(pid, f"task/{task}/stat")
                if stat.rpartition(b")")[2].split()[0] == b"R":
                    return True
                children = _read_proc(pid, f"task/{task}/children")
                if children:
                    todo += map(int, children.split())
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return False


def cpu_seconds(init: int, group: Path | None) -> float | None:
    """CPU seconds a bot's tree has used so far, read once (see CpuMeter)."""
    meter = CpuMeter(init, group)
    try:
        return meter.seconds()
    finally:
        meter.close()


@dataclass(frozen=True, slots=True)
class Isolation:
    """What a bot gets: namespaces or not, the user it runs as, and one line
    saying so for people (`description`)."""

    namespaces: bool
    uid: int
    gid: int
    description: str


@dataclass(slots=True)
class Launched:
    """A started bot: its init's pid (our child), the referee's ends of its
    pipes, the report pipe the init writes its exit status to (and what
    was already read from it), and how it is isolated."""

    pid: int
    stdin: int
    stdout: int
    stderr: int
    report: int
    isolation: Isolation
    reported: bytes = b""
    limits: Limits | None = None  # None: none (explicit --isolation none)
    limit_backend: str = "none"  # how they are enforced, in words
    env_names: tuple[str, ...] = ()  # the variables it started with (never their values)
    cgroup: Path | None = None  # its cgroup v2 group, removed after it (`remove_cgroup`)
    home: str | None = None  # a scratch folder of ours on the host, removed after it
    core: int | None = None  # the CPU it is pinned to (rlimits), given back after it


def botinit_path() -> Path:
    """The init program built next to this module by setup.py."""
    return Path(__file__).with_name("botinit")


def _botinit() -> str:
    path = botinit_path()
    if not os.access(path, os.X_OK):
        raise LaunchError(
            errno.ENOENT,
            f"the bot launcher {path} is missing or not executable: build it with "
            "`pip install -e .` or `python setup.py build_ext --inplace`",
        )
    return str(path)


# -- the lifeline ---------------------------------------------------------

_lock = threading.Lock()
_lifeline: tuple[int, int, int] | None = None  # (owner pid, read end, write end)


def lifeline() -> int:
    """The read end of this process's lifeline pipe, for a new init to watch.

    Only this process holds the write end (close-on-exec, and closed in
    forked children), so the kernel closes it when this process dies,
    however it dies, and every init then ends its bot.
    """
    global _lifeline
    with _lock:
        if _lifeline is None or _lifeline[0] != os.getpid():
            read, write = os.pipe2(os.O_CLOEXEC)
            _lifeline = (os.getpid(), read, write)
        return _lifeline[1]


def _forget_lifeline() -> None:
    """In a forked child: the parent's lifeline is not ours to keep open."""
    global _lifeline
    if _lifeline is not None:
        for fd in _lifeline[1:]:
            try:
                os.close(fd)
            except OSError:
                pass
        _lifeline = None


os.register_at_fork(after_in_child=_forget_lifeline)


# -- choosing -------------------------------------------------------------

_unavailable: dict[int, str | None] = {}  # pid -> why namespaces cannot be had here (None: they can)
_undumpable = False


def _ids() -> tuple[int, int]:
    """The uid and gid bots run as under namespaces."""
    if os.geteuid() != 0:
        return os.geteuid(), os.getegid()
    try:
        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return NOBODY, NOBODY


def namespaces_unavailable() -> str | None:
    """Why this process cannot give bots namespaces, or None if it can.

    Found once per process by starting the init alone in new namespaces
    (about a millisecond).
    """
    pid = os.getpid()
    if pid not in _unavailable:
        uid, gid = _ids()
        try:
            launched = _start([_botinit(), "--probe", "--namespaces", "--uid", str(uid), "--gid", str(gid)], None, {})
        except LaunchError as e:
            _unavailable[pid] = e.strerror or str(e)
        else:
            for fd in (launched.stdin, launched.stdout, launched.stderr, launched.report):
                os.close(fd)
            _reap(launched.pid)
            _unavailable[pid] = None
    return _unavailable[pid]


def choose(mode: str) -> Isolation:
    """The isolation a bot started now gets under --isolation `mode`.

    Raises LaunchError for `namespaces` where they cannot be had.
    """
    if mode == RELAY:
        return Isolation(False, os.geteuid(), os.getegid(),
                         "remote: the bot plays on the machine that connected it (driver connect); "
                         "only its relay runs here, a program of ours, outside namespaces (it must reach the server)")
    if mode not in MODES:
        raise ValueError(f"isolation must be one of {', '.join(MODES)}, not {mode!r}")
    if mode != IsolationMode.NONE:
        why = namespaces_unavailable()
        if why is None:
            uid, gid = _ids()
            return Isolation(True, uid, gid, _namespaces_description(uid))
        if mode == IsolationMode.NAMESPACES:
            raise LaunchError(errno.EPERM, f"--isolation namespaces is not available here: {why}")
        return Isolation(False, os.geteuid(), os.getegid(), f"none (namespaces are not available here: {why}); " + _NONE)
    return Isolation(
        False,
        os.geteuid(),
        os.getegid(),
        "none (--isolation none); " + _NONE + ", inherits the referee's whole environment and has no limits",
    )


_NONE = "the bot runs as the referee's user and can reach the other bots' processes and pipes"


def _namespaces_description(uid: int) -> str:
    who = f"uid {uid} (nobody)" if os.geteuid() == 0 else f"your uid {uid}, with your files"
    return f"namespaces: own user, PID, mount, IPC and network namespaces; runs as {who}, no capabilities"


# -- starting -------------------------------------------------------------


def launch(argv: Sequence[str], env: Mapping[str, str], mode: str, fence: Fence | None = None) -> Launched:
    """Start `argv` under its init, isolated as `mode` says, fenced as
    `fence` says (default limits), with fresh pipes. `env` is the
    referee's environment, which the bot's is made from (`bot_environment`).

    Raises LaunchError with a readable reason if it cannot start (the
    program cannot be run, or, for `namespaces`, they are unavailable).
    Returns once the bot's program is executing.
    """
    fence = fence or Fence()
    isolation = choose(mode)
    if mode in (IsolationMode.NONE, RELAY):
        # The old behaviour, on request: the referee's environment, no limits.
        bot_env = dict(env)
        for entry in fence.env:
            name, eq, value = check_env_entry(entry).partition("=")
            if eq:
                bot_env[name] = value
        program = _program(argv[0], bot_env)
        _protect_referee()
        launched = _start([_botinit(), "--", program, *argv[1:]], isolation, bot_env)
        launched.env_names = tuple(sorted(bot_env))
        return launched
    limits = fence.limits
    home = None if isolation.namespaces else tempfile.mkdtemp(prefix="economancy-bot-")
    bot_env = bot_environment(fence.env, env, "/tmp" if isolation.namespaces else home)  # type: ignore[arg-type]
    program = _program(argv[0], bot_env)
    command = [_botinit()]
    if isolation.namespaces:
        command += ["--namespaces", "--uid", str(isolation.uid), "--gid", str(isolation.gid)]
        command += ["--scratch", str(limits.scratch)]
        # The working directory too: a bot started from /tmp/work must find it
        # (a pyenv shim, a relative path), read-only as the rest.
        for path in _kept_in_scratch([program, *argv[1:]], os.getcwd()):
            command += ["--keep", path]
        if os.geteuid() == 0:
            hidden = _hidden_directories([program, *argv[1:]], isolation.uid, isolation.gid)
            for directory, shown in hidden.items():
                command += ["--hide", directory]
                for path in shown:
                    command += ["--show", path]
            if hidden:
                opened = ", ".join(p for shown in hidden.values() for p in shown)
                isolation = replace(
                    isolation, description=isolation.description + f" (private paths it needs bound read-only: {opened})"
                )
    else:
        _protect_referee()
    try:
        group = _make_cgroup(limits)
    except OSError as e:
        _remove_home(home)
        raise LaunchError(e.errno, f"cannot make the bot's cgroup: {e.strerror}") from None
    rlimits = {"nofile": limits.files, "fsize": limits.file_size, "core": 0}
    core = None
    if group is None:
        core = _take_core()
        if core is not None:
            command += ["--cpu", str(core)]
        rlimits["data"] = limits.memory
        if isolation.namespaces:  # counted per user namespace: this bot's own processes alone
            rlimits["nproc"] = limits.processes
    else:
        command += ["--cgroup", str(group)]
    for resource, amount in rlimits.items():
        command += ["--rlimit", f"{resource}={amount}"]
    try:
        launched = _start(command + ["--", program, *argv[1:]], isolation, bot_env)
    except LaunchError as e:
        release(home, group, core)
        if e.errno in (errno.EACCES, errno.EPERM) and isolation.namespaces and os.geteuid() == 0:
            raise LaunchError(
                e.errno,
                f"{e.strerror} as uid {isolation.uid} (bots never run as root under namespace isolation:"
                " make the program and what it reads readable by that user, or use --isolation none)",
            ) from None
        raise
    launched.limits = limits
    how = limit_backend()
    if core is not None:
        how += f"; pinned to one CPU of {len(os.sched_getaffinity(0))} (the least used by our bots)"
    if not isolation.namespaces:
        how += f"; without namespaces processes are not limited and its scratch folder is {home}, removed after it"
    launched.limit_backend = how
    launched.core = core
    launched.env_names = tuple(sorted(bot_env))
    launched.cgroup = group
    launched.home = home
    return launched


def _remove_home(home: str | None) -> None:
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


def release(launched_home: str | None, group: Path | None, core: int | None = None) -> None:
    """What a bot leaves on the host once its init is reaped: its scratch
    folder (without namespaces) and its cgroup go, its CPU is free again."""
    _remove_home(launched_home)
    if group is not None:
        remove_cgroup(group)
    if core is not None:
        with _lock:
            _cores[core] = max(0, _cores.get(core, 0) - 1)


_cores: dict[int, int] = {}  # CPU -> bots of this process pinned to it now


def _take_core() -> int | None:
    """The CPU a new bot is pinned to where no CPU controller caps its share:
    the one fewest of our running bots are on, so that the bots of a game
    get a core each where there are cores enough (None on a single CPU).

    Why pin: a bot's threads then compete only with the bots on its own
    core, never with a rival thinking on another."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None
    with _lock:
        core = min(allowed, key=lambda c: (_cores.get(c, 0), c))
        _cores[core] = _cores.get(core, 0) + 1
    return core


def _program(name: str, env: Mapping[str, str]) -> str:
    """argv[0] as a path: looked up on the bot's PATH if it has no slash."""
    if "/" in name:
        return name
    found = shutil.which(name, path=env.get("PATH", os.defpath))
    if found is None:
        raise LaunchError(errno.ENOENT, f"{name}: command not found")
    return found


def _start(command: list[str], isolation: Isolation | None, env: Mapping[str, str]) -> Launched:
    """Run botinit and wait until its init reports the bot running (or why not)."""
    child_in, stdin = os.pipe2(os.O_CLOEXEC)
    stdout, child_out = os.pipe2(os.O_CLOEXEC)
    stderr, child_err = os.pipe2(os.O_CLOEXEC)
    report, child_report = os.pipe2(os.O_CLOEXEC)
    watch = lifeline()
    mine = [stdin, stdout, stderr, report]
    command[1:1] = ["--lifeline", str(watch), "--report", str(child_report)]
    try:
        try:
            helper = subprocess.Popen(
                command,
                stdin=child_in,
                stdout=child_out,
                stderr=child_err,
                pass_fds=(watch, child_report),
                env=dict(env),
                close_fds=True,
            )
        except OSError as e:
            raise LaunchError(e.errno, f"cannot run the bot launcher {command[0]}: {e.strerror}") from None
        finally:
            for fd in (child_in, child_out, child_err, child_report):
                os.close(fd)
        data, pid = _read_report(report, helper)
        messages = data.decode("ascii", "replace").splitlines()
        helper.wait()
        if pid is None or "ready" not in messages:
            if pid is not None:
                _reap(pid)
            raise _failure(messages, helper.returncode)
    except BaseException:
        for fd in mine:
            os.close(fd)
        raise
    for fd in (stdin, stdout, stderr, report):
        os.set_blocking(fd, False)
    probe = Isolation(False, 0, 0, "probe")
    return Launched(pid, stdin, stdout, stderr, report, isolation or probe, data)


def _read_report(fd: int, helper: subprocess.Popen[bytes]) -> tuple[bytes, int | None]:
    """The init's first messages ("init PID", then "ready" or "fail ..."),
    and whatever followed them in the same reads (a bot that exits at once
    may have its "exit STATUS" there too)."""
    data = b""
    deadline = time.monotonic() + _START_TIMEOUT
    poller = select.poll()  # not select.select: a busy process may hold descriptors past 1024
    poller.register(fd, select.POLLIN)
    while b"ready\n" not in data and b"fail " not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            helper.kill()
            break
        if poller.poll(max(1, math.ceil(remaining * 1000))):
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    messages = data.decode("ascii", "replace").splitlines()
    pid = next((int(m.split()[1]) for m in messages if m.startswith("init ")), None)
    return data, pid


_STAGES = {
    "exec": "",
    "clone": "cannot create the bot's namespaces",
    "uid-map": "cannot map the bot's user id",
    "gid-map": "cannot map the bot's group id",
    "setgroups-deny": "cannot map the bot's group id",
    "mount-private": "cannot make the bot's mounts private",
    "mount-proc": "cannot mount the bot's /proc",
    "loopback": "cannot set up the bot's network",
    "unshare-mount": "cannot hide private directories from the bot",
    "scratch-mount": "cannot mount the bot's scratch space",
    "scratch-mkdir": "cannot make the bot's scratch space",
    "scratch-bind": "cannot make the bot's scratch space",
    "scratch-devpts": "cannot give the bot terminals of its own",
    "scratch-keep": "cannot show the bot its program in its private /tmp",
    "cgroup": "cannot move the bot into its cgroup",
    "rlimit": "cannot set the bot's resource limits",
    "cpu": "cannot pin the bot to its CPU",
}


def _failure(messages: list[str], status: int | None) -> LaunchError:
    for message in messages:
        if message.startswith("fail "):
            _, stage, number = message.split()
            code = int(number)
            what = _STAGES.get(stage, f"cannot start the bot ({stage})")
            text = os.strerror(code)
            return LaunchError(code, f"{what}: {text}" if what else text)
    return LaunchError(errno.ECHILD, f"the bot launcher ended without starting the bot (status {status})")


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _protect_referee() -> None:
    """Without namespaces, at least keep same-user processes out of our /proc
    files (and so out of our ends of the bots' pipes)."""
    global _undumpable
    if not _undumpable:
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        except (OSError, AttributeError):
            pass
        _undumpable = True


# -- private directories a bot needs (root only) ---------------------------


def _hidden_directories(args: Sequence[str], uid: int, gid: int) -> dict[str, list[str]]:
    """{directory uid/gid cannot search: [its children on the way to a path
    the bot needs]}, outermost first: what botinit covers and binds back.

    The paths the bot needs are its program (through symbolic links, and a
    script's #! interpreter) and every argument that names an existing file.
    """
    needed: list[str] = []
    for i, arg in enumerate(args):
        if i > 0 and not os.path.exists(arg):
            continue
        path = os.path.abspath(arg)
        needed += [*_link_chain(path), os.path.realpath(path)]
        if i == 0:
            needed += _interpreter(path)
    hidden: dict[str, list[str]] = {}
    for path in needed:
        parts = Path(path).parts
        for depth in range(1, len(parts) - 1):
            directory = os.path.join(*parts[: depth + 1])
            try:
                info = os.stat(directory)
            except OSError:
                break
            if not _searchable(info, uid, gid):
                child = os.path.join(directory, parts[depth + 1])
                shown = hidden.setdefault(directory, [])
                if child not in shown:
                    shown.append(child)
    return dict(sorted(hidden.items(), key=lambda item: item[0].count("/")))


_MAX_LINKS = 40  # as the kernel's MAXSYMLINKS
SCRATCH_PLACES = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
"""The world-writable places each bot under namespaces has its own of."""


def _kept_in_scratch(args: Sequence[str], cwd: str | None = None) -> list[str]:
    """The entries of the host's scratch places that the bot's program (its
    interpreter, through links), its existing arguments and its working
    directory `cwd` lie in: the bot's private /tmp would hide them, so
    botinit binds each back read-only. The whole top entry (/tmp/mybot,
    not /tmp/mybot/bot.js): a program's neighbours (modules, a jar's
    classes) come with it."""
    kept: list[str] = []
    for i, arg in enumerate([*args, *([cwd] if cwd else [])]):
        if i > 0 and not os.path.exists(arg):
            continue
        path = os.path.abspath(arg)
        paths = [*_link_chain(path), os.path.realpath(path)] + (_interpreter(path) if i == 0 else [])
        for candidate in paths:
            for place in SCRATCH_PLACES:
                if candidate.startswith(place + "/"):
                    top = os.path.join(place, candidate[len(place) + 1 :].split("/")[0])
                    if top not in kept and os.path.lexists(top):
                        kept.append(top)
    return kept


def _link_chain(path: str) -> list[str]:
    """`path` and every path its symbolic links pass through on the way to
    the file (/tmp/work/.venv/bin/python -> /tmp/clone/.venv/bin/python ->
    /usr/bin/python3.11): each hop must exist inside the bot's namespaces,
    not only the first and the last."""
    chain = [path]
    for _ in range(_MAX_LINKS):
        parts = Path(path).parts
        for depth in range(1, len(parts)):
            prefix = os.path.join(*parts[: depth + 1])
            if os.path.islink(prefix):
                target = os.readlink(prefix)
                path = os.path.normpath(os.path.join(os.path.dirname(prefix), target, *parts[depth + 1:]))
                chain.append(path)
                break
        else:
            return chain
    return chain


def _interpreter(path: str) -> list[str]:
    """A script's #! interpreter (and what `env` would run), as real paths."""
    try:
        with open(path, "rb") as f:
            head = f.read(_SHEBANG)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return []
    found = [words[0], os.path.realpath(words[0])]
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        program = shutil.which(words[1])
        if program:
            found += [program, os.path.realpath(program)]
    return found


def _searchable(info: os.stat_result, uid: int, gid: int) -> bool:
    """Whether uid/gid (with no other groups) may search this directory."""
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IXUSR)
    if info.st_gid == gid:
        return bool(info.st_mode & stat.S_IXGRP)
    return bool(info.st_mode & stat.S_IXOTH)
