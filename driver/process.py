"""Bot processes: spawn, talk one line at a time, and clean up completely.

A game's bots share one selector (`BotGroup`), so while the referee waits
for one bot, every other bot's standard error is still drained and no
bot can stall the game by filling a pipe. All pipes are non-blocking and
read with `os.read`: a bot can send a line of any length or none at all
without costing more than `line_limit` bytes of memory or the per-move
timeout. A bot's exit is seen at once through a pidfd, not at the next
timeout.

Each bot runs in its own session (and process group), carries a token
in its environment, and the driver makes itself a child subreaper, so
that every descendant of a bot, even one that escaped with setsid and
double-forked, is reparented to the driver and can be found, killed and
reaped when the game ends.
"""

from __future__ import annotations

import ctypes
import enum
import errno
import os
import selectors
import signal
import subprocess
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "LINE_LIMIT",
    "STDERR_LIMIT",
    "BotStartError",
    "ReplyKind",
    "Reply",
    "BotProcess",
    "BotGroup",
    "become_subreaper",
    "kill_started_bots",
]

LINE_LIMIT = 1 << 20
"""Longest answer line accepted (bytes, newline excluded)."""
STDERR_LIMIT = 64 << 10
"""How much of each bot's standard error is kept (the most recent bytes)."""
UNREAD_LIMIT = 4 * LINE_LIMIT
"""Most unread output (complete lines nobody asked for) a bot may pile up."""
TOKEN_VARIABLE = "ECONOMANCY_BOT_TOKEN"
"""Environment variable marking a bot's processes, so its descendants can be found."""

_CHUNK = 1 << 16
_CHUNKS_PER_WAKEUP = 16  # a bot that floods a pipe cannot hold the loop longer than this


def _drain(fd: int, take: Callable[[bytes], None], chunks: int = _CHUNKS_PER_WAKEUP) -> bool:
    """Hand what `fd` holds now to `take`, chunk by chunk; True at end of file.

    Bounded per call, so a bot writing without pause cannot starve the other
    pipes: the selector wakes us again for the rest.
    """
    for _ in range(chunks):
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            return True
        take(data)
        if len(data) < _CHUNK:
            return False
    return False
