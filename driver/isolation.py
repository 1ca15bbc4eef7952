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
"""

from __future__ import annotations

import ctypes
import errno
import math
import os
import pwd
import select
import shutil
import stat
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MODES",
    "LaunchError",
    "Launched",
    "Isolation",
    "botinit_path",
    "choose",
    "launch",
    "namespaces_unavailable",
    "lifeline",
]

MODES = ("auto", "namespaces", "none")
"""The values of --isolation."""

NOBODY = 65534
"""uid and gid bots run as when the referee is root (nobody/nogroup on Debian)."""

_START_TIMEOUT = 60.0  # seconds for the init to report; generous: the machine may be loaded
_PR_SET_DUMPABLE = 4
_SHEBANG = 256  # bytes of a script read to find its interpreter


class LaunchError(OSError):
    """A bot could not be started; `strerror` says why in words."""


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
    if mode not in MODES:
        raise ValueError(f"isolation must be one of {', '.join(MODES)}, not {mode!r}")
    if mode != "none":
        why = namespaces_unavailable()
        if why is None:
            uid, gid = _ids()
            return Isolation(True, uid, gid, _namespaces_description(uid))
        if mode == "namespaces":
            raise LaunchError(errno.EPERM, f"--isolation namespaces is not available here: {why}")
        return Isolation(False, os.geteuid(), os.getegid(), f"none (namespaces are not available here: {why}); " + _NONE)
    return Isolation(False, os.geteuid(), os.getegid(), "none (--isolation none); " + _NONE)


_NONE = "the bot runs as the referee's user and can reach the other bots' processes and pipes"


def _namespaces_description(uid: int) -> str:
    who = f"uid {uid} (nobody)" if os.geteuid() == 0 else f"your uid {uid}, with your files"
    return f"namespaces: own user, PID, mount, IPC and network namespaces; runs as {who}, no capabilities"


# -- starting -------------------------------------------------------------


def launch(argv: Sequence[str], env: Mapping[str, str], mode: str) -> Launched:
    """Start `argv` under its init, isolated as `mode` says, with fresh pipes.

    Raises LaunchError with a readable reason if it cannot start (the
    program cannot be run, or, for `namespaces`, they are unavailable).
    Returns once the bot's program is executing.
    """
    isolation = choose(mode)
    program = _program(argv[0], env)
    command = [_botinit()]
    if isolation.namespaces:
        command += ["--namespaces", "--uid", str(isolation.uid), "--gid", str(isolation.gid)]
        if os.geteuid() == 0:
            hidden = _hidden_directories([program, *argv[1:]], isolation.uid, isolation.gid)
            for directory, shown in hidden.items():
                command += ["--hide", directory]
                for path in shown:
                    command += ["--show", path]
            if hidden:
                opened = ", ".join(p for shown in hidden.values() for p in shown)
                isolation = Isolation(
                    True,
                    isolation.uid,
                    isolation.gid,
                    isolation.description + f" (private paths it needs bound read-only: {opened})",
                )
    else:
        _protect_referee()
    try:
        launched = _start(command + ["--", program, *argv[1:]], isolation, env)
    except LaunchError as e:
        if e.errno in (errno.EACCES, errno.EPERM) and isolation.namespaces and os.geteuid() == 0:
            raise LaunchError(
                e.errno,
                f"{e.strerror} as uid {isolation.uid} (bots never run as root under namespace isolation:"
                " make the program and what it reads readable by that user, or use --isolation none)",
            ) from None
        raise
    return launched


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
        needed += [path, os.path.realpath(path)]
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