_KEEP_OF_LONG_LINE = 256
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux only).

    Without it, a bot's grandchild that survives its parent is reparented
    to init, out of our reach. Idempotent; returns whether it is in effect.
    """
    global _subreaper
    if _subreaper is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


class BotStartError(OSError):
    """The bot's program could not be started at all; `seat` is its index in
    the group being spawned."""

    seat: int = 0


class ReplyKind(enum.Enum):
    LINE = "line"
    TIMEOUT = "timeout"
    TOO_LONG = "too long"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Reply:
    """What came back from a bot for one request: a line, or why not.

    `line` is the answer without its newline (LINE), or the start of an
    over-long one (TOO_LONG); `detail` says in words what went wrong.
    """

    kind: ReplyKind
    line: bytes = b""
    detail: str = ""


class BotProcess:
    """One running bot: its pipes, its buffered output and its kept stderr.

    Not used alone: a `BotGroup` drives the I/O of all bots of a game.
    """

    def __init__(
        self,
        argv: Sequence[str],
        name: str,
        *,
        line_limit: int = LINE_LIMIT,
        stderr_limit: int = STDERR_LIMIT,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.line_limit = line_limit
        self.stderr_limit = stderr_limit
        self.token = uuid.uuid4().hex
        become_subreaper()
        child_env = dict(os.environ if env is None else env)
        child_env[TOKEN_VARIABLE] = self.token
        try:
            self.popen = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,
                env=child_env,
            )
        except OSError as e:
            hint = " (a script needs a #! line)" if e.errno == errno.ENOEXEC else ""
            message = f"cannot start bot {name!r} ({' '.join(argv)}): {e.strerror or e}{hint}"
            raise BotStartError(e.errno, message) from e
        self.pid = self.popen.pid
        _started.add(self)
        assert self.popen.stdin and self.popen.stdout and self.popen.stderr
        self.stdin_fd: int | None = self.popen.stdin.fileno()
        self.stdout_fd: int | None = self.popen.stdout.fileno()
        self.stderr_fd: int | None = self.popen.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        try:
            self.pidfd: int | None = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self.pidfd = None
        self._out = bytearray()  # unsent bytes for stdin
        self._buf = bytearray()  # received stdout not yet taken
        self._discarding = False  # inside an over-long line: drop until its newline
        self._too_long: str | None = None
        self._too_long_start = b""  # the first bytes of the over-long line
        self._stdin_broken = False
        self.awaiting = 0  # requests sent whose answer has not been taken yet
        self.answered = 0  # answer lines taken: 0 until the bot has started up and answered once
        self.stdout_eof = False
        self.stderr_eof = False
        self.exited = False
        self.stderr = bytearray()
        self.stderr_dropped = 0

    # -- status ------------------------------------------------------------

    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal), None while running.

        Peeks without reaping: the zombie keeps the pid, and so the process
        group id, reserved until `BotGroup.close` has killed the group.
        """
        if self.popen.returncode is not None:
            return self.popen.returncode
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return self.popen.poll()
        if info is None:
            return None
        if info.si_code == os.CLD_EXITED:
            return info.si_status
        return -info.si_status

    def exit_description(self, wait: float = 0.0) -> str:
        """How the process ended, or "still running" (waits up to `wait` s for it)."""
        deadline = time.monotonic() + wait
        code = self.returncode()
        while code is None and time.monotonic() < deadline:
            time.sleep(0.002)
            code = self.returncode()
        if code is None:
            return "still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    @property
    def reusable(self) -> bool:
        """Whether this bot can start another game as it is: alive, both pipes
        open, no answer still owed (a bot that timed out may answer late, into
        the next game) and no unread output."""
        return (
            not self.exited
            and not self.stdout_eof
            and not self._stdin_broken
            and self._too_long is None
            and self.awaiting <= 0
            and not self._buf.strip()
            and not self._out
            and self.stdin_fd is not None
            and self.returncode() is None
        )

    def kept_stderr(self) -> bytes:
        """The kept tail of standard error, with a note of what was dropped before it."""
        if self.stderr_dropped:
            return b"[... %d bytes of standard error dropped ...]\n" % self.stderr_dropped + bytes(self.stderr)
        return bytes(self.stderr)

    # -- I/O callbacks (called by BotGroup) --------------------------------

    def _write(self) -> None:
        if self.stdin_fd is None or not self._out:
            return
        try:
            n = os.write(self.stdin_fd, self._out)
        except BlockingIOError:
            return
        except OSError:  # EPIPE: the bot closed its standard input or died
            self._stdin_broken = True
            self._out.clear()
            return
        del self._out[:n]

    def _read_stdout(self, chunks: int = _CHUNKS_PER_WAKEUP) -> None:
        if self.stdout_fd is not None and _drain(self.stdout_fd, self._take_in, chunks):
            self.stdout_eof = True

    def _take_in(self, data: bytes) -> None:
        if self._discarding:
            nl = data.find(b"\n")
            if nl < 0:
                return
            self._discarding = False
            data = data[nl + 1 :]
        buf = self._buf
        buf += data
        last_nl = buf.rfind(b"\n")
        if len(buf) - last_nl - 1 > self.line_limit:
            # The unfinished line is already too long: report it now, drop the rest.
            self._too_long_start = bytes(buf[last_nl + 1 : last_nl + 1 + _KEEP_OF_LONG_LINE])
            del buf[last_nl + 1 :]
            self._discarding = True
            if self._too_long is None:
                self._too_long = f"answer line longer than {self.line_limit} bytes"
        elif len(buf) > UNREAD_LIMIT and self._too_long is None:
            self._too_long = f"more than {UNREAD_LIMIT} bytes of unrequested output"
            buf.clear()

    def _read_stderr(self) -> None:
        if self.stderr_fd is not None and _drain(self.stderr_fd, self._keep_stderr):
            self.stderr_eof = True

    def _keep_stderr(self, data: bytes) -> None:
        kept = self.stderr
        kept += data
        excess = len(kept) - self.stderr_limit
        if excess > 0:
            del kept[:excess]
            self.stderr_dropped += excess

    # -- protocol ----------------------------------------------------------

    def take_reply(self) -> Reply | None:
        """The next answer line if one is complete, a closed/too-long reply, or None."""
        buf = self._buf
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line = bytes(buf[:nl])
            del buf[: nl + 1]
            if len(line) > self.line_limit:
                self.awaiting -= 1
                return Reply(
                    ReplyKind.TOO_LONG,
                    line[:_KEEP_OF_LONG_LINE],
                    f"answer line longer than {self.line_limit} bytes",
                )
            if line.strip():
                self.awaiting -= 1
                self.answered += 1
                return Reply(ReplyKind.LINE, line)
        if self._too_long is not None:
            return Reply(ReplyKind.TOO_LONG, self._too_long_start, self._too_long)
        if self.exited or self.stdout_eof:
            detail = self.exit_description(wait=0.05)
            if detail == "still running":
                detail = "closed its standard output"
            return Reply(ReplyKind.CLOSED, detail=detail)
        if self._stdin_broken:
            return Reply(ReplyKind.CLOSED, detail="closed its standard input")
        return None


class BotGroup:
    """The bots of one game and the selector that serves all of their pipes."""

    def __init__(self, bots: Sequence[BotProcess]) -> None:
        self.bots = list(bots)
        self.selector = selectors.DefaultSelector()
        self._closed = False
        self._seen: dict[int, int] = {}  # descendant pid -> start time
        for bot in self.bots:
            for fd, handler in (
                (bot.stdout_fd, bot._read_stdout),
                (bot.stderr_fd, bot._read_stderr),
                (bot.pidfd, lambda b=bot: self._on_exit(b)),
            ):
                if fd is not None and not (fd == bot.stdout_fd and bot.stdout_eof):
                    self.selector.register(fd, selectors.EVENT_READ, (bot, handler))
            if bot._out and bot.stdin_fd is not None:  # left unsent by a detached group
                self.selector.register(bot.stdin_fd, selectors.EVENT_WRITE, (bot, bot._write))

    @classmethod
    def spawn(cls, commands: Sequence[tuple[Sequence[str], str]], **options: int) -> BotGroup:
        """Start every (argv, name); if one cannot start, stop those already started."""
        bots: list[BotProcess] = []
        try:
            for argv, name in commands:
                bots.append(BotProcess(argv, name, **options))
        except BaseException as e:
            if isinstance(e, BotStartError):
                e.seat = len(bots)
            BotGroup(bots).close(exit_grace=0.0, term_grace=0.0)
            raise
        return cls(bots)

    # -- event loop --------------------------------------------------------

    def _on_exit(self, bot: BotProcess) -> None:
        # An answer written just before exiting still counts: read all that a
        # well-behaved bot can have left in the pipe, not one wakeup's worth.
        bot._read_stdout(chunks=(UNREAD_LIMIT + LINE_LIMIT) // _CHUNK + 1)
        bot.exited = True
        if bot.pidfd is not None:
            self.selector.unregister(bot.pidfd)
            os.close(bot.pidfd)
            bot.pidfd = None

    def _poll(self, timeout: float) -> None:
        for key, events in self.selector.select(max(timeout, 0.0)):
            bot, handler = key.data
            if events & selectors.EVENT_WRITE and key.fd == bot.stdin_fd:
                bot._write()
                if not bot._out:
                    self.selector.unregister(key.fd)
                continue
            handler()
            # A pipe at EOF stays readable: stop watching it.
            if key.fd == bot.stdout_fd and bot.stdout_eof:
                self.selector.unregister(key.fd)
            elif key.fd == bot.stderr_fd and bot.stderr_eof:
                self.selector.unregister(key.fd)
                bot.stderr_fd = None

    def send(self, seat: int, line: bytes, request: bool = True) -> None:
        """Queue one line (newline added) for a bot and write what the pipe
        takes now. `request`: the line asks for an answer (not a final state)."""
        bot = self.bots[seat]
        if request:
            bot.awaiting += 1
        if bot.stdin_fd is None or bot._stdin_broken:
            return
        had_pending = bool(bot._out)
        bot._out += line
        bot._out += b"\n"
        if not had_pending:
            bot._write()
            if bot._out:
                self.selector.register(bot.stdin_fd, selectors.EVENT_WRITE, (bot, bot._write))

    def replies(self, seats: Iterable[int], timeout: float | Mapping[int, float]) -> Iterator[tuple[int, Reply]]:
        """Each seat's next reply as soon as it is known; TIMEOUT for those
        still silent `timeout` seconds from now (one limit for all, or one
        per seat). The caller may stop early."""
        start = time.monotonic()
        waiting = sorted(seats)
        limits = timeout if isinstance(timeout, Mapping) else dict.fromkeys(waiting, timeout)
        while waiting:
            still = []
            for seat in waiting:
                reply = self.bots[seat].take_reply()
                if reply is None:
                    still.append(seat)
                else:
                    yield seat, reply
            now = time.monotonic()
            waiting = []
            for seat in still:
                if now - start >= limits[seat]:
                    yield seat, Reply(ReplyKind.TIMEOUT, detail=f"no answer within {limits[seat]:g} s")
                else:
                    waiting.append(seat)
            if not waiting:
                return
            self._poll(min(start + limits[seat] for seat in waiting) - now)

    # -- shutdown ----------------------------------------------------------

    def detach(self, flush: float = 0.1) -> list[BotProcess]:
        """Stop serving the bots without ending them, so that another group
        can take them over for another game (bots that play game after game).

        Output queued for them is flushed for up to `flush` seconds (the rest
        stays queued for the next group), and what they have already written
        is read, so that `BotProcess.reusable` tells the truth. The caller
        owns the bots from now on and must close them in the end.
        """
        if self._closed:
            return self.bots
        self._closed = True
        deadline = time.monotonic() + flush
        while any(b._out and b.stdin_fd is not None and not b._stdin_broken for b in self.bots):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._poll(remaining)
        self._poll(0)
        self.selector.close()
        return self.bots

    def close(self, exit_grace: float = 0.5, term_grace: float = 0.5) -> None:
        """End every bot and everything it started, and reap them all.

        Each bot gets its pending output flushed and its standard input
        closed, then `exit_grace` seconds to exit by itself; then SIGTERM
        for it and its descendants, `term_grace` seconds, and SIGKILL.
        Returns at once for bots that exit promptly.
        """
        if self._closed:
            return
        self._closed = True
        try:
            self._flush_and_close_stdin(min(exit_grace, 0.1))
            self._wait_exits(exit_grace)
            left = self._descendants()
            if left or any(b.returncode() is None for b in self.bots):
                self._signal_all(signal.SIGTERM, left)
                self._wait_exits(term_grace)
                self._kill_and_reap()
            for bot in self.bots:
                if bot.returncode() is not None:
                    bot.popen.wait()  # reaps at once
            self._drain_stderr(0.1)
        finally:
            self._release()

    def _flush_and_close_stdin(self, grace: float) -> None:
        deadline = time.monotonic() + grace
        while any(b._out and b.stdin_fd is not None and not b._stdin_broken for b in self.bots):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._poll(remaining)
        for bot in self.bots:
            if bot.stdin_fd is not None:
                if bot._out:
                    self.selector.unregister(bot.stdin_fd)
                    bot._out.clear()
                bot.stdin_fd = None
                assert bot.popen.stdin
                try:
                    bot.popen.stdin.close()
                except OSError:
                    pass

    def _wait_exits(self, grace: float) -> None:
        """Serve pipes until every bot's main process has exited, at most `grace` s."""
        deadline = time.monotonic() + grace
        while True:
            alive = [b for b in self.bots if not b.exited and b.returncode() is None]
            if not alive:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if any(b.pidfd is None for b in alive):
                remaining = min(remaining, 0.01)  # no pidfd: poll the exit status
            self._poll(remaining)

    def _signal_all(self, sig: int, descendants: dict[int, int]) -> None:
        # The bots are not reaped yet, so their pids (and group ids) are still ours.
        for bot in self.bots:
            _kill(bot.pid, sig)
            _killpg(bot.pid, sig)
        for pid in descendants:
            _kill(pid, sig)

    def _kill_and_reap(self) -> None:
        """SIGKILL whatever is left, reap the bots and their reparented
        descendants, until no process of any bot remains (at most ~2 s)."""
        deadline = time.monotonic() + 2.0
        self._signal_all(signal.SIGKILL, self._descendants())
        me = os.getpid()
        # Bots stay unreaped until their descendants are gone: a zombie keeps
        # its pid, so a group id we match on cannot be someone else's yet.
        while True:
            left = self._descendants()
            if not left or time.monotonic() > deadline:
                break
            for pid, ppid in left.items():
                _kill(pid, signal.SIGKILL)
                if ppid == me:
                    try:
                        os.waitpid(pid, os.WNOHANG)
                    except ChildProcessError:
                        pass
            time.sleep(0.001)
        for bot in self.bots:
            try:
                bot.popen.wait(max(deadline - time.monotonic(), 0.05))
            except subprocess.TimeoutExpired:
                pass

    def _descendants(self) -> dict[int, int]:
        """Live or zombie processes (pid -> ppid) started by our bots, other
        than the bots themselves (see `_descendants_of`)."""
        return _descendants_of(self.bots, self._seen)

    def _drain_stderr(self, grace: float) -> None:
        deadline = time.monotonic() + grace
        while any(b.stderr_fd is not None for b in self.bots):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            self._poll(remaining)

    def _release(self) -> None:
        for bot in self.bots:
            if bot.pidfd is not None:
                os.close(bot.pidfd)
                bot.pidfd = None
            for stream in (bot.popen.stdin, bot.popen.stdout, bot.popen.stderr):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
            bot.stdin_fd = bot.stdout_fd = bot.stderr_fd = None
        self.selector.close()

    def __enter__(self) -> BotGroup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _descendants_of(bots: Sequence[BotProcess], seen: dict[int, int]) -> dict[int, int]:
    """Live or zombie processes (pid -> ppid) started by `bots`, other than
    the bots themselves: members of their sessions or groups, their
    descendants, our reparented orphans carrying a bot's token, and any
    process in `seen` (pid -> start time, updated here: a zombie's
    environment can no longer be read, but it still has to be reaped)."""
    bot_pids = {b.pid for b in bots}
    tokens = {b.token.encode() for b in bots}
    table = _process_table()
    me = os.getpid()
    children: dict[int, list[int]] = {}
    for pid, (ppid, *_rest) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    stack = [p for p in bot_pids if p in table]
    for pid, (ppid, pgrp, sid, start) in table.items():
        if pid in bot_pids:
            continue
        if (
            seen.get(pid) == start
            or pgrp in bot_pids
            or sid in bot_pids
            or (ppid == me and _environ_has_token(pid, tokens))
        ):
            found.add(pid)
            stack.append(pid)
    while stack:  # and everything below them
        for child in children.get(stack.pop(), ()):
            if child not in found and child not in bot_pids:
                found.add(child)
                stack.append(child)
    for pid in found:
        seen[pid] = table[pid][3]
    return {pid: table[pid][0] for pid in found}


_started: weakref.WeakSet[BotProcess] = weakref.WeakSet()
"""Every bot this process started: what `kill_started_bots` ends."""


def kill_started_bots() -> None:
    """SIGKILL every bot this process started and has not reaped, and all
    their processes, without waiting.

    For a process that must end now (a tournament worker told to stop):
    closing each game's bots in turn would wait out their grace periods.
    Reaped bots are skipped, since their pid may now be another process's.
    """
    bots = [b for b in list(_started) if b.popen.returncode is None]
    for pid in _descendants_of(bots, {}):
        _kill(pid, signal.SIGKILL)
    for bot in bots:
        _kill(bot.pid, signal.SIGKILL)
        _killpg(bot.pid, signal.SIGKILL)


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _process_table() -> dict[int, tuple[int, int, int, int]]:
    """pid -> (ppid, process group, session, start time) of every process we can see."""
    table: dict[int, tuple[int, int, int, int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: split after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 20:
            table[int(entry)] = (int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
    return table


def _environ_has_token(pid: int, tokens: set[bytes]) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
    except OSError:
        return False
    prefix = TOKEN_VARIABLE.encode() + b"="
    return any(prefix + token in environ for token in tokens)
